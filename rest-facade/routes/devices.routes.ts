/** Devices (docs/spec/rest-api.md, "Insights, devices"): push tokens and CGM sensors. */
import type { RestRoute } from '../route.ts';

export const deviceRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/devices/token',
    operation: 'RegisterDeviceToken',
    body: 'input',
    tag: 'devices',
  },
  {
    method: 'POST',
    path: '/api/devices/sensor',
    operation: 'BindSensor',
    body: 'input',
    tag: 'devices',
  },
  {
    method: 'POST',
    path: '/api/devices/sensor/unbind',
    operation: 'UnbindSensor',
    variablesIn: 'query',
    tag: 'devices',
  },
];
