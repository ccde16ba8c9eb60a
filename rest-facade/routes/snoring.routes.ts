/** Snoring nights of the read API (/api/v1/health/snoring): list, read, delete, clip upload and read. */
import type { RestRoute } from '../route.ts';

export const snoringRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/v1/health/snoring', operation: 'ListSnoreNights', tag: 'snoring' },
  {
    method: 'GET',
    path: '/api/v1/health/snoring/{night_id}',
    operation: 'GetSnoreNight',
    rename: { night_id: 'id' },
    tag: 'snoring',
  },
  {
    method: 'DELETE',
    path: '/api/v1/health/snoring/{night_id}',
    operation: 'DeleteSnoreNight',
    rename: { night_id: 'id' },
    tag: 'snoring',
  },
  {
    method: 'GET',
    path: '/api/v1/health/snoring/{night_id}/audio',
    operation: 'ReadSnoreAudio',
    tag: 'snoring',
  },
  {
    method: 'POST',
    path: '/api/v1/health/snoring/{night_id}/audio',
    operation: 'UploadSnoreAudio',
    responder: 'multipart',
    status: 201,
    tag: 'snoring',
  },
];
