/**
 * The server under benchmark: a child process started exactly as `npm start` starts it, on an
 * embedded database in a temp dir (or BENCH_DATABASE_URL), on a random port, with `env` on top.
 * Pass `dataDir` to serve an existing directory again (it is then the caller's to remove).
 * BENCH_NODE_ARGS adds node flags to the server only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`,
 * which NODE_OPTIONS refuses).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

const root = path.resolve(import.meta.dirname, '..');

/** The node arguments of `npm start` (package.json), so that benchmarks run the server as it runs. */
export function startArgs(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    scripts: { start: string };
  };
  const [node, ...args] = pkg.scripts.start.split(/\s+/);
  if (node !== 'node') throw new Error(`npm start is not a node command: ${pkg.scripts.start}`);
  return args;
}

export interface BenchServer {
  /** http://127.0.0.1:<port> */
  base: string;
  /** the server's DATA_DIR (removed by stop unless the caller gave it) */
  dataDir: string;
  /** the server process (for /proc/<pid>/status) */
  pid: number;
  /** SIGTERM, wait for the exit, remove the temp dir */
  stop(): Promise<void>;
}

/** Starts the server and resolves once GET /readyz answers 200. */
export async function startBenchServer(
  env: Record<string, string> = {},
  options: { dataDir?: string } = {},
): Promise<BenchServer> {
  const port = 19000 + Math.floor(Math.random() * 1000);
  const base = `http://127.0.0.1:${port}`;
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'hdp-bench-'));
  const extra = process.env.BENCH_NODE_ARGS?.split(/\s+/).filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...extra, ...startArgs()], {
    cwd: root,
    env: {
      ...process.env,
      DATA_DIR: dataDir,
      PORT: String(port),
      // the OAuth MCP host's own listener, next to it (never the default 8001 of a running server)
      MCP_OAUTH_PORT: String(port + 1),
      LOG_LEVEL: 'warn',
      DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '',
      // no background catalogue import skewing the figures (bench:foods turns it on)
      FOODS_AUTOLOAD: 'off',
      ...env,
    },
    stdio: ['ignore', process.env.BENCH_SERVER_LOG ? 'inherit' : 'ignore', 'inherit'],
  });
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  for (let i = 0; ; i++) {
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    if (i > 600 || child.exitCode !== null) {
      await stop();
      throw new Error('server not ready');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { base, dataDir, pid: child.pid!, stop };
}

/** Sends a request to `base` + `pathname` and parses the JSON answer; a non-2xx answer throws. */
export async function fetchJson(
  base: string,
  pathname: string,
  init: RequestInit = {},
): Promise<any> {
  const res = await fetch(base + pathname, init);
  if (!res.ok) throw new Error(`${pathname}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  return res.json();
}

/** Registers `email` through the API (password "benchmark password"), signs in, returns the bearer token. */
export async function signUp(base: string, email: string): Promise<string> {
  const init = {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'benchmark password' }),
  };
  await fetchJson(base, '/api/auth/register', init);
  const { access_token: token } = (await fetchJson(base, '/api/auth/login', init)) as {
    access_token: string;
  };
  return token;
}

/** VmRSS and VmHWM (peak since the last clear_refs) of a process, in MB (Linux /proc). */
export function memoryOf(pid: number | 'self'): { rss: number; hwm: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string): number =>
    Number(status.match(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
  return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
}

/**
 * A PostgreSQL database for a benchmark: BENCH_DATABASE_URL when set (kept), else a throw-away
 * `name_<pid>` created on postgres://postgres@127.0.0.1:5432 and removed by drop().
 */
export async function benchDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  if (process.env.BENCH_DATABASE_URL)
    return { url: process.env.BENCH_DATABASE_URL, drop: async () => {} };
  const adminUrl = 'postgres://postgres@127.0.0.1:5432/postgres';
  const db = `${name}_${process.pid}`;
  const admin = async (sql: string): Promise<void> => {
    const client = new pg.Client(adminUrl);
    await client.connect();
    await client.query(sql);
    await client.end();
  };
  await admin(`CREATE DATABASE ${db}`);
  return {
    url: adminUrl.replace(/postgres$/, db),
    drop: () => admin(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`),
  };
}
