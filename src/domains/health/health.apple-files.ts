/**
 * The files of an Apple Health export beside export.xml: the export folder (or the export zip,
 * read entry by entry as streams, never whole), the GPX workout routes (`workout-routes/*.gpx`) and
 * the ECG recordings (`electrocardiograms/*.csv`), each read as a stream.
 */
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import yauzl from 'yauzl';
import type { EcgRecordingIn, RoutePointIn } from './health.apple-archive.ts';
import { parseHealthDate } from './health.apple-parser.ts';

/** An export: its export.xml and the files beside it. */
export interface ExportSource {
  /** the export.xml stream */
  xml(): Promise<Readable>;
  /** a file named relative to the export's folder (`/workout-routes/x.gpx`), null when absent */
  open(relative: string): Promise<Readable | null>;
  /** the files of a folder of the export (`electrocardiograms`), relative names, sorted */
  list(folder: string): string[];
  close(): void;
}

const clean = (relative: string): string =>
  path.posix.normalize(`/${relative.replace(/\\/g, '/')}`).replace(/^\/+/, '');

function folderSource(file: string): ExportSource {
  const root = path.dirname(path.resolve(file));
  const inside = (relative: string): string => path.join(root, clean(relative));
  return {
    xml: () => Promise.resolve(createReadStream(file)),
    open: (relative) => {
      const p = inside(relative);
      return Promise.resolve(existsSync(p) ? createReadStream(p) : null);
    },
    list: (folder) => {
      const dir = inside(folder);
      if (!existsSync(dir)) return [];
      return readdirSync(dir)
        .sort()
        .map((f) => `${clean(folder)}/${f}`);
    },
    close: () => undefined,
  };
}

async function zipSource(file: string): Promise<ExportSource> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(file, { lazyEntries: true, autoClose: false }, (err, z) =>
      err || !z ? reject(err ?? new Error('no zip')) : resolve(z),
    ),
  );
  // the central directory only (names and offsets), not the contents
  const entries = new Map<string, yauzl.Entry>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      if (!entry.fileName.endsWith('/')) entries.set(entry.fileName, entry);
      zip.readEntry();
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  const main = [...entries.keys()].find((n) => /(^|\/)export\.xml$/.test(n));
  if (!main) {
    zip.close();
    throw new Error(`no export.xml in ${file}`);
  }
  const root = path.posix.dirname(main) === '.' ? '' : `${path.posix.dirname(main)}/`;
  const stream = (entry: yauzl.Entry): Promise<Readable> =>
    new Promise((resolve, reject) =>
      zip.openReadStream(entry, (err, s) =>
        err || !s ? reject(err ?? new Error('unreadable entry')) : resolve(s),
      ),
    );
  return {
    xml: () => stream(entries.get(main)!),
    open: async (relative) => {
      const entry = entries.get(root + clean(relative));
      return entry ? stream(entry) : null;
    },
    list: (folder) => {
      const prefix = `${root}${clean(folder)}/`;
      return [...entries.keys()]
        .filter((n) => n.startsWith(prefix) && !n.slice(prefix.length).includes('/'))
        .sort()
        .map((n) => n.slice(root.length));
    },
    close: () => zip.close(),
  };
}

/** Opens an export: the export zip, or export.xml with its folder. */
export function openExportSource(file: string): Promise<ExportSource> {
  return file.toLowerCase().endsWith('.zip')
    ? zipSource(file)
    : Promise.resolve(folderSource(file));
}

function num(text: string): number | null {
  if (text.trim() === '') return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}

/** A track point being read: its time stays null until a readable `<time>` closes. */
type PendingPoint = RoutePointIn & { time: string | null };

/** What parseGpx has read so far: the first error, the points not yet handed on, the open element. */
interface GpxReading {
  failed: Error | null;
  /** points read and not yet passed to `onPoints` */
  batch: RoutePointIn[];
  /** points read in all */
  count: number;
  /** the `<trkpt>` being read, null outside one (or when its position is unreadable) */
  point: PendingPoint | null;
  /** the child element of the point whose text is being read */
  field: string | null;
  /** the text of `field` read so far */
  text: string;
}

/** A track point from a `<trkpt>`'s attributes, or null when its position is unreadable. */
function startTrackPoint(attributes: Record<string, string>): PendingPoint | null {
  const lat = num(attributes.lat ?? '');
  const lon = num(attributes.lon ?? '');
  return lat === null || lon === null || Math.abs(lat) > 90 || Math.abs(lon) > 180
    ? null
    : {
        at: '',
        time: null,
        lat,
        lon,
        elevation: null,
        speed: null,
        course: null,
        hAcc: null,
        vAcc: null,
      };
}

/** Sets the point's field that the closed child element `name` holds (`time`, `ele`, `speed`, ...). */
function setTrackPointField(point: PendingPoint, name: string, value: string): void {
  if (name === 'time') {
    const d = new Date(value);
    point.time =
      Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1000 || d.getUTCFullYear() > 9999
        ? null
        : d.toISOString();
  } else if (name === 'ele') point.elevation = num(value);
  else if (name === 'speed') point.speed = num(value);
  else if (name === 'course') point.course = num(value);
  else if (name === 'hAcc') point.hAcc = num(value);
  else if (name === 'vAcc') point.vAcc = num(value);
}

/** Ends the `<trkpt>` being read: a point with a readable time joins the batch. */
function endTrackPoint(reading: GpxReading): void {
  const point = reading.point;
  if (point?.time) {
    const { time, ...p } = point;
    reading.batch.push({ ...p, at: time });
    reading.count += 1;
  }
  reading.point = null;
}

/** Listens to the parser's events, collecting the track points into `reading`. */
function readTrackPoints(parser: SaxesParser, reading: GpxReading): void {
  parser.on('error', (e) => {
    reading.failed ??= e;
  });
  parser.on('opentag', (tag) => {
    if (tag.name === 'trkpt') {
      reading.point = startTrackPoint(tag.attributes as Record<string, string>);
    } else if (reading.point) {
      reading.field = tag.name;
      reading.text = '';
    }
  });
  parser.on('text', (t) => {
    if (reading.field) reading.text += t;
  });
  parser.on('closetag', (tag) => {
    if (tag.name === 'trkpt') {
      endTrackPoint(reading);
      return;
    }
    if (!reading.point || reading.field !== tag.name) return;
    setTrackPointField(reading.point, tag.name, reading.text.trim());
    reading.field = null;
  });
}

/**
 * Streams a GPX file's track points (`<trkpt lat lon><ele/><time/><extensions><speed/><course/>
 * <hAcc/><vAcc/></extensions></trkpt>`, as the Health app writes them) to `onPoints` in batches.
 * Points without a readable time or position are skipped. Answers how many were read.
 */
export async function parseGpx(
  input: Readable,
  onPoints: (points: RoutePointIn[]) => Promise<void>,
  batchSize = 5000,
): Promise<number> {
  const parser = new SaxesParser();
  const reading: GpxReading = {
    failed: null,
    batch: [],
    count: 0,
    point: null,
    field: null,
    text: '',
  };
  readTrackPoints(parser, reading);
  input.setEncoding('utf8');
  for await (const chunk of input) {
    parser.write(chunk as string);
    if (reading.failed) throw reading.failed;
    if (reading.batch.length >= batchSize) {
      const full = reading.batch;
      reading.batch = [];
      await onPoints(full);
    }
  }
  parser.close();
  if (reading.failed) throw reading.failed;
  if (reading.batch.length > 0) await onPoints(reading.batch);
  return reading.count;
}

/** Splits one CSV line of two cells (`Key,Value` or `Key,"Value, with comma"`). */
function headerLine(line: string): [string, string] | null {
  const comma = line.indexOf(',');
  if (comma < 0) return null;
  const key = line.slice(0, comma).trim();
  let value = line.slice(comma + 1).trim();
  if (value.startsWith('"') && value.endsWith('"') && value.length >= 2)
    value = value.slice(1, -1).replace(/""/g, '"');
  return key ? [key, value] : null;
}

/** The most samples kept of one recording (a 30-second ECG at 512 Hz is 15,360). */
export const ECG_MAX_SAMPLES = 200_000;

/**
 * Reads an ECG CSV as the Health app exports it: header lines `Name`, `Date of Birth`, `Recorded
 * Date`, `Classification`, `Symptoms`, `Software Version`, `Device`, `Sample Rate` (`512 hertz`),
 * `Lead`, `Unit`, then one voltage per line. Null when it has no readable Recorded Date or Sample
 * Rate (not an ECG export).
 */
export async function parseEcgCsv(
  input: Readable,
  fileName: string,
): Promise<EcgRecordingIn | null> {
  const header: Record<string, string> = {};
  const samples: number[] = [];
  let inSamples = false;
  for await (const raw of createInterface({ input, crlfDelay: Infinity })) {
    const line = raw.replace(/^\uFEFF/, '').trim();
    if (!inSamples) {
      if (line === '') {
        if (Object.keys(header).length > 0) inSamples = true;
        continue;
      }
      const n = num(line.replace(',', '.'));
      if (n !== null && !line.includes(',')) {
        inSamples = true;
        samples.push(n);
        continue;
      }
      const kv = headerLine(line);
      if (kv) header[kv[0]] = kv[1];
      continue;
    }
    if (line === '') continue;
    const n = num(line.replace(',', '.'));
    if (n !== null && samples.length < ECG_MAX_SAMPLES) samples.push(n);
  }
  const recordedAt = parseHealthDate(header['Recorded Date']);
  const rate = num(/^[\d.]+/.exec(header['Sample Rate'] ?? '')?.[0] ?? '');
  if (!recordedAt || rate === null || rate <= 0) return null;
  const text = (k: string): string | null => (header[k] ? header[k] : null);
  return {
    recordedAt,
    classification: text('Classification'),
    symptoms: text('Symptoms'),
    softwareVersion: text('Software Version'),
    device: text('Device'),
    sampleRateHz: rate,
    lead: text('Lead'),
    unit: text('Unit'),
    header,
    samples,
    fileName,
  };
}
