/**
 * Issue 45: hostile Apple Health exports, generated here (never shipped). An export is read by a
 * job in a worker thread (health.apple-read.job.ts) while the main thread only stores what it
 * sends, so:
 * - a zip bomb (1 GiB of whitespace deflated to 1 MiB) is refused by its ratio before a byte is
 *   inflated, and one whose header lies about its size is refused while it streams; the import
 *   fails with the reason, `/healthz` answers within 200 ms throughout, and the RSS returns;
 * - a large real-looking export (records, a workout's GPX route, an ECG) is parsed in the thread:
 *   `/healthz` answers within 200 ms throughout the parse, and throughout its import where the
 *   database is a server (the embedded one runs its statements on the main thread);
 * - a reading job over its time budget or its heap limit is terminated and the import fails with
 *   the reason; a store that fails ends the job rather than letting it read on.
 * Each test prints its figures (time, slowest /healthz, RSS before and after).
 */
import { once } from 'node:events';
import {
  createWriteStream,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import zlib from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import yazl from 'yazl';
import { importAppleHealthFile } from '../../src/domains/health/health.apple-import.ts';
import {
  ZIP_MAX_INFLATED_BYTES,
  ZIP_MAX_RATIO,
  zipEntryRefusal,
} from '../../src/domains/health/health.apple-files.ts';
import type {
  AppleReadInput,
  AppleReadMessage,
  AppleReadSummary,
} from '../../src/domains/health/health.apple-read.job.ts';
import {
  FileJobError,
  fileJobModule,
  fileWorkerStats,
  runFileJob,
} from '../../src/platform/file-workers.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { settledRssMb, watchHealth } from '../harness/loop-watch.ts';
import type { LoopWatch } from '../harness/loop-watch.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-apple-hostile-'));
const work = mkdtempSync(path.join(tmpdir(), 'hdp-apple-hostile-files-'));
const app = await startTestApp({ DATA_DIR: dataDir });
afterAll(() => {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const MIB = 1024 * 1024;
const READ_JOB = fileJobModule(
  new URL('../../src/domains/health/health.apple-import.ts', import.meta.url).href,
  './health.apple-read.job',
);
const HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n<HealthData locale="en_US">\n';
const TAIL = '</HealthData>\n';

/**
 * export.xml of `mib` MiB of spaces, raw-deflated: one MiB of spaces deflated once (about 1 kB)
 * and repeated, each copy ending in a full flush (byte-aligned, no reference to earlier bytes), so
 * the copies join into one valid deflate stream without deflating a gigabyte here.
 */
function deflatedWhitespaceExport(mib: number): { data: Buffer; size: number } {
  const flush = { finishFlush: zlib.constants.Z_FULL_FLUSH, level: 9 };
  const spaces = zlib.deflateRawSync(Buffer.alloc(MIB, 0x20), flush);
  const data = Buffer.concat([
    zlib.deflateRawSync(Buffer.from(HEAD), flush),
    ...Array.from({ length: mib }, () => spaces),
    zlib.deflateRawSync(Buffer.from(TAIL)),
  ]);
  return { data, size: HEAD.length + mib * MIB + TAIL.length };
}

/**
 * A zip of one deflated entry `apple_health_export/export.xml` whose headers declare
 * `declaredSize` as its size (the truth, or a lie). The CRC is not checked by the reader (0 here).
 */
function zipOf(deflated: Buffer, declaredSize: number): Buffer {
  const name = Buffer.from('apple_health_export/export.xml');
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4); // version needed
  local.writeUInt16LE(8, 8); // deflate
  local.writeUInt16LE(0x21, 12); // 1980-01-01
  local.writeUInt32LE(deflated.length, 18);
  local.writeUInt32LE(declaredSize, 22);
  local.writeUInt16LE(name.length, 26);
  const central = Buffer.alloc(46);
  central.writeUInt32LE(0x02014b50, 0);
  central.writeUInt16LE(20, 4);
  central.writeUInt16LE(20, 6);
  central.writeUInt16LE(8, 10);
  central.writeUInt16LE(0x21, 14);
  central.writeUInt32LE(deflated.length, 20);
  central.writeUInt32LE(declaredSize, 24);
  central.writeUInt16LE(name.length, 28);
  central.writeUInt32LE(0, 42); // the local header's offset
  const centralAt = local.length + name.length + deflated.length;
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(1, 8);
  end.writeUInt16LE(1, 10);
  end.writeUInt32LE(central.length + name.length, 12);
  end.writeUInt32LE(centralAt, 16);
  return Buffer.concat([local, name, deflated, central, name, end]);
}

/** POSTs the zip to the archive upload with the person's session and waits for its import's end. */
async function uploadAndSettle(token: string, bytes: Buffer): Promise<any> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/zip' }), 'export.zip');
  const res = await app.fetch('/api/v1/health/archive/import', {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${token}` },
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(202);
  for (;;) {
    const read = await rest(app, 'GET', `/api/v1/health/archive/imports/${body.id}`, { token });
    if (read.body.status === 'ready' || read.body.status === 'failed') return read.body;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** What a test measured while `work` ran: its time, the slowest /healthz, RSS before and after. */
async function measured<T>(
  label: string,
  work: () => Promise<T>,
): Promise<{ result: T; ms: number; slowestMs: number; probes: number; rssGrowthMb: number }> {
  const rssBefore = settledRssMb();
  const watch = watchHealth(app);
  const started = performance.now();
  let result: T;
  let health: Awaited<ReturnType<LoopWatch['stop']>>;
  try {
    result = await work();
  } finally {
    health = await watch.stop();
  }
  const ms = performance.now() - started;
  const rssAfter = settledRssMb();
  console.log(
    `[issue 45] ${label}: ${Math.round(ms)} ms, slowest /healthz ${health.slowestMs.toFixed(1)} ms ` +
      `of ${health.probes}, RSS ${rssBefore.toFixed(0)} -> ${rssAfter.toFixed(0)} MB`,
  );
  expect(health.statuses.every((s) => s === 200)).toBe(true);
  return {
    result,
    ms,
    slowestMs: health.slowestMs,
    probes: health.probes,
    rssGrowthMb: rssAfter - rssBefore,
  };
}

/** A seeded pseudo-random sequence (the same export every run). */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2_147_483_648;
    return s / 2_147_483_648;
  };
}

const pad = (n: number): string => String(n).padStart(2, '0');
/** An export date text (`2021-03-01 07:25:41 +0100`) of `ms` in the +0100 zone. */
function exportDate(ms: number): string {
  const d = new Date(ms + 3_600_000);
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0100`
  );
}

const WATCH =
  'sourceName="Test Watch" sourceVersion="9.1" device="&lt;&lt;HKDevice: 0x283b3a2b0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,1, software:9.1&gt;"';

/**
 * Writes a real-looking export.xml of `records` records to `file` (heart rate with its metadata,
 * energy, steps; seeded values, times a few minutes apart) and one workout whose route is
 * `workout-routes/route_1.gpx`. Answers the records written.
 */
async function writeExportXml(file: string, records: number): Promise<void> {
  const next = random(45);
  const out = createWriteStream(file);
  const write = async (text: string): Promise<void> => {
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(HEAD);
  let t = Date.UTC(2021, 0, 1);
  for (let i = 0; i < records; i++) {
    t += 30_000 + Math.floor(next() * 240_000);
    const kind = next();
    if (kind < 0.5) {
      await write(
        ` <Record type="HKQuantityTypeIdentifierHeartRate" ${WATCH} unit="count/min" creationDate="${exportDate(t + 90_000)}" startDate="${exportDate(t)}" endDate="${exportDate(t)}" value="${55 + Math.floor(next() * 70)}">\n` +
          `  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="${Math.floor(next() * 3)}"/>\n </Record>\n`,
      );
    } else if (kind < 0.8) {
      await write(
        ` <Record type="HKQuantityTypeIdentifierActiveEnergyBurned" ${WATCH} unit="kcal" creationDate="${exportDate(t + 60_000)}" startDate="${exportDate(t)}" endDate="${exportDate(t + 60_000)}" value="${(next() * 3).toFixed(3)}"/>\n`,
      );
    } else {
      await write(
        ` <Record type="HKQuantityTypeIdentifierStepCount" ${WATCH} unit="count" creationDate="${exportDate(t + 600_000)}" startDate="${exportDate(t)}" endDate="${exportDate(t + 300_000)}" value="${Math.floor(next() * 900)}"/>\n`,
      );
    }
  }
  const start = Date.UTC(2021, 0, 1, 7);
  await write(
    ` <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min" ${WATCH} startDate="${exportDate(start)}" endDate="${exportDate(start + 1_800_000)}">\n` +
      `  <WorkoutRoute ${WATCH} startDate="${exportDate(start)}" endDate="${exportDate(start + 1_800_000)}">\n` +
      `   <FileReference path="/workout-routes/route_1.gpx"/>\n  </WorkoutRoute>\n </Workout>\n`,
  );
  await write(TAIL);
  out.end();
  await once(out, 'close');
}

/** A GPX track of `points` points a second apart, as the Health app writes them. */
function gpx(points: number): string {
  const at = Date.UTC(2021, 0, 1, 7);
  const pts = Array.from(
    { length: points },
    (_v, i) =>
      `<trkpt lon="13.${400000 + i}" lat="52.${500000 + i}"><ele>34.0</ele>` +
      `<time>${new Date(at + i * 1000).toISOString()}</time><extensions><speed>2.9</speed>` +
      `<course>90.0</course><hAcc>3.0</hAcc><vAcc>2.0</vAcc></extensions></trkpt>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>\n<gpx version="1.1"><trk><trkseg>${pts.join('\n')}</trkseg></trk></gpx>\n`;
}

/** An ECG CSV as the Health app exports it (512 Hz, 30 s). */
function ecgCsv(): string {
  const header = [
    'Name,Test Person',
    'Recorded Date,2021-01-02 08:00:00 +0100',
    'Classification,Sinus Rhythm',
    'Sample Rate,512 hertz',
    'Lead,Lead I',
    'Unit,µV',
    '',
  ];
  const samples = Array.from({ length: 512 * 30 }, (_v, i) => (Math.sin(i / 20) * 300).toFixed(3));
  return `${header.join('\n')}\n${samples.join('\n')}\n`;
}

/** RECORDS records and a route and an ECG, zipped as the Health app lays its export out. */
const RECORDS = 100_000;
let largeExport: Promise<{ zip: string; xmlMb: number; zipMb: number }> | null = null;
function largeExportZip(): Promise<{ zip: string; xmlMb: number; zipMb: number }> {
  largeExport ??= (async () => {
    const xml = path.join(work, 'export.xml');
    await writeExportXml(xml, RECORDS);
    const zip = new yazl.ZipFile();
    zip.addFile(xml, 'apple_health_export/export.xml');
    zip.addBuffer(Buffer.from(gpx(2_000)), 'apple_health_export/workout-routes/route_1.gpx');
    zip.addBuffer(Buffer.from(ecgCsv()), 'apple_health_export/electrocardiograms/ecg_1.csv');
    zip.end();
    const file = path.join(work, 'export.zip');
    const out = createWriteStream(file);
    zip.outputStream.pipe(out);
    await once(out, 'close');
    return { zip: file, xmlMb: statSync(xml).size / MIB, zipMb: statSync(file).size / MIB };
  })();
  return largeExport;
}

describe('hostile Apple Health exports (issue 45)', () => {
  it('refuses an entry over the ratio or the size bound by its declared sizes', () => {
    expect(zipEntryRefusal('export.xml', 50 * MIB, 1024 * MIB)).toBeNull(); // 20x: an export
    expect(zipEntryRefusal('tiny.csv', 10, 1000)).toBeNull(); // small entries are not held to it
    expect(zipEntryRefusal('export.xml', MIB, 1024 * MIB)).toMatchObject({ code: 'zip_ratio' });
    expect(zipEntryRefusal('export.xml', 4 * 1024 * MIB, ZIP_MAX_INFLATED_BYTES + 1)).toMatchObject(
      { code: 'zip_too_large' },
    );
  });

  it('fails the upload of a zip bomb (1 GiB of whitespace in 1 MiB) by its ratio, /healthz answering throughout', async () => {
    const me = await seedUser(app);
    // the upload path warmed by a real export first: loading modules on first use is not the bomb's doing
    const real = readFileSync(
      path.resolve('test/fixtures/apple_health/healthkit_to_sqlite_export.zip'),
    );
    expect((await uploadAndSettle(me.token, real)).status).toBe('ready');
    const bomb = deflatedWhitespaceExport(1024);
    const zip = zipOf(bomb.data, bomb.size);
    const { result, slowestMs, rssGrowthMb } = await measured(
      `zip bomb upload (${(zip.length / MIB).toFixed(2)} MiB -> ${(bomb.size / MIB).toFixed(0)} MiB declared)`,
      () => uploadAndSettle(me.token, zip),
    );
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      new RegExp(
        `^The export could not be read \\(apple_health_export/export\\.xml would inflate \\d+ times .*more than ${ZIP_MAX_RATIO} is refused\\)`,
      ),
    );
    expect(slowestMs).toBeLessThan(200);
    expect(rssGrowthMb).toBeLessThan(100);
  });

  it('fails a zip bomb whose header declares a plausible size, once it inflates past it', async () => {
    const me = await seedUser(app);
    const bomb = deflatedWhitespaceExport(1024);
    // 20 MiB declared for 1 MiB: 20 times, what an export does
    const zip = zipOf(bomb.data, 20 * MIB);
    const file = path.join(work, 'lying.zip');
    writeFileSync(file, zip);
    const { result, slowestMs, rssGrowthMb } = await measured('zip bomb with a lying header', () =>
      importAppleHealthFile(app.db, { userId: me.user.id, file }).then(
        () => expect.fail('imported'),
        (err: unknown) => err,
      ),
    );
    expect(result).toMatchObject({
      name: 'FileJobRefusal',
      kind: 'ExportZipRefused',
      code: 'zip_entry_size',
      message:
        'apple_health_export/export.xml inflates to more than the 20.0 MiB its zip entry declares',
    });
    expect(slowestMs).toBeLessThan(200);
    expect(rssGrowthMb).toBeLessThan(100);
  });

  it("parses a large real-looking export in the reading job's thread: /healthz answers within 200 ms throughout", async () => {
    const { zip, xmlMb, zipMb } = await largeExportZip();
    // the job alone, every message acknowledged at once: what the parse costs this thread
    const { port1, port2 } = new MessageChannel();
    const sent: Record<string, number> = {};
    port1.on('message', (m: AppleReadMessage) => {
      sent[m.type] = (sent[m.type] ?? 0) + 1;
      if (m.type !== 'progress') port1.postMessage('stored');
    });
    const { result, slowestMs, rssGrowthMb } = await measured(
      `parse of ${RECORDS} records in the job (export.xml ${xmlMb.toFixed(1)} MiB, zip ${zipMb.toFixed(1)} MiB, ${(xmlMb / zipMb).toFixed(1)}x)`,
      () =>
        runFileJob<AppleReadInput, AppleReadSummary>(
          {
            name: 'apple-health-export-parse-only',
            module: READ_JOB,
            timeoutMs: 60_000,
            maxHeapMb: 128,
          },
          { file: zip, batchSize: 10_000, progressEvery: 20_000, port: port2 },
          [port2],
        ),
    );
    port1.close();
    expect(result).toMatchObject({ seen: RECORDS + 1, routeFiles: 1, ecgFiles: 1 });
    expect(sent).toMatchObject({ route: 1, ecg: 1, end: 1 });
    expect(sent.batch).toBeGreaterThan(RECORDS / 10_000);
    expect(slowestMs).toBeLessThan(200);
    expect(rssGrowthMb).toBeLessThan(100);
  }, 120_000);

  it('imports that export through the job, storing on this thread', async () => {
    const { zip } = await largeExportZip();
    const me = await seedUser(app);
    const threads: number[] = [];
    const { result, slowestMs } = await measured(
      `import of ${RECORDS} records (${app.db.target.kind})`,
      () =>
        importAppleHealthFile(app.db, {
          userId: me.user.id,
          file: zip,
          progressEvery: 20_000,
          onProgressCounts: () => {
            threads.push(fileWorkerStats()['apple-health-export']?.threads ?? 0);
          },
        }),
    );
    expect(result).toMatchObject({
      seen: RECORDS + 1,
      metrics: { inserted: RECORDS, skipped: 0 },
      workouts: { inserted: 1, skipped: 0 },
      archive: {
        records: RECORDS,
        workouts: 1,
        routePoints: 2_000,
        missingRouteFiles: 0,
        ecg: 1,
        unreadableEcgFiles: 0,
      },
    });
    // the parse ran in the pool's thread while this one stored
    expect(Math.min(...threads)).toBe(1);
    // NOTE: the embedded database runs each statement on this thread (PGlite is in-process), so
    // there a 10,000-row batch holds /healthz for as long as its INSERTs take; the bound holds
    // where the database is a server
    if (app.db.target.kind === 'pg') expect(slowestMs).toBeLessThan(200);
  }, 180_000);

  it('ends a reading job over its time budget, and the import fails with the reason', async () => {
    const { zip } = await largeExportZip();
    const me = await seedUser(app);
    const { result, ms, slowestMs } = await measured('reading job over a 1 s budget', () =>
      importAppleHealthFile(app.db, {
        userId: me.user.id,
        file: zip,
        limits: { timeoutMs: 1_000 },
      }).then(
        () => expect.fail('imported'),
        (err: unknown) => err,
      ),
    );
    expect(result).toBeInstanceOf(FileJobError);
    expect(result).toMatchObject({
      code: 'timeout',
      message: 'reading the export took longer than 1000 ms',
    });
    expect(ms).toBeLessThan(10_000);
    // batches read within the budget are stored on this thread by the embedded database (above)
    if (app.db.target.kind === 'pg') expect(slowestMs).toBeLessThan(200);
    // the thread went with its job
    await expect.poll(() => fileWorkerStats()['apple-health-export']?.threads ?? 0).toBe(0);
  }, 60_000);

  it('ends a reading job over its heap limit (a 96 MB attribute within 32 MB), and the import fails with the reason', async () => {
    const me = await seedUser(app);
    const file = path.join(work, 'huge-attribute', 'export.xml');
    mkdirSync(path.dirname(file), { recursive: true });
    const out = createWriteStream(file);
    out.write(`${HEAD} <Record type="HKQuantityTypeIdentifierStepCount" value="`);
    const chunk = '7'.repeat(MIB);
    for (let i = 0; i < 96; i++) if (!out.write(chunk)) await once(out, 'drain');
    out.end(`"/>\n${TAIL}`);
    await once(out, 'close');
    const { result, slowestMs, rssGrowthMb } = await measured('reading job over a 32 MB heap', () =>
      importAppleHealthFile(app.db, {
        userId: me.user.id,
        file,
        limits: { maxHeapMb: 32 },
      }).then(
        () => expect.fail('imported'),
        (err: unknown) => err,
      ),
    );
    expect(result).toBeInstanceOf(FileJobError);
    expect(result).toMatchObject({
      code: 'memory',
      message: 'reading the export needed more than 32 MB of memory',
    });
    expect(slowestMs).toBeLessThan(200);
    expect(rssGrowthMb).toBeLessThan(100);
  }, 60_000);

  it('ends the reading job when storing fails, rather than letting it read on', async () => {
    const { zip } = await largeExportZip();
    const me = await seedUser(app);
    const started = performance.now();
    const err = await importAppleHealthFile(app.db, {
      userId: me.user.id,
      file: zip,
      progressEvery: 5_000,
      onProgressCounts: () => {
        throw new Error('the store went away');
      },
    }).then(
      () => expect.fail('imported'),
      (e: unknown) => e,
    );
    expect(err).toMatchObject({ message: 'the store went away' });
    // ended at its first progress report, not after the whole export
    expect(performance.now() - started).toBeLessThan(5_000);
    await expect.poll(() => fileWorkerStats()['apple-health-export']?.threads ?? 0).toBe(0);
  }, 60_000);
});
