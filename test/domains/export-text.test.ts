/**
 * Health export files written by the database (issues 16 and 30): the text the database writes for
 * each chunk is byte for byte what the writer made of the typed rows (csv-stringify's quoting,
 * String(n) and JSON.stringify's numbers, isoWithOffset's times in the person's zone, the JSON
 * document's layout), for awkward sources, units and numbers, both formats (the CSV as the zip's
 * metrics.csv), in UTC, Europe/Berlin and Asia/Kolkata, raw samples across keyset chunks and local
 * hour/day buckets.
 */
import { Writable } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import { describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/client.ts';
import { writeExport } from '../../src/domains/export/export.writer.ts';
import type { ExportFormat, ExportInterval } from '../../src/domains/export/export.constants.ts';
import { metricBucketsOf, rawMetricChunk } from '../../src/domains/health/index.ts';
import type { MetricExportScope } from '../../src/domains/health/index.ts';
import { bucketWindows } from '../../src/platform/export-text.ts';
import { isoWithOffset } from '../../src/platform/local-time.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { unzipText } from '../harness/unzip.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const START = Date.UTC(2026, 0, 1);
const HOUR = 3_600_000;

const SOURCES = [
  'My "Watch", v2',
  'line\nbreak',
  'carriage\rreturn',
  'ünïcødé ⌚ 😀 אבג',
  '',
  'tab\there; back\\slash',
  'control \u0001\u001f and \u2028',
  '"',
  ',',
  'plain',
];
/** Numbers whose text differs between PostgreSQL and JavaScript unless written with care. */
const VALUES = [
  60,
  0,
  -0,
  0.1 + 0.2,
  -72.5,
  1e15,
  1.2345678901234568e15,
  1e16,
  12345678901234567000,
  1e21,
  1.5e22,
  -3.25e25,
  1e-4,
  1.5e-5,
  -2.5e-6,
  1e-7,
  1.2345e-9,
  123456789012345.67,
  2 ** 53 + 2,
  1 / 3,
  -1e-300,
];

/** The writer before issue 16's memory fix: typed rows through csv-stringify / JSON.stringify. */
async function typedRows(
  db: Db,
  scope: MetricExportScope,
  interval: ExportInterval,
): Promise<Record<string, string | number>[]> {
  const at = (d: Date): string => isoWithOffset(d, scope.zone);
  const rows: Record<string, string | number>[] = [];
  if (interval === 'raw') {
    let after = null;
    for (;;) {
      const chunk = await rawMetricChunk(db, scope, after, 1000);
      rows.push(
        ...chunk.map((r) => ({
          timestamp: at(r.timestamp),
          metric_type: r.metricType,
          value: r.value,
          unit: r.unit,
          source: r.source,
        })),
      );
      if (chunk.length < 1000) break;
      const last = chunk[chunk.length - 1];
      after = { timestamp: last.timestamp, metricType: last.metricType, source: last.source };
    }
    return rows;
  }
  for (const [from, to] of bucketWindows(scope, interval)) {
    const buckets = await metricBucketsOf(db, scope, interval, from, to);
    rows.push(
      ...buckets.map((r) => ({
        bucket_start: at(r.bucketStart),
        time_zone: scope.zone,
        metric_type: r.metricType,
        unit: r.unit,
        count: Number(r.count),
        min: r.min,
        max: r.max,
        avg: r.avg,
        sum: r.sum,
      })),
    );
  }
  return rows;
}

/** The file the typed writer would make: metrics.csv, or the JSON document. */
async function typedExport(
  db: Db,
  scope: MetricExportScope,
  format: ExportFormat,
  interval: ExportInterval,
): Promise<string> {
  const rows = await typedRows(db, scope, interval);
  if (format === 'json') {
    const head = JSON.stringify({
      time_zone: scope.zone,
      interval,
      from: isoWithOffset(scope.from, scope.zone),
      to: isoWithOffset(scope.to, scope.zone),
      kinds: ['metrics'],
      ...(scope.metricTypes.length ? { metric_types: scope.metricTypes } : {}),
    });
    const body = rows.map((r) => {
      const { time_zone: _zone, ...rest } = r; // the zone is the document's, not each bucket's
      return JSON.stringify(interval === 'raw' ? r : rest);
    });
    const metrics = body.length ? `[\n${body.join(',\n')}\n]` : '[]';
    return `${head.slice(0, -1)},\n"metrics":${metrics}\n}\n`;
  }
  const columns =
    interval === 'raw'
      ? ['timestamp', 'metric_type', 'value', 'unit', 'source']
      : ['bucket_start', 'time_zone', 'metric_type', 'unit', 'count', 'min', 'max', 'avg', 'sum'];
  return stringify([columns]) + stringify(rows, { columns, cast: { number: (n) => String(n) } });
}

/** The export as the job writes it, collected in memory (the CSV's metrics.csv out of the zip). */
async function jobExport(
  db: Db,
  scope: MetricExportScope,
  format: ExportFormat,
  interval: ExportInterval,
  chunkRows: number,
) {
  const parts: Buffer[] = [];
  const out = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _enc, done) {
      parts.push(chunk);
      setImmediate(done); // slow enough that back-pressure is exercised
    },
  });
  const progress: number[] = [];
  const started = clock.ms();
  const rows = await writeExport(db, out, {
    scope,
    kinds: ['metrics'],
    format,
    interval,
    chunkRows,
    signal: new AbortController().signal,
    progress: (n) => {
      progress.push(n);
      return Promise.resolve();
    },
  });
  out.end();
  await new Promise((r) => out.once('finish', r));
  const bytes = Buffer.concat(parts);
  let text: string;
  if (format === 'csv') {
    const files = await unzipText(bytes);
    expect([...files.keys()]).toEqual(['metrics.csv']);
    text = files.get('metrics.csv') ?? '';
  } else {
    text = bytes.toString('utf8');
  }
  return { text, rows, progress, seconds: (clock.ms() - started) / 1000 };
}

interface Sample {
  id: string;
  userId: number;
  metricType: string;
  value: number;
  unit: string;
  timestamp: Date;
  source: string;
}

/** Inserts samples with each value sent as String(value), so no driver rounds it on the way. */
async function insertMetrics(rows: Sample[]): Promise<void> {
  const col = <K extends keyof Sample>(k: K) =>
    rows.map((r) => String(k === 'timestamp' ? r.timestamp.toISOString() : r[k]));
  await app.db.prisma.$executeRaw`
    INSERT INTO health_metrics (id, user_id, metric_type, value, unit, timestamp, source)
    SELECT id, user_id::int, metric_type, value::float8, unit, timestamp::timestamptz, source
    FROM unnest(${col('id')}::text[], ${col('userId')}::text[], ${col('metricType')}::text[],
                ${col('value')}::text[], ${col('unit')}::text[], ${col('timestamp')}::text[],
                ${col('source')}::text[]) AS t(id, user_id, metric_type, value, unit, timestamp, source)`;
}

/** Samples: every source x value pairing at a few times (several share a timestamp). */
async function seedAwkward(userId: number): Promise<number> {
  const data = VALUES.flatMap((value, i) =>
    SOURCES.slice(0, 1 + (i % SOURCES.length)).map((source, j) => ({
      id: `awk-${userId}-${i}-${j}`,
      userId,
      metricType: i % 3 === 0 ? 'heart_rate' : i % 3 === 1 ? 'we"ird, type' : 'steps',
      value: value * (j % 2 ? 1 : -1) || value,
      unit: i % 4 === 0 ? 'b,p"m' : 'count',
      timestamp: new Date(START + (i % 5) * HOUR * 30 + (i % 7) * 1234 + (j % 3) * 0.5),
      source,
    })),
  );
  await insertMetrics(data);
  return data.length;
}

describe('export text written by the database', () => {
  const scopeOf = (
    userId: number,
    metricTypes: string[] = [],
    zone = 'UTC',
  ): MetricExportScope => ({
    userId,
    from: new Date(START),
    to: new Date(START + 10 * 86_400_000),
    zone,
    metricTypes,
  });

  it('equals the typed rows byte for byte: csv and json, raw in chunks of 7, hour and day, three zones', async () => {
    const { user } = await seedUser(app);
    const n = await seedAwkward(user.id);
    const cases = [
      ['UTC', []],
      ['UTC', ['we"ird, type', 'steps']],
      ['Europe/Berlin', []],
      ['Asia/Kolkata', ['we"ird, type', 'steps']],
    ] as const;
    for (const format of ['csv', 'json'] as const) {
      for (const interval of ['raw', 'hour', 'day'] as const) {
        for (const [zone, types] of cases) {
          const scope = scopeOf(user.id, [...types], zone);
          const expected = await typedExport(app.db.prisma, scope, format, interval);
          const got = await jobExport(app.db.prisma, scope, format, interval, 7);
          expect(got.text, `${format} ${interval} ${zone} ${types.join()}`).toBe(expected);
          if (interval === 'raw' && !types.length && zone === 'UTC') {
            expect(got.rows).toBe(n);
            expect(got.progress.at(-1)).toBe(n);
            // after the first chunk, at most once a second, and after the last
            expect(got.progress[0]).toBe(7);
            expect(got.progress.length).toBeLessThanOrEqual(2 + Math.floor(got.seconds));
          }
        }
      }
    }
  });

  it('writes every number as String(n) (csv) and JSON.stringify (json) write it', async () => {
    const { user } = await seedUser(app);
    const values = [
      ...VALUES,
      5e-324,
      -1.7976931348623157e308,
      2 ** 63,
      9.2e18,
      -(2 ** 64) - 4096,
      ...Array.from({ length: 600 }, (_, i) => {
        // a spread of magnitudes from 1e-30 to 1e29, with random digits or few digits
        const digits = i % 3 ? Math.random() + 0.01 : Math.round(Math.random() * 1e5) / 1e5;
        const x = digits * 10 ** (-30 + (i % 60));
        return i % 2 ? -x : x;
      }),
    ];
    await insertMetrics(
      values.map((value, i) => ({
        id: `num-${user.id}-${i}`,
        userId: user.id,
        metricType: 'm',
        value,
        unit: 'u',
        timestamp: new Date(START + i * 1000),
        source: '',
      })),
    );
    const scope = scopeOf(user.id);
    const csv = (await jobExport(app.db.prisma, scope, 'csv', 'raw', 1000)).text;
    expect(
      csv
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => l.split(',')[2]),
    ).toEqual(values.map((v) => String(v)));
    const json = JSON.parse((await jobExport(app.db.prisma, scope, 'json', 'raw', 1000)).text);
    expect(json.metrics.map((r: { value: number }) => r.value)).toEqual(values.map((v) => v || 0));
  });

  it('an empty range writes the header alone, or an empty array', async () => {
    const { user } = await seedUser(app);
    for (const interval of ['raw', 'day'] as const) {
      const csv = await jobExport(app.db.prisma, scopeOf(user.id), 'csv', interval, 5);
      expect(csv.text).toBe(await typedExport(app.db.prisma, scopeOf(user.id), 'csv', interval));
      expect(csv.rows).toBe(0);
      const json = await jobExport(app.db.prisma, scopeOf(user.id), 'json', interval, 5);
      expect(json.text).toBe(await typedExport(app.db.prisma, scopeOf(user.id), 'json', interval));
      expect(JSON.parse(json.text).metrics).toEqual([]);
    }
  });
});
