/**
 * The labs domain's synced tables (issue 36): blood reports and their values, so the phone keeps
 * them offline. Declared with defineSyncedTable (src/platform/synced-tables.ts); the sync domain
 * lists them and carries them (src/domains/sync/README.md). A push obeys blood_report_create's
 * rules (issue 47, reversing issue 36's "the tools' only"): a report drawn on a real date
 * 1900..2100, and a value of a marker of the vocabulary, coded with a LOINC code the tools store
 * for its unit (codingOf: a qualifier's, the unit's own, the marker's), in one of the marker's UCUM units (the code the tools store, so
 * the marker history and the FHIR export read it alike), plausible for the marker in that unit
 * (labs.value-rules.ts: the functions the tools check with).
 */
import { isLocalDate } from '../../platform/local-dates.ts';
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import type { SyncIssue } from '../../platform/synced-tables.ts';
import { plausibilityIssue, unknownUnit } from './labs.value-rules.ts';
import { allMarkers, codingOf, markerById, unitOf } from './labs.vocabulary.ts';

type Row = Readonly<Record<string, unknown>>;

/** A report drawn on a date YYYY-MM-DD between 1900 and 2100, as blood_report_create takes it. */
function checkReport(r: Row): SyncIssue[] {
  const d = r.drawn_on as string;
  return isLocalDate(d) && d >= '1900-01-01' && d <= '2100-12-31'
    ? []
    : [{ wire: 'drawn_on', msg: 'not a date YYYY-MM-DD between 1900 and 2100' }];
}

/** A value as blood_report_create stores it: a UCUM unit of its marker, a code the tools store, plausible. */
function checkResult(r: Row): SyncIssue[] {
  const def = markerById(r.marker_id as string);
  if (!def) return []; // the column's own rule (oneOf) has refused it already
  const unit = r.unit as string;
  const issues: SyncIssue[] = [];
  const own = def.units.find((u) => u.ucum === unit);
  if (!own) {
    const ucum = unitOf(def, unit);
    issues.push({
      wire: 'unit',
      msg: ucum ? `Store the UCUM code "${ucum}", as the tools do.` : unknownUnit(def, unit),
    });
  }
  // the codes the tools store for the unit (codingOf: a qualifier's, the unit's own, the marker's),
  // and the marker's own (what a value stored before issue 47 holds; the readers re-derive it)
  const codes = own
    ? [
        ...new Set([
          def.loinc,
          ...[null, ...(def.qualifiers ?? [])].map((q) => codingOf(def, own.ucum, q).loinc),
        ]),
      ]
    : [];
  if (own && !codes.includes(r.loinc as string))
    issues.push({
      wire: 'loinc',
      msg: `${def.name} in ${unit} is LOINC ${codes.join(' or ')}, not "${String(r.loinc)}".`,
    });
  const implausible = own ? plausibilityIssue(def, r.value as number, own.ucum) : null;
  if (implausible) issues.push({ wire: 'value', msg: implausible });
  return issues;
}

const FLAGS = ['H', 'L', 'HH', 'LL', 'A'] as const;
const SOURCES = ['pdf_text', 'ocr', 'typed'] as const;
/** Any value of any marker: the column's bound; the marker's own plausibility is in checkResult. */
const ANY_VALUE = { min: -1_000_000, max: 1_000_000 };

export const LABS_SYNCED_TABLES = [
  defineSyncedTable({
    table: 'lab_reports',
    sqlTable: 'lab_reports',
    model: 'LabReport',
    since: 7,
    readScope: 'health:labs:read',
    writeScope: 'health:labs:write',
    check: checkReport,
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
    check: checkResult,
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
