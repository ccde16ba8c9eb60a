/**
 * Issue 18, more than one process: two separate server processes (the start command, on two
 * ports) on one PostgreSQL database and one Redis share every limit and record: the login
 * throttle, the MCP per-minute and per-day limits, MCP idempotency, session revocation. A
 * WEB_CONCURRENCY=2 start serves from two worker processes. Needs TEST_DATABASE_URL and TEST_REDIS_URL; the refusal of
 * WEB_CONCURRENCY=2 on the embedded database runs everywhere.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bytesWritten,
  createPgDatabase,
  getOnNewConnection,
  nodeChildrenOf,
  spawnServer,
  startServer,
} from './server-process.ts';
import type { ServerProcess } from './server-process.ts';

const databaseUrl = process.env.TEST_DATABASE_URL;
const redisUrl = process.env.TEST_REDIS_URL;
const JWT_SECRET = 'two-processes-test-secret-0123456789abcdef';
const PASSWORD = 'correct horse battery';

const dirs: string[] = [];
const tempDir = (): string => {
  const dir = mkdtempSync(path.join(tmpdir(), 'hdp-scale-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** A JSON request; answers the status and the parsed body. */
async function call(
  base: string,
  method: string,
  pathname: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(base + pathname, {
    method,
    headers: {
      'content-type': 'application/json',
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

let rpcId = 0;
/** A raw JSON-RPC POST to /api/mcp (stateless: no initialize needed). */
function mcp(
  base: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
): Promise<{ status: number; body: any }> {
  return call(base, 'POST', '/api/mcp', {
    token,
    headers: { accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: ++rpcId, method, params },
  });
}

/** Registers `email` on `base` and answers a bearer token from a fresh login. */
async function register(base: string, email: string): Promise<string> {
  const res = await call(base, 'POST', '/api/auth/register', {
    body: { email, password: PASSWORD },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return login(base, email);
}

async function login(base: string, email: string): Promise<string> {
  const res = await call(base, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token;
}

describe('WEB_CONCURRENCY on the embedded database', () => {
  it('refuses to start, saying PGlite belongs to one process', async () => {
    const server = spawnServer({ WEB_CONCURRENCY: '2', DATA_DIR: tempDir() });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain(
      'WEB_CONCURRENCY: 2 processes need DATABASE_URL (PostgreSQL): the embedded PGlite database belongs to one process',
    );
  });
});

describe.skipIf(!databaseUrl || !redisUrl)(
  'two server processes on one PostgreSQL and Redis',
  () => {
    let database: Awaited<ReturnType<typeof createPgDatabase>>;
    let a: ServerProcess;
    let b: ServerProcess;
    let env: Record<string, string>;

    beforeAll(async () => {
      database = await createPgDatabase();
      env = {
        DATABASE_URL: database.url,
        REDIS_URL: redisUrl!,
        JWT_SECRET,
        LOGIN_FAILURES_PER_15_MINUTES: '4',
        MCP_CALLS_PER_MINUTE: '6',
        MCP_CALLS_PER_DAY: '4',
      };
      // each its own DATA_DIR: nothing is shared through the disk
      [a, b] = await Promise.all([
        startServer({ ...env, DATA_DIR: tempDir() }),
        startServer({ ...env, DATA_DIR: tempDir() }),
      ]);
    }, 120_000);
    afterAll(async () => {
      await Promise.all([a?.stop(), b?.stop()]);
      await database?.drop();
    });

    it('counts failed logins from both processes in one throttle', async () => {
      const email = 'throttle@example.com';
      await register(a.base, email);
      const wrong = { body: { email, password: 'wrong password here' } };
      for (const server of [a, b, a, b]) {
        expect((await call(server.base, 'POST', '/api/auth/login', wrong)).status).toBe(401);
      }
      // the fifth attempt, right password or not, on either process: the limit (4) is spent
      const right = { body: { email, password: PASSWORD } };
      expect((await call(a.base, 'POST', '/api/auth/login', right)).status).toBe(429);
      expect((await call(b.base, 'POST', '/api/auth/login', right)).status).toBe(429);
    });

    it('counts MCP calls of one token on both processes in one per-minute limit', async () => {
      const token = await register(a.base, 'mcp-minute@example.com');
      const created = await call(b.base, 'POST', '/api/v1/tokens', {
        token,
        body: { name: 'agent', scopes: ['profile:read'] },
      });
      expect(created.status).toBe(201);
      const personal = created.body.token as string;
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        statuses.push((await mcp(i % 2 ? b.base : a.base, personal, 'tools/list')).status);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    });

    it('counts MCP tool calls of one token on both processes in one daily limit', async () => {
      const token = await register(b.base, 'mcp-day@example.com');
      const created = await call(a.base, 'POST', '/api/v1/tokens', {
        token,
        body: { name: 'reader', scopes: ['health:metrics:read'] },
      });
      const personal = created.body.token as string;
      const codes: (string | null)[] = [];
      for (let i = 0; i < 5; i++) {
        const res = await mcp(i % 2 ? a.base : b.base, personal, 'tools/call', {
          name: 'bp_readings_list',
          arguments: {},
        });
        expect(res.status).toBe(200);
        codes.push(res.body.result.isError ? res.body.result.structuredContent.error.code : null);
      }
      expect(codes).toEqual([null, null, null, null, 'RATE_LIMITED']);
    });

    it('replays an idempotent MCP create retried on the other process instead of creating twice', async () => {
      const email = 'mcp-idem@example.com';
      const token = await register(a.base, email);
      const created = await call(a.base, 'POST', '/api/v1/tokens', {
        token,
        body: { name: 'writer', scopes: ['health:logs:write'] },
      });
      const personal = created.body.token as string;
      const args = {
        name: 'bp_reading_log',
        arguments: { systolic: 121, diastolic: 79, idempotency_key: 'retry-on-the-other-one' },
      };
      const first = await mcp(a.base, personal, 'tools/call', args);
      const retried = await mcp(b.base, personal, 'tools/call', args);
      expect(first.status).toBe(200);
      expect(first.body.result.isError).toBeFalsy();
      expect(retried.body.result.structuredContent).toEqual(first.body.result.structuredContent);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM blood_pressure_readings r JOIN users u ON u.id = r.user_id
        WHERE u.email = $1`,
        [email],
      );
      await client.end();
      expect(rows[0].n).toBe(1);
    });

    it('refuses a session revoked on one process at once on the other', async () => {
      const email = 'revoke@example.com';
      const kept = await register(a.base, email);
      const revoked = await login(b.base, email);
      // both work on both processes first (whatever either caches)
      for (const server of [a, b]) {
        for (const token of [kept, revoked]) {
          expect((await call(server.base, 'GET', '/api/auth/me', { token })).status).toBe(200);
        }
      }
      const sessions = await call(a.base, 'GET', '/api/auth/sessions', { token: kept });
      const other = (sessions.body as { id: string; current: boolean }[]).find((s) => !s.current)!;
      const res = await call(a.base, 'POST', `/api/auth/sessions/${other.id}/revoke`, {
        token: kept,
      });
      expect(res.status).toBe(200);
      expect((await call(b.base, 'GET', '/api/auth/me', { token: revoked })).status).toBe(401);
      expect((await call(a.base, 'GET', '/api/auth/me', { token: revoked })).status).toBe(401);
      expect((await call(b.base, 'GET', '/api/auth/me', { token: kept })).status).toBe(200);
    });

    it('serves from two worker processes with WEB_CONCURRENCY=2, forks a killed one again, and stops them all on SIGTERM', async () => {
      const cluster = await startServer({ ...env, DATA_DIR: tempDir(), WEB_CONCURRENCY: '2' });
      try {
        const primary = cluster.child.pid!;
        let workers: number[] = [];
        // the primary answers /readyz only through a worker; the second may still be starting
        for (let i = 0; i < 300 && workers.length < 2; i++) {
          workers = nodeChildrenOf(primary);
          if (workers.length < 2) await new Promise((r) => setTimeout(r, 100));
        }
        expect(workers).toHaveLength(2);
        const token = await register(cluster.base, 'cluster@example.com');
        for (let i = 0; i < 100; i++) {
          const ready = await getOnNewConnection(`${cluster.base}/readyz`);
          if (ready === 200) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        const before = workers.map(bytesWritten);
        const statuses = new Set<number>();
        for (let i = 0; i < 60; i++) {
          statuses.add(
            await getOnNewConnection(`${cluster.base}/api/auth/me`, {
              authorization: `Bearer ${token}`,
            }),
          );
        }
        expect([...statuses]).toEqual([200]);
        // each worker wrote answers (the kernel hands connections round-robin through the primary)
        const written = workers.map((pid, i) => bytesWritten(pid) - before[i]);
        for (const bytes of written) expect(bytes).toBeGreaterThan(5_000);
        expect(cluster.output()).not.toContain('worker died');

        // a worker killed outright is forked again, and the cluster keeps serving meanwhile
        process.kill(workers[0], 'SIGKILL');
        let now: number[] = [];
        for (let i = 0; i < 300; i++) {
          now = nodeChildrenOf(primary);
          if (now.length === 2 && !now.includes(workers[0])) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(now).toHaveLength(2);
        expect(now).toContain(workers[1]);
        expect(now).not.toContain(workers[0]);
        const after = new Set<number>();
        for (let i = 0; i < 20; i++) {
          after.add(
            await getOnNewConnection(`${cluster.base}/api/auth/me`, {
              authorization: `Bearer ${token}`,
            }),
          );
        }
        expect([...after]).toEqual([200]);
        expect(cluster.output()).toContain('worker died');
      } finally {
        expect(await cluster.stop()).toBe(0);
      }
    }, 120_000);
  },
);
