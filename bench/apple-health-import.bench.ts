/**
 * Apple Health import into the archive (issue 16). Goals: a 500 MB export.xml imports at >= 50,000
 * records/s on PostgreSQL with peak RSS growth < 150 MB over the idle process.
 *
 * 1. Writes SIZE_MB (default 500; 50 on PGlite) of export.xml into a temp dir by repeating the
 *    records and workouts of the real exports (test/fixtures/apple_health) with every date shifted
 *    one hour further per repetition (so no repetition is a duplicate); streamed out, never held.
 * 2. Baseline, same run and same file: parse-only throughput (the streaming parser with a batch
 *    handler that stores nothing).
 * 3. The import (importAppleHealthFile: metrics, sleep, workouts and the whole archive) into a
 *    scratch database: on PostgreSQL a database created on BENCH_DATABASE_URL's server and dropped
 *    afterwards (`BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run
 *    bench:apple-import`), else an embedded PGlite in a temp dir (it runs in this process, so its
 *    memory counts in the RSS). RSS is sampled every 20 ms; growth is the peak over the idle RSS
 *    measured after the database was opened.
 * Prints one JSON line: records, records/s of import and of parse-only, their ratio, peak growth.
 * The npm script runs it as `npm run import:apple-health` runs the importer: with the V8 old
 * generation capped at 256 MB (docs/decisions.md).
 */
import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../src/db/database.ts';
import { importAppleHealthFile } from '../src/domains/health/health.apple-import.ts';
import { parseAppleHealth } from '../src/domains/health/health.apple-parser.ts';
import { memoryOf } from './server.ts';

const adminUrl = process.env.BENCH_DATABASE_URL || undefined;
const SIZE_MB = Number(process.env.SIZE_MB ?? (adminUrl ? 500 : 50));
const BATCH = Number(process.env.BATCH ?? 10_000);
const GOAL_RATE = 50_000;
const GOAL_GROWTH_MB = 150;
const root = path.resolve(import.meta.dirname, '..');
const dir = mkdtempSync(path.join(tmpdir(), 'hdp-bench-apple-import-'));
const round = (x: number): number => Math.round(x * 10) / 10;

/** The record and workout elements of the real exports, as text templates with their dates. */
function templates(): string[] {
  const texts = ['export6s3sample.xml', 'healthkit_to_sqlite_export.xml'].map((f) =>
    readFileSync(path.join(root, 'test/fixtures/apple_health', f), 'utf8'),
  );
  const out: string[] = [];
  for (const t of texts) {
    for (const m of t.matchAll(/<(Record|Workout)\b[^>]*?(\/>|>[\s\S]*?<\/\1>)/g)) out.push(m[0]);
  }
  return out;
}

const DATE = /(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2}) ([+-]\d{4})/g;
const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** The element with every export date moved `hours` later (the offset text kept). */
function shifted(element: string, hours: number): string {
  return element.replace(DATE, (_all, y, mo, d, h, mi, s, off) => {
    const t = new Date(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s) + hours * 3_600_000);
    return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())} ${off}`;
  });
}

/** Streams SIZE_MB of export.xml to `file`; answers the elements written. */
async function writeExport(file: string): Promise<number> {
  const parts = templates();
  const out = createWriteStream(file);
  const target = SIZE_MB * 1024 * 1024;
  let bytes = 0;
  let elements = 0;
  const write = async (text: string): Promise<void> => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write('<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n');
  for (let rep = 0; bytes < target; rep++) {
    let chunk = '';
    for (const p of parts) chunk += ` ${shifted(p, rep)}\n`;
    elements += parts.length;
    await write(chunk);
  }
  await write('</HealthData>\n');
  out.end();
  await once(out, 'finish');
  return elements;
}

/**
 * CPU seconds used so far by the local PostgreSQL server's processes (ended backends included, via
 * the postmaster's children's time); null when the server is not local or /proc is not readable.
 */
function databaseCpuS(): number | null {
  if (!adminUrl || !/^(127\.0\.0\.1|localhost)$/.test(new URL(adminUrl).hostname)) return null;
  try {
    let ticks = 0;
    for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
      let stat = '';
      try {
        stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      } catch {
        continue; // ended meanwhile
      }
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue;
      // fields after the name: state is 0, utime 11, stime 12, cutime 13, cstime 14
      const f = stat.slice(close + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
    }
    return ticks / 100; // USER_HZ
  } catch {
    return null;
  }
}

let scratch: string | null = null;
const admin = adminUrl ? new pg.Client({ connectionString: adminUrl }) : null;
try {
  const file = path.join(dir, 'export.xml');
  const elements = await writeExport(file);
  const sizeMb = statSync(file).size / 2 ** 20;

  // baseline: parse only
  const p0 = performance.now();
  const parsed = await parseAppleHealth(createReadStream(file), {
    batchSize: BATCH,
    onBatch: () => Promise.resolve(),
  });
  const parseS = (performance.now() - p0) / 1000;

  // the database
  let url: string | undefined;
  if (admin) {
    await admin.connect();
    scratch = `hdp_bench_import_${process.pid}`;
    await admin.query(`CREATE DATABASE ${scratch}`);
    const u = new URL(adminUrl!);
    u.pathname = `/${scratch}`;
    url = u.toString();
  }
  const db = await openDatabase({ url, dataDir: url ? null : path.join(dir, 'db') });
  try {
    const user = await db.prisma.user.create({
      data: { email: `bench.${Date.now()}@example.com` },
    });
    await new Promise((r) => setTimeout(r, 500));
    const idle = memoryOf('self').rss;
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, memoryOf('self').rss);
    }, 20);
    const cpu0 = process.cpuUsage();
    const db0 = databaseCpuS();
    const i0 = performance.now();
    const summary = await importAppleHealthFile(db, {
      userId: user.id,
      file,
      batchSize: BATCH,
      progressEvery: 200_000,
      onProgress: (line) => console.error(line),
    });
    const importS = (performance.now() - i0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const db1 = databaseCpuS();
    clearInterval(sampler);
    peak = Math.max(peak, memoryOf('self').rss);
    const records = summary.seen;
    const importRate = records / importS;
    const parseRate = parsed.seen / parseS;
    console.log(
      JSON.stringify({
        bench: 'apple-health-import',
        database: url ? 'postgresql' : 'pglite',
        file_mb: round(sizeMb),
        elements_written: elements,
        records,
        archived: summary.archived,
        stored_archive_records: summary.archive.records,
        batch: BATCH,
        import_s: round(importS),
        import_records_per_s: Math.round(importRate),
        parse_only_s: round(parseS),
        parse_only_records_per_s: Math.round(parseRate),
        import_vs_parse_only: Number((importRate / parseRate).toFixed(2)),
        importer_cpu_us_per_record: round((cpu.user + cpu.system) / records),
        database_cpu_us_per_record:
          db0 === null || db1 === null ? null : round(((db1 - db0) * 1e6) / records),
        idle_rss_mb: round(idle),
        peak_rss_growth_mb: round(peak - idle),
        goal_records_per_s: GOAL_RATE,
        goal_growth_mb: GOAL_GROWTH_MB,
        rate_goal_met: importRate >= GOAL_RATE,
        memory_goal_met: peak - idle < GOAL_GROWTH_MB,
      }),
    );
  } finally {
    await db.close();
  }
} finally {
  if (admin && scratch) {
    await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
  }
  await admin?.end();
  rmSync(dir, { recursive: true, force: true });
}
