import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';

const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs the CLI as `npm run import:apple-health` does, on an embedded database of its own. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'scripts/import-apple-health.ts', ...args],
      {
        env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code: number; stdout: string; stderr: string };
    return { code: err.code, stdout: err.stdout, stderr: err.stderr };
  }
}

describe('npm run import:apple-health (issue 4)', () => {
  it('imports an export zip for the account named by --email, prints progress and a summary; refuses unknown accounts', async () => {
    const db = await openDatabase({ dataDir });
    await db.prisma.user.create({ data: { email: 'cli@example.com' } });
    await db.close();

    const usage = await cli('test/fixtures/apple_health/export6s3sample.xml');
    expect(usage.code).toBe(2);
    const unknown = await cli(
      '--email',
      'nobody@example.com',
      'test/fixtures/apple_health/export6s3sample.xml',
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/no account with the email/);

    const ok = await cli(
      '--email',
      ' CLI@example.com ',
      'test/fixtures/apple_health/healthkit_to_sqlite_export.zip',
    );
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/read 3 records \(2 imported types, 1 other; 5 archived\)/);
    expect(JSON.parse(ok.stdout)).toMatchObject({
      seen: 3,
      metrics: { inserted: 1 },
      workouts: { inserted: 1 },
      archive: { workouts: 1, routePoints: 3, missingRouteFiles: 0 },
    });
    const again = await cli(
      '--email',
      'cli@example.com',
      'test/fixtures/apple_health/healthkit_to_sqlite_export.zip',
    );
    expect(JSON.parse(again.stdout)).toMatchObject({
      metrics: { inserted: 0, skipped: 1 },
      workouts: { inserted: 0, skipped: 1 },
      archive: { records: 0, workouts: 0, routePoints: 0 },
    });
    // four CLI processes (tsx start, embedded database open each): 60 s was too short on a loaded machine
  }, 180_000);
});
