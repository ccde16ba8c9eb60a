/** WatermelonDB sync of the phone's offline database. */
import type { RestRoute } from '../route.ts';

export const syncRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/sync/pull', operation: 'PullSyncChanges', tag: 'sync' },
  // a phone's push carries up to PUSH_MAX_RECORDS records (src/domains/sync)
  { method: 'POST', path: '/api/sync/push', operation: 'PushSyncChanges', bodyLimit: '16mb', tag: 'sync' },
];
