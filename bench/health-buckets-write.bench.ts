/**
 * What the steps and energy buckets (health_metric_buckets, kept by statement triggers on
 * health_metrics) cost the writers: POST /api/health/platform/import of steps and active energy
 * samples, each batch timed with the triggers on, and the baseline batch right after it with them
 * off (ALTER TABLE ... DISABLE TRIGGER, the same run and database); then the same for a delete of
 * a day's samples. Prints one JSON line: medians and ratios (the issue 32 read goals are
 * bench/challenge-standings.bench.ts and bench/community-full-view.bench.ts).
 */
import { medians, round, startInProcessApp, time } from './in-process.ts';

const BATCHES = Number(process.env.BATCHES ?? 20);
const PER_BATCH = 2000;
const TRIGGERS = [
  'health_metric_buckets_insert',
  'health_metric_buckets_delete',
  'health_metric_buckets_update',
];
const bench = await startInProcessApp('health-buckets-write');
const { db, json } = bench;
const user = await bench.newUser();

const setTriggers = async (on: boolean): Promise<void> => {
  for (const t of TRIGGERS)
    await db.prisma.$executeRawUnsafe(
      `ALTER TABLE health_metrics ${on ? 'ENABLE ALWAYS' : 'DISABLE'} TRIGGER ${t}`,
    );
};

// one sample a minute of each metric from one source: a batch is 1,000 minutes
let minute = 0;
const T0 = Date.parse('2026-01-01T00:00:00Z');
const batch = () =>
  Array.from({ length: PER_BATCH }, (_, i) => ({
    metric_type: i % 2 ? 'active_energy' : 'steps',
    value: i % 2 ? 0.4 : 15,
    timestamp: new Date(T0 + (minute + Math.floor(i / 2)) * 60_000).toISOString(),
    source: 'Watch',
  }));
const importBatch = async (): Promise<number> => {
  const samples = batch();
  minute += PER_BATCH / 2;
  return time(() =>
    json('/api/health/platform/import', {
      method: 'POST',
      headers: user.headers,
      body: JSON.stringify({ samples }),
    }),
  );
};
const deleteDay = (day: number): Promise<number> =>
  time(() =>
    db.prisma.healthMetric.deleteMany({
      where: {
        userId: user.id,
        timestamp: {
          gte: new Date(T0 + day * 86_400_000),
          lt: new Date(T0 + (day + 1) * 86_400_000),
        },
      },
    }),
  );

try {
  const figures = { import_on: [] as number[], import_off: [] as number[] };
  await importBatch(); // warm-up
  for (let i = 0; i < BATCHES; i++) {
    figures.import_on.push(await importBatch());
    await setTriggers(false);
    figures.import_off.push(await importBatch());
    await setTriggers(true);
  }
  const deletes = { delete_on: [] as number[], delete_off: [] as number[] };
  const days = Math.floor(minute / 1440);
  for (let d = 0; d + 1 < Math.min(days, 2 * 6); d += 2) {
    deletes.delete_on.push(await deleteDay(d));
    await setTriggers(false);
    deletes.delete_off.push(await deleteDay(d + 1));
    await setTriggers(true);
  }
  const m = { ...medians(figures), ...medians(deletes) };
  console.log(
    JSON.stringify({
      bench: 'health-buckets-write',
      database: db.target.kind,
      samples_per_batch: PER_BATCH,
      batches: BATCHES,
      p50_ms: m,
      ratio_import: round(m.import_on / m.import_off, 2),
      ratio_delete_day: round(m.delete_on / m.delete_off, 2),
    }),
  );
} finally {
  await bench.close();
}
