/**
 * Real server processes for the scale tests: each is started with package.json's start command (as
 * `npm start` runs it, see bench/server.ts), on its own port, with the caller's environment on top,
 * and can be stopped (SIGTERM) or killed (SIGKILL). Also a fresh PostgreSQL database cloned from the
 * test run's migrated template, for servers that must share one.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { request } from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { startArgs } from '../../bench/server.ts';

const root = path.resolve(import.meta.dirname, '../..');

export interface ServerProcess {
  /** http://127.0.0.1:<port> */
  base: string;
  child: ChildProcess;
  /** everything the process wrote on stdout and stderr so far */
  output(): string;
  /** resolves with the exit code once the process has exited (null: ended by a signal) */
  exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit code */
  stop(): Promise<number | null>;
  /** SIGKILL (no shutdown at all), then waits for the exit */
  kill(): Promise<void>;
}

/** A free-looking port pair (the app's and, +1, the OAuth host's), below Linux's ephemeral range. */
export function randomPort(): number {
  return 20000 + 2 * Math.floor(Math.random() * 6_000);
}

/** Spawns the start command with `env`; does not wait for it to be ready. */
export function spawnServer(env: Record<string, string>, port = randomPort()): ServerProcess {
  const child = spawn(process.execPath, startArgs(), {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      MCP_OAUTH_PORT: String(port + 1),
      MCP_OAUTH_HOST: '',
      MCP_PUBLIC_URL: '',
      LOG_LEVEL: 'warn',
      FOODS_AUTOLOAD: 'off',
      DATABASE_URL: '',
      REDIS_URL: '',
      WEB_CONCURRENCY: '',
      ...env,
    },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return {
    base: `http://127.0.0.1:${port}`,
    child,
    exited,
    output: () => out,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Spawns the server and resolves once GET /readyz answers 200 (throws with its output if it exits).
 * Without a `port`, a random one, and another if that one turns out taken.
 */
export async function startServer(
  env: Record<string, string>,
  port?: number,
): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOn(env, port ?? randomPort());
    } catch (err) {
      if (port !== undefined || attempt === 3 || !String(err).includes('EADDRINUSE')) throw err;
    }
  }
}

async function startOn(env: Record<string, string>, port: number): Promise<ServerProcess> {
  const server = spawnServer(env, port);
  for (let i = 0; i < 900; i++) {
    const ready = await fetch(`${server.base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return server;
    if (server.child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  await server.kill();
  throw new Error(`server did not start:\n${server.output()}`);
}

/** A new PostgreSQL database cloned from the run's migrated template; `drop()` removes it. */
export async function createPgDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const setup = inject('database');
  if (setup.kind !== 'pg') throw new Error('TEST_DATABASE_URL is not set');
  const name = `hdp_scale_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: setup.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${setup.template}"`);
  const u = new URL(setup.adminUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** The node processes whose parent is `pid` (a cluster primary's workers; not tool helpers). */
export function nodeChildrenOf(pid: number): number[] {
  const node = realpathSync(process.execPath);
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // the fields after the command name (which may hold spaces) start with state, then ppid
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid && readlinkSync(`/proc/${entry}/exe`) === node) children.push(Number(entry));
    } catch {
      // the process ended meanwhile, or is not ours to read
    }
  }
  return children;
}

/** Bytes the process has written through system calls so far (/proc/<pid>/io wchar). */
export function bytesWritten(pid: number): number {
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return Number(io.match(/^wchar:\s+(\d+)/m)![1]);
}

/** A GET on a new connection that is closed after the answer (so each lands on a new accept). */
export function getOnNewConnection(
  url: string,
  headers: Record<string, string> = {},
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent: false, headers: { connection: 'close', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end();
  });
}
