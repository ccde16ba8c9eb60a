/** Room-monitor integration (spec: "Room-monitor integration"). */
import type { RestRoute } from '../route.ts';

export const monitorRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/monitor/link',
    operation: 'linkMonitor',
    body: 'input',
    tag: 'monitor',
  },
  {
    method: 'POST',
    path: '/api/monitor/webhook',
    operation: 'receiveMonitorWebhook',
    body: 'body',
    responder: 'raw',
    headers: { 'x-monitor-signature': 'signature', 'x-monitor-delivery': 'deliveryId' },
    tag: 'monitor',
  },
  {
    method: 'GET',
    path: '/api/monitor/sync',
    operation: 'syncMonitor',
    tag: 'monitor',
  },
];
