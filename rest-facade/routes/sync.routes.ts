/** WatermelonDB sync of the phone's offline database. */
import type { RestRoute } from '../route.ts';

/**
 * A phone cannot split its push (WatermelonDB sends every pending change at once), so the push
 * route takes up to PUSH_MAX_RECORDS (250,000) records in up to 128 MB of JSON, read as a stream
 * (src/domains/sync/README.md, "Ceiling of a push").
 */
const PUSH_BODY_LIMIT = '128mb';

export const syncRoutes: RestRoute[] = [
  // WatermelonDB's documented pull (no cursor, limit or max_chars) gets every page in one answer
  {
    method: 'GET',
    path: '/api/sync/pull',
    operation: 'syncPull',
    responder: 'changes',
    tag: 'sync',
  },
  // the whole body is `changes` (a JSON variable, so handed over as sent): WatermelonDB's documented
  // body, or the wrapped {changes, last_pulled_at}
  {
    method: 'POST',
    path: '/api/sync/push',
    operation: 'syncPush',
    body: 'changes',
    bodyLimit: PUSH_BODY_LIMIT,
    tag: 'sync',
  },
];
