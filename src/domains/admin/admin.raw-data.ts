/**
 * Raw sensor data export for admins. The documented window is a page of `limit` samples (default
 * 50,000) in (person, sensor, time) order; GraphQL answers it in bounded chunks (`first`, at most
 * RAW_CHUNK_MAX), each with the cursor of the next one, so no answer holds the window whole. The
 * REST route streams the window by following the cursors (rest-facade `stream` responder).
 * NOTE: the export starts with an audit entry (the first chunk, without a cursor): who exported
 * whose samples, which filters and window; continuing chunks are the same action.
 */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { rawSamples, rawSamplesJson } from '../glucose/index.ts';
import type { RawSampleKey, RawSampleView } from '../glucose/index.ts';
import { recordAdminAction } from './admin.audit.ts';
import { requirePerson } from './admin.service.ts';

/** Samples per chunk: default and most. */
export const RAW_CHUNK_DEFAULT = 5000;
export const RAW_CHUNK_MAX = 5000;
/** Samples per window (page) by default, as documented. */
export const RAW_WINDOW_DEFAULT = 50_000;

export interface RawSensorChunkOptions {
  /** one person's samples (404 when unknown) */
  userId?: number | null;
  /** one sensor number's samples */
  sensorId?: number | null;
  /** first instant (inclusive); a date alone is its midnight UTC */
  startDate?: string | null;
  /** end (exclusive); a date alone includes that whole day (UTC) */
  endDate?: string | null;
  /** 1-based window number */
  page: number;
  /** samples per window */
  limit: number;
  /** the cursor of the previous chunk; none: the window's first chunk */
  after?: string | null;
  /** samples in this chunk (1..RAW_CHUNK_MAX) */
  first: number;
  /** answer the samples as one JSON text written by the database (`rowsJson`) instead of `rows` */
  asJson?: boolean | null;
}

export interface RawSensorChunkView {
  page: number;
  limit: number;
  /** the samples (null when asked as JSON) */
  rows: RawSampleView[] | null;
  /** the samples as one JSON array text in wire names (null unless asked as JSON) */
  rowsJson: string | null;
  /** the cursor of the next chunk of this window; null when the window is complete */
  nextCursor: string | null;
}

/** The cursor: samples of the window already answered and the last one's key. */
interface Cursor extends RawSampleKey {
  n: number;
}

const invalid = (loc: string, msg: string): Error =>
  appError('VALIDATION_FAILED', `${loc}: ${msg}`, {
    detail: [{ loc: [loc], msg, type: 'value_error' }],
  });

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
/** The years a date bound may name. */
const YEAR_MIN = 1900;
const YEAR_MAX = 9998;

function instant(value: string, loc: string, endOfDay: boolean): Date {
  const date = new Date(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
  // NOTE: years beyond 9999 are valid in JavaScript but not as the database's timestamp text
  const year = date.getUTCFullYear();
  if (Number.isNaN(date.getTime()) || year < YEAR_MIN || year > YEAR_MAX)
    throw invalid(
      loc,
      `Input should be a valid date or datetime in years ${YEAR_MIN}..${YEAR_MAX}`,
    );
  if (endOfDay && DATE_ONLY.test(value)) date.setUTCDate(date.getUTCDate() + 1);
  return date;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify([c.n, c.userId, c.sensorId, c.timestamp.getTime()])).toString(
    'base64url',
  );
}

function decodeCursor(text: string): Cursor {
  try {
    const [n, userId, sensorId, ms] = JSON.parse(
      Buffer.from(text, 'base64url').toString(),
    ) as number[];
    if ([n, userId, sensorId, ms].every(Number.isSafeInteger)) {
      return { n, userId, sensorId, timestamp: new Date(ms) };
    }
  } catch {
    // answered below
  }
  throw invalid('after', 'not a cursor of this export');
}

/** One chunk of a window of raw samples; the first chunk of a window is audited. */
export async function adminRawSensorData(
  ctx: AuthedContext,
  options: RawSensorChunkOptions,
): Promise<RawSensorChunkView> {
  const start = options.startDate ? instant(options.startDate, 'start_date', false) : null;
  const end = options.endDate ? instant(options.endDate, 'end_date', true) : null;
  if (start && end && start >= end)
    throw invalid('start_date', 'start_date must be before end_date');
  const cursor = options.after ? decodeCursor(options.after) : null;
  if (!cursor) {
    if (options.userId != null) await requirePerson(ctx, options.userId);
    await recordAdminAction(ctx, {
      action: 'adminRawSensorData',
      targetUserId: options.userId ?? null,
      detail: {
        sensorId: options.sensorId ?? null,
        startDate: options.startDate ?? null,
        endDate: options.endDate ?? null,
        page: options.page,
        limit: options.limit,
      },
    });
  }
  const done = cursor?.n ?? 0;
  const take = Math.min(options.first, options.limit - done);
  const base = { page: options.page, limit: options.limit };
  if (take <= 0) {
    return {
      ...base,
      rows: options.asJson ? null : [],
      rowsJson: options.asJson ? '[]' : null,
      nextCursor: null,
    };
  }
  const query = {
    userId: options.userId,
    sensorId: options.sensorId,
    start,
    end,
    offset: (options.page - 1) * options.limit,
    after: cursor,
    take,
  };
  const next = (count: number, last: RawSampleKey | null | undefined): string | null => {
    const n = done + count;
    return last && count === take && n < options.limit ? encodeCursor({ ...last, n }) : null;
  };
  if (options.asJson) {
    const chunk = await rawSamplesJson(ctx, query);
    return { ...base, rows: null, rowsJson: chunk.json, nextCursor: next(chunk.count, chunk.last) };
  }
  const rows = await rawSamples(ctx, query);
  return { ...base, rows, rowsJson: null, nextCursor: next(rows.length, rows.at(-1)) };
}
