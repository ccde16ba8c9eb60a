/** OpenAPI 3.1 document and docs page. Placeholder: filled in by the OpenAPI work. */
import express from 'express';
import type { Router } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Config } from '../src/config.ts';
import type { OperationStore } from '../src/graphql/operations.ts';
import type { RestRoute } from './route.ts';

export interface OpenApiOptions {
  routes: readonly RestRoute[];
  operations: OperationStore;
  schema: GraphQLSchema;
  config: Config;
}

export function createOpenApiRouter(options: OpenApiOptions): Router {
  void options;
  return express.Router();
}
