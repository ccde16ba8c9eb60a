/**
 * Entry point: config -> database (created and migrated on first start) -> app -> listen.
 * SIGINT/SIGTERM stop accepting connections, let in-flight requests finish, then close the database.
 */
import { createServer } from 'node:http';
import { loadConfig } from './config.ts';
import { openDatabase } from './db/database.ts';
import { startCatalogueAutoload } from './domains/foods/foods.bundle.ts';
import { createLogger } from './logger.ts';

const started = performance.now();
const config = loadConfig();
const log = createLogger(config.LOG_LEVEL);
// The database opens (PGlite compiles its WebAssembly) while the app's modules load.
const [db, { createApp }] = await Promise.all([
  openDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR }),
  import('./app.ts'),
]);
if (db.applied.length) log.info({ applied: db.applied }, 'migrations applied');
const { app, limitStore } = createApp({ config, db, log });
// FOODS_AUTOLOAD=auto: the shipped food catalogue is imported in the background (docs/foods.md)
const catalogue = startCatalogueAutoload(db.prisma, config, log);
const server = createServer(app);

server.listen(config.PORT, config.HOST, () => {
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  log.info(
    {
      url: `http://${config.HOST}:${port}`,
      database: db.target.kind,
      startMs: Math.round(performance.now() - started),
    },
    'listening',
  );
});

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  log.info({ signal }, 'shutting down');
  const force = setTimeout(() => process.exit(1), 10_000).unref();
  server.close(() => {
    void (async () => {
      await catalogue.stop();
      await Promise.all([db.close(), limitStore.close()]);
      clearTimeout(force);
      process.exit(0);
    })();
  });
  server.closeIdleConnections();
}
process.on('SIGINT', () => shutdown('SIGINT'));
process.on('SIGTERM', () => shutdown('SIGTERM'));
