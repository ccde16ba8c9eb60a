/**
 * The closed list of responders: what a route row names when its request or answer is not plain
 * JSON (docs/architecture.md section 4). Each one is transport only, never a rule of the data:
 * - `multipart`: a multipart/form-data body is parsed into variables; the GraphQL field decides
 *   whether the file is acceptable (type, size, ownership). File parts of one name are kept in
 *   order as a list, so a list variable (`[File!]`) receives every part of its name and a single
 *   one (`File!`) the last, as a repeated query parameter; the transport bounds the parts
 *   (MULTIPART_MAX_FILES: 422 beyond) and the bytes (each part and all of them: 413 beyond, the
 *   moment a part passes its limit, the rest of the body left unread: issue 45).
 * - `preflight`: OPTIONS for a browser's CORS preflight. Answers 200 with no body, naming the methods
 *   the route table serves on the path (`Allow`, `Access-Control-Allow-Methods`) and the request
 *   headers clients send; it runs no operation. It grants no origin (no
 *   `Access-Control-Allow-Origin`): a page on another origin stays refused by the browser.
 * - `cached`: a large read that rarely changes (the food core bundle). The answered root field
 *   carries `etag` (a strong validator the field computed) and `document`; the responder serialises
 *   and gzips each document once, then answers `ETag`, 304 to a matching `If-None-Match`, and the
 *   gzip bytes when `Accept-Encoding` allows. The field still decides everything else (auth, 503).
 * - `raw`: the body is read as bytes, whatever its content type (up to the row's `bodyLimit`, else
 *   1 MB: 413 beyond), and the row's `body` variable (a String) receives it as UTF-8 text exactly as
 *   sent, so the field can verify a signature made over those bytes (payment and monitor webhooks).
 *   Bytes that are not UTF-8 decode with replacement characters, so such a signature never matches.
 * - `stream`: a large export (admin raw sensor data). The root field answers one bounded chunk,
 *   `{rows, nextCursor}`, or `{rowsJson, nextCursor}` (the rows as one JSON array text the field
 *   already wrote in wire names, copied as it is). The responder writes the rows of every chunk as
 *   one JSON array, running the same operation again with `$after = nextCursor` until it is null;
 *   it asks for the next chunk while it writes one, and writes only when the socket has drained
 *   the previous write. So memory holds two chunks at most, whatever the export's length, and the
 *   field still decides everything (auth, bounds, audit, 404) on the first run. A failure after the
 *   first chunk can no longer change the status: the connection is cut before the closing `]`, so
 *   a client sees an incomplete body, never a short but valid array.
 * - `changes`: the sync pull's pages as one WatermelonDB answer (changes-responder.ts).
 * - `upload`: a large file (the phone's Apple Health export.zip, issue 30) handed to the field as it
 *   arrives: text fields before the one file part fill variables, and the file part becomes a
 *   StreamedFile (src/platform/streamed-file.ts) the field reads as a stream, so nothing is held in
 *   memory and the field's auth runs before a byte of the file is read. The field bounds the bytes
 *   (its own limit); whatever it leaves unread is read and dropped once the answer is sent.
 * - `file`: a finished export's file (issue 16). The root field decides who may read which file
 *   and answers `{fileKey, fileName, contentType}`; the responder streams that file from
 *   DATA_DIR/exports (src/platform/export-files.ts) as an attachment, or 404 when it is gone.
 */
import { once } from 'node:events';
import { finished } from 'node:stream';
import { gzipSync } from 'node:zlib';
import busboy from 'busboy';
import type { Request, RequestHandler, Response } from 'express';
import type { Readable } from 'node:stream';
import { CSRF_HEADER } from '../src/auth/authenticate.ts';
import { httpErrorBody } from '../src/base/errors.ts';
import { openExportFile } from '../src/platform/export-files.ts';
import { StreamedFile } from '../src/platform/streamed-file.ts';
import { snakeKeys } from '../src/base/wire.ts';

export const RESPONDERS = [
  'multipart',
  'preflight',
  'cached',
  'raw',
  'stream',
  'file',
  'upload',
  // the sync pull's pages as one WatermelonDB answer: changes-responder.ts
  'changes',
] as const;

export type Responder = (typeof RESPONDERS)[number];

export interface MultipartLimits {
  /** largest file part read; beyond it the request answers 413 without the rest being kept */
  maxFileBytes: number;
  /** largest sum of the file parts kept (default MULTIPART_TOTAL_FILES x maxFileBytes); beyond it 413 */
  maxTotalBytes?: number;
}

/** Form fields by name: text fields as strings (first of a name wins), file parts as lists of WHATWG Files in order. */
export type MultipartBody = Record<string, string | File[]>;

/** File parts one request may carry (the most photos a route takes, meal analyze's 20); beyond it 422. */
export const MULTIPART_MAX_FILES = 20;
/** Default bytes of all file parts together, in file limits (a meal analyze of four full photos). */
const MULTIPART_TOTAL_FILES = 4;

export type MultipartResult =
  | { ok: true; body: MultipartBody }
  | { ok: false; status: 413 | 422; detail: unknown };

const FIELD_LIMITS = {
  files: MULTIPART_MAX_FILES,
  fields: 50,
  parts: 80,
  fieldSize: 64 * 1024,
  fieldNameSize: 100,
};

/** The answer to a multipart body that is not a whole form (cut short, malformed, or abandoned). */
const MALFORMED = {
  ok: false,
  status: 422,
  detail: [{ loc: ['body'], msg: 'Malformed multipart/form-data body', type: 'value_error' }],
} as const satisfies MultipartResult;

/** What reading a form has met so far. */
interface FormState {
  total: number;
  tooLarge: boolean;
  tooMany: boolean;
  failed: boolean;
}

/**
 * Collects a file part into `body` as a File, unless the form is already past its size limits;
 * `tooLarge` is called the moment a part (or all of them) passes its limit.
 */
function collectFile(
  state: FormState,
  body: MultipartBody,
  maxTotal: number,
  tooLarge: () => void,
) {
  return (name: string, stream: Readable, info: busboy.FileInfo): void => {
    const chunks: Buffer[] = [];
    const overLimit = (): void => {
      state.tooLarge = true;
      chunks.length = 0;
      tooLarge();
    };
    // busboy destroys an unfinished file part with an error when the form ends early
    stream.on('error', () => void (state.failed = true));
    stream.on('data', (chunk: Buffer) => {
      if (state.tooLarge) return;
      state.total += chunk.length;
      if (state.total > maxTotal) return overLimit();
      chunks.push(chunk);
    });
    stream.on('limit', overLimit);
    stream.on('close', () => {
      if (state.tooLarge || state.failed) return;
      const file = new File(
        [Buffer.concat(chunks) as Uint8Array<ArrayBuffer>],
        info.filename ?? name,
        { type: info.mimeType },
      );
      const earlier = body[name];
      if (Array.isArray(earlier)) earlier.push(file);
      else if (earlier === undefined) body[name] = [file];
    });
  };
}

/** The form read whole: its fields and files, or 413 past a size limit, or 422 past the file count. */
function formOutcome(
  state: FormState,
  body: MultipartBody,
  limits: MultipartLimits,
  maxTotal: number,
): MultipartResult {
  if (state.tooLarge) {
    return {
      ok: false,
      status: 413,
      detail: `Request body too large: a file may have at most ${limits.maxFileBytes} bytes, all files together ${maxTotal}`,
    };
  }
  if (state.tooMany) {
    return {
      ok: false,
      status: 422,
      detail: [
        {
          loc: ['body'],
          msg: `Too many files: at most ${MULTIPART_MAX_FILES} file parts`,
          type: 'too_long',
        },
      ],
    };
  }
  return { ok: true, body };
}

/**
 * Reads a multipart/form-data request with busboy. A request that is not multipart reads as an
 * empty form (the operation's required variables then answer 422 as missing). A file part past
 * its limit (or all of them past theirs) settles 413 at once: the parser is let go and whatever
 * still arrives is dropped unread (the caller ends the connection with its answer).
 *
 * It must never leave a stream's 'error' unheard (busboy destroys the open file part with an error
 * when the form ends early: unheard, that error ends the process) and must always settle: a form
 * cut short, or a client that goes away mid-body, answers 422 (MALFORMED) and keeps no part.
 */
export function readMultipart(req: Request, limits: MultipartLimits): Promise<MultipartResult> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: req.headers,
      // busboy stops a part when it reaches fileSize: one more, so a part of maxFileBytes is whole
      limits: { ...FIELD_LIMITS, fileSize: limits.maxFileBytes + 1 },
    });
  } catch {
    return Promise.resolve({ ok: true, body: {} });
  }
  const body: MultipartBody = {};
  const maxTotal = limits.maxTotalBytes ?? MULTIPART_TOTAL_FILES * limits.maxFileBytes;
  const state: FormState = { total: 0, tooLarge: false, tooMany: false, failed: false };
  return new Promise((resolve) => {
    let settled = false;
    // the request ending early (the client went away, before or while it is read) ends the parser
    // with an error, which settles the promise below
    const stopWatching = finished(req, { writable: false }, (err) => {
      if (err) parser.destroy(err);
    });
    const settle = (result: MultipartResult): void => {
      if (settled) return;
      settled = true;
      stopWatching();
      resolve(result);
    };
    const tooLarge = (): void => {
      req.unpipe(parser);
      req.resume();
      settle(formOutcome(state, body, limits, maxTotal));
    };
    parser.on('file', collectFile(state, body, maxTotal, tooLarge));
    parser.on('field', (name, value) => {
      if (!(name in body)) body[name] = value;
    });
    parser.on('filesLimit', () => void (state.tooMany = true));
    parser.on('error', () => {
      state.failed = true;
      req.unpipe(parser);
      settle(MALFORMED);
    });
    parser.on('close', () => {
      if (state.failed) return; // settled by 'error'
      settle(formOutcome(state, body, limits, maxTotal));
    });
    req.pipe(parser);
  });
}

export type StreamedFormResult =
  | {
      ok: true;
      /** text fields as strings, the file part as a one-element list holding its StreamedFile */
      body: Record<string, string | StreamedFile[]>;
      /** reads and drops what the field left unread (call it once the answer is sent; idempotent) */
      release: () => void;
    }
  | { ok: false; status: 422; detail: unknown };

/**
 * Reads a multipart/form-data request for an `upload` row up to its first file part, and settles
 * there: that part is handed over unread as a StreamedFile (later file parts are dropped). A form
 * without a file part settles at its end; a request that is not multipart reads as an empty form.
 *
 * Like readMultipart it never leaves a stream's 'error' unheard: a form cut short, or a client
 * that goes away, errors the file part's stream (the field reading it sees the error) or, before
 * the file part, answers 422 MALFORMED.
 */
export function openStreamedForm(req: Request): Promise<StreamedFormResult> {
  const noop = (): void => undefined;
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { ...FIELD_LIMITS, files: 1 } });
  } catch {
    return Promise.resolve({ ok: true, body: {}, release: noop });
  }
  const body: Record<string, string | StreamedFile[]> = {};
  let part: Readable | null = null;
  let settled = false;
  return new Promise((resolve) => {
    const stopWatching = finished(req, { writable: false }, (err) => {
      if (err) parser.destroy(err);
    });
    const settle = (result: StreamedFormResult): void => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    const release = (): void => {
      // the field stopped reading (refused, over its limit) or never started: the rest of the
      // request is read and dropped, so the parser reaches the end of the form
      if (part && !part.readableEnded && !part.destroyed) part.resume();
    };
    parser.on('file', (name, stream, info) => {
      // busboy destroys an unfinished file part with an error when the form ends early
      stream.on('error', noop);
      if (settled) return void stream.resume();
      part = stream;
      body[name] = [new StreamedFile(stream, info.filename ?? name, info.mimeType)];
      settle({ ok: true, body, release });
    });
    parser.on('field', (name, value) => {
      if (!(name in body)) body[name] = value;
    });
    parser.on('error', () => {
      stopWatching();
      req.unpipe(parser);
      req.resume();
      settle(MALFORMED);
    });
    parser.on('close', () => {
      stopWatching();
      settle({ ok: true, body, release: noop });
    });
    req.pipe(parser);
  });
}

/** Request headers the documented clients send (header names are case-insensitive). */
const ALLOWED_HEADERS = ['authorization', 'content-type', CSRF_HEADER];

/** The preflight answer of a path whose rows serve `methods`. */
export function preflightResponder(methods: readonly string[]): RequestHandler {
  const allow = [...new Set([...methods, 'OPTIONS'])].sort().join(', ');
  const headers = {
    allow,
    'access-control-allow-methods': allow,
    'access-control-allow-headers': ALLOWED_HEADERS.join(', '),
    'access-control-max-age': '600',
  };
  return (_req, res) => {
    res.status(200).set(headers).end();
  };
}

/** What a `cached` row's root field answers. */
export interface CachedAnswer {
  etag: string;
  document: unknown;
}

/** How long clients may reuse a cached answer before revalidating with If-None-Match. */
const CACHED_MAX_AGE_S = 3600;

/**
 * The `cached` responder of one route: keeps the serialised and gzipped bytes of the latest
 * document (keyed by its etag), so a repeat request costs the operation's etag lookup and a write.
 */
export function cachedResponder(): (req: Request, res: Response, answer: CachedAnswer) => void {
  let current: { etag: string; json: Buffer; gzip: Buffer } | null = null;
  return (req, res, answer) => {
    const etag = `"${answer.etag}"`;
    res.set({
      etag,
      'cache-control': `public, max-age=${CACHED_MAX_AGE_S}`,
      vary: 'Accept-Encoding',
    });
    const ifNoneMatch = req.get('if-none-match');
    if (
      ifNoneMatch &&
      (ifNoneMatch.trim() === '*' ||
        ifNoneMatch.split(',').some((t) => t.trim().replace(/^W\//, '') === etag))
    ) {
      return void res.status(304).end();
    }
    if (current?.etag !== answer.etag) {
      const json = Buffer.from(JSON.stringify(snakeKeys(answer.document)));
      current = { etag: answer.etag, json, gzip: gzipSync(json) };
    }
    const gzip = req.acceptsEncodings('gzip', 'identity') === 'gzip';
    res.status(200).set({ 'content-type': 'application/json; charset=utf-8' });
    if (gzip) res.set('content-encoding', 'gzip');
    res.end(gzip ? current.gzip : current.json);
  };
}

/** What a `stream` row's root field answers: one chunk, and the cursor of the next (null: done). */
export interface StreamChunk {
  /** the chunk's rows (converted to snake_case keys here) */
  rows?: unknown[] | null;
  /** or the chunk's rows as one JSON array text already in wire names, written as it is */
  rowsJson?: string | null;
  nextCursor: string | null;
}

/** The inside of a chunk's JSON array (`a,b,c`; empty for none). */
function chunkItems(chunk: StreamChunk): string {
  const json = chunk.rowsJson ?? JSON.stringify(snakeKeys(chunk.rows ?? []));
  return json.slice(1, -1).trim();
}

/**
 * The `stream` responder: `first` is the operation's first answer, `next(cursor)` runs it again
 * after `cursor` (it throws the operation's error). Writes `[`, each chunk's rows in snake_case,
 * `]`; waits for `drain` whenever the socket's buffer is full; stops when the client goes away.
 */
export async function streamResponder(
  res: Response,
  first: StreamChunk,
  next: (cursor: string) => Promise<StreamChunk>,
  onError: (error: unknown) => void,
): Promise<void> {
  res.status(200).set({ 'content-type': 'application/json; charset=utf-8' });
  let chunk = first;
  let written = 0;
  const write = async (text: string): Promise<void> => {
    if (!res.write(text)) await once(res, 'drain');
  };
  try {
    await write('[');
    for (;;) {
      // the next chunk is asked for before this one is serialised and written, so the database
      // reads it while this process converts and sends (at most two chunks are held)
      const following = chunk.nextCursor && !res.destroyed ? next(chunk.nextCursor) : null;
      following?.catch(() => {}); // awaited below; a failure there ends the stream
      const items = chunkItems(chunk);
      if (items) {
        await write((written ? ',' : '') + items);
        written += 1;
      }
      if (!following || res.destroyed) break;
      chunk = await following;
    }
    res.end(']');
  } catch (error) {
    onError(error);
    res.destroy();
  }
}

/** What a `file` row's root field answers. */
export interface FileAnswer {
  fileKey: string;
  fileName: string;
  contentType: string;
}

/** The `file` responder: streams the export file the field named, as an attachment. */
export async function fileResponder(
  res: Response,
  dataDir: string,
  answer: FileAnswer,
): Promise<void> {
  const file = await openExportFile(dataDir, answer.fileKey);
  if (!file) return void res.status(404).json(httpErrorBody('NOT_FOUND'));
  res.status(200).set({
    'content-type': answer.contentType,
    'content-length': String(file.size),
    'content-disposition': `attachment; filename="${answer.fileName.replace(/[^\w.-]/g, '_')}"`,
    'cache-control': 'private, no-store',
    'x-content-type-options': 'nosniff',
  });
  file.body.on('error', (err) => res.destroy(err));
  file.body.pipe(res);
}
