/**
 * Blood pressure, logs and sun (issue 16): the read API under /api/v1/health/ (paths ours; listed in
 * rest-facade/README.md, "Read API routes"). The daily scores of one kind (blood_pressure, sun, ...)
 * are served here too, by the insights operation the MCP score tools run.
 */
import type { RestRoute } from '../route.ts';

const bp = '/api/v1/health/blood-pressure';
const logs = '/api/v1/health/logs';

export const logsRoutes: RestRoute[] = [
  { method: 'GET', path: bp, operation: 'ListBloodPressureSessions', tag: 'blood-pressure' },
  {
    method: 'POST',
    path: bp,
    operation: 'LogBloodPressureReading',
    body: 'input',
    status: 201,
    tag: 'blood-pressure',
  },
  {
    method: 'PATCH',
    path: `${bp}/{reading_id}`,
    operation: 'UpdateBloodPressureReading',
    body: 'input',
    tag: 'blood-pressure',
  },
  {
    method: 'DELETE',
    path: `${bp}/{reading_id}`,
    operation: 'DeleteBloodPressureReading',
    tag: 'blood-pressure',
  },
  {
    method: 'POST',
    path: `${logs}/custom-metrics`,
    operation: 'LogCustomMetric',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/hydration`,
    operation: 'AddHydration',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/medications`,
    operation: 'LogMedication',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/nicotine`,
    operation: 'AddNicotine',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/sleep-factors`,
    operation: 'LogSleepFactor',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/weight`,
    operation: 'AddWeight',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'POST',
    path: `${logs}/sun-sessions`,
    operation: 'LogSunSession',
    body: 'input',
    status: 201,
    tag: 'logs',
  },
  {
    method: 'PATCH',
    path: `${logs}/{entry_id}`,
    operation: 'UpdateLogEntry',
    body: 'input',
    tag: 'logs',
  },
  { method: 'DELETE', path: `${logs}/{entry_id}`, operation: 'DeleteLogEntry', tag: 'logs' },
  { method: 'GET', path: '/api/v1/health/sun/advice', operation: 'GetSunAdvice', tag: 'sun' },
  { method: 'GET', path: '/api/v1/health/scores/{kind}', operation: 'ListScores', tag: 'scores' },
];
