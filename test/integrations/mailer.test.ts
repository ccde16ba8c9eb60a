/**
 * The development outbox: without SMTP_URL, an emailed sign-in code is written as an .eml file
 * under DATA_DIR/outbox (issue 3), so a self-hoster can sign in without a mail server.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../harness/app.ts';
import { fromNewIp, rest } from '../harness/clients.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-outbox-'));
const app = await startTestApp({ DATA_DIR: dataDir });

describe('development outbox (no SMTP_URL)', () => {
  it('writes the sign-in email as an .eml file under DATA_DIR/outbox, and the code in it signs in', async () => {
    expect(app.config.SMTP_URL).toBeUndefined();
    const email = 'outbox@example.com';
    expect(
      (await rest(app, 'POST', '/api/auth/email/start', { body: { email }, headers: fromNewIp() }))
        .status,
    ).toBe(200);
    const outbox = path.join(dataDir, 'outbox');
    const files = readdirSync(outbox).filter((f) => f.endsWith('.eml'));
    expect(files).toHaveLength(1);
    const eml = readFileSync(path.join(outbox, files[0]), 'utf8');
    expect(eml).toMatch(/^To: outbox@example\.com$/m);
    expect(eml).toMatch(/^Subject: Your sign-in code: \d{6}$/m);
    const code = /^Subject: Your sign-in code: (\d{6})$/m.exec(eml)![1];
    const verified = await rest(app, 'POST', '/api/auth/email/verify', { body: { email, code } });
    expect(verified.status).toBe(200);
    expect(verified.body.is_new_user).toBe(true);
  });
});
