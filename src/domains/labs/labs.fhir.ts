/**
 * The person's blood reports as FHIR R4 (issue 36, GET /api/v1/labs/fhir): a `collection` Bundle of
 * one DiagnosticReport per report and one Observation per value, coded with LOINC and UCUM, each
 * value's range (the report's own, or the labelled fallback as text) and the report's flag as an
 * HL7 interpretation code. References between entries are their `urn:uuid:` full URLs, so the
 * bundle stands alone. Tests validate it against the FHIR R4 definitions (@medplum/core).
 *
 * It must never put anything in the bundle that is not the person's: reads use `bloodReports`.
 */
import type {
  Bundle,
  BundleEntry,
  DiagnosticReport,
  Observation,
  ObservationReferenceRange,
} from '@medplum/fhirtypes';
import type { AuthedContext } from '../../graphql/context.ts';
import { bloodReports } from './labs.reports.ts';
import type { LabReportView, LabResultView } from './labs.reports.ts';
import { clock } from '../../base/clock.ts';

const LOINC = 'http://loinc.org';
const UCUM = 'http://unitsofmeasure.org';
const V2_0074 = 'http://terminology.hl7.org/CodeSystem/v2-0074';
const INTERPRETATION = 'http://terminology.hl7.org/CodeSystem/v3-ObservationInterpretation';
/** Reports read into one bundle at most (pages of the list). */
export const MAX_FHIR_REPORTS = 500;

const labCategory = [{ coding: [{ system: V2_0074, code: 'LAB', display: 'Laboratory' }] }];
const quantity = (value: number, unit: string) => ({ value, unit, system: UCUM, code: unit });

function rangeOf(r: LabResultView): ObservationReferenceRange[] | undefined {
  if (!r.range) return undefined;
  const { low, high, unit, text, origin, source } = r.range;
  return [
    {
      ...(low !== null ? { low: quantity(low, unit) } : {}),
      ...(high !== null ? { high: quantity(high, unit) } : {}),
      text: origin === 'report' ? text : `${origin} (${source ?? 'fallback'}): ${text}`,
    },
  ];
}

function observationOf(report: LabReportView, r: LabResultView): Observation {
  // the value's own code (issue 47): a molar unit's, a fasting glucose's (1558-6), a calculated
  // LDL's (13457-7), as labs.reports.ts answers it
  return {
    resourceType: 'Observation',
    id: r.id,
    status: 'final',
    category: labCategory,
    code: {
      coding: [{ system: LOINC, code: r.loinc, display: r.loincName }],
      text: r.qualifier ? `${r.name} (${r.qualifier})` : r.name,
    },
    effectiveDateTime: report.drawnOn,
    valueQuantity: quantity(r.value, r.unit),
    ...(r.flag ? { interpretation: [{ coding: [{ system: INTERPRETATION, code: r.flag }] }] } : {}),
    ...(rangeOf(r) ? { referenceRange: rangeOf(r) } : {}),
  };
}

function diagnosticReportOf(report: LabReportView): DiagnosticReport {
  return {
    resourceType: 'DiagnosticReport',
    id: report.id,
    status: 'final',
    category: labCategory,
    code: { coding: [{ system: LOINC, code: '11502-2', display: 'Laboratory report' }] },
    effectiveDateTime: report.drawnOn,
    issued: report.createdAt.toISOString(),
    ...(report.lab ? { performer: [{ display: report.lab }] } : {}),
    result: report.results.map((r) => ({ reference: `urn:uuid:${r.id}` })),
  };
}

/** The person's reports as a FHIR R4 collection Bundle. */
export async function labsFhir(ctx: AuthedContext): Promise<Bundle> {
  const entries: BundleEntry[] = [];
  let cursor: string | null = null;
  let read = 0;
  do {
    const page = await bloodReports(ctx, { limit: 50, cursor });
    for (const report of page.reports) {
      entries.push({ fullUrl: `urn:uuid:${report.id}`, resource: diagnosticReportOf(report) });
      for (const r of report.results) {
        entries.push({ fullUrl: `urn:uuid:${r.id}`, resource: observationOf(report, r) });
      }
    }
    read += page.reports.length;
    cursor = page.nextCursor;
  } while (cursor && read < MAX_FHIR_REPORTS);
  return {
    resourceType: 'Bundle',
    type: 'collection',
    timestamp: clock.now().toISOString(),
    entry: entries,
  };
}
