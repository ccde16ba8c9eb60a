/** What other modules use of the DNA domain: the report worker's wiring. */
export { DNA_REPORT_WORK } from './dna.worker.ts';
export type { DnaWorkerDeps } from './dna.worker.ts';
