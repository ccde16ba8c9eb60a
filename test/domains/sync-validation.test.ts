/**
 * Issue 47, item 10: a sync push obeys the rules the tools apply. For every synced table a pushed
 * record that one of its tools would refuse (a rule across columns, or a bound the tools apply)
 * answers 422 at the record's field, and nothing of the push is written (a valid record of another
 * table, pushed first, is rolled back too). The same records, made valid, are stored: the refusal
 * is the rule's, not the test data's. An update is checked merged over the stored row.
 */
import { describe, expect, it } from 'vitest';
import { SYNCED_TABLES } from '../../src/domains/sync/sync.tables.ts';
import { seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const T0 = Date.parse('2026-11-20T08:00:00Z');
const DAY = 86_400_000;
let n = 0;
const newId = (): string =>
  `sv${String(++n).padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`;

type Rec = Record<string, unknown>;

/** A valid new record of `table`, with the records it names (a meal's items name their meal). */
function validOf(table: string): { before: Record<string, Rec>; record: Rec } {
  const id = newId();
  switch (table) {
    case 'journal_entries':
      return { before: {}, record: { id, body: 'slept well', happened_at: T0, mood: 4 } };
    case 'glucose_readings':
      return { before: {}, record: { id, sensor_id: 1, timestamp: T0, value_mg_dl: 120 } };
    case 'raw_sensor_data':
      return {
        before: {},
        record: { id, sensor_id: 1, timestamp: T0, raw_value: 1200, temperature_c: 31 },
      };
    case 'glucose_sensors':
      return { before: {}, record: { id, sensor_id: 1, calibration_slope: 0.9 } };
    case 'sensor_sessions':
      return {
        before: {},
        record: { id, serial_number: 'SN-1', started_at: T0, expires_at: T0 + 14 * DAY },
      };
    case 'health_metrics':
      return {
        before: {},
        record: { id, metric_type: 'steps', value: 420, unit: 'count', timestamp: T0 },
      };
    case 'sleep_samples':
      return { before: {}, record: { id, stage: 'deep', start_at: T0, end_at: T0 + 1_800_000 } };
    case 'workout_samples':
      return {
        before: {},
        record: {
          id,
          activity_type: 'running',
          start_at: T0,
          end_at: T0 + 1_800_000,
          duration_minutes: 30,
        },
      };
    case 'meals':
      return { before: {}, record: { id, meal_name: 'Oats', eaten_at: T0 } };
    case 'meal_items': {
      const meal = { id: newId(), meal_name: 'Oats', eaten_at: T0 };
      return { before: { meals: meal }, record: { id, meal_id: meal.id, name: 'Oats', grams: 50 } };
    }
    case 'saved_meals':
      return { before: {}, record: { id, name: 'Porridge' } };
    case 'saved_meal_items': {
      const saved = { id: newId(), name: 'Porridge' };
      return {
        before: { saved_meals: saved },
        record: { id, saved_meal_id: saved.id, name: 'Oats', grams: 50, kcal: 190 },
      };
    }
    case 'favorite_foods':
      return { before: {}, record: { id, food_id: '173944', name: 'Bananas, raw' } };
    case 'blood_pressure_readings':
      return { before: {}, record: { id, systolic: 120, diastolic: 80, measured_at: T0 } };
    case 'log_entries':
      return { before: {}, record: { id, kind: 'hydration', value: 250, logged_at: T0 } };
    case 'goals':
      return { before: {}, record: { id, metric: 'steps', target: 8000 } };
    case 'snore_nights':
      return {
        before: {},
        record: { id, started_at: T0, ended_at: T0 + 7 * 3_600_000, snoring_minutes: 30 },
      };
    case 'lab_reports':
      return { before: {}, record: { id, drawn_on: '2026-03-14' } };
    case 'lab_results': {
      const report = { id: newId(), drawn_on: '2026-03-14' };
      return {
        before: { lab_reports: report },
        record: {
          id,
          report_id: report.id,
          marker_id: 'hba1c',
          loinc: '4548-4',
          value: 5.6,
          unit: '%',
        },
      };
    }
    default:
      throw new Error(`no valid record of ${table}`);
  }
}

/** Per table: what one of its tools would refuse (columns replaced), and the field it is at. */
const REFUSED: [table: string, bad: Rec, field: string, rule: string][] = [
  ['journal_entries', { happened_at: Date.parse('1850-01-01') }, 'happened_at', '1900'],
  ['glucose_readings', { value_mg_dl: 5 }, 'value_mg_dl', 'greater than or equal to 10'],
  ['raw_sensor_data', { temperature_c: 80 }, 'temperature_c', 'less than or equal to 60'],
  ['glucose_sensors', { calibration_slope: 0 }, 'calibration_slope', 'greater than 0'],
  ['sensor_sessions', { expires_at: T0 - DAY }, 'expires_at', 'after started_at'],
  ['health_metrics', { unit: 'furlongs' }, 'unit', 'in count'],
  ['sleep_samples', { end_at: T0 - 60_000 }, 'end_at', 'end must not be before start'],
  ['workout_samples', { duration_minutes: 90 }, 'duration_minutes', 'longer than the workout'],
  ['meals', { eaten_at: clock.ms() + 3 * DAY }, 'eaten_at', '24 hours ahead'],
  ['meal_items', { grams: 0 }, 'grams', 'greater than 0'],
  ['saved_meals', { name: '   ' }, 'name', 'blank'],
  ['saved_meal_items', { kcal: 20_000 }, 'kcal', 'less than or equal to 10000'],
  ['favorite_foods', { food_id: 'x'.repeat(65) }, 'food_id', '1..64'],
  ['blood_pressure_readings', { diastolic: 125 }, 'diastolic', 'lower than systolic'],
  ['log_entries', { value: 9000 }, 'value', 'between 1 and 5000'],
  ['goals', { target: 50 }, 'target', '100..100000'],
  ['snore_nights', { snoring_minutes: 500 }, 'snoring_minutes', 'longer than the night'],
  ['lab_reports', { drawn_on: '2026-02-30' }, 'drawn_on', 'YYYY-MM-DD'],
  ['lab_results', { value: 900_000, unit: 'furlongs' }, 'unit', 'not reported in "furlongs"'],
];

const pull = async (u: SeededUser): Promise<Record<string, { created: Rec[] }>> =>
  (await rest(app, 'GET', '/api/sync/pull', { token: u.token })).body.changes;
const push = (u: SeededUser, changes: unknown, lastPulledAt: number | null = null) =>
  rest(
    app,
    'POST',
    `/api/sync/push${lastPulledAt === null ? '' : `?last_pulled_at=${lastPulledAt}`}`,
    {
      token: u.token,
      body: changes,
    },
  );
const entry = (c: { created?: Rec[]; updated?: Rec[] }) => ({
  created: c.created ?? [],
  updated: c.updated ?? [],
  deleted: [],
});
/** A push of `records` as created, table by table in the order given. */
const creating = (records: [string, Rec][]) =>
  Object.fromEntries(records.map(([table, r]) => [table, entry({ created: [r] })]));
/** Every record the account holds, as the phone's first pull answers them, by table. */
const stored = async (u: SeededUser): Promise<Record<string, string[]>> =>
  Object.fromEntries(
    Object.entries(await pull(u))
      .map(([table, c]) => [table, c.created.map((r) => r.id as string)] as const)
      .filter(([, ids]) => ids.length),
  );

describe('sync pushes obey the tools’ rules (issue 47, item 10)', () => {
  it('names a refused record for every synced table', () => {
    expect(REFUSED.map(([table]) => table).sort()).toEqual(
      SYNCED_TABLES.map((t) => t.table).sort(),
    );
  });

  for (const [table, bad, field, rule] of REFUSED) {
    it(`answers 422 at ${table}.${field} and writes nothing of the push`, async () => {
      const u = await seedUser(app);
      // a valid record of another table, pushed before the refused one: rolled back with it
      const witnessTable = table === 'journal_entries' ? 'glucose_readings' : 'journal_entries';
      const witness = validOf(witnessTable).record;
      const { before, record } = validOf(table);
      const refused = await push(
        u,
        creating([
          [witnessTable, witness],
          ...Object.entries(before),
          [table, { ...record, ...bad }],
        ]),
      );
      expect(refused.status, JSON.stringify(refused.body)).toBe(422);
      expect(refused.body.detail).toHaveLength(1);
      expect(refused.body.detail[0].loc.slice(-4)).toEqual([table, 'created', 0, field]);
      expect(refused.body.detail[0].msg).toContain(rule);
      expect(await stored(u)).toEqual({});

      // the same push with the record as the tools take it is stored
      const ok = await push(
        u,
        creating([[witnessTable, witness], ...Object.entries(before), [table, record]]),
      );
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect((await stored(u))[table]).toEqual([record.id]);
    });
  }
});

describe('an update is checked merged over the stored row', () => {
  /** Pushes `records` as created and answers the pull's timestamp after it. */
  async function seed(u: SeededUser, records: [string, Rec][]): Promise<number> {
    expect((await push(u, creating(records))).status).toBe(200);
    return (await rest(app, 'GET', '/api/sync/pull', { token: u.token })).body.timestamp;
  }

  it('refuses a diastolic that the stored systolic does not allow', async () => {
    const u = await seedUser(app);
    const { record } = validOf('blood_pressure_readings');
    const t = await seed(u, [['blood_pressure_readings', record]]);
    const res = await push(
      u,
      { blood_pressure_readings: entry({ updated: [{ id: record.id, diastolic: 120 }] }) },
      t,
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc.slice(-4)).toEqual([
      'blood_pressure_readings',
      'updated',
      0,
      'diastolic',
    ]);
    expect((await pull(u)).blood_pressure_readings.created).toEqual([
      expect.objectContaining({ id: record.id, systolic: 120, diastolic: 80 }),
    ]);
  });

  it('refuses a weekly steps goal made daily without its target changing', async () => {
    const u = await seedUser(app);
    const goal = { id: newId(), metric: 'steps', target: 500_000, period: 'week' };
    const t = await seed(u, [['goals', goal]]);
    const res = await push(u, { goals: entry({ updated: [{ id: goal.id, period: 'day' }] }) }, t);
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({
      loc: expect.arrayContaining(['goals', 'updated', 0, 'target']),
      msg: expect.stringContaining('a daily steps target is 100..100000 count'),
    });
    expect((await pull(u)).goals.created).toEqual([
      expect.objectContaining({ id: goal.id, period: 'week', target: 500_000 }),
    ]);
  });

  it('refuses a lab value whose unit alone is changed to one its marker is not reported in', async () => {
    const u = await seedUser(app);
    const { before, record } = validOf('lab_results');
    const t = await seed(u, [...Object.entries(before), ['lab_results', record]]);
    const res = await push(
      u,
      { lab_results: entry({ updated: [{ id: record.id, unit: 'furlongs' }] }) },
      t,
    );
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc.slice(-4)).toEqual(['lab_results', 'updated', 0, 'unit']);
    expect((await pull(u)).lab_results.created).toEqual([
      expect.objectContaining({ id: record.id, unit: '%', value: 5.6 }),
    ]);
  });
});

describe('lab values (the HbA1c of 900,000 furlongs)', () => {
  const report = { id: newId(), drawn_on: '2026-03-14' };
  const hba1c = { report_id: report.id, marker_id: 'hba1c', loinc: '4548-4', unit: '%' };

  it('refuses an implausible value, a code of another marker, a molar code for a mass unit and a spelling', async () => {
    const u = await seedUser(app);
    const cases: [Rec, string, string][] = [
      [{ ...hba1c, value: 900_000 }, 'value', 'not a plausible HbA1c'],
      [{ ...hba1c, value: 5.6, loinc: '2345-7' }, 'loinc', 'LOINC 4548-4'],
      [
        { ...hba1c, marker_id: 'glucose', loinc: '14749-6', value: 98, unit: 'mg/dL' },
        'loinc',
        'not "14749-6"',
      ],
      [
        { ...hba1c, marker_id: 'glucose', loinc: '2345-7', value: 98, unit: 'mg/dl' },
        'unit',
        'Store the UCUM code "mg/dL"',
      ],
    ];
    for (const [value, field, msg] of cases) {
      const res = await push(
        u,
        creating([
          ['lab_reports', { ...report, id: newId() }],
          ['lab_results', { id: newId(), ...value }],
        ]),
      );
      expect(res.status, `${field} ${msg}`).toBe(422);
      expect(res.body.detail[0].loc.slice(-4)).toEqual(['lab_results', 'created', 0, field]);
      expect(res.body.detail[0].msg).toContain(msg);
    }
    expect(await stored(u)).toEqual({});
  });

  it('takes a molar glucose under its molar code, a fasting glucose under its code, and an insulin in a unit it cannot convert', async () => {
    const u = await seedUser(app);
    const res = await push(
      u,
      creating([
        ['lab_reports', report],
        [
          'lab_results',
          {
            id: newId(),
            ...hba1c,
            marker_id: 'glucose',
            loinc: '14749-6',
            value: 5.4,
            unit: 'mmol/L',
          },
        ],
      ]),
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const fasting = { ...hba1c, marker_id: 'glucose', loinc: '1558-6', value: 92, unit: 'mg/dL' };
    const fastingPush = await push(u, creating([['lab_results', { id: newId(), ...fasting }]]));
    expect(fastingPush.status, JSON.stringify(fastingPush.body)).toBe(200);
    const insulin = await push(
      u,
      creating([
        [
          'lab_results',
          {
            id: newId(),
            ...hba1c,
            marker_id: 'insulin',
            loinc: '20448-7',
            value: 60,
            unit: 'pmol/L',
          },
        ],
      ]),
    );
    expect(insulin.status, JSON.stringify(insulin.body)).toBe(200);
  });
});
