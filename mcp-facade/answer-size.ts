/**
 * Keeps every tool answer small enough for an agent: at most ANSWER_MAX_CHARS characters of JSON
 * (about 25,000 tokens, the largest answer MCP clients such as Claude Code accept), and list answers
 * in pages of about PAGE_CHARS that fit comfortably.
 *
 * Why here, once: the size of an answer is a property of the wire, not of a domain. A list tool
 * (its operation answers a list, or a page `{ items, nextCursor }`) answers the first items that fit
 * and a `next_cursor`; calling it again with the same arguments and that cursor answers the next
 * items. Anything else larger than the limit has its largest lists cut, and says so. The answer
 * always says when something was cut and how to get more (`meta.truncated`).
 *
 * It must never drop an item silently, never hand out a cursor that skips or repeats an item of the
 * same answer, and never cut an answer whose operation pages itself in another shape (sync pages).
 */
import { fingerprintOf } from '../src/platform/idempotency.ts';

/** The largest answer, in characters of JSON (about 25,000 tokens). */
export const ANSWER_MAX_CHARS = 100_000;
/** The size a page of a list answer aims at (about 10,000 tokens). */
export const PAGE_CHARS = 40_000;
/** The argument that carries a next_cursor back, on every list tool. */
export const CURSOR_ARG = 'cursor';
/** Longest cursor accepted (ours are under 400 characters: an operation's own cursor of up to 200, wrapped). */
export const CURSOR_MAX_LENGTH = 1_024;

/** Where the next page starts: the operation's own cursor (paged operations) and how many of its items were answered. */
export interface PagePosition {
  /** the cursor to run the operation with (null: its first page, or an operation without one) */
  operationCursor: string | null;
  /** items of that answer already answered */
  offset: number;
}

/** What binds a cursor to the call that answered it: the tool and its other arguments. */
export function cursorBinding(tool: string, args: Record<string, unknown>): string {
  return fingerprintOf({ tool, args }).slice(0, 16);
}

export function encodeCursor(binding: string, position: PagePosition): string {
  return Buffer.from(JSON.stringify([binding, position.operationCursor, position.offset])).toString(
    'base64url',
  );
}

/** The position a cursor names, or null when it is no cursor of this tool with these arguments. */
export function decodeCursor(text: string, binding: string): PagePosition | null {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(value) || value.length !== 3) return null;
    const [bound, operationCursor, offset] = value as unknown[];
    if (bound !== binding) return null;
    if (operationCursor !== null && typeof operationCursor !== 'string') return null;
    if (!Number.isSafeInteger(offset) || (offset as number) < 0) return null;
    return { operationCursor, offset: offset as number };
  } catch {
    return null;
  }
}

const jsonLength = (value: unknown): number => JSON.stringify(value)?.length ?? 4;

export interface Page<T> {
  items: T[];
  /** the offset of the first item not answered, or null when the page reaches the end */
  nextOffset: number | null;
}

/**
 * The items from `offset` that fit in `budget` characters of JSON (at least one, so every page
 * makes progress; an item too large on its own is cut by capAnswer).
 */
export function pageOf<T>(
  items: readonly T[],
  offset: number,
  budget: number = PAGE_CHARS,
): Page<T> {
  let used = 2;
  let end = offset;
  while (end < items.length) {
    const size = jsonLength(items[end]) + 1;
    if (end > offset && used + size > budget) break;
    used += size;
    end++;
  }
  return { items: items.slice(offset, end), nextOffset: end < items.length ? end : null };
}

export interface Cut {
  /** where the list is in the answer, e.g. ["days"] */
  path: (string | number)[];
  returned: number;
  total: number;
}

interface FoundArray {
  path: (string | number)[];
  array: unknown[];
  size: number;
}

/** Every list in `value` with its path and size, except those at the `keep` paths and under `meta`. */
function arraysIn(
  value: unknown,
  keep: readonly string[],
  path: (string | number)[] = [],
): FoundArray[] {
  if (!value || typeof value !== 'object') return [];
  const found: FoundArray[] = [];
  if (Array.isArray(value)) {
    if (!(path.length === 1 && keep.includes(String(path[0]))))
      found.push({ path, array: value, size: jsonLength(value) });
    value.forEach((v, i) => found.push(...arraysIn(v, keep, [...path, i])));
  } else {
    for (const [k, v] of Object.entries(value)) {
      if (path.length === 0 && k === 'meta') continue;
      found.push(...arraysIn(v, keep, [...path, k]));
    }
  }
  return found;
}

/**
 * `structured` cut to at most `max` characters of JSON by shortening its largest lists (never the
 * top-level lists named in `keep`: a page's items, already measured); the cuts made, or null when
 * no list is left to shorten and the answer still does not fit. Cuts `structured` in place.
 */
export function capAnswer(
  structured: Record<string, unknown>,
  options: { keep?: readonly string[]; max?: number } = {},
): Cut[] | null {
  const max = options.max ?? ANSWER_MAX_CHARS;
  const keep = options.keep ?? [];
  const cuts: Cut[] = [];
  // room for the note that says what was cut
  const reserve = 600;
  for (let round = 0; round < 50; round++) {
    const length = jsonLength(structured);
    if (length + (cuts.length ? reserve : 0) <= max) return cuts;
    const largest = arraysIn(structured, keep)
      .filter((a) => a.array.length > 0)
      .sort((a, b) => b.size - a.size)[0];
    if (!largest) return null;
    const excess = length + reserve - max;
    // keep the longest prefix whose loss covers the excess
    let kept = largest.array.length;
    let removed = 0;
    while (kept > 0 && removed < excess) removed += jsonLength(largest.array[--kept]) + 1;
    const total = largest.array.length;
    const earlier = cuts.find((c) => c.path.join('.') === largest.path.join('.'));
    if (earlier) earlier.returned = kept;
    else cuts.push({ path: largest.path, returned: kept, total });
    largest.array.length = kept;
  }
  return null;
}
