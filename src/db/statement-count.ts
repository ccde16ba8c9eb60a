/**
 * Counts the SQL statements Prisma sends to the database per scope (issue 30, item 9): the driver
 * adapter of every Prisma client is wrapped (src/db/client.ts) so that each statement it sends,
 * inside a transaction too, adds one to the tally of the async scope it runs in. /graphql opens one
 * scope per operation, the REST and MCP facades one per request, and each is reported on /metrics
 * (src/graphql/statement-metrics.ts), so operators see how many statements a request costs, and an
 * N+1 regression shows as a histogram shift.
 *
 * What counts is what the test harness counts (test/harness/sql-count.ts): queries and executes,
 * raw SQL included, on the adapter and on its transactions (a COMMIT or ROLLBACK Prisma sends), and
 * a script as one. A transaction's BEGIN is sent by the adapter itself and does not count, nor do
 * statements that bypass Prisma (pg-boss's queue, the bulk COPY path).
 *
 * It must never change a statement or its result, and costs one AsyncLocalStorage read per
 * statement; outside a scope nothing is counted.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  SqlDriverAdapter,
  SqlDriverAdapterFactory,
  SqlQueryable,
  Transaction,
} from '@prisma/driver-adapter-utils';

/** The statements counted in one scope. */
export interface StatementTally {
  /** statements sent while the scope was open */
  statements: number;
  /** the type of the scope's first executed operation (query, mutation, ...); unset: none ran */
  operationType?: string;
}

const tallies = new AsyncLocalStorage<StatementTally>();

/** Runs `run` with every statement it (and what it awaits) sends counted into `tally`. */
export function withStatementTally<R>(tally: StatementTally, run: () => R): R {
  return tallies.run(tally, run);
}

/** The tally of the current scope, if one is open. */
export function currentStatementTally(): StatementTally | undefined {
  return tallies.getStore();
}

function countOne(): void {
  const tally = tallies.getStore();
  if (tally) tally.statements++;
}

/** `queryable` with its query and execute counted (the same object, its methods replaced). */
function counted<Q extends SqlQueryable>(queryable: Q): Q {
  const queryRaw = queryable.queryRaw.bind(queryable);
  const executeRaw = queryable.executeRaw.bind(queryable);
  queryable.queryRaw = (query) => {
    countOne();
    return queryRaw(query);
  };
  queryable.executeRaw = (query) => {
    countOne();
    return executeRaw(query);
  };
  return queryable;
}

function countedAdapter(adapter: SqlDriverAdapter): SqlDriverAdapter {
  const executeScript = adapter.executeScript.bind(adapter);
  const startTransaction = adapter.startTransaction.bind(adapter);
  adapter.executeScript = (script) => {
    countOne();
    return executeScript(script);
  };
  adapter.startTransaction = async (isolationLevel) =>
    counted<Transaction>(await startTransaction(isolationLevel));
  return counted(adapter);
}

/** The factory, whose adapters count their statements into the scope they run in. */
export function countingStatements<F extends SqlDriverAdapterFactory>(factory: F): F {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => countedAdapter(await connect());
  return factory;
}
