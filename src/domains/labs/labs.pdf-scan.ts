/**
 * The decompressed-size bound of a PDF (issue 45), checked on its raw bytes before pdf.js sees it:
 * every stream is decoded here the way pdf.js would decode it (decrypted first when the file is
 * encrypted: labs.pdf-crypt.ts), counting bytes and keeping none, and the file is refused once its
 * streams together would decode to more than its budget.
 *
 * Why before pdf.js: pdf.js decodes a stream whole into an ArrayBuffer, outside the V8 heap, so a
 * worker's heap limit never stops a 2 GiB zero stream in a 2 MB file; by the time pdf.js has read
 * it, the memory is spent.
 *
 * The budget: at most `maxDecodedBytes` (64 MB) for the whole file, and at most `maxRatio` (100)
 * times the file's size above a floor of `decodedFloor` (16 MB), so the file's
 * compressed/decompressed ratio is bounded. A lab report's streams (text, fonts, a logo) decode to
 * a few MB. Each filter as pdf.js 5 reads it:
 * - FlateDecode: zlib, without its header (pdf.js checks the header itself and decodes nothing
 *   when it is wrong; zlib would also check the window size and the checksum, pdf.js does
 *   neither). Where zlib finds the data damaged, pdf.js may read on where zlib stops (it does not
 *   check distances or code sets), so the rest of the stream is counted as if it expanded at
 *   deflate's largest ratio (1032).
 * - BrotliDecode: zlib's brotli; a damaged one is refused (its ratio has no useful bound).
 * - RunLengthDecode, ASCIIHexDecode, ASCII85Decode: decoded here, and any chain of these.
 * - LZWDecode is refused (no lab report's producer uses it since the 1990s: not worth a decoder),
 *   and so is a predictor before another filter (pdf.js would feed the next filter predicted bytes).
 * - Image codecs (DCT, JPX, JBIG2, CCITT) as the last filter: not decoded (pdf.js's text reading
 *   never decodes an image) and counted at their encoded size; before another filter, refused.
 * - Unknown filters, Crypt: passed through, as pdf.js does.
 * An encrypted file's stream is counted both decrypted and as it stands, the larger (a file that
 * lies about its encryption gains nothing), and one whose /Filter cannot be read here is refused.
 *
 * The decoded streams are also where what pdf.js would interpret is measured (labs.pdf-draws.ts):
 * past `maxFormDraws` (10,000) form draws or `maxContentBytes` (16 MB) of content read, forms
 * counted each time drawn, the file is refused as drawing more than a lab report holds, before
 * pdf.js would draw a single one. Object streams are decoded first, so the objects in them
 * (pages, resources, lengths) are seen.
 *
 * It must never keep decoded bytes beyond one stream's chain (an object stream's aside: other
 * streams refer to its objects), never let one decode exceed what is left of the budget (zlib's `maxOutputLength`), and never throw for a file it refuses (the
 * refusal is its answer; an unexpected error is its caller's to refuse the file by).
 */
import { brotliDecompressSync, constants, inflateRawSync } from 'node:zlib';
import { openEncryption } from './labs.pdf-crypt.ts';
import { Drawing } from './labs.pdf-draws.ts';
import type { PdfDecrypt } from './labs.pdf-crypt.ts';
import { PdfObjects, PdfRef, nameOf } from './labs.pdf-objects.ts';
import type { PdfDict, PdfStream, PdfValue } from './labs.pdf-objects.ts';

/** What a PDF's streams may decode to. */
export interface PdfStreamLimits {
  /** the most bytes all streams may decode to together (default 64 MB) */
  maxDecodedBytes: number;
  /** decoded bytes allowed per byte of the file above the floor (default 100) */
  maxRatio: number;
  /** decoded bytes allowed whatever the file's size (default 16 MB) */
  decodedFloor: number;
  /** the most form XObject draws in the document (labs.pdf-draws.ts; default 10,000) */
  maxFormDraws: number;
  /** the most bytes of content read to draw the document, forms each time drawn (default 16 MB) */
  maxContentBytes: number;
}

/** The limits used when none are given. */
export const DEFAULT_STREAM_LIMITS: PdfStreamLimits = {
  maxDecodedBytes: 64 * 1024 * 1024,
  maxRatio: 100,
  decodedFloor: 16 * 1024 * 1024,
  maxFormDraws: 10_000,
  maxContentBytes: 16 * 1024 * 1024,
};

/** Why the scan refuses a file. */
export type PdfScanRefusal =
  | 'too_much_data'
  | 'too_much_content'
  | 'unsupported_filter'
  | 'unsupported_encryption'
  | 'password';

/** What the scan found. */
export interface PdfStreamScan {
  /** streams found */
  streams: number;
  /** bytes the streams decode to (as far as counted: up to just past the budget) */
  decodedBytes: number;
  /** the file's budget in bytes */
  budget: number;
  /** form XObject draws in the document (Infinity for a cycle; measured once the bytes are within budget) */
  formDraws: number;
  /** bytes of content read to draw the document (Infinity for a cycle; measured likewise) */
  contentBytes: number;
  /** why the file is refused, null when it is within its budget */
  refusal: PdfScanRefusal | null;
  /** the refusal in words, for logs (no file content) */
  detail: string | null;
}

/** Deflate's largest expansion: 258 bytes for two bits. */
const DEFLATE_MAX_RATIO = 1032;
const IMAGE_CODECS = new Set(['DCT', 'DCTDecode', 'JPX', 'JPXDecode', 'JBIG2Decode']);
const FAX = new Set(['CCF', 'CCITTFaxDecode']);

/** A stage's result: its bytes, or the refusal it meets. */
type Decoded = { bytes: Uint8Array; extra?: number } | { refusal: PdfScanRefusal; detail: string };

class Refused extends Error {
  constructor(
    readonly refusal: PdfScanRefusal,
    readonly detail: string,
  ) {
    super(detail);
  }
}

/** True when pdf.js accepts the first two bytes as a zlib header (method 8, check, no dictionary). */
function zlibHeader(b: Uint8Array): boolean {
  return b.length >= 2 && (b[0] & 15) === 8 && ((b[0] << 8) + b[1]) % 31 === 0 && !(b[1] & 32);
}

/** Raw inflate of `data` with at most `cap` bytes out; throws zlib's error. */
function inflate(data: Uint8Array, cap: number): Buffer {
  return inflateRawSync(data, {
    maxOutputLength: Math.max(1, cap),
    finishFlush: constants.Z_SYNC_FLUSH,
  });
}

/**
 * A Flate stream's decoded bytes within `cap`, or null past it. Damaged data: what decodes before
 * the damage (found by halving), and the rest counted at deflate's largest ratio in `extra`.
 */
function flate(data: Uint8Array, cap: number): { bytes: Uint8Array; extra: number } | null {
  if (!zlibHeader(data)) return { bytes: new Uint8Array(0), extra: 0 };
  const body = data.subarray(2);
  try {
    return { bytes: inflate(body, cap), extra: 0 };
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return null;
  }
  let good = 0;
  let bad = body.length;
  let bytes: Uint8Array = new Uint8Array(0);
  while (bad - good > 1) {
    const mid = (good + bad) >> 1;
    try {
      bytes = inflate(body.subarray(0, mid), cap);
      good = mid;
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return null;
      bad = mid;
    }
  }
  // pdf.js may read on past the damage: the rest counted at deflate's largest ratio
  return { bytes, extra: (body.length - good) * DEFLATE_MAX_RATIO };
}

function brotli(data: Uint8Array, cap: number): Decoded {
  try {
    return { bytes: brotliDecompressSync(data, { maxOutputLength: Math.max(1, cap) }) };
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') return over(cap);
    return { refusal: 'too_much_data', detail: 'a damaged BrotliDecode stream' };
  }
}

function over(cap: number): Decoded {
  return { refusal: 'too_much_data', detail: `a stream decodes past the ${cap} bytes left` };
}

/** RunLengthDecode within `cap`. */
function runLength(data: Uint8Array, cap: number): Uint8Array | null {
  const out: Buffer[] = [];
  let size = 0;
  for (let i = 0; i + 1 < data.length; ) {
    const n = data[i];
    if (n === 128) break;
    const chunk =
      n < 128 ? Buffer.from(data.subarray(i + 1, i + 2 + n)) : Buffer.alloc(257 - n, data[i + 1]);
    i += n < 128 ? n + 2 : 2;
    size += chunk.length;
    if (size > cap) return null;
    out.push(chunk);
  }
  return Buffer.concat(out);
}

/** ASCIIHexDecode: hex digits up to `>`, anything else skipped, an odd last digit padded. */
function asciiHex(data: Uint8Array): Uint8Array {
  const text = Buffer.from(data).toString('latin1');
  const end = text.indexOf('>');
  const digits = (end === -1 ? text : text.slice(0, end)).replace(/[^0-9a-fA-F]/g, '');
  return Buffer.from(digits.length % 2 ? `${digits}0` : digits, 'hex');
}

/** ASCII85Decode: groups of five up to `~`, `z` for four zeros, a short last group padded. */
function ascii85(data: Uint8Array): Uint8Array {
  const text = Buffer.from(data).toString('latin1');
  const end = text.indexOf('~');
  const chars = (end === -1 ? text : text.slice(0, end)).replace(/[\0\t\n\f\r ]/g, '');
  const out: number[] = [];
  let group: number[] = [];
  const flush = (n: number): void => {
    let v = 0;
    for (let i = 0; i < 5; i++) v = v * 85 + (group[i] ?? 84);
    for (let i = 0; i < n; i++) out.push(Math.floor(v / 256 ** (3 - i)) & 255);
    group = [];
  };
  for (const ch of chars) {
    const c = ch.charCodeAt(0);
    if (c === 122 && group.length === 0) out.push(0, 0, 0, 0);
    else if (c >= 33 && c <= 117) {
      group.push(c - 33);
      if (group.length === 5) flush(4);
    }
  }
  if (group.length > 1) flush(group.length - 1);
  return Uint8Array.from(out);
}

/** A filter's parameters have a predictor (pdf.js applies it after Flate or LZW). */
function hasPredictor(params: PdfValue | undefined, objects: PdfObjects): boolean {
  const p = objects.resolve(params);
  const predictor = p instanceof Map ? objects.resolve(p.get('Predictor')) : undefined;
  return typeof predictor === 'number' && predictor > 1;
}

/**
 * The stream's filter names and their parameters, as pdf.js reads them (/F before /Filter, /DP
 * before /DecodeParms; a value that is neither a name nor an array: no filter).
 */
function filtersOf(dict: PdfDict, objects: PdfObjects): { names: string[]; params: PdfValue[] } {
  const raw = dict.has('F') ? dict.get('F') : dict.get('Filter');
  if (raw === undefined || raw === null) return { names: [], params: [] };
  const filter = objects.resolve(raw);
  if (filter === undefined) {
    throw new Refused('unsupported_filter', 'a /Filter stored where it cannot be checked');
  }
  if (!Array.isArray(filter)) {
    const name = nameOf(filter);
    return name ? { names: [name], params: [] } : { names: [], params: [] };
  }
  const names = filter.map((f) => {
    const name = nameOf(objects.resolve(f));
    if (name === null)
      throw new Refused('unsupported_filter', 'a /Filter entry that is not a name');
    return name;
  });
  const params = objects.resolve(dict.has('DP') ? dict.get('DP') : dict.get('DecodeParms'));
  return { names, params: names.map((_, i) => (Array.isArray(params) ? params[i] : null)) };
}

/** One filter's output within `cap` (the budget left). */
function stage(name: string, data: Uint8Array, cap: number): Decoded {
  switch (name) {
    case 'Fl':
    case 'FlateDecode': {
      const out = flate(data, cap);
      return out ?? over(cap);
    }
    case 'BrotliDecode':
      return brotli(data, cap);
    case 'RL':
    case 'RunLengthDecode': {
      const out = runLength(data, cap);
      return out ? { bytes: out } : over(cap);
    }
    case 'AHx':
    case 'ASCIIHexDecode':
      return { bytes: asciiHex(data) };
    case 'A85':
    case 'ASCII85Decode':
      return { bytes: ascii85(data) };
    case 'LZW':
    case 'LZWDecode':
      return { refusal: 'unsupported_filter', detail: 'an LZWDecode stream' };
    default:
      // Crypt and unknown filters: pdf.js passes the data through
      return { bytes: data };
  }
}

/** One reading of a stream: the bytes it decodes to, and its content (null for an image). */
interface Reading {
  size: number;
  content: Uint8Array | null;
}

/** One reading of a stream's data decoded through its filters, within `cap`. */
function decodeReading(
  data: Uint8Array,
  filters: { names: string[]; params: PdfValue[] },
  cap: number,
  objects: PdfObjects,
): Reading {
  let total = 0;
  let bytes = data;
  const { names, params } = filters;
  for (let i = 0; i < names.length; i++) {
    const last = i === names.length - 1;
    if (IMAGE_CODECS.has(names[i]) || FAX.has(names[i])) {
      if (last) return { size: total, content: null };
      throw new Refused('unsupported_filter', `an image codec (${names[i]}) before another filter`);
    }
    if (!last && hasPredictor(params[i], objects)) {
      throw new Refused('unsupported_filter', 'a predictor before another filter');
    }
    const out = stage(names[i], bytes, cap - total);
    if ('refusal' in out) throw new Refused(out.refusal, out.detail);
    total += out.bytes.length + (out.extra ?? 0);
    if (total > cap) throw new Refused('too_much_data', `a stream decodes past ${cap} bytes`);
    bytes = out.bytes;
  }
  return { size: total, content: bytes };
}

/** The file's encryption: how it decrypts, or null when it is not encrypted. */
function encryptionOf(objects: PdfObjects): PdfDecrypt | null {
  const trailers = objects.trailers().filter((t) => t.has('Encrypt'));
  const last = trailers.at(-1);
  if (!last) return null;
  const refs = new Set(
    trailers.map((t) => {
      const e = t.get('Encrypt');
      return e instanceof PdfRef ? `${e.num} ${e.gen}` : 'direct';
    }),
  );
  if (refs.size > 1) {
    throw new Refused('unsupported_encryption', 'more than one encryption dictionary');
  }
  const encrypt = objects.resolve(last.get('Encrypt'));
  if (!(encrypt instanceof Map)) {
    throw new Refused('unsupported_encryption', 'an encryption dictionary that cannot be read');
  }
  const ids = objects.resolve(last.get('ID')) ?? objects.resolve(trailers[0].get('ID'));
  const id0 = Array.isArray(ids) ? objects.resolve(ids[0]) : undefined;
  const opened = openEncryption(
    encrypt,
    id0 instanceof Uint8Array ? id0 : new Uint8Array(0),
    objects,
  );
  if (opened === 'password') throw new Refused('password', 'a user password is needed');
  if (opened === 'unsupported') {
    throw new Refused('unsupported_encryption', 'a security handler pdf.js does not open');
  }
  return opened;
}

/**
 * A stream's decoded size, the larger of its readings (as it stands, and decrypted), each reading
 * recorded into `drawing`; an object stream's objects added to `objects`.
 */
function scanStream(
  stream: PdfStream,
  decrypt: PdfDecrypt | null,
  cap: number,
  context: { objects: PdfObjects; drawing: Drawing },
): number {
  const { objects, drawing } = context;
  const filters = filtersOf(stream.dict, objects);
  const data = objects.bytes.subarray(stream.start, stream.end);
  const readings = [decodeReading(data, filters, cap, objects)];
  // cross-reference streams are never encrypted
  if (decrypt && nameOf(stream.dict.get('Type')) !== 'XRef') {
    readings.push(decodeReading(decrypt(data, stream.num, stream.gen), filters, cap, objects));
  }
  for (const r of readings) {
    drawing.record(stream.num, stream.dict, r.content?.length ?? 0, r.content);
    if (r.content && nameOf(stream.dict.get('Type')) === 'ObjStm') {
      objects.addObjectStream(stream.dict, r.content);
    }
  }
  return Math.max(...readings.map((r) => r.size));
}

/** The file's streams, object streams first (their objects resolve references of the others). */
function streamsOf(objects: PdfObjects): PdfStream[] {
  const streams = objects.headers.map((h) => objects.streamAt(h)).filter((s) => s !== null);
  const objStm = (s: PdfStream): boolean => nameOf(s.dict.get('Type')) === 'ObjStm';
  return [...streams.filter(objStm), ...streams.filter((s) => !objStm(s))];
}

/** The refusal for drawing past the limits, or null. */
function drawingRefusal(scan: PdfStreamScan, lim: PdfStreamLimits): Refused | null {
  if (scan.formDraws > lim.maxFormDraws) {
    return new Refused('too_much_content', `forms drawn ${scan.formDraws} times`);
  }
  if (scan.contentBytes > lim.maxContentBytes) {
    return new Refused('too_much_content', `${scan.contentBytes} bytes of content`);
  }
  return null;
}

/**
 * Decodes every stream of the PDF in `bytes` as pdf.js would, counting the bytes, the form draws
 * and the content read, and answers whether they stay within the bounds `limits` give this file.
 */
export function scanPdfStreams(
  bytes: Uint8Array,
  limits: Partial<PdfStreamLimits> = {},
): PdfStreamScan {
  const lim = { ...DEFAULT_STREAM_LIMITS, ...limits };
  const budget = Math.min(
    lim.maxDecodedBytes,
    Math.max(lim.decodedFloor, lim.maxRatio * bytes.length),
  );
  const scan: PdfStreamScan = {
    streams: 0,
    decodedBytes: 0,
    budget,
    formDraws: 0,
    contentBytes: 0,
    refusal: null,
    detail: null,
  };
  try {
    const objects = new PdfObjects(bytes);
    const decrypt = encryptionOf(objects);
    const drawing = new Drawing(objects);
    for (const stream of streamsOf(objects)) {
      scan.streams++;
      const cap = budget - scan.decodedBytes;
      scan.decodedBytes += scanStream(stream, decrypt, cap, { objects, drawing });
    }
    Object.assign(scan, drawing.measure());
    const refusal = drawingRefusal(scan, lim);
    if (refusal) throw refusal;
    return scan;
  } catch (err) {
    if (!(err instanceof Refused)) throw err;
    return { ...scan, refusal: err.refusal, detail: err.detail };
  }
}
