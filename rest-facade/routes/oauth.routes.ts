/** Connected apps of the read API (/api/v1): the person's OAuth connections (MCP clients). */
import type { RestRoute } from '../route.ts';

export const oauthRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/v1/connected-apps',
    operation: 'connectedApps',
    tag: 'connected-apps',
  },
  {
    method: 'DELETE',
    path: '/api/v1/connected-apps/{connection_id}',
    operation: 'disconnectConnectedApp',
    rename: { connection_id: 'id' },
    tag: 'connected-apps',
  },
];
