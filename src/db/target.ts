/**
 * Where the data lives: the embedded PGlite database (default, no server needed) or a PostgreSQL
 * server named by a postgres:// URL. Both speak the same SQL; nothing else in the code branches on it
 * except the bulk helpers that may choose COPY on a real server.
 */
import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';

export type DbTarget =
  | {
      kind: 'pglite';
      /** data directory, or null for an in-memory database */
      dataDir: string | null;
      /** an already open instance (one PGlite instance is one connection; share it) */
      instance?: PGlite;
    }
  | { kind: 'pg'; url: string };

/** postgres:// or postgresql:// URLs go to a server; anything else is not a database URL we know. */
export function targetFromUrl(url: string | undefined, dataDir: string): DbTarget {
  if (!url) return { kind: 'pglite', dataDir };
  if (/^postgres(ql)?:\/\//.test(url)) return { kind: 'pg', url };
  throw new Error(`DATABASE_URL must be a postgres:// URL (got ${url.split(':')[0]}:)`);
}

/**
 * PostgreSQL's buffer cache inside PGlite. The default (128 MB) is initialised at open and stays
 * resident in the WebAssembly memory; 32 MB keeps an idle server about 100 MB smaller (issue 4:
 * a 100,000-row sync pull under 512 MB, docs/benchmarks.md). The data files are still cached by the
 * operating system below it.
 */
const PGLITE_SHARED_BUFFERS = '32MB';

/**
 * Opens (creating on first use, with any missing parent folders) an embedded database. Every instance carries pg_trgm (food search,
 * migration 20261123141459_foods_search), so the migrations replay on any scratch or test copy.
 */
export async function openPglite(dataDir: string | null, loadDataDir?: Blob): Promise<PGlite> {
  // PGlite creates the data directory itself but not its parents
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  return PGlite.create(dataDir ?? undefined, {
    ...(loadDataDir ? { loadDataDir } : {}),
    extensions: { pg_trgm },
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
  });
}
