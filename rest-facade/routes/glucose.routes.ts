/** Glucose: readings in canonical mg/dL, raw sensor data and its processing, trends. */
import type { RestRoute } from '../route.ts';

/** Batches of 50,000 readings or raw samples (~5-8 MB of JSON) exceed the global 1 MB body limit. */
const BATCH_BODY_LIMIT = '16mb';

export const glucoseRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/glucose/process-sensor',
    operation: 'processSensorPayload',
    body: 'input',
    bodyLimit: BATCH_BODY_LIMIT,
    tag: 'glucose',
  },
  {
    method: 'POST',
    path: '/api/glucose/sensor/rebuild-from-raw',
    operation: 'rebuildSensorFromRaw',
    body: 'input',
    tag: 'glucose',
  },
  {
    method: 'POST',
    path: '/api/glucose/readings',
    operation: 'createGlucoseReading',
    body: 'input',
    tag: 'glucose',
  },
  {
    method: 'GET',
    path: '/api/glucose/readings',
    operation: 'glucoseReadings',
    tag: 'glucose',
  },
  {
    method: 'DELETE',
    path: '/api/glucose/readings',
    operation: 'deleteAllGlucoseReadings',
    tag: 'glucose',
  },
  {
    method: 'POST',
    path: '/api/glucose/readings/batch',
    operation: 'createGlucoseReadingsBatch',
    body: 'readings',
    bodyLimit: BATCH_BODY_LIMIT,
    tag: 'glucose',
  },
  {
    method: 'POST',
    path: '/api/glucose/raw/batch',
    operation: 'createRawSensorDataBatch',
    body: 'samples',
    bodyLimit: BATCH_BODY_LIMIT,
    tag: 'glucose',
  },
  { method: 'GET', path: '/api/glucose/trends', operation: 'glucoseTrends', tag: 'glucose' },
];
