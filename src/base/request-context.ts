/**
 * The current request's id and logger, reachable from code that has no context argument
 * (error masking inside yoga). Set once per request by the express app.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from './logger.ts';

export interface RequestScope {
  requestId: string;
  log: Logger;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
