/**
 * What the buckets kept by statement triggers cost the writers (issue 32): steps and energy
 * (health_metric_buckets on health_metrics) through POST /api/health/platform/import, and glucose
 * (glucose_buckets on glucose_readings) through POST /api/glucose/readings/batch. Each batch is
 * timed with the triggers on, and the baseline batch right after it with them off (ALTER TABLE ...
 * DISABLE TRIGGER, the same run and database); then the same for a delete of a day's rows. Prints
 * one JSON line: medians and ratios (the read goals are bench/challenge-standings.bench.ts and
 * bench/community-full-view.bench.ts).
 */
import { medians, round, startInProcessApp, time } from './in-process.ts';

const BATCHES = Number(process.env.BATCHES ?? 20);
const PER_BATCH = 2000;
const DAY_MS = 86_400_000;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const bench = await startInProcessApp('buckets-write');
const { db, json } = bench;
const user = await bench.newUser();

/** One table with its buckets' triggers, a writer of a batch and a deleter of a day. */
interface Case {
  table: string;
  triggers: string;
  /** the batch's request path and body for the n-th batch (a batch starts where the last ended) */
  request: (n: number) => { path: string; body: unknown };
  /** deletes the rows of the day `day` days after T0 */
  deleteDay: (day: number) => Promise<unknown>;
}

const at = (minute: number): string => new Date(T0 + minute * 60_000).toISOString();
const dayRange = (day: number) => ({
  gte: new Date(T0 + day * DAY_MS),
  lt: new Date(T0 + (day + 1) * DAY_MS),
});
const CASES: Case[] = [
  {
    table: 'health_metrics',
    triggers: 'health_metric_buckets',
    // a sample a minute of steps and of active energy: a batch is 1,000 minutes
    request: (n) => ({
      path: '/api/health/platform/import',
      body: {
        samples: Array.from({ length: PER_BATCH }, (_, i) => ({
          metric_type: i % 2 ? 'active_energy' : 'steps',
          value: i % 2 ? 0.4 : 15,
          timestamp: at((n * PER_BATCH) / 2 + Math.floor(i / 2)),
          source: 'Watch',
        })),
      },
    }),
    deleteDay: (day) =>
      db.prisma.healthMetric.deleteMany({ where: { userId: user.id, timestamp: dayRange(day) } }),
  },
  {
    table: 'glucose_readings',
    triggers: 'glucose_buckets',
    // a reading a minute (a 1-minute CGM): a batch is 2,000 minutes
    request: (n) => ({
      path: '/api/glucose/readings/batch',
      body: Array.from({ length: PER_BATCH }, (_, i) => ({
        sensor_id: 1,
        timestamp: at(n * PER_BATCH + i),
        value_mg_dl: 60 + ((i * 7) % 180),
      })),
    }),
    deleteDay: (day) =>
      db.prisma.glucoseReading.deleteMany({ where: { userId: user.id, timestamp: dayRange(day) } }),
  },
];

const setTriggers = async (c: Case, on: boolean): Promise<void> => {
  for (const event of ['insert', 'delete', 'update'])
    await db.prisma.$executeRawUnsafe(
      `ALTER TABLE ${c.table} ${on ? 'ENABLE ALWAYS' : 'DISABLE'} TRIGGER ${c.triggers}_${event}`,
    );
};

/** Batches and day deletions, each timed with the triggers on and then off; medians. */
async function measure(c: Case) {
  let n = 0;
  const post = (): Promise<number> => {
    const { path, body } = c.request(n++);
    return time(() =>
      json(path, { method: 'POST', headers: user.headers, body: JSON.stringify(body) }),
    );
  };
  const f = { import_on: [] as number[], import_off: [] as number[] };
  await post(); // warm-up
  for (let i = 0; i < BATCHES; i++) {
    f.import_on.push(await post());
    await setTriggers(c, false);
    f.import_off.push(await post());
    await setTriggers(c, true);
  }
  const d = { delete_on: [] as number[], delete_off: [] as number[] };
  for (let day = 0; day < 12; day += 2) {
    d.delete_on.push(await time(() => c.deleteDay(day)));
    await setTriggers(c, false);
    d.delete_off.push(await time(() => c.deleteDay(day + 1)));
    await setTriggers(c, true);
  }
  const m = { ...medians(f), ...medians(d) };
  return {
    p50_ms: m,
    ratio_import: round(m.import_on / m.import_off, 2),
    ratio_delete_day: round(m.delete_on / m.delete_off, 2),
  };
}

try {
  const results: Record<string, unknown> = {};
  for (const c of CASES) results[c.table] = await measure(c);
  console.log(
    JSON.stringify({
      bench: 'buckets-write',
      database: db.target.kind,
      rows_per_batch: PER_BATCH,
      batches: BATCHES,
      ...results,
    }),
  );
} finally {
  await bench.close();
}
