/**
 * One real app per test file: its own database (cloned from the run's template), the real
 * express stack listening on an ephemeral port, and fetch-based helpers. Nothing is mocked.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import pg from 'pg';
import { afterAll, inject } from 'vitest';
import { createApp } from '../../src/server/app.ts';
import type { App } from '../../src/server/app.ts';
import { loadConfig } from '../../src/base/config.ts';
import type { ClientMetadataDial } from '../../src/integrations/client-metadata.ts';
import { oauthHostUrl } from '../../src/oauth-host/host.ts';
import type { Config } from '../../src/base/config.ts';
import { openDatabase } from '../../src/db/database.ts';
import type { Database } from '../../src/db/database.ts';
import type { DestinationStream } from 'pino';
import { createLogger } from '../../src/base/logger.ts';

export interface TestApp extends App {
  db: Database;
  config: Config;
  server: Server;
  baseUrl: string;
  /** fetch against the app; path like /api/auth/me */
  fetch(path: string, init?: RequestInit): Promise<Response>;
  /** the OAuth MCP host's listener (127.0.0.1, ephemeral port) */
  oauthServer: Server;
  /** the OAuth host's public origin: MCP_PUBLIC_URL, else http://127.0.0.1:<its port> */
  mcpUrl: string;
  /** fetch against the OAuth host's listener (whatever mcpUrl says); path like /mcp */
  mcpFetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

let counter = 0;

/**
 * Opens a fresh database for this file (a copy of the migrated template; with `catalogue`, of the
 * template that has the shipped food catalogue imported).
 */
export async function openTestDatabase(options: { catalogue?: boolean } = {}): Promise<Database> {
  const setup = inject('database');
  const template = options.catalogue ? setup.catalogueTemplate : setup.template;
  if (setup.kind === 'pglite') {
    const dump = new Blob([readFileSync(template)]);
    return openDatabase({ dataDir: null, loadDataDir: dump });
  }
  const name = `${setup.filePrefix}${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: setup.adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"`);
  const u = new URL(setup.adminUrl);
  u.pathname = `/${name}`;
  const db = await openDatabase({ url: u.toString(), dataDir: null });
  const close = db.close;
  db.close = async () => {
    await close();
    await admin.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    await admin.end();
  };
  return db;
}

/** Test configuration: fixed secret, quiet logs, overrides on top. */
export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    JWT_SECRET: 'test-secret-test-secret-test-secret-0123456789',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    DATA_DIR: '/tmp/hdp-test/data',
    ...(process.env.TEST_REDIS_URL ? { REDIS_URL: process.env.TEST_REDIS_URL } : {}),
    // the factories register every test person from one address (seedUser): a file tests the
    // sign-up limit by setting its own (test/domains/register-limit.test.ts)
    SIGNUPS_PER_IP_PER_HOUR: '1000000',
    // the background insights (issue 33) would push and record into other files' people: a file
    // that tests them turns them on (test/domains/insights-delivery.test.ts)
    INSIGHTS_DELIVERY: 'off',
    ...overrides,
  });
}

export interface StartTestAppOptions {
  /** serve this database (e.g. another test app's: two replicas of one deployment); not closed here */
  database?: Database;
  /** start from the template with the shipped food catalogue imported (test/harness/global-setup.ts) */
  catalogue?: boolean;
  /** where the app's log lines go (default: the config's level, to stdout) */
  logTo?: DestinationStream;
  /** client ID metadata documents served by a fake (test/fakes/client-metadata.ts) */
  clientMetadataDial?: ClientMetadataDial;
}

/** Starts the whole app on a fresh database; closed automatically after the file. */
export async function startTestApp(
  overrides: Record<string, string> = {},
  options: StartTestAppOptions = {},
): Promise<TestApp> {
  const config = testConfig(overrides);
  const db = options.database ?? (await openTestDatabase({ catalogue: options.catalogue }));
  const built = createApp({
    config,
    db,
    log: createLogger(config.LOG_LEVEL, options.logTo),
    ...(options.clientMetadataDial ? { clientMetadataDial: options.clientMetadataDial } : {}),
  });
  const server = createServer(built.app);
  const oauthServer = createServer();
  // NOTE: the suite's fetch and these servers share one event loop. Under load a request can be
  // written on a kept-alive connection just as the server's 5 s idle timer closes it (the likely
  // cause of one ECONNRESET in CI, on the large upload of sync-wire.test.ts); in tests an idle
  // connection outlives any pause between two requests.
  for (const s of [server, oauthServer]) s.keepAliveTimeout = 60_000;
  await Promise.all([
    new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
    new Promise<void>((resolve) => oauthServer.listen(0, '127.0.0.1', resolve)),
  ]);
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const oauthPort = (oauthServer.address() as AddressInfo).port;
  const oauthBase = `http://127.0.0.1:${oauthPort}`;
  const mcpUrl = oauthHostUrl({ ...config, MCP_OAUTH_HOST: '127.0.0.1' }, oauthPort).origin;
  oauthServer.on('request', built.createOAuthHost(new URL(mcpUrl)));
  const testApp: TestApp = {
    ...built,
    db,
    config,
    server,
    baseUrl,
    fetch: (path, init) => fetch(baseUrl + path, init),
    oauthServer,
    mcpUrl,
    mcpFetch: (path, init) => fetch(oauthBase + path, init),
    close: async () => {
      server.closeAllConnections();
      oauthServer.closeAllConnections();
      await Promise.all([
        new Promise((resolve) => server.close(resolve)),
        new Promise((resolve) => oauthServer.close(resolve)),
      ]);
      await built.jobs.stop();
      await Promise.all([options.database ? undefined : db.close(), built.limitStore.close()]);
    },
  };
  afterAll(() => testApp.close());
  return testApp;
}
