/**
 * Guards every door applies to hostile input before anything walks it recursively or hands it to
 * the database: JSON nesting depth (checked on the raw text, before JSON.parse, and on parsed
 * values), text PostgreSQL cannot store (U+0000, lone surrogates), dates beyond year 9999, and the
 * size of what an error answer echoes back. REST and MCP bodies pass `jsonBodyParser`; every persisted operation and
 * every /graphql request checks its variables with `unsafeInputIssues` (src/schema/operations.ts,
 * src/schema/yoga.ts). Nothing here knows a route: new routes and tools inherit the guards.
 *
 * It must never throw on any input, and never recurse over the input itself.
 */
import express from 'express';
import type { RequestHandler } from 'express';
import { clip, MAX_ISSUES } from '../base/errors.ts';
import type { ValidationIssue } from '../base/errors.ts';

/** Deepest JSON nesting accepted in a body, GraphQL variables or MCP arguments (docs/decisions.md). */
export const MAX_JSON_DEPTH = 64;

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
export function jsonBodyParser(limit: string): RequestHandler {
  return express.json({ limit, verify: refuseDeepJson });
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
