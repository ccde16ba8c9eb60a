/**
 * Labs (/api/v1/labs/..., issue 36): blood test reports (list, one, create, change, delete), a
 * report file read into a draft (base64 in a JSON body, as the MCP tool takes it), markers over
 * time, the summary and the reports as a FHIR R4 Bundle.
 */
import type { RestRoute } from '../route.ts';

const reports = '/api/v1/labs/reports';

export const labsRoutes: RestRoute[] = [
  { method: 'GET', path: reports, operation: 'bloodReports', tag: 'labs' },
  {
    method: 'POST',
    path: reports,
    operation: 'createBloodReport',
    body: 'input',
    status: 201,
    tag: 'labs',
  },
  { method: 'GET', path: `${reports}/{id}`, operation: 'bloodReport', tag: 'labs' },
  {
    method: 'PATCH',
    path: `${reports}/{id}`,
    operation: 'updateBloodReport',
    body: 'input',
    tag: 'labs',
  },
  { method: 'DELETE', path: `${reports}/{id}`, operation: 'deleteBloodReport', tag: 'labs' },
  {
    method: 'POST',
    path: '/api/v1/labs/parse',
    operation: 'parseBloodReport',
    // a 3 MB file as base64 (4 MB) in a JSON body; more is refused before it is read
    bodyLimit: '5mb',
    tag: 'labs',
  },
  { method: 'GET', path: '/api/v1/labs/markers', operation: 'bloodMarkers', tag: 'labs' },
  {
    method: 'GET',
    path: '/api/v1/labs/markers/{marker_id}',
    operation: 'bloodMarker',
    tag: 'labs',
  },
  { method: 'GET', path: '/api/v1/labs/summary', operation: 'bloodSummary', tag: 'labs' },
  { method: 'GET', path: '/api/v1/labs/fhir', operation: 'labsFhir', tag: 'labs' },
];
