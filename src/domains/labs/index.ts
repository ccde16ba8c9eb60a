/** What other modules use of the labs domain: its synced tables, and the OCR worker to close at stop. */
export { LABS_SYNCED_TABLES } from './labs.synced.ts';
export { closeOcr } from './labs.ocr.ts';
