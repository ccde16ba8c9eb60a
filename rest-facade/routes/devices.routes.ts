/** Devices (docs/spec/rest-api.md, "Insights, devices"): push tokens and CGM sensors. */
import type { RestRoute } from '../route.ts';

export const deviceRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/devices/token',
    operation: 'registerDeviceToken',
    body: 'input',
    tag: 'devices',
  },
  {
    method: 'POST',
    path: '/api/devices/sensor',
    operation: 'bindSensor',
    body: 'input',
    tag: 'devices',
  },
  {
    method: 'POST',
    path: '/api/devices/sensor/unbind',
    operation: 'unbindSensor',
    variablesIn: 'query',
    tag: 'devices',
  },
];
