/**
 * Blood pressure, logs and sun (issue 16): the read API under /api/v1/health/ (paths ours; listed in
 * rest-facade/README.md, "Read API routes"). The daily scores of one kind (blood_pressure, sun, ...)
 * are served here too, by the insights operation the MCP score tools run.
 */
import type { RestRoute } from '../route.ts';

const bp = '/api/v1/health/blood-pressure';
const logs = '/api/v1/health/logs';

export const logsRoutes: RestRoute[] = [
  { method: 'GET', path: bp, operation: 'bloodPressureSessions', tag: 'blood-pressure' },
  {
    method: 'POST',
    path: bp,
    operation: 'logBloodPressureReading',
    body: 'input',
    status: 201,
    tag: 'blood-pressure',
  },
  {
    method: 'PATCH',
    path: `${bp}/{reading_id}`,
    operation: 'updateBloodPressureReading',
    body: 'input',
    tag: 'blood-pressure',
  },
  {
    method: 'DELETE',
    path: `${bp}/{reading_id}`,
    operation: 'deleteBloodPressureReading',
    tag: 'blood-pressure',
  },
  {
    method: 'POST',
    path: `${logs}/custom-metrics`,
    operation: 'logCustomMetric',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/hydration`,
    operation: 'addHydration',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/medications`,
    operation: 'logMedication',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/nicotine`,
    operation: 'addNicotine',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/sleep-factors`,
    operation: 'logSleepFactor',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/weight`,
    operation: 'addWeight',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/sun-sessions`,
    operation: 'logSunSession',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'PATCH',
    path: `${logs}/{entry_id}`,
    operation: 'updateLogEntry',
    body: 'input',
    tag: 'logs',
  },
  { method: 'DELETE', path: `${logs}/{entry_id}`, operation: 'deleteLogEntry', tag: 'logs' },
  { method: 'GET', path: '/api/v1/health/sun/advice', operation: 'sunAdvice', tag: 'sun' },
  { method: 'GET', path: '/api/v1/health/scores/{kind}', operation: 'scores', tag: 'scores' },
];
