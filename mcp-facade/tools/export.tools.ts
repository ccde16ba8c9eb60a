/** Health exports (issue 16): start a job, read its status, list jobs, get a download link. */
import type { McpTool } from '../tool.ts';

export const exportTools: McpTool[] = [
  {
    name: 'health_export_start',
    title: 'Start a health data export',
    operation: 'StartHealthExport',
    scopes: ['health:export:read'],
    kind: 'write',
  },
  {
    name: 'health_export_status',
    title: 'Read a health export status',
    operation: 'ReadHealthExportStatus',
    scopes: ['health:export:read'],
    kind: 'read',
  },
  {
    name: 'export_jobs_list',
    title: 'List health export jobs',
    operation: 'ListExportJobs',
    scopes: ['health:export:read'],
    kind: 'read',
  },
  {
    name: 'health_export_download',
    title: 'Get a health export download link',
    operation: 'DownloadHealthExport',
    scopes: ['health:export:read'],
    kind: 'read',
  },
];
