/**
 * Cursor connections of the dashboard graph (docs/graphql.md): a list field takes `first` (1..max,
 * default 20) and `after` (the `endCursor` of the previous page) and answers
 * `{ nodes, pageInfo { hasNextPage endCursor } }`.
 *
 * A cursor is opaque to the client: base64url of a JSON array holding the position of the page's
 * last node in the list's order (e.g. [eatenAtMs, id]). Large lists page in SQL (keyset: the
 * service reads `first + 1` rows after the position, so a page never repeats or skips a row when
 * new ones arrive); the short account lists (grants, sessions, tokens, consents) are read whole by
 * their service and paged here by key (pageOfList).
 *
 * A list's page size is bounded by its own maximum (PAGE_MAX unless the field says otherwise: a
 * week of one-minute glucose readings fits one page), and a whole document by its cost
 * (src/graphql/query-cost.ts: each list counts its page size times the cost of one node). A list
 * of timed rows may take a window, `from` (inclusive) and `to` (exclusive) date-times (rangeArgs).
 */
import type { ArgBuilder, ObjectRef } from '@pothos/core';
import { z } from 'zod';
import { validationError } from '../base/errors.ts';
import { builder } from './builder.ts';

type Types = typeof builder.$inferSchemaTypes;

/** Nodes of a page when `first` is left out. */
export const PAGE_DEFAULT = 20;
/** The largest `first` of a connection (a field may allow another bound, e.g. glucose readings). */
export const PAGE_MAX = 100;
/** The longest window of a list, in hours: five years, as the longest `sinceHours`. */
export const RANGE_MAX_HOURS = 43_800;
/** The longest cursor accepted. */
const CURSOR_MAX_CHARS = 500;

export interface PageInfoView {
  /** true when a page follows this one */
  hasNextPage: boolean;
  /** the cursor of this page's last node (pass it as `after`); null for an empty page */
  endCursor: string | null;
}

export interface Page<T> {
  nodes: T[];
  pageInfo: PageInfoView;
}

export const PageInfo = builder.objectRef<PageInfoView>('PageInfo').implement({
  description: 'Where a page of a connection ends, and whether another follows',
  fields: (t) => ({
    hasNextPage: t.exposeBoolean('hasNextPage', { description: 'true when a page follows' }),
    endCursor: t.exposeString('endCursor', {
      nullable: true,
      description: "the last node's cursor: pass it as `after` for the next page",
    }),
  }),
});

/** The connection type `<name>Connection` of a node type. */
export function connectionOf<T>(
  name: string,
  node: ObjectRef<Types, T>,
): ObjectRef<Types, Page<T>> {
  return builder.objectRef<Page<T>>(`${name}Connection`).implement({
    description: `A page of ${name} nodes (docs/graphql.md)`,
    fields: (t) => ({
      nodes: t.field({ type: [node], resolve: (p) => p.nodes }),
      pageInfo: t.field({ type: PageInfo, resolve: (p) => p.pageInfo }),
    }),
  });
}

/** The arguments of a connection field: `first` (1..max) and `after`. */
export function pageArgs(arg: ArgBuilder<Types>, max = PAGE_MAX) {
  return {
    first: arg.int({
      required: true,
      defaultValue: PAGE_DEFAULT,
      description: `at most this many nodes (1..${max}, default ${PAGE_DEFAULT})`,
      validate: z.number().int().min(1).max(max),
    }),
    after: arg.string({
      description: 'the endCursor of the previous page; leave it out for the first page',
      validate: z.string().min(1).max(CURSOR_MAX_CHARS).nullish(),
    }),
  };
}

/** A window of a list: rows at or after `from` and before `to`; either side may be open. */
export interface TimeWindow {
  from: Date | null;
  to: Date | null;
}

/**
 * The arguments of a list's window: `from` and `to`, date-times (an offset-less one is the
 * person's local time, a date alone its local midnight); `rows` names what they bound.
 */
export function rangeArgs(arg: ArgBuilder<Types>, rows: string) {
  return {
    from: arg({
      type: 'DateTime',
      description: `only ${rows} at or after this time (inclusive)`,
    }),
    to: arg({
      type: 'DateTime',
      description: `only ${rows} before this time (exclusive; after \`from\`, at most five years on)`,
    }),
  };
}

/**
 * The window `from`/`to` ask; VALIDATION_FAILED at `to` when it is not after `from` or the window
 * is longer than RANGE_MAX_HOURS.
 */
export function windowOf(args: { from?: Date | null; to?: Date | null }): TimeWindow {
  const from = args.from ?? null;
  const to = args.to ?? null;
  if (from && to) {
    const hours = (to.getTime() - from.getTime()) / 3_600_000;
    const msg =
      hours <= 0
        ? 'must be after from'
        : hours > RANGE_MAX_HOURS
          ? `must be at most ${RANGE_MAX_HOURS} hours (five years) after from`
          : null;
    if (msg) throw validationError([{ loc: ['to'], msg, type: 'value_error' }]);
  }
  return { from, to };
}

const CURSOR_ISSUE = 'not a cursor of this list: pass pageInfo.endCursor of the previous page';

function badCursor(): Error {
  return validationError([{ loc: ['after'], msg: CURSOR_ISSUE, type: 'value_error' }]);
}

/** The cursor of a position: the values of the list's order. */
export function encodeCursor(position: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(position)).toString('base64url');
}

/** The position a cursor holds, checked against the list's shape; VALIDATION_FAILED otherwise. */
export function decodeCursor<P>(cursor: string, shape: z.ZodType<P>): P {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw badCursor();
  }
  const parsed = shape.safeParse(value);
  if (!parsed.success) throw badCursor();
  return parsed.data;
}

/** The position of `after` (null without one), for a keyset read. */
export function positionAfter<P>(after: string | null | undefined, shape: z.ZodType<P>): P | null {
  return after ? decodeCursor(after, shape) : null;
}

/** A page from `first + 1` rows read after a position: the extra row only tells that more follow. */
export function pageOf<T>(
  rows: readonly T[],
  first: number,
  positionOf: (node: T) => readonly (string | number)[],
): Page<T> {
  const nodes = rows.slice(0, first);
  const last = nodes.at(-1);
  return {
    nodes,
    pageInfo: {
      hasNextPage: rows.length > first,
      endCursor: last ? encodeCursor(positionOf(last)) : null,
    },
  };
}

/**
 * A page of a list read whole (a short one), after the node whose key `after` holds. A cursor of
 * a node that has left the list (a revoked token) is refused: the client starts again.
 */
export function pageOfList<T>(
  list: readonly T[],
  args: { first: number; after?: string | null },
  keyOf: (node: T) => string | number,
): Page<T> {
  let start = 0;
  if (args.after) {
    const [key] = decodeCursor(args.after, z.tuple([z.union([z.string(), z.number()])]));
    const index = list.findIndex((node) => keyOf(node) === key);
    if (index < 0) throw badCursor();
    start = index + 1;
  }
  return pageOf(list.slice(start, start + args.first + 1), args.first, (node) => [keyOf(node)]);
}
