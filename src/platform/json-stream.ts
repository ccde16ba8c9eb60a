/**
 * A JSON body parser that reads the request as a stream, for the bulk routes (a REST row's
 * `bodyLimit`): the body is parsed chunk by chunk (@discoveryjs/json-ext's parseChunked, which
 * runs JSON.parse on each complete fragment), so the whole text is never held, neither as a
 * buffer nor as a string: the parser holds the value parsed so far and the current chunk. (A
 * 100,000-record sync push is 17 MB of JSON; express.json held it twice, as a buffer and a string.)
 *
 * It answers what express.json answers, with the same error types (src/server/app.ts maps them): a body
 * that is not JSON `entity.parse.failed` (also one cut short: `[`, an array missing its `]`, which
 * parseChunked alone answers with what it read), one that the client stopped sending
 * `request.unreadable`, one nested deeper than MAX_JSON_DEPTH `TOO_DEEP` (checked
 * on the bytes as they arrive, before they are parsed), one over the limit `entity.too.large`
 * (counted after decompression, so a small gzip bomb cannot get past it), an unknown
 * Content-Encoding `encoding.unsupported`. The value is JSON.parse's, but for one case: a key
 * `__proto__` whose value is not an object may be dropped when its object spans two chunks (the
 * REST facade drops such keys in any case). An empty body is `{}`, and the first character must
 * open an object or an array (body-parser's strict mode). Besides JSON media types it reads
 * `text/plain`: a fetch() with a string body and no Content-Type sends that, as WatermelonDB's
 * documented sync client does. Bodies in another charset than UTF-8 go to express.json.
 *
 * It must never buffer the whole body, never hand the parser a chunk that nests deeper than
 * MAX_JSON_DEPTH (each chunk is scanned before it is parsed), never read past the limit, never
 * take a document that did not end, and always settle (a client that goes away is an error).
 */
import { finished } from 'node:stream';
import type { Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { parseChunked } from '@discoveryjs/json-ext';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { jsonBodyParser, MAX_JSON_DEPTH, TOO_DEEP } from './input-guards.ts';

/** Media types read as JSON: JSON itself, `+json` types, and text/plain (fetch's default for a string body). */
const JSON_TYPES = ['application/json', '+json', 'text/plain'];

const UNITS: Record<string, number> = { b: 1, kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 };

/** Bytes of a size such as '16mb' (1024-based, like body-parser's `limit`). */
export function parseByteSize(size: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*(b|kb|mb|gb)?\s*$/i.exec(size);
  if (!m) throw new Error(`not a byte size: ${size}`);
  return Math.floor(Number(m[1]) * UNITS[(m[2] ?? 'b').toLowerCase()]);
}

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * jsonTextTooDeep (input-guards.ts) for text that arrives in pieces: the nesting depth, whether the
 * scan is inside a string and after a backslash carry over from one chunk to the next.
 */
export class JsonDepthScanner {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly max = MAX_JSON_DEPTH) {}

  /** Scans the next bytes; true once the text has nested deeper than the maximum. */
  tooDeep(bytes: Uint8Array): boolean {
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) this.inString = false;
      } else if (c === QUOTE) {
        this.inString = true;
      } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
        if (++this.depth > this.max) return true;
      } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
        this.depth--;
      }
    }
    return false;
  }
}

/** An error shaped like body-parser's (http-errors): `status` and `type` are what app.ts answers by. */
function bodyError(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}

/** The body's bytes after Content-Encoding; throws encoding.unsupported for an unknown one. */
function decodedStream(req: Request): Readable {
  const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
  const decompress =
    encoding === 'gzip'
      ? createGunzip()
      : encoding === 'deflate'
        ? createInflate()
        : encoding === 'br'
          ? createBrotliDecompress()
          : null;
  if (encoding !== 'identity' && !decompress) {
    throw bodyError(415, 'encoding.unsupported', `unsupported content encoding "${encoding}"`);
  }
  if (!decompress) return req;
  req.pipe(decompress);
  // pipe() passes on no error: a request that ends early (the client went away) must end the
  // decompressed stream too, or its reader waits for the rest forever
  finished(req, { writable: false }, (err) => {
    if (err) decompress.destroy(err);
  });
  return decompress;
}

/** The charset parameter of the Content-Type, lowercased, or null. */
function charsetOf(req: Request): string | null {
  const m = /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.headers['content-type'] ?? '');
  return m ? m[1].toLowerCase() : null;
}

/** Text that may spell the key `__proto__` (literally, or with \u escapes). */
const MAYBE_PROTO = /__proto__|\\u/;

/**
 * Gives back the `__proto__` keys that parseChunked turned into prototypes. It merges the part of
 * an object that arrives in a later chunk with Object.assign, which sets the prototype for a key
 * `__proto__` where JSON.parse makes it an own property; such an object would then pass for a
 * class instance (the input guards skip those). Walks with an explicit stack (the depth is
 * bounded by MAX_JSON_DEPTH).
 */
function ownProtoKeys(root: unknown): void {
  const stack: unknown[] = [root];
  while (stack.length) {
    const value = stack.pop();
    if (!value || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (const item of value) if (item && typeof item === 'object') stack.push(item);
      continue;
    }
    const proto = Object.getPrototypeOf(value) as unknown;
    if (proto !== Object.prototype) {
      Object.setPrototypeOf(value, Object.prototype);
      Object.defineProperty(value, '__proto__', {
        value: proto,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    for (const item of Object.values(value)) if (item && typeof item === 'object') stack.push(item);
  }
}

/** Reads and parses the body of `req` as a stream; the parsed value, or a body-parser-shaped error. */
async function readJsonStream(req: Request, limit: number): Promise<unknown> {
  let stream: Readable = req;
  let received = 0;
  try {
    const declared = Number(req.headers['content-length']);
    if (!req.headers['content-encoding'] && Number.isFinite(declared) && declared > limit) {
      throw bodyError(413, 'entity.too.large', 'request entity too large');
    }
    stream = decodedStream(req);
    const depth = new JsonDepthScanner();
    const decoder = new TextDecoder('utf-8'); // a leading BOM is dropped, as body-parser drops it
    let started = false;
    let tail = '';
    let maybeProto = false;
    // NOTE: destroyOnReturn false: leaving the loop early (an error) must not destroy the request's
    // socket, or the client never gets the 413/422 answer.
    const chunks = stream.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>;
    const text = async function* (): AsyncGenerator<string> {
      for await (const chunk of chunks) {
        received += chunk.length;
        if (received > limit) throw bodyError(413, 'entity.too.large', 'request entity too large');
        if (depth.tooDeep(chunk))
          throw bodyError(422, TOO_DEEP, `JSON nested deeper than ${MAX_JSON_DEPTH} levels`);
        const piece = decoder.decode(chunk, { stream: true });
        if (!started) {
          const first = /[^\x20\t\n\r]/.exec(piece)?.[0];
          // body-parser's strict mode: the body is an object or an array
          if (first !== undefined && first !== '{' && first !== '[')
            throw new SyntaxError(`Unexpected token '${first}'`);
          started = first !== undefined;
        }
        maybeProto ||= MAYBE_PROTO.test(tail + piece);
        tail = piece.slice(-8);
        yield piece;
      }
      const rest = decoder.decode();
      if (rest) yield rest;
    };
    // parseChunked answers what it has read when the text stops at the end of an element (`[`,
    // `[{...}`): only the completed root value counts, so a body cut short is not JSON
    let value: unknown;
    let complete = false;
    await parseChunked(text, {
      onRootValue: (root: unknown) => {
        value = root;
        complete = true;
      },
    });
    if (!complete) throw new SyntaxError('Unexpected end of JSON input');
    if (maybeProto) ownProtoKeys(value);
    return value;
  } catch (e) {
    // the rest of the request is read off and dropped, so that the answer reaches the client
    if (stream !== req) stream.destroy();
    req.resume();
    if (e instanceof SyntaxError) {
      if (received === 0) return {}; // an empty body, like body-parser
      throw bodyError(400, 'entity.parse.failed', e.message);
    }
    if ((e as { type?: string }).type) throw e;
    // the client went away, or a compressed body did not inflate
    throw bodyError(400, 'request.unreadable', 'The request body could not be read');
  }
}

/**
 * The body parser of a bulk route: JSON (or text/plain carrying JSON) up to `limit` (e.g. '64mb'),
 * read as a stream. A body in another charset than UTF-8 is read by express.json (same limit and
 * depth guard); a request of another media type is left to the next parser.
 */
export function jsonStreamBodyParser(limit: string): RequestHandler {
  const bytes = parseByteSize(limit);
  const otherCharsets = jsonBodyParser(limit);
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.readableEnded || !req.is(JSON_TYPES)) return next();
    const charset = charsetOf(req);
    if (charset && charset !== 'utf-8' && charset !== 'utf8') {
      void otherCharsets(req, res, next);
      return;
    }
    readJsonStream(req, bytes).then(
      (value) => {
        req.body = value;
        next();
      },
      (err: Error) => next(err),
    );
  };
}
