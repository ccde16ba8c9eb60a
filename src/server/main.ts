/**
 * Entry point: config -> database (created and migrated on first start) -> app -> listen, on PORT
 * and, for the OAuth MCP host, on MCP_OAUTH_PORT. SIGINT/SIGTERM stop accepting connections on both,
 * let in-flight requests finish, then close the database.
 *
 * WEB_CONCURRENCY=N above 1: this process becomes the cluster primary (src/server/cluster.ts), which
 * migrates the database once and forks N workers that each run the rest of this file on the shared
 * ports; the primary itself never gets past that line. With 1 (the default) there is no primary:
 * this process serves, as it always did.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { loadConfig } from '../base/config.ts';
import { openDatabase } from '../db/database.ts';
import { startCatalogueAutoload } from '../domains/foods/foods.bundle.ts';
import { closeOcr } from '../domains/labs/index.ts';
import { closeFileWorkers } from '../platform/file-workers.ts';
import { createLogger } from '../base/logger.ts';
import { oauthHostUrl } from '../oauth-host/host.ts';

const started = performance.now();
const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);
// node:cluster is loaded only for N > 1 (a few ms of start-up otherwise)
if (config.WEB_CONCURRENCY > 1 && (await import('node:cluster')).default.isPrimary) {
  // the primary runs until a signal stops its workers, then exits: this never resolves
  await (await import('./cluster.ts')).runPrimary(config, log);
}
// The database opens (PGlite compiles its WebAssembly) while the app's modules load.
const [db, { createApp }] = await Promise.all([
  openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR }),
  import('./app.ts'),
]);
if (db.applied.length) log.info({ applied: db.applied }, 'migrations applied');
const { app, limitStore, jobs, createOAuthHost, stopTracing } = createApp({ config, db, log });
// FOODS_AUTOLOAD=auto: the shipped food catalogue is imported in the background (docs/foods.md)
const catalogue = startCatalogueAutoload(db.prisma, config, log);
const server = createServer(app);
// a phone's Apple Health export upload (up to HEALTH_ARCHIVE_MAX_BYTES, 2 GiB) outlasts Node's
// default of 5 minutes for a whole request; headers still have to arrive within 60 s
server.requestTimeout = 60 * 60_000;
// The OAuth host's app is built once its port is bound: with port 0 its origin is known only then.
const oauthServer = createServer();

/** Listens, then resolves with the bound port. */
function listen(srv: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    srv.once('error', reject);
    srv.listen(port, host, () => {
      srv.off('error', reject);
      const address = srv.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

const [port, oauthPort] = await Promise.all([
  listen(server, config.PORT, config.HOST),
  listen(oauthServer, config.MCP_OAUTH_PORT, config.MCP_OAUTH_HOST),
]);
const oauthUrl = oauthHostUrl(config, oauthPort);
oauthServer.on('request', createOAuthHost(oauthUrl));
log.info(
  {
    url: `http://${config.HOST}:${port}`,
    database: db.target.kind,
    startMs: Math.round(performance.now() - started),
  },
  'listening',
);
const boundHost = config.MCP_OAUTH_HOST.includes(':')
  ? `[${config.MCP_OAUTH_HOST}]`
  : config.MCP_OAUTH_HOST;
log.info({ url: `http://${boundHost}:${oauthPort}`, mcp: `${oauthUrl.origin}/mcp` }, 'listening');

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 10_000).unref();
  const closed = (srv: Server): Promise<void> =>
    new Promise((resolve) => {
      srv.close(() => resolve());
      srv.closeIdleConnections();
    });
  void (async () => {
    await Promise.all([closed(server), closed(oauthServer)]);
    await catalogue.stop();
    await jobs.stop();
    await closeOcr().catch(() => {});
    await closeFileWorkers().catch(() => {});
    await stopTracing().catch(() => {});
    await Promise.all([db.close(), limitStore.close()]);
    clearTimeout(force);
    process.exit(0);
  })();
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
