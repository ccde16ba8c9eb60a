/**
 * The closed list of responders: what a route row names when its request or answer is not plain
 * JSON (ARCHITECTURE.md section 3). Each one is transport only, never a rule of the data: a
 * multipart upload is parsed into variables here, and the GraphQL field decides whether the file
 * is acceptable (type, size, ownership).
 */
import busboy from 'busboy';
import type { Request } from 'express';

export const RESPONDERS = ['multipart'] as const;

export type Responder = (typeof RESPONDERS)[number];

export interface MultipartLimits {
  /** largest file part read; beyond it the request answers 413 without the rest being kept */
  maxFileBytes: number;
}

/** Form fields by name: text fields as strings, file parts as WHATWG Files (first of a name wins). */
export type MultipartBody = Record<string, string | File>;

export type MultipartResult =
  | { ok: true; body: MultipartBody }
  | { ok: false; status: 413 | 422; detail: unknown };

const FIELD_LIMITS = { files: 5, fields: 50, parts: 60, fieldSize: 64 * 1024, fieldNameSize: 100 };

/**
 * Reads a multipart/form-data request with busboy. A request that is not multipart reads as an
 * empty form (the operation's required variables then answer 422 as missing).
 */
export function readMultipart(req: Request, limits: MultipartLimits): Promise<MultipartResult> {
  let parser: busboy.Busboy;
  try {
    parser = busboy({ headers: req.headers, limits: { ...FIELD_LIMITS, fileSize: limits.maxFileBytes } });
  } catch {
    return Promise.resolve({ ok: true, body: {} });
  }
  const body: MultipartBody = {};
  let tooLarge = false;
  return new Promise((resolve) => {
    parser.on('file', (name, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => void (tooLarge || chunks.push(chunk)));
      stream.on('limit', () => {
        tooLarge = true;
        chunks.length = 0;
      });
      stream.on('close', () => {
        if (!tooLarge && !(name in body)) body[name] = new File([Buffer.concat(chunks) as Uint8Array<ArrayBuffer>], info.filename ?? name, { type: info.mimeType });
      });
    });
    parser.on('field', (name, value) => {
      if (!(name in body)) body[name] = value;
    });
    parser.on('error', () => {
      req.unpipe(parser);
      resolve({ ok: false, status: 422, detail: [{ loc: ['body'], msg: 'Malformed multipart/form-data body', type: 'value_error' }] });
    });
    parser.on('close', () => {
      resolve(
        tooLarge
          ? { ok: false, status: 413, detail: `Request body too large: a file may have at most ${limits.maxFileBytes} bytes` }
          : { ok: true, body },
      );
    });
    req.pipe(parser);
  });
}
