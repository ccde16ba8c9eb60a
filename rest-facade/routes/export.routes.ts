/** Health exports (issue 16): jobs under /api/v1/export (read API; paths in rest-facade/README.md). */
import type { RestRoute } from '../route.ts';

export const exportRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/export/jobs',
    operation: 'startHealthExport',
    body: 'input',
    status: 202,
    tag: 'export',
  },
  { method: 'GET', path: '/api/v1/export/jobs', operation: 'exportJobs', tag: 'export' },
  {
    method: 'GET',
    path: '/api/v1/export/jobs/{job_id}',
    operation: 'healthExportStatus',
    rename: { job_id: 'id' },
    tag: 'export',
  },
  {
    method: 'GET',
    path: '/api/v1/export/jobs/{job_id}/link',
    operation: 'healthExportDownload',
    rename: { job_id: 'id' },
    tag: 'export',
  },
  {
    method: 'GET',
    path: '/api/v1/export/jobs/{job_id}/file',
    operation: 'healthExportFile',
    rename: { job_id: 'id' },
    responder: 'file',
    tag: 'export',
  },
  {
    method: 'GET',
    path: '/api/v1/export/files/{token}',
    operation: 'healthExportFileByLink',
    responder: 'file',
    tag: 'export',
  },
];
