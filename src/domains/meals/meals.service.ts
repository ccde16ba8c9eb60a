/**
 * Meals: logged meals with their items (catalogue foods or free text), photos, daily totals.
 * `meals` and `meal_items` are synced tables (src/domains/sync/README.md): every write here stamps
 * `server_updated_at` from the account's sync clock (advanceSyncClock) in the same transaction, and
 * deletions are tombstones, so phones learn of server-side changes on their next pull.
 * Rules and wire shapes: docs/meals.md.
 *
 * NOTE: ownership. Writes use `ctx.principal.userId`; reads use readerUserId(ctx) (the owner's data
 * while a grantee views as). Another person's meal, or an unknown or deleted one, is NOT_FOUND.
 */
import { randomBytes } from 'node:crypto';
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { deleteStoredFiles, newStorageKey } from '../../integrations/storage.ts';
import { datesFrom } from '../../platform/local-dates.ts';
import {
  checkedImageType,
  MEAL_PHOTO_FOLDER,
  mediaUrl,
  PHOTO_TYPES,
  photoMaxBytes,
  photoTooLarge,
} from '../../platform/photos.ts';
import type { UploadedFile } from '../../platform/photos.ts';
import { advanceSyncClock } from '../../platform/sync-clock.ts';
import { personZone } from '../profile/index.ts';
import { updateMealLike } from './meals.item-update.ts';
import { resolveItems, sumNutrients } from './meals.nutrients.ts';
import type { MealItemInput, Nutrients, ResolvedItem } from './meals.nutrients.ts';
import { clock } from '../../base/clock.ts';

/** Largest `limit` of a meal list. */
export const MEALS_LIST_MAX = 1000;
/** Items of one meal, when items are given (log, update). */
export const MEAL_ITEMS_MAX = 100;
/** The longest range of daily nutrition, in days. */
export const DAILY_RANGE_MAX_DAYS = 366;
/** Recent meals look back this many days. */
export const RECENT_MEALS_DAYS = 90;

const DAY_MS = 86_400_000;

export interface MealItemView extends Nutrients {
  id: string;
  foodId: string | null;
  name: string;
  grams: number;
  portion: string | null;
}

export interface MealView {
  id: string;
  mealName: string | null;
  mealType: string | null;
  eatenAt: Date;
  note: string | null;
  photoUrl: string | null;
  source: string;
  totals: Nutrients;
  items: MealItemView[];
}

export interface ListMealsOptions {
  /** at most this many meals, newest first (1..MEALS_LIST_MAX; a connection asks one more) */
  limit: number;
  /** the position to start after (keyset): eaten_at and id of the previous page's last meal */
  after?: { eatenAt: Date; id: string } | null;
  /** only meals eaten at or after this time (ms since the epoch) */
  startMs?: number | null;
  /** only meals eaten before this time (ms since the epoch) */
  endMs?: number | null;
  /** only meals of this type (breakfast, lunch, dinner or snack); meals without a type never match */
  mealType?: string | null;
}

export interface MealFields {
  /** the meal's name, e.g. "Porridge with banana" */
  mealName?: string | null;
  /** breakfast, lunch, dinner or snack */
  mealType?: string | null;
  /** when it was eaten; default now (log) or unchanged (update) */
  eatenAt?: Date | null;
  /** free text */
  note?: string | null;
}

export interface LogMealOptions extends MealFields {
  /** 1..MEAL_ITEMS_MAX items */
  items: readonly MealItemInput[];
}

export interface UpdateMealOptions extends MealFields {
  /** when present, replaces every item of the meal (1..MEAL_ITEMS_MAX) and recomputes the totals */
  items?: readonly MealItemInput[] | null;
  /** where the caller gave the items, to locate an unknown food (default ['input', 'items']) */
  itemsAt?: (string | number)[];
}

export interface DailyNutritionOptions {
  /** range start, ms since the epoch (inclusive) */
  startMs: number;
  /** range end, ms since the epoch (exclusive); at most DAILY_RANGE_MAX_DAYS after the start */
  endMs: number;
}

export interface DailyNutritionDay {
  /** the local calendar date, YYYY-MM-DD */
  date: string;
  mealCount: number;
  totals: Nutrients;
}

export interface DailyNutritionView {
  /** the IANA time zone the days are counted in (the person's profile; UTC when unset or unknown) */
  timezone: string;
  startMs: number;
  endMs: number;
  mealCount: number;
  totals: Nutrients;
  days: DailyNutritionDay[];
}

export interface MealPhotoOptions extends MealFields {
  /** the image (JPEG, PNG, WebP or HEIC by its bytes), at most MEAL_PHOTO_MAX_BYTES */
  file: UploadedFile;
}

/**
 * Time-ordered uuids (version 7 layout: 48-bit ms, then a 12-bit sequence, then random bits), so the
 * items of one write sort in the order they were given.
 */
export function uuidV7s(n: number): string[] {
  const ms = BigInt(clock.ms());
  return Array.from({ length: n }, (_, seq) => {
    const b = randomBytes(16);
    for (let i = 0; i < 6; i++) b[i] = Number((ms >> BigInt(8 * (5 - i))) & 0xffn);
    b[6] = 0x70 | ((seq >> 8) & 0x0f);
    b[7] = seq & 0xff;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = b.toString('hex');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  });
}

type MealRow = Prisma.MealGetPayload<object>;
type ItemRow = Prisma.MealItemGetPayload<object>;

const nutrientsOf = (r: Nutrients): Nutrients => ({
  kcal: r.kcal,
  proteinG: r.proteinG,
  carbsG: r.carbsG,
  fatG: r.fatG,
  fiberG: r.fiberG,
  sugarG: r.sugarG,
});

/** Meals with their live items: one query for the items of all of them. */
async function withItems(
  db: DbTx | AuthedContext['prisma'],
  ctx: AuthedContext,
  userId: number,
  meals: MealRow[],
): Promise<MealView[]> {
  const items = meals.length
    ? await db.mealItem.findMany({
        where: { userId, mealId: { in: meals.map((m) => m.id) }, deletedAt: null },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      })
    : [];
  const byMeal = new Map<string, ItemRow[]>();
  for (const item of items) byMeal.set(item.mealId, [...(byMeal.get(item.mealId) ?? []), item]);
  return meals.map((m) => ({
    id: m.id,
    mealName: m.mealName,
    mealType: m.mealType,
    eatenAt: m.eatenAt,
    note: m.note,
    photoUrl: m.photoKey ? mediaUrl(ctx, m.photoKey) : null,
    source: m.source,
    totals: nutrientsOf(m),
    items: (byMeal.get(m.id) ?? []).map((i) => ({
      id: i.id,
      foodId: i.foodId,
      name: i.name,
      grams: i.grams,
      portion: i.portion,
      ...nutrientsOf(i),
    })),
  }));
}

/**
 * The person's meals with their items, newest first (eaten_at desc, id), optionally within
 * [startMs, endMs) and after a position (the dashboard graph's `meals` connection). Two queries.
 */
export async function meals(ctx: AuthedContext, options: ListMealsOptions): Promise<MealView[]> {
  const { startMs, endMs, after } = options;
  if (startMs != null && endMs != null && endMs < startMs) {
    throw validationError([
      { loc: ['endMs'], msg: 'end_ms must not be before start_ms', type: 'value_error' },
    ]);
  }
  const userId = readerUserId(ctx);
  const meals = await ctx.prisma.meal.findMany({
    where: {
      userId,
      deletedAt: null,
      ...(options.mealType ? { mealType: options.mealType } : {}),
      eatenAt: {
        ...(startMs != null ? { gte: new Date(startMs) } : {}),
        ...(endMs != null ? { lt: new Date(endMs) } : {}),
      },
      ...(after
        ? {
            OR: [
              { eatenAt: { lt: after.eatenAt } },
              { eatenAt: after.eatenAt, id: { gt: after.id } },
            ],
          }
        : {}),
    },
    orderBy: [{ eatenAt: 'desc' }, { id: 'asc' }],
    take: options.limit,
  });
  return withItems(ctx.prisma, ctx, userId, meals);
}

/** One meal of the person. */
export async function meal(ctx: AuthedContext, mealId: string): Promise<MealView> {
  const userId = readerUserId(ctx);
  const meal = await ctx.prisma.meal.findFirst({ where: { id: mealId, userId, deletedAt: null } });
  if (!meal) throw mealNotFound();
  return (await withItems(ctx.prisma, ctx, userId, [meal]))[0];
}

/**
 * The latest meal of each distinct name (case and surrounding spaces ignored) eaten in the last
 * RECENT_MEALS_DAYS days, newest first: what a person is likely to log again.
 */
export async function recentMeals(
  ctx: AuthedContext,
  options: { limit: number },
): Promise<MealView[]> {
  const userId = readerUserId(ctx);
  const ids = await ctx.prisma.$queryRaw<{ id: string }[]>`
    SELECT id FROM (
       SELECT DISTINCT ON (lower(btrim(meal_name))) id, eaten_at FROM meals
        WHERE user_id = ${userId}::int AND deleted_at IS NULL AND btrim(coalesce(meal_name, '')) <> ''
          AND eaten_at >= now() - make_interval(days => ${RECENT_MEALS_DAYS}::int)
        ORDER BY lower(btrim(meal_name)), eaten_at DESC, id
     ) latest ORDER BY eaten_at DESC, id LIMIT ${options.limit}::int`;
  const meals = await ctx.prisma.meal.findMany({
    where: { userId, id: { in: ids.map((r) => r.id) } },
  });
  const order = new Map(ids.map((r, i) => [r.id, i]));
  meals.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  return withItems(ctx.prisma, ctx, userId, meals);
}

function mealNotFound(): Error {
  return appError('NOT_FOUND', 'Meal not found');
}

const trimmedOrNull = (s: string | null | undefined): string | null | undefined =>
  s === undefined ? undefined : s?.trim() || null;

/** Stores items of a meal with the stamp; answers the meal's new totals. */
async function insertItems(
  tx: DbTx,
  userId: number,
  mealId: string,
  items: ResolvedItem[],
  stamp: Date,
): Promise<Nutrients> {
  const ids = uuidV7s(items.length);
  if (items.length)
    await tx.mealItem.createMany({
      data: items.map((item, i) => ({
        id: ids[i],
        userId,
        mealId,
        ...item,
        createdAt: stamp,
        serverUpdatedAt: stamp,
      })),
    });
  return sumNutrients(items);
}

/** Inserts a new meal with its items inside `tx`, stamped from the sync clock; answers it. */
async function insertMeal(
  tx: DbTx,
  ctx: AuthedContext,
  fields: MealFields,
  extra: { source: string; items: ResolvedItem[]; photoKey?: string },
): Promise<MealView> {
  const userId = ctx.principal.userId;
  const stamp = new Date(await advanceSyncClock(tx, userId));
  const [id] = uuidV7s(1);
  const meal = await tx.meal.create({
    data: {
      id,
      userId,
      mealName: trimmedOrNull(fields.mealName),
      mealType: fields.mealType ?? null,
      eatenAt: fields.eatenAt ?? clock.now(),
      note: fields.note ?? null,
      photoKey: extra.photoKey ?? null,
      source: extra.source,
      ...sumNutrients(extra.items),
      serverUpdatedAt: stamp,
    },
  });
  await insertItems(tx, userId, id, extra.items, stamp);
  return (await withItems(tx, ctx, userId, [meal]))[0];
}

/** Logs a meal with its items in one transaction; answers the stored meal. */
export async function logMeal(ctx: AuthedContext, options: LogMealOptions): Promise<MealView> {
  const source = ctx.via === 'mcp' ? 'mcp' : 'manual';
  return ctx.prisma.$transaction(async (tx) => {
    const items = await resolveItems(tx, ctx.principal.userId, options.items, ['input', 'items']);
    return insertMeal(tx, ctx, options, { source, items });
  });
}

/** The caller's live meal, locked until the transaction ends; NOT_FOUND otherwise. */
async function lockMeal(tx: DbTx, userId: number, mealId: string): Promise<void> {
  // NOTE: the caller's own live meal only.
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM meals WHERE id = ${mealId}::text AND user_id = ${userId}::int AND deleted_at IS NULL
       FOR UPDATE`;
  if (!rows.length) throw mealNotFound();
}

/**
 * Updates a meal (MealLogUpdate): fields given are set (null clears a nullable one); `items`, when
 * given, replace every item (the old ones become tombstones) and the totals are recomputed.
 */
export async function updateMeal(
  ctx: AuthedContext,
  mealId: string,
  options: UpdateMealOptions,
): Promise<MealView> {
  const userId = ctx.principal.userId;
  return updateMealLike(
    ctx,
    {
      lock: lockMeal,
      retireItems: (tx, _userId, id, stamp) =>
        tx.mealItem.updateMany({
          where: { userId, mealId: id, deletedAt: null },
          data: { deletedAt: stamp, serverUpdatedAt: stamp },
        }),
      insertItems,
      update: async (tx, id, totals, stamp) => {
        const meal = await tx.meal.update({
          where: { id },
          data: {
            mealName: trimmedOrNull(options.mealName),
            mealType: options.mealType,
            eatenAt: options.eatenAt ?? undefined,
            note: options.note,
            ...totals,
            serverUpdatedAt: stamp,
          },
        });
        return (await withItems(tx, ctx, userId, [meal]))[0];
      },
    },
    mealId,
    options,
  );
}

/** Tombstones meals (and their items) of the caller in a transaction; answers how many and their photos. */
async function tombstoneMeals(
  tx: DbTx,
  userId: number,
  mealIds: string[] | null,
): Promise<{ count: number; photoKeys: (string | null)[] }> {
  const stamp = new Date(await advanceSyncClock(tx, userId));
  const where = { userId, deletedAt: null, ...(mealIds ? { id: { in: mealIds } } : {}) };
  const photos = await tx.meal.findMany({
    where: { ...where, photoKey: { not: null } },
    select: { photoKey: true },
  });
  const { count } = await tx.meal.updateMany({
    where,
    data: { deletedAt: stamp, serverUpdatedAt: stamp, photoKey: null },
  });
  await tx.mealItem.updateMany({
    where: { userId, deletedAt: null, ...(mealIds ? { mealId: { in: mealIds } } : {}) },
    data: { deletedAt: stamp, serverUpdatedAt: stamp },
  });
  return { count, photoKeys: photos.map((p) => p.photoKey) };
}

/** Deletes one meal of the caller (a tombstone, so phones learn of it) and its photo. */
export async function deleteMeal(ctx: AuthedContext, mealId: string): Promise<{ deleted: number }> {
  const userId = ctx.principal.userId;
  const { count, photoKeys } = await ctx.prisma.$transaction(async (tx) => {
    await lockMeal(tx, userId, mealId);
    return tombstoneMeals(tx, userId, [mealId]);
  });
  await deleteStoredFiles(ctx, photoKeys, 'a meal photo');
  return { deleted: count };
}

/** Deletes every meal of the caller (tombstones) and their photos; answers how many meals. */
export async function deleteAllMeals(ctx: AuthedContext): Promise<{ deleted: number }> {
  const { count, photoKeys } = await ctx.prisma.$transaction((tx) =>
    tombstoneMeals(tx, ctx.principal.userId, null),
  );
  await deleteStoredFiles(ctx, photoKeys, 'a meal photo');
  return { deleted: count };
}

/** The photo checked (size first, then the type from its bytes) and stored under a new key. */
async function storePhoto(ctx: AuthedContext, file: UploadedFile): Promise<string> {
  const max = photoMaxBytes('meal', ctx.config);
  if (file.size > max) throw photoTooLarge(max);
  const data = new Uint8Array(await file.arrayBuffer());
  const type = await checkedImageType(data, file.type, 'file');
  const key = newStorageKey(MEAL_PHOTO_FOLDER, PHOTO_TYPES[type]);
  await ctx.storage.put(key, data, { contentType: type });
  return key;
}

/** Runs `write` with a freshly stored photo; the file is removed again when the write fails. */
async function withStoredPhoto<T>(
  ctx: AuthedContext,
  file: UploadedFile,
  write: (key: string) => Promise<T>,
): Promise<T> {
  const key = await storePhoto(ctx, file);
  try {
    return await write(key);
  } catch (e) {
    await deleteStoredFiles(ctx, [key], 'a meal photo');
    throw e;
  }
}

/** Creates a meal (no items yet, source "photo") from a photo; answers it with its photo_url. */
export async function createMealFromPhoto(
  ctx: AuthedContext,
  options: MealPhotoOptions,
): Promise<MealView> {
  return withStoredPhoto(ctx, options.file, (photoKey) =>
    ctx.prisma.$transaction((tx) =>
      insertMeal(tx, ctx, options, { source: 'photo', items: [], photoKey }),
    ),
  );
}

/**
 * Replaces the photo of a meal of the caller; the old file is removed once the row points at the new
 * one. The photo is not a synced column, so the sync stamp is left alone (no phone gets a conflict).
 */
export async function setMealPhoto(
  ctx: AuthedContext,
  mealId: string,
  file: UploadedFile,
): Promise<MealView> {
  const userId = ctx.principal.userId;
  let previous: string | null = null;
  const meal = await withStoredPhoto(ctx, file, (photoKey) =>
    ctx.prisma.$transaction(async (tx) => {
      await lockMeal(tx, userId, mealId);
      previous = (
        await tx.meal.findUniqueOrThrow({ where: { id: mealId }, select: { photoKey: true } })
      ).photoKey;
      const updated = await tx.meal.update({ where: { id: mealId }, data: { photoKey } });
      return (await withItems(tx, ctx, userId, [updated]))[0];
    }),
  );
  await deleteStoredFiles(ctx, [previous], 'a meal photo');
  return meal;
}

/**
 * Totals of the person's meals eaten in [startMs, endMs), per local calendar day of the person
 * (personZone of the profile domain; UTC when unset or unknown): every day the range touches, empty
 * days included.
 */
export async function dailyNutrition(
  ctx: AuthedContext,
  options: DailyNutritionOptions,
): Promise<DailyNutritionView> {
  const { startMs, endMs } = options;
  if (endMs <= startMs)
    throw validationError([
      { loc: ['endMs'], msg: 'end_ms must be after start_ms', type: 'value_error' },
    ]);
  if (endMs - startMs > DAILY_RANGE_MAX_DAYS * DAY_MS) {
    throw validationError([
      {
        loc: ['endMs'],
        msg: `The range may span at most ${DAILY_RANGE_MAX_DAYS} days`,
        type: 'value_error',
      },
    ]);
  }
  const timezone = await personZone(ctx);
  const meals = await mealTotalsBetween(ctx, { start: new Date(startMs), end: new Date(endMs) });
  // en-CA formats a date as YYYY-MM-DD
  const localDate = new Intl.DateTimeFormat('en-CA', {
    timeZone: timezone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  const dayOf = (ms: number): string => localDate.format(new Date(ms));
  const byDay = new Map<string, Nutrients[]>(
    datesFrom(dayOf(startMs), dayOf(endMs - 1)).map((d) => [d, []]),
  );
  for (const m of meals) byDay.get(dayOf(m.eatenAt.getTime()))?.push(nutrientsOf(m));
  const days = [...byDay].map(([date, list]) => ({
    date,
    mealCount: list.length,
    totals: sumNutrients(list),
  }));
  return {
    timezone,
    startMs,
    endMs,
    mealCount: meals.length,
    totals: sumNutrients(meals.map(nutrientsOf)),
    days,
  };
}

export interface MealTotalsBetweenOptions {
  /** first instant (inclusive) */
  start: Date;
  /** end instant (exclusive) */
  end: Date;
}

/** A meal's stored totals and when it was eaten. */
export interface MealTotalsView extends Nutrients {
  eatenAt: Date;
}

/**
 * The totals of the person's live meals eaten in [start, end), unordered: one query. Daily
 * nutrition reads them, and so do other domains that need meals (insights' nutrition score).
 */
export async function mealTotalsBetween(
  ctx: AuthedContext,
  options: MealTotalsBetweenOptions,
): Promise<MealTotalsView[]> {
  // NOTE: the person's data: the owner's rows while viewing as a grantee.
  return ctx.prisma.meal.findMany({
    where: {
      userId: readerUserId(ctx),
      deletedAt: null,
      eatenAt: { gte: options.start, lt: options.end },
    },
    select: {
      eatenAt: true,
      kcal: true,
      proteinG: true,
      carbsG: true,
      fatG: true,
      fiberG: true,
      sugarG: true,
    },
  });
}

/** Storage keys of every meal photo of a person (account deletion removes the files). */
export async function mealPhotoKeys(tx: DbTx, userId: number): Promise<string[]> {
  const rows = await tx.meal.findMany({
    where: { userId, photoKey: { not: null } },
    select: { photoKey: true },
  });
  return rows.map((r) => r.photoKey!);
}
