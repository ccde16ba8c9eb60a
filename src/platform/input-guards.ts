/**
 * Guards every door applies to hostile input before anything walks it recursively or hands it to
 * the database: JSON nesting depth (checked on the raw text, before JSON.parse, and on parsed
 * values), text PostgreSQL cannot store (U+0000, lone surrogates), dates beyond year 9999, the
 * size of a body, and the size of what an error answer echoes back. REST and MCP bodies pass
 * `jsonBodyParser`, /graphql bodies `boundedBody` (issue 45: within the same BODY_LIMIT_BYTES); every
 * persisted operation and every /graphql request checks its variables with `unsafeInputIssues`
 * (src/schema/operations.ts, src/schema/yoga.ts). Nothing here knows a route: new routes and tools
 * inherit the guards.
 *
 * It must never throw on any input, and never recurse over the input itself.
 */
import express from 'express';
import type { Request, RequestHandler, Response } from 'express';
import { clip, MAX_ISSUES } from '../base/errors.ts';
import type { ValidationIssue } from '../base/errors.ts';

/** Deepest JSON nesting accepted in a body, GraphQL variables or MCP arguments (docs/decisions.md). */
export const MAX_JSON_DEPTH = 64;

/** Largest body of a REST or /graphql request (1 MiB), unless a REST row names its own bodyLimit. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/** body-parser error type of a body nested deeper than MAX_JSON_DEPTH (see app.ts's error handler). */
export const TOO_DEEP = 'entity.too.deep';

const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** Whether JSON text nests arrays and objects deeper than `max` (one pass over the bytes, no parse). */
export function jsonTextTooDeep(text: Uint8Array, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) {
      depth--;
    }
  }
  return false;
}

/** A body-parser `verify` hook: refuses a body nested deeper than MAX_JSON_DEPTH before it is parsed. */
function refuseDeepJson(_req: unknown, _res: unknown, body: Buffer): void {
  if (jsonTextTooDeep(body)) {
    throw Object.assign(new Error(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`), {
      status: 422,
      type: TOO_DEEP,
    });
  }
}

/** express.json with the depth guard; every JSON body of the REST and MCP facades is read through it. */
export function jsonBodyParser(limit: string | number): RequestHandler {
  return express.json({ limit, verify: refuseDeepJson });
}

export interface BoundedBodyOptions {
  /** the most bytes a body may have */
  maxBytes: number;
  /** bodies of this content type pass unread (their own reader bounds them: multipart uploads) */
  except?: string;
  /** writes the 413 answer in the door's own shape */
  tooLarge: (res: Response) => void;
}

/** Answers 413 and ends the connection after the answer, so the rest of the body is never read. */
function refuseOversized(req: Request, res: Response, options: BoundedBodyOptions): void {
  res.set('connection', 'close');
  options.tooLarge(res);
  // what arrives until the connection closes is dropped, never kept
  req.resume();
}

/**
 * Reads a body of at most `maxBytes` into `req.body` (a Buffer) for a handler that takes it from
 * there (yoga). A declared Content-Length over the limit is answered 413 before a byte is read, a
 * body that passes the limit as it arrives the moment it does: never read to its end, never held
 * beyond the limit (issue 45). A request without a body (GET) passes unread.
 */
export function boundedBody(options: BoundedBodyOptions): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (options.except && req.is(options.except)) return next();
    if (Number(req.headers['content-length']) > options.maxBytes)
      return refuseOversized(req, res, options);
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (): void => {
      req.off('data', onData).off('end', onEnd).off('error', onError);
    };
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= options.maxBytes) return void chunks.push(chunk);
      stop();
      chunks.length = 0;
      refuseOversized(req, res, options);
    };
    const onEnd = (): void => {
      stop();
      req.body = Buffer.concat(chunks, size);
      next();
    };
    // the client went away mid-body: nobody is left to answer
    const onError = (): void => {
      stop();
      res.destroy();
    };
    req.on('data', onData).on('end', onEnd).on('error', onError);
  };
}

const NUL_MESSAGE = 'String should not contain NUL characters (\\u0000)';
const UNICODE_MESSAGE = 'String should be valid Unicode (a lone surrogate cannot be stored)';
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What text cannot be stored as it is (PostgreSQL holds no U+0000 and only well-formed UTF-8), or null. */
function textIssue(text: string): { msg: string; type: string } | null {
  if (text.includes('\0')) return { msg: NUL_MESSAGE, type: 'string_nul' };
  if (LONE_SURROGATE.test(text)) return { msg: UNICODE_MESSAGE, type: 'string_unicode' };
  return null;
}

/**
 * Whether a date lies in the years 0001..9999: JavaScript dates reach +275760, but the wire format
 * and the database's text forms do not round-trip more than four digits.
 */
export function isStorableDate(date: Date): boolean {
  const year = date.getUTCFullYear();
  return !Number.isNaN(year) && year >= 1 && year <= 9999;
}

/**
 * What is wrong with a request's variables regardless of the operation: text that cannot be stored
 * (NUL characters, lone surrogates) in any string or key, and nesting deeper than MAX_JSON_DEPTH. Each issue is located at the variable
 * and the path inside it. Walks with an explicit stack; plain objects and arrays only (Files and
 * Dates are leaves).
 */
export function unsafeInputIssues(variables: Record<string, unknown>): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const stack: { value: unknown; loc: (string | number)[] }[] = Object.entries(variables).map(
    ([k, value]) => ({ value, loc: [k] }),
  );
  while (stack.length && issues.length < MAX_ISSUES) {
    const { value, loc } = stack.pop()!;
    if (typeof value === 'string') {
      const issue = textIssue(value);
      if (issue) issues.push({ loc, ...issue });
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    const proto: unknown = Object.getPrototypeOf(value);
    if (!Array.isArray(value) && proto !== Object.prototype && proto !== null) continue;
    if (loc.length > MAX_JSON_DEPTH) {
      issues.push({
        loc: loc.slice(0, 1),
        msg: `Value nested deeper than ${MAX_JSON_DEPTH} levels`,
        type: 'too_deep',
      });
      continue;
    }
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], loc: [...loc, i] });
      continue;
    }
    for (const [k, v] of Object.entries(value)) {
      const issue = textIssue(k);
      if (issue) issues.push({ loc: [...loc, clip(k)], ...issue });
      else stack.push({ value: v, loc: [...loc, k] });
    }
  }
  return issues;
}
