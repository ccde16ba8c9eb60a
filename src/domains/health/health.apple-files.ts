/**
 * The files of an Apple Health export beside export.xml: the export folder (or the export zip,
 * read entry by entry as streams, never whole), the GPX workout routes (`workout-routes/*.gpx`) and
 * the ECG recordings (`electrocardiograms/*.csv`), each read as a stream.
 *
 * These are parsers of untrusted files: they run only in the import's worker thread
 * (health.apple-read.job.ts, issue 45), never on the thread that answers requests. A zip entry is
 * inflated only within ZIP_MAX_RATIO times its compressed size and ZIP_MAX_INFLATED_BYTES, checked
 * against the sizes the zip declares before a byte is inflated and, while it streams, by yauzl's
 * byte count against those declared sizes (`validateEntrySizes`).
 */
import { createReadStream, existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import type { Readable } from 'node:stream';
import { SaxesParser } from 'saxes';
import yauzl from 'yauzl';
import type { EcgRecordingIn, RoutePointIn } from './health.apple-records.ts';
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

/**
 * How many times its compressed size a zip entry may inflate to. An Apple Health export.xml
 * deflates 20 to 22 times (measured on a 100 MB export written like the Health app's: heart rate
 * with its metadata, energy, steps, distance; gzip -1 to -9); GPX and CSV files less. A zip bomb
 * inflates about 1,000 times.
 */
export const ZIP_MAX_RATIO = 100;
/** Entries up to this size are not held to the ratio: a small file costs little whatever its ratio. */
export const ZIP_RATIO_FLOOR_BYTES = 1024 * 1024;
/**
 * The most one entry, and the entries read from one zip in all, may inflate to: about what the
 * import's 30-minute budget stores (health.apple-import.ts), so a larger export is refused at once
 * rather than after half an hour.
 */
export const ZIP_MAX_INFLATED_BYTES = 8 * 1024 ** 3;

/** Why a zip entry was not inflated. */
export type ZipRefusalCode = 'zip_ratio' | 'zip_too_large' | 'zip_entry_size';

/** An export zip refused before or while it inflates (a zip bomb, or sizes that lie). */
export class ExportZipRefused extends Error {
  readonly code: ZipRefusalCode;
  constructor(code: ZipRefusalCode, message: string) {
    super(message);
    this.name = 'ExportZipRefused';
    this.code = code;
  }
}

const mib = (bytes: number): string =>
  bytes >= 1024 ** 3
    ? `${(bytes / 1024 ** 3).toFixed(1)} GiB`
    : `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

/** The entry's name as an error message shows it (it is the uploader's text). */
const shown = (name: string): string => (name.length > 80 ? `${name.slice(0, 77)}...` : name);

/**
 * Why an entry that declares these sizes must not be inflated, or null when it may be: over
 * ZIP_MAX_RATIO times its compressed size (beyond ZIP_RATIO_FLOOR_BYTES), or over
 * ZIP_MAX_INFLATED_BYTES.
 */
export function zipEntryRefusal(
  name: string,
  compressedSize: number,
  uncompressedSize: number,
): ExportZipRefused | null {
  if (uncompressedSize > ZIP_MAX_INFLATED_BYTES) {
    return new ExportZipRefused(
      'zip_too_large',
      `${shown(name)} would inflate to ${mib(uncompressedSize)}, more than the ${mib(ZIP_MAX_INFLATED_BYTES)} an export may hold`,
    );
  }
  if (uncompressedSize > Math.max(ZIP_RATIO_FLOOR_BYTES, ZIP_MAX_RATIO * compressedSize)) {
    const ratio = Math.round(uncompressedSize / Math.max(1, compressedSize));
    return new ExportZipRefused(
      'zip_ratio',
      `${shown(name)} would inflate ${ratio} times (${mib(uncompressedSize)} from ${mib(compressedSize)}); ` +
        `an Apple Health export inflates about 20 times and more than ${ZIP_MAX_RATIO} is refused`,
    );
  }
  return null;
}

/** yauzl's error for an entry that inflates beyond its declared size, as an ExportZipRefused. */
function streamRefusal(err: Error, entry: yauzl.Entry): Error {
  return /^too many bytes in the stream/.test(err.message)
    ? new ExportZipRefused(
        'zip_entry_size',
        `${shown(entry.fileName)} inflates to more than the ${mib(entry.uncompressedSize)} its zip entry declares`,
      )
    : err;
}

async function zipSource(file: string): Promise<ExportSource> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    // NOTE: validateEntrySizes (yauzl's default, said here because the bounds rest on it): an entry
    // that inflates to more than its declared size fails while it streams.
    yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true }, (err, z) =>
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
  // every entry read counts (a route file named by many workouts is read again each time)
  let inflated = 0;
  const allowed = Math.min(
    ZIP_MAX_INFLATED_BYTES,
    Math.max(ZIP_RATIO_FLOOR_BYTES, ZIP_MAX_RATIO * zip.fileSize),
  );
  const stream = async (entry: yauzl.Entry): Promise<Readable> => {
    const refused = zipEntryRefusal(entry.fileName, entry.compressedSize, entry.uncompressedSize);
    if (refused) throw refused;
    inflated += entry.uncompressedSize;
    if (inflated > allowed) {
      throw new ExportZipRefused(
        'zip_ratio',
        `the export's files would inflate to more than ${mib(allowed)} in all (${ZIP_MAX_RATIO} times the zip's ${mib(zip.fileSize)})`,
      );
    }
    const raw = await new Promise<Readable>((resolve, reject) =>
      zip.openReadStream(entry, (err, s) =>
        err || !s ? reject(err ?? new Error('unreadable entry')) : resolve(s),
      ),
    );
    // the same bytes, with yauzl's size error told as what it is
    const out = new PassThrough();
    raw.on('error', (err) => out.destroy(streamRefusal(err, entry)));
    out.on('close', () => {
      if (!raw.readableEnded) raw.destroy();
    });
    return raw.pipe(out);
  };
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
