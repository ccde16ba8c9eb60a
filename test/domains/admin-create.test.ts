/**
 * `npm run admin:create` (issue 15): run as a real process against an embedded database of its
 * own; the password comes from stdin (never argv) and is stored as a hash.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword, verifyPassword } from '../../src/auth/credentials.ts';
import { openDatabase } from '../../src/db/database.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-admin-create-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
// the first open migrates the new database (slow on a busy machine); the script's runs reuse it
beforeAll(async () => void (await (await openDatabase({ dataDir })).close()), 300_000);
/** Each test starts one to three processes that open the database. */
const SLOW = 180_000;

/** Runs the script as `npm run admin:create` does, with `stdin` piped in (closed at once). */
function cli(
  args: string[],
  stdin = '',
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/admin-create.ts', ...args], {
      env: { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

const userOf = async (email: string) => {
  const db = await openDatabase({ dataDir });
  try {
    return await db.prisma.user.findUnique({ where: { email } });
  } finally {
    await db.close();
  }
};

describe('npm run admin:create', () => {
  it(
    'creates an admin with the password read from stdin, stored as a hash',
    async () => {
      const r = await cli(
        ['--email', ' New.Admin@Example.com ', '--password-stdin'],
        'long enough pw\n',
      );
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({
        email: 'new.admin@example.com',
        created: true,
        was_admin: false,
      });
      const user = await userOf('new.admin@example.com');
      expect(user?.isAdmin).toBe(true);
      expect(user?.passwordHash).not.toContain('long enough pw');
      expect(await verifyPassword(user!.passwordHash, 'long enough pw')).toBe(true);
    },
    SLOW,
  );

  it(
    'makes an existing account an admin and leaves its password alone',
    async () => {
      const db = await openDatabase({ dataDir });
      const passwordHash = await hashPassword('original password');
      await db.prisma.user.create({ data: { email: 'member@example.com', passwordHash } });
      await db.close();
      const r = await cli(['--email', 'member@example.com', '--password-stdin'], 'another one\n');
      expect(r.code, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ created: false, was_admin: false });
      expect(r.stderr).toMatch(/password is unchanged/);
      const user = await userOf('member@example.com');
      expect(user).toMatchObject({ isAdmin: true, passwordHash });
    },
    SLOW,
  );

  it(
    'refuses without an address (2), without a password source off a terminal (2), and a short password (1)',
    async () => {
      expect((await cli([])).code).toBe(2);
      expect((await cli(['--email', 'not-an-address'])).code).toBe(2);
      const noSource = await cli(['--email', 'nopass@example.com']);
      expect(noSource.code).toBe(2);
      expect(noSource.stderr).toMatch(/--password-stdin/);
      const short = await cli(['--email', 'short@example.com', '--password-stdin'], 'short\n');
      expect(short.code).toBe(1);
      expect(await userOf('nopass@example.com')).toBeNull();
      expect(await userOf('short@example.com')).toBeNull();
    },
    SLOW,
  );
});
