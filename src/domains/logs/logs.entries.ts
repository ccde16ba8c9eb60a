/**
 * Log entries: custom metrics, hydration, medication, nicotine, sleep factors, weight and sun
 * sessions, one synced table `log_entries` with typed columns (which columns each kind uses and
 * their bounds: logs.kinds.ts). Every write stamps `server_updated_at` from the account's sync clock
 * in the same transaction; a deletion is a tombstone, so phones learn of it.
 *
 * NOTE: ownership. Writes use `ctx.principal.userId`; reads use readerUserId(ctx). Another
 * person's entry, or an unknown or deleted one, is NOT_FOUND.
 */
import { randomUUID } from 'node:crypto';
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { ValidationIssue } from '../../base/errors.ts';
import type { DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { advanceSyncClock } from '../../platform/sync-clock.ts';
import { KIND_RULES } from './logs.kinds.ts';
import type { Bounds, KindRule, LogKind } from './logs.kinds.ts';
import { clock } from '../../base/clock.ts';

export interface LogEntryView {
  id: string;
  kind: string;
  name: string | null;
  value: number | null;
  unit: string | null;
  dose: string | null;
  durationMinutes: number | null;
  loggedAt: Date;
  note: string | null;
  source: string;
}

/** The columns of a new entry (which ones a kind takes: KIND_RULES). */
export interface NewLogEntry {
  name?: string | null;
  value?: number | null;
  /** a custom metric's unit (other kinds store their kind's unit) */
  unit?: string | null;
  dose?: string | null;
  durationMinutes?: number | null;
  /** default now */
  loggedAt?: Date | null;
  note?: string | null;
}

/** Changes to an entry: fields given are set; null clears an optional one. */
export type LogEntryChanges = NewLogEntry;

const entrySelect = {
  id: true,
  kind: true,
  name: true,
  value: true,
  unit: true,
  dose: true,
  durationMinutes: true,
  loggedAt: true,
  note: true,
  source: true,
} as const;

const trimmed = (s: string | null | undefined): string | null | undefined =>
  s === undefined || s === null ? s : s.trim() || null;

/** True when a value is given (neither null nor undefined). */
const has = <T>(v: T | null | undefined): v is T => v !== null && v !== undefined;
/** True when a number is given and lies outside the bounds (no bounds: never). */
const outside = (v: number | null | undefined, b: Bounds | undefined): boolean =>
  !!b && has(v) && (v < b.min || v > b.max);

/** A check of an entry against its kind's rule: the field it reports, when it fails, its words. */
interface KindCheck {
  field: 'name' | 'value' | 'unit' | 'dose' | 'durationMinutes';
  fails: (rule: KindRule, entry: NewLogEntry) => boolean;
  /** called only when the check fails (so the bounds it names are set) */
  msg: (kind: LogKind, rule: KindRule) => string;
}

/** The checks of an entry, in the order their issues are reported. */
const KIND_CHECKS: readonly KindCheck[] = [
  {
    field: 'name',
    fails: (rule, e) => rule.name === 'required' && !has(e.name),
    msg: (kind) => `a ${kind} entry needs a name`,
  },
  {
    field: 'name',
    fails: (rule, e) => rule.name === 'none' && has(e.name),
    msg: (kind) => `a ${kind} entry takes no name`,
  },
  {
    field: 'value',
    fails: (rule, e) => rule.value === 'required' && !has(e.value),
    msg: (kind) => `a ${kind} entry needs a value`,
  },
  {
    field: 'value',
    fails: (rule, e) => rule.value === 'none' && has(e.value),
    msg: (kind) => `a ${kind} entry takes no value`,
  },
  {
    field: 'value',
    fails: (rule, e) => outside(e.value, rule.valueBounds),
    msg: (kind, { valueBounds: b }) => `a ${kind} value must be between ${b!.min} and ${b!.max}`,
  },
  {
    field: 'unit',
    fails: (rule, e) => rule.unit !== null && has(e.unit) && e.unit !== rule.unit,
    msg: (kind, rule) => `a ${kind} entry is always in ${rule.unit}`,
  },
  {
    field: 'dose',
    fails: (rule, e) => !rule.dose && has(e.dose),
    msg: (kind) => `a ${kind} entry takes no dose`,
  },
  {
    field: 'durationMinutes',
    fails: (rule, e) => rule.duration === 'required' && !has(e.durationMinutes),
    msg: (kind) => `a ${kind} entry needs duration_minutes`,
  },
  {
    field: 'durationMinutes',
    fails: (rule, e) => rule.duration === 'none' && has(e.durationMinutes),
    msg: (kind) => `a ${kind} entry takes no duration`,
  },
  {
    field: 'durationMinutes',
    fails: (rule, e) => outside(e.durationMinutes, rule.durationBounds),
    msg: (_kind, { durationBounds: d }) =>
      `duration_minutes must be between ${d!.min} and ${d!.max}`,
  },
];

/** The issues of an entry against its kind's rule (a created entry, or an edited one whole). */
export function kindIssues(kind: LogKind, entry: NewLogEntry): ValidationIssue[] {
  const rule = KIND_RULES[kind];
  return KIND_CHECKS.filter((c) => c.fails(rule, entry)).map((c) => ({
    loc: ['input', c.field],
    msg: c.msg(kind, rule),
    type: 'value_error',
  }));
}

const sourceOf = (ctx: AuthedContext): string => (ctx.via === 'mcp' ? 'mcp' : 'manual');
const entryNotFound = (): Error =>
  appError(
    'NOT_FOUND',
    'Log entry not found: use the id a logs tool answered when it logged the entry',
  );

/** Logs an entry of `kind` for the caller; answers the stored entry. */
export async function logEntry(
  ctx: AuthedContext,
  kind: LogKind,
  entry: NewLogEntry,
): Promise<LogEntryView> {
  const issues = kindIssues(kind, entry);
  if (issues.length) throw validationError(issues);
  const userId = ctx.principal.userId;
  const rule = KIND_RULES[kind];
  return ctx.prisma.$transaction(async (tx) => {
    const stamp = new Date(await advanceSyncClock(tx, userId));
    return tx.logEntry.create({
      data: {
        id: randomUUID(),
        userId,
        kind,
        name: trimmed(entry.name) ?? null,
        value: entry.value ?? null,
        unit: rule.unit ?? trimmed(entry.unit) ?? null,
        dose: trimmed(entry.dose) ?? null,
        durationMinutes: entry.durationMinutes ?? null,
        loggedAt: entry.loggedAt ?? clock.now(),
        note: entry.note ?? null,
        source: sourceOf(ctx),
        createdAt: stamp,
        serverUpdatedAt: stamp,
      },
      select: entrySelect,
    });
  });
}

/** The caller's live entry, locked until the transaction ends; NOT_FOUND otherwise. */
async function lockEntry(tx: DbTx, userId: number, id: string): Promise<LogEntryView> {
  // NOTE: the caller's own live entry only.
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM log_entries
     WHERE id = ${id}::text AND user_id = ${userId}::int AND deleted_at IS NULL FOR UPDATE`;
  if (!rows.length) throw entryNotFound();
  return tx.logEntry.findUniqueOrThrow({ where: { id }, select: entrySelect });
}

const pick = <T>(change: T | undefined, current: T): T => (change === undefined ? current : change);

/** Changes an entry of the caller; the entry as changed must still follow its kind's rule. */
export async function updateLogEntry(
  ctx: AuthedContext,
  id: string,
  changes: LogEntryChanges,
): Promise<LogEntryView> {
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    const current = await lockEntry(tx, userId, id);
    const kind = current.kind as LogKind;
    const rule = KIND_RULES[kind];
    const merged: NewLogEntry = {
      name: pick(trimmed(changes.name), current.name),
      value: pick(changes.value, current.value),
      unit: rule.unit === null ? pick(trimmed(changes.unit), current.unit) : changes.unit,
      dose: pick(trimmed(changes.dose), current.dose),
      durationMinutes: pick(changes.durationMinutes, current.durationMinutes),
    };
    const issues = kindIssues(kind, merged);
    if (issues.length) throw validationError(issues);
    const stamp = new Date(await advanceSyncClock(tx, userId));
    return tx.logEntry.update({
      where: { id },
      data: {
        name: merged.name,
        value: merged.value,
        unit: rule.unit ?? merged.unit,
        dose: merged.dose,
        durationMinutes: merged.durationMinutes,
        loggedAt: changes.loggedAt ?? undefined,
        note: changes.note,
        serverUpdatedAt: stamp,
      },
      select: entrySelect,
    });
  });
}

/** Deletes an entry of the caller (a tombstone, so phones learn of it). */
export async function deleteLogEntry(ctx: AuthedContext, id: string): Promise<{ deleted: number }> {
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    await lockEntry(tx, userId, id);
    const stamp = new Date(await advanceSyncClock(tx, userId));
    await tx.logEntry.update({ where: { id }, data: { deletedAt: stamp, serverUpdatedAt: stamp } });
    return { deleted: 1 };
  });
}

/** The person's live sun sessions starting in [start, end), oldest first (insights' sun score). */
export async function sunSessionsBetween(
  ctx: AuthedContext,
  range: { start: Date; end: Date },
): Promise<{ loggedAt: Date; durationMinutes: number }[]> {
  const rows = await ctx.prisma.logEntry.findMany({
    where: {
      userId: readerUserId(ctx),
      kind: 'sun_session',
      deletedAt: null,
      loggedAt: { gte: range.start, lt: range.end },
    },
    orderBy: { loggedAt: 'asc' },
    select: { loggedAt: true, durationMinutes: true },
  });
  return rows.map((r) => ({ loggedAt: r.loggedAt, durationMinutes: r.durationMinutes ?? 0 }));
}
