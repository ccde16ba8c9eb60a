/** Snoring nights of the read API (/api/v1/health/snoring): list, read, delete, clip upload and read. */
import type { RestRoute } from '../route.ts';

export const snoringRoutes: RestRoute[] = [
  { method: 'GET', path: '/api/v1/health/snoring', operation: 'snoreNights', tag: 'snoring' },
  {
    method: 'GET',
    path: '/api/v1/health/snoring/{night_id}',
    operation: 'snoreNight',
    rename: { night_id: 'id' },
    tag: 'snoring',
  },
  {
    method: 'DELETE',
    path: '/api/v1/health/snoring/{night_id}',
    operation: 'deleteSnoreNight',
    rename: { night_id: 'id' },
    tag: 'snoring',
  },
  {
    method: 'GET',
    path: '/api/v1/health/snoring/{night_id}/audio',
    operation: 'snoreAudio',
    tag: 'snoring',
  },
  {
    method: 'POST',
    path: '/api/v1/health/snoring/{night_id}/audio',
    operation: 'uploadSnoreAudio',
    responder: 'multipart',
    status: 201,
    tag: 'snoring',
  },
];
