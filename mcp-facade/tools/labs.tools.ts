/**
 * Labs (issue 36): blood test reports read from a PDF or a photo into a draft, saved, changed,
 * deleted and listed; markers over time and the summary. `get_labs_reports` has no scope in the
 * spec: it reads health data, so it needs what `blood_reports_list` needs (its field's scope),
 * as the other unscoped tools do.
 */
import type { McpTool } from '../tool.ts';

export const labsTools: McpTool[] = [
  {
    name: 'get_labs_reports',
    title: 'Get lab reports',
    operation: 'bloodReports',
    scopes: [],
    kind: 'read',
    healthData: true,
  },
  {
    name: 'blood_reports_list',
    title: 'List my blood test reports',
    operation: 'bloodReports',
    scopes: ['health:labs:read'],
    kind: 'read',
  },
  {
    name: 'blood_marker_list',
    title: 'List my blood markers',
    operation: 'bloodMarkers',
    scopes: ['health:labs:read'],
    kind: 'read',
  },
  {
    name: 'blood_marker_read',
    title: 'Read one blood marker over time',
    operation: 'bloodMarker',
    scopes: ['health:labs:read'],
    kind: 'read',
  },
  {
    name: 'blood_summary_read',
    title: 'Summarise my blood tests',
    operation: 'bloodSummary',
    scopes: ['health:labs:read'],
    kind: 'read',
  },
  {
    name: 'blood_report_parse_inline',
    title: 'Read a blood report file into a draft',
    operation: 'parseBloodReport',
    scopes: ['health:labs:write'],
    kind: 'write',
    creates: false,
  },
  {
    name: 'blood_report_create',
    title: 'Save a blood test report',
    operation: 'createBloodReport',
    scopes: ['health:labs:write'],
    kind: 'write',
  },
  {
    name: 'blood_report_update',
    title: 'Change a blood test report',
    operation: 'updateBloodReport',
    scopes: ['health:labs:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'blood_report_delete',
    title: 'Delete a blood test report',
    operation: 'deleteBloodReport',
    scopes: ['health:labs:write'],
    kind: 'deletes',
  },
];
