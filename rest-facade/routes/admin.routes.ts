/** The admin API (spec: "Admin"), except login (account.routes.ts) and notifications. */
import type { RestRoute } from '../route.ts';

export const adminRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/admin/dashboard/stats',
    operation: 'AdminDashboardStats',
    tag: 'admin',
  },
  { method: 'GET', path: '/api/admin/users', operation: 'AdminListUsers', tag: 'admin' },
  { method: 'GET', path: '/api/admin/users/{user_id}', operation: 'AdminGetUser', tag: 'admin' },
  {
    method: 'GET',
    path: '/api/admin/glucose/aggregate',
    operation: 'AdminGlucoseAggregate',
    tag: 'admin',
  },
  { method: 'GET', path: '/api/admin/sensors', operation: 'AdminListSensors', tag: 'admin' },
  {
    method: 'GET',
    path: '/api/admin/raw-sensor-data',
    operation: 'AdminExportRawSensorData',
    responder: 'stream',
    tag: 'admin',
  },
  { method: 'GET', path: '/api/admin/insights', operation: 'AdminInsights', tag: 'admin' },
  {
    method: 'POST',
    path: '/api/admin/insights/trigger/{user_id}',
    operation: 'AdminTriggerInsights',
    tag: 'admin',
  },
  { method: 'GET', path: '/api/admin/food', operation: 'AdminListFoods', tag: 'admin' },
  { method: 'GET', path: '/api/admin/events', operation: 'AdminListEvents', tag: 'admin' },
  {
    method: 'GET',
    path: '/api/admin/system/status',
    operation: 'AdminSystemStatus',
    tag: 'admin',
  },
];
