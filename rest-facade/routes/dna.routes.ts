/**
 * DNA (/api/v1/dna/..., issue 34): the phone's upload of a raw genome file (multipart, streamed to
 * the field), the report, a gene, named variants, the curated knowledge, the medicines and HLA
 * reports (started in the background, then read), and deleting it all; ancestry, haplogroups, runs
 * of homozygosity, painting, the story and relatives (issue 35).
 */
import type { RestRoute } from '../route.ts';

export const dnaRoutes: RestRoute[] = [
  {
    method: 'POST',
    path: '/api/v1/dna/upload',
    operation: 'uploadGenome',
    responder: 'upload',
    tag: 'dna',
  },
  { method: 'GET', path: '/api/v1/dna/report', operation: 'dnaReport', tag: 'dna' },
  { method: 'GET', path: '/api/v1/dna/genes/{symbol}', operation: 'dnaGene', tag: 'dna' },
  { method: 'GET', path: '/api/v1/dna/variants', operation: 'dnaVariants', tag: 'dna' },
  {
    method: 'GET',
    path: '/api/v1/dna/knowledge',
    operation: 'dnaKnowledge',
    rename: { q: 'query' },
    tag: 'dna',
  },
  { method: 'POST', path: '/api/v1/dna/medicines', operation: 'startDnaMedicines', tag: 'dna' },
  { method: 'GET', path: '/api/v1/dna/medicines', operation: 'dnaMedicines', tag: 'dna' },
  { method: 'POST', path: '/api/v1/dna/hla', operation: 'startDnaHla', tag: 'dna' },
  { method: 'GET', path: '/api/v1/dna/hla', operation: 'dnaHla', tag: 'dna' },
  { method: 'POST', path: '/api/v1/dna/ancestry', operation: 'startDnaAncestry', tag: 'dna' },
  { method: 'GET', path: '/api/v1/dna/ancestry', operation: 'dnaAncestry', tag: 'dna' },
  { method: 'GET', path: '/api/v1/dna/calculator', operation: 'dnaCalculator', tag: 'dna' },
  { method: 'GET', path: '/api/v1/dna/deep-time', operation: 'dnaDeepTime', tag: 'dna' },
  {
    method: 'GET',
    path: '/api/v1/dna/parents-related',
    operation: 'dnaParentsRelated',
    tag: 'dna',
  },
  { method: 'GET', path: '/api/v1/dna/painting', operation: 'dnaPainting', tag: 'dna' },
  {
    method: 'GET',
    path: '/api/v1/dna/painting/findings',
    operation: 'dnaPaintingFindings',
    tag: 'dna',
  },
  { method: 'GET', path: '/api/v1/dna/story', operation: 'dnaStory', tag: 'dna' },
  { method: 'GET', path: '/api/v1/dna/family', operation: 'dnaRelatives', tag: 'dna' },
  { method: 'POST', path: '/api/v1/dna/family', operation: 'inviteDnaRelative', tag: 'dna' },
  {
    method: 'GET',
    path: '/api/v1/dna/family/insights',
    operation: 'dnaFamilyInsights',
    tag: 'dna',
  },
  { method: 'GET', path: '/api/v1/dna/family/{id}', operation: 'dnaRelative', tag: 'dna' },
  { method: 'PATCH', path: '/api/v1/dna/family/{id}', operation: 'updateDnaRelative', tag: 'dna' },
  {
    method: 'DELETE',
    path: '/api/v1/dna/family/{id}',
    operation: 'removeDnaRelative',
    tag: 'dna',
  },
  {
    method: 'POST',
    path: '/api/v1/dna/family/{id}/accept',
    operation: 'acceptDnaRelative',
    tag: 'dna',
  },
  {
    method: 'POST',
    path: '/api/v1/dna/family/{id}/ancestry',
    operation: 'compareDnaRelativeAncestry',
    tag: 'dna',
  },
  { method: 'DELETE', path: '/api/v1/dna', operation: 'deleteDnaData', tag: 'dna' },
];
