/** Health exports (issue 16): jobs under /api/v1/export (read API; paths in rest-facade/README.md). */
import type { RestRoute } from '../route.ts';

export const exportRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/export/jobs',
    operation: 'StartHealthExport',
    body: 'input',
    status: 202,
    tag: 'export',
  },
  { method: 'GET', path: '/api/v1/export/jobs', operation: 'ListExportJobs', tag: 'export' },
  {
    method: 'GET',
    path: '/api/v1/export/jobs/{job_id}',
    operation: 'ReadHealthExportStatus',
    rename: { job_id: 'id' },
    tag: 'export',
  },
  {
    method: 'GET',
    path: '/api/v1/export/jobs/{job_id}/link',
    operation: 'DownloadHealthExport',
    rename: { job_id: 'id' },
    tag: 'export',
  },
  {
    method: 'GET',
    path: '/api/v1/export/jobs/{job_id}/file',
    operation: 'DownloadHealthExportFile',
    rename: { job_id: 'id' },
    responder: 'file',
    tag: 'export',
  },
  {
    method: 'GET',
    path: '/api/v1/export/files/{token}',
    operation: 'DownloadHealthExportByLink',
    responder: 'file',
    tag: 'export',
  },
];
