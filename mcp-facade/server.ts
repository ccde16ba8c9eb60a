/** MCP facade entry (POST /api/mcp). Placeholder: filled in by the MCP facade work. */
import express from 'express';
import type { Request, Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../src/config.ts';
import type { Context } from '../src/graphql/context.ts';
import type { OperationStore } from '../src/graphql/operations.ts';

export interface McpFacadeOptions {
  schema: GraphQLSchema;
  operations: OperationStore;
  config: Config;
  /** builds the GraphQL context of one request (authenticates the caller) */
  context(req: Request): Promise<Context>;
}

export function createMcpRouter(options: McpFacadeOptions): Router {
  void options;
  return express.Router();
}
