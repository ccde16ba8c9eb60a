/** What other modules use of the export domain: the worker's wiring and account deletion's files. */
export { EXPORT_WORK } from './export.worker.ts';
export type { ExportWorkerDeps } from './export.worker.ts';
export { exportFileKeysOf } from './export.jobs.ts';
