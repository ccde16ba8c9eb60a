/** WatermelonDB sync of the phone's offline database. */
import type { RestRoute } from '../route.ts';

export const syncRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/sync/pull', operation: 'PullSyncChanges', tag: 'sync' },
  { method: 'POST', path: '/api/sync/push', operation: 'PushSyncChanges', tag: 'sync' },
];
