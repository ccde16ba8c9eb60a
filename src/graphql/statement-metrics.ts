/**
 * The SQL statements of each /graphql operation, for operators (issue 30, item 9): every
 * operation yoga handles runs in its own statement tally (src/db/statement-count.ts), from its
 * parameters through authentication and execution, and the count lands in the histogram
 * `graphql_request_db_statements` on /metrics by operation type (src/platform/metrics.ts).
 *
 * It must never change a result, and labels only by operation type (never the document, the
 * operation's name or the person): the persisted operations' own counters are elsewhere.
 */
import { getOperationAST } from 'graphql';
import type { ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { currentStatementTally, withStatementTally } from '../db/statement-count.ts';
import type { StatementTally } from '../db/statement-count.ts';
import { observeGraphqlStatements } from '../platform/metrics.ts';
import type { Context } from './context.ts';

/** the type of each open operation's tally: `none` until the operation executes */
const operationTypes = new WeakMap<StatementTally, string>();

/** The yoga plugin: one tally per operation, observed when the operation's result is ready. */
export const useStatementMetrics: Plugin<Context> = {
  instrumentation: {
    operation: async (_payload, wrapped) => {
      const tally: StatementTally = { statements: 0 };
      operationTypes.set(tally, 'none');
      try {
        await withStatementTally(tally, wrapped);
      } finally {
        observeGraphqlStatements(operationTypes.get(tally) ?? 'none', tally.statements);
      }
    },
  },
  onExecute: ({ args }) => {
    const tally = currentStatementTally();
    const { document, operationName } = args as ExecutionArgs;
    const type = getOperationAST(document, operationName)?.operation;
    if (tally && type && operationTypes.has(tally)) operationTypes.set(tally, type);
  },
};
