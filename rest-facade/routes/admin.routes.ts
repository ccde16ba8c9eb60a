/** The admin API (spec: "Admin"), except login (account.routes.ts) and notifications. */
import type { RestRoute } from '../route.ts';

export const adminRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/api/admin/dashboard/stats',
    operation: 'adminDashboardStats',
    tag: 'admin',
  },
  { method: 'GET', path: '/api/admin/users', operation: 'adminUsers', tag: 'admin' },
  { method: 'GET', path: '/api/admin/users/{user_id}', operation: 'adminUser', tag: 'admin' },
  {
    method: 'GET',
    path: '/api/admin/glucose/aggregate',
    operation: 'adminGlucoseAggregate',
    tag: 'admin',
  },
  { method: 'GET', path: '/api/admin/sensors', operation: 'adminSensors', tag: 'admin' },
  {
    method: 'GET',
    path: '/api/admin/raw-sensor-data',
    operation: 'adminRawSensorData',
    responder: 'stream',
    tag: 'admin',
  },
  { method: 'GET', path: '/api/admin/insights', operation: 'adminInsights', tag: 'admin' },
  {
    method: 'POST',
    path: '/api/admin/insights/trigger/{user_id}',
    operation: 'triggerAdminInsights',
    tag: 'admin',
  },
  { method: 'GET', path: '/api/admin/food', operation: 'adminFoods', tag: 'admin' },
  { method: 'GET', path: '/api/admin/events', operation: 'adminEvents', tag: 'admin' },
  {
    method: 'GET',
    path: '/api/admin/system/status',
    operation: 'adminSystemStatus',
    tag: 'admin',
  },
];
