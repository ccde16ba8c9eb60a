/** Glucose: readings in canonical mg/dL, raw sensor data and its processing, trends. */
import type { RestRoute } from '../route.ts';

/** Batches of 50,000 readings or raw samples (~5-8 MB of JSON) exceed the global 1 MB body limit. */
const BATCH_BODY_LIMIT = '16mb';

export const glucoseRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/glucose/process-sensor',
    operation: 'ProcessSensorPayload',
    body: 'input',
    bodyLimit: BATCH_BODY_LIMIT,
    tag: 'glucose',
  },
  {
    method: 'POST',
    path: '/api/glucose/sensor/rebuild-from-raw',
    operation: 'RebuildSensorFromRaw',
    body: 'input',
    tag: 'glucose',
  },
  {
    method: 'POST',
    path: '/api/glucose/readings',
    operation: 'CreateGlucoseReading',
    body: 'input',
    tag: 'glucose',
  },
  {
    method: 'GET',
    path: '/api/glucose/readings',
    operation: 'ListGlucoseReadings',
    tag: 'glucose',
  },
  {
    method: 'DELETE',
    path: '/api/glucose/readings',
    operation: 'DeleteAllGlucoseReadings',
    tag: 'glucose',
  },
  {
    method: 'POST',
    path: '/api/glucose/readings/batch',
    operation: 'CreateGlucoseReadingsBatch',
    body: 'readings',
    bodyLimit: BATCH_BODY_LIMIT,
    tag: 'glucose',
  },
  {
    method: 'POST',
    path: '/api/glucose/raw/batch',
    operation: 'CreateRawSensorDataBatch',
    body: 'samples',
    bodyLimit: BATCH_BODY_LIMIT,
    tag: 'glucose',
  },
  { method: 'GET', path: '/api/glucose/trends', operation: 'GlucoseTrends', tag: 'glucose' },
];
