/**
 * The SQL statements of each request, for operators (issue 30, item 9), through every door: each
 * /graphql operation yoga handles, and each REST or MCP request, runs in its own statement tally
 * (src/db/statement-count.ts) from its parameters through authentication and execution, and the
 * count lands in the histogram `graphql_request_db_statements` on /metrics by door and operation
 * type (src/platform/metrics.ts).
 *
 * It must never change a result, and labels only by door and operation type (never the document,
 * the operation's name or the person): the persisted operations' own counters are elsewhere.
 */
import type { RequestHandler } from 'express';
import { getOperationAST } from 'graphql';
import type { ExecutionArgs } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { currentStatementTally, withStatementTally } from '../db/statement-count.ts';
import type { StatementTally } from '../db/statement-count.ts';
import { observeRequestStatements } from '../platform/metrics.ts';
import type { StatementDoor } from '../platform/metrics.ts';
import type { Context } from './context.ts';

/** Records the type of an operation the current tally runs (the first one counts). */
export function noteOperationType(type: string): void {
  const tally = currentStatementTally();
  if (tally && !tally.operationType) tally.operationType = type;
}

/** The yoga plugin: one tally per operation, observed when the operation's result is ready. */
export const useStatementMetrics: Plugin<Context> = {
  instrumentation: {
    operation: async (_payload, wrapped) => {
      const tally: StatementTally = { statements: 0 };
      try {
        await withStatementTally(tally, wrapped);
      } finally {
        observeRequestStatements('graphql', tally.operationType ?? 'none', tally.statements);
      }
    },
  },
  onExecute: ({ args }) => {
    const { document, operationName } = args as ExecutionArgs;
    const type = getOperationAST(document, operationName)?.operation;
    if (type) noteOperationType(type);
  },
};

/**
 * Express middleware of the REST and MCP doors: the rest of the request (body parsing,
 * authentication, execution) runs in one tally, observed once the response is sent.
 */
export function countRequestStatements(door: Exclude<StatementDoor, 'graphql'>): RequestHandler {
  return (_req, res, next) => {
    const tally: StatementTally = { statements: 0 };
    let observed = false;
    const observe = (): void => {
      if (observed) return;
      observed = true;
      observeRequestStatements(door, tally.operationType ?? 'none', tally.statements);
    };
    // finished (sent), or closed first (the client went away)
    res.once('finish', observe).once('close', observe);
    withStatementTally(tally, next);
  };
}
