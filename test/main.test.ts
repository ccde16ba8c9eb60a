import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-main-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
/** `npm start`'s node arguments, from package.json */
const startArgs = (
  JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  }
).scripts.start
  .split(/\s+/)
  .slice(1);

/** Starts `npm start`'s command on an embedded database and waits for /readyz. */
async function start(
  port: number,
): Promise<{ child: ReturnType<typeof spawn>; output: () => string }> {
  const child = spawn(process.execPath, startArgs, {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      MCP_OAUTH_PORT: String(port + 1),
      MCP_OAUTH_HOST: '',
      MCP_PUBLIC_URL: '',
      LOG_LEVEL: 'info',
      DATABASE_URL: '',
    },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  for (let i = 0; i < 600; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { child, output: () => out };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`server did not start:\n${out}`);
}

describe('the server process', () => {
  it('listens on PORT and HOST, and shuts down cleanly on SIGTERM so the next start reopens the data', async () => {
    const port = 20000 + Math.floor(Math.random() * 5000);
    const first = await start(port);
    // two listeners: the app on PORT, the OAuth MCP host on MCP_OAUTH_PORT (HOST by default)
    const listening = first
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"listening"'));
    expect(listening).toHaveLength(2);
    expect(listening[0]).toContain(`"url":"http://127.0.0.1:${port}"`);
    expect(listening[1]).toContain(`"url":"http://127.0.0.1:${port + 1}"`);
    expect(listening[1]).toContain(`"mcp":"http://127.0.0.1:${port + 1}/mcp"`);
    const mcp = await fetch(`http://127.0.0.1:${port + 1}/mcp`, { method: 'POST' });
    expect(mcp.status).toBe(401);
    expect(mcp.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="http://127.0.0.1:${port + 1}/.well-known/oauth-protected-resource/mcp"`,
    );
    const exited = new Promise<number | null>((r) => first.child.once('exit', (code) => r(code)));
    first.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(first.output()).toContain('"msg":"shutting down"');

    const second = await start(port);
    expect(second.output()).not.toContain('migrations applied');
    const done = new Promise((r) => second.child.once('exit', r));
    second.child.kill('SIGINT');
    await done;
  }, 90_000);
});
