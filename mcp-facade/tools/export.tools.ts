/** Health exports (issue 16): start a job, read its status, list jobs, get a download link. */
import type { McpTool } from '../tool.ts';

export const exportTools: McpTool[] = [
  {
    name: 'health_export_start',
    title: 'Start a health data export',
    operation: 'startHealthExport',
    scopes: ['health:export:read'],
    kind: 'write',
  },
  {
    name: 'health_export_status',
    title: 'Read a health export status',
    operation: 'healthExportStatus',
    scopes: ['health:export:read'],
    kind: 'read',
  },
  {
    name: 'export_jobs_list',
    title: 'List health export jobs',
    operation: 'exportJobs',
    scopes: ['health:export:read'],
    kind: 'read',
  },
  {
    name: 'health_export_download',
    title: 'Get a health export download link',
    operation: 'healthExportDownload',
    scopes: ['health:export:read'],
    kind: 'read',
  },
];
