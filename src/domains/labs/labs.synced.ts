/**
 * The labs domain's synced tables (issue 36): blood reports and their values, so the phone keeps
 * them offline. Declared with defineSyncedTable (src/platform/synced-tables.ts); the sync domain
 * lists them and carries them (src/domains/sync/README.md). A push checks each column's bounds and
 * allowed values; the rules across columns (a unit valid for the marker, a plausible value) hold
 * for the server's tools only, as for blood pressure (docs/decisions.md, issue 36).
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import { allMarkers } from './labs.vocabulary.ts';

const FLAGS = ['H', 'L', 'HH', 'LL', 'A'] as const;
const SOURCES = ['pdf_text', 'ocr', 'typed'] as const;
/** Any value of any marker: the per-marker plausibility is the tools' (labs.reports.ts). */
const ANY_VALUE = { min: -1_000_000, max: 1_000_000 };

export const LABS_SYNCED_TABLES = [
  defineSyncedTable({
    table: 'lab_reports',
    sqlTable: 'lab_reports',
    model: 'LabReport',
    since: 7,
    readScope: 'health:labs:read',
    writeScope: 'health:labs:write',
    columns: [
      { wire: 'drawn_on', db: 'drawn_on', type: 'text', notNull: true, required: true },
      { wire: 'lab', db: 'lab', type: 'text' },
      {
        wire: 'source',
        db: 'source',
        type: 'text',
        notNull: true,
        default: 'typed',
        oneOf: SOURCES,
      },
      { wire: 'note', db: 'note', type: 'text' },
    ],
  }),
  defineSyncedTable({
    table: 'lab_results',
    sqlTable: 'lab_results',
    model: 'LabResult',
    since: 7,
    readScope: 'health:labs:read',
    writeScope: 'health:labs:write',
    columns: [
      { wire: 'report_id', db: 'report_id', type: 'text', notNull: true, required: true },
      {
        wire: 'marker_id',
        db: 'marker_id',
        type: 'text',
        notNull: true,
        required: true,
        oneOf: allMarkers().map((m) => m.id),
      },
      { wire: 'loinc', db: 'loinc', type: 'text', notNull: true, required: true },
      { wire: 'value', db: 'value', type: 'float', notNull: true, required: true, ...ANY_VALUE },
      { wire: 'unit', db: 'unit', type: 'text', notNull: true, required: true },
      { wire: 'ref_low', db: 'ref_low', type: 'float', ...ANY_VALUE },
      { wire: 'ref_high', db: 'ref_high', type: 'float', ...ANY_VALUE },
      { wire: 'ref_text', db: 'ref_text', type: 'text' },
      { wire: 'flag', db: 'flag', type: 'text', oneOf: FLAGS },
      { wire: 'source_line', db: 'source_line', type: 'text' },
    ],
  }),
];
