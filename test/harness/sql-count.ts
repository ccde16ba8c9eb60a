/**
 * Counts the SQL statements the app sends to the database: a Prisma client over the test
 * database whose driver adapter (PGlite or pg, the same adapters src/db/client.ts uses) is wrapped
 * to count every query, execute and script, inside transactions too. Pass the answer as
 * `startTestApp({}, { database })` and read `counter.statements` around a request.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQuery,
  Transaction,
} from '@prisma/driver-adapter-utils';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { Database } from '../../src/db/database.ts';
import { countingStatements } from '../../src/db/statement-count.ts';
import { PrismaClient } from '../../src/generated/prisma/client.ts';

export interface SqlCounter {
  /** the statements sent since the last reset, in order */
  statements: string[];
  reset(): void;
}

/** `target` with `names` wrapped by `wrap`; every other member is the target's own, bound to it. */
function intercept<T extends object>(
  target: T,
  wraps: Partial<Record<string, (original: (...args: never[]) => unknown) => unknown>>,
): T {
  return new Proxy(target, {
    get(t, prop) {
      const value: unknown = Reflect.get(t, prop);
      if (typeof value !== 'function') return value;
      const bound = (value as (...args: never[]) => unknown).bind(t);
      const wrap = typeof prop === 'string' ? wraps[prop] : undefined;
      return wrap ? wrap(bound) : bound;
    },
  });
}

function countingQueryable<T extends object>(target: T, counter: SqlCounter): T {
  const counted = (original: (...args: never[]) => unknown) => (query: SqlQuery) => {
    counter.statements.push(query.sql);
    return (original as (q: SqlQuery) => unknown)(query);
  };
  return intercept(target, { queryRaw: counted, executeRaw: counted });
}

function countingAdapter(adapter: SqlDriverAdapter, counter: SqlCounter): SqlDriverAdapter {
  return intercept(countingQueryable(adapter, counter), {
    executeScript: (original) => (script: string) => {
      counter.statements.push(script);
      return (original as (s: string) => unknown)(script);
    },
    startTransaction:
      (original) =>
      async (...args: unknown[]) =>
        countingQueryable(
          await (original as (...a: unknown[]) => Promise<Transaction>)(...args),
          counter,
        ),
  });
}

/**
 * The same database, reached through a Prisma client that counts its statements. Closing it
 * disconnects that client and closes the database.
 */
export function countingDatabase(db: Database): { database: Database; counter: SqlCounter } {
  const counter: SqlCounter = {
    statements: [],
    reset() {
      this.statements = [];
    },
  };
  // wrapped as src/db/client.ts wraps it, so the app's per-request counts (/metrics) run too
  const factory: SqlDriverAdapterFactory = countingStatements(
    db.target.kind === 'pglite'
      ? new PrismaPGlite(db.target.instance!)
      : new PrismaPg({ connectionString: db.target.url, max: 10 }),
  );
  const adapter = intercept(factory, {
    connect: (original) => async () =>
      countingAdapter(await (original as () => Promise<SqlDriverAdapter>)(), counter),
  });
  const prisma = new PrismaClient({ adapter });
  const database: Database = {
    ...db,
    prisma,
    close: async () => {
      await prisma.$disconnect();
      await db.close();
    },
  };
  return { database, counter };
}
