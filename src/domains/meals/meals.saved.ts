/**
 * Saved meals and favorite foods (issue 17): a saved meal is a named template of items (the item
 * shape and resolution of a logged meal, meals.nutrients.ts) with stored totals; a favorite is a
 * catalogue food the person marked, one per person and food. Logging a saved meal and copying a
 * logged meal create a new meal through `logMeal` (meals.service.ts), so totals, source and sync
 * stamping are those of LogMeal. Rules: docs/meals.md, "Saved meals and favorites".
 *
 * `saved_meals`, `saved_meal_items` and `favorite_foods` are synced tables: every write stamps
 * `server_updated_at` from the sync clock (advanceSyncClock) in its transaction, and deletions are
 * tombstones.
 *
 * NOTE: ownership. Writes use `ctx.principal.userId`; reads use readerUserId(ctx). Another person's
 * saved meal, meal or favorite, or an unknown or deleted one, is NOT_FOUND.
 */
import { readerUserId } from '../../auth/principal.ts';
import { appError, validationError } from '../../base/errors.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import type { DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { advanceSyncClock } from '../../platform/sync-clock.ts';
import { loadCatalogueFoods } from '../foods/index.ts';
import { updateMealLike } from './meals.item-update.ts';
import { resolveItems, sumNutrients } from './meals.nutrients.ts';
import type { MealItemInput, Nutrients, ResolvedItem } from './meals.nutrients.ts';
import { logMeal, uuidV7s } from './meals.service.ts';
import type { MealFields, MealItemView, MealView } from './meals.service.ts';

/** Largest `limit` of the favorites and saved-meals lists. */
export const SAVED_LIST_MAX = 500;

export interface FavoriteView {
  id: string;
  foodId: string;
  /** the food's description when it was marked */
  name: string;
  createdAt: Date;
}

export interface SavedMealView {
  id: string;
  name: string;
  mealType: string | null;
  note: string | null;
  createdAt: Date;
  totals: Nutrients;
  items: MealItemView[];
}

export interface SavedListOptions {
  /** at most this many, newest first (1..SAVED_LIST_MAX; a connection asks one more) */
  limit: number;
  /** the position to start after (keyset): created_at and id of the previous page's last row */
  after?: { createdAt: Date; id: string } | null;
}

/** Newest first, after a position: created_at desc, then id desc. */
const newestAfter = (after: SavedListOptions['after']) =>
  after
    ? {
        OR: [
          { createdAt: { lt: after.createdAt } },
          { createdAt: after.createdAt, id: { lt: after.id } },
        ],
      }
    : {};

export interface SavedMealFields {
  /** the saved meal's name (1..200 characters, trimmed) */
  name?: string | null;
  /** breakfast, lunch, dinner or snack; null clears it (update) */
  mealType?: string | null;
  /** free text; null clears it (update) */
  note?: string | null;
}

export interface CreateSavedMealOptions extends SavedMealFields {
  /** the saved meal's name */
  name: string;
  /** 1..MEAL_ITEMS_MAX items, the shape of a meal's items */
  items: readonly MealItemInput[];
}

export interface UpdateSavedMealOptions extends SavedMealFields {
  /** when present, replaces every item (1..MEAL_ITEMS_MAX) and recomputes the totals */
  items?: readonly MealItemInput[] | null;
}

export interface LogSavedMealOptions {
  /** the saved meal to log */
  savedMealId: string;
  /** when it was eaten; default now */
  eatenAt?: Date | null;
  /** overrides the saved meal's type for this meal */
  mealType?: string | null;
}

export interface CopyMealOptions {
  /** the logged meal to copy */
  mealId: string;
  /** when the copy was eaten; default now */
  eatenAt?: Date | null;
}

const nutrientsOf = (r: Nutrients): Nutrients => ({
  kcal: r.kcal,
  proteinG: r.proteinG,
  carbsG: r.carbsG,
  fatG: r.fatG,
  fiberG: r.fiberG,
  sugarG: r.sugarG,
});

const savedMealNotFound = (): Error => appError('NOT_FOUND', 'Saved meal not found');

type SavedMealRow = Prisma.SavedMealGetPayload<object>;

/** Saved meals with their live items: one query for the items of all of them. */
async function withItems(
  db: DbTx | AuthedContext['prisma'],
  userId: number,
  meals: SavedMealRow[],
): Promise<SavedMealView[]> {
  const items = meals.length
    ? await db.savedMealItem.findMany({
        where: { userId, savedMealId: { in: meals.map((m) => m.id) }, deletedAt: null },
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
      })
    : [];
  const byMeal = new Map<string, MealItemView[]>();
  for (const i of items) {
    const list = byMeal.get(i.savedMealId) ?? [];
    list.push({
      id: i.id,
      foodId: i.foodId,
      name: i.name,
      grams: i.grams,
      portion: i.portion,
      ...nutrientsOf(i),
    });
    byMeal.set(i.savedMealId, list);
  }
  return meals.map((m) => ({
    id: m.id,
    name: m.name,
    mealType: m.mealType,
    note: m.note,
    createdAt: m.createdAt,
    totals: nutrientsOf(m),
    items: byMeal.get(m.id) ?? [],
  }));
}

/** Stores the items of a saved meal with the stamp; answers their totals. */
async function insertItems(
  tx: DbTx,
  userId: number,
  savedMealId: string,
  items: ResolvedItem[],
  stamp: Date,
): Promise<Nutrients> {
  const ids = uuidV7s(items.length);
  await tx.savedMealItem.createMany({
    data: items.map((item, i) => ({
      id: ids[i],
      userId,
      savedMealId,
      ...item,
      createdAt: stamp,
      serverUpdatedAt: stamp,
    })),
  });
  return sumNutrients(items);
}

/** The caller's live saved meal, locked until the transaction ends; NOT_FOUND otherwise. */
async function lockSavedMeal(tx: DbTx, userId: number, id: string): Promise<void> {
  // NOTE: the caller's own live saved meal only.
  const rows = await tx.$queryRaw<{ id: string }[]>`
    SELECT id FROM saved_meals WHERE id = ${id}::text AND user_id = ${userId}::int AND deleted_at IS NULL
       FOR UPDATE`;
  if (!rows.length) throw savedMealNotFound();
}

/** The person's saved meals with their items, newest first, optionally after a position. */
export async function savedMeals(
  ctx: AuthedContext,
  options: SavedListOptions,
): Promise<SavedMealView[]> {
  const userId = readerUserId(ctx);
  const rows = await ctx.prisma.savedMeal.findMany({
    where: { userId, deletedAt: null, ...newestAfter(options.after) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit,
  });
  return withItems(ctx.prisma, userId, rows);
}

/** Saves a meal template with its items (resolved like a logged meal's) in one transaction. */
export async function createSavedMeal(
  ctx: AuthedContext,
  options: CreateSavedMealOptions,
): Promise<SavedMealView> {
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    const items = await resolveItems(tx, userId, options.items, ['input', 'items']);
    const stamp = new Date(await advanceSyncClock(tx, userId));
    const [id] = uuidV7s(1);
    const row = await tx.savedMeal.create({
      data: {
        id,
        userId,
        name: options.name.trim(),
        mealType: options.mealType ?? null,
        note: options.note ?? null,
        ...sumNutrients(items),
        createdAt: stamp,
        serverUpdatedAt: stamp,
      },
    });
    await insertItems(tx, userId, id, items, stamp);
    return (await withItems(tx, userId, [row]))[0];
  });
}

/**
 * Changes a saved meal: fields given are set (null clears meal_type or note); `items`, when given,
 * replace every item (the old ones become tombstones) and the totals are recomputed.
 */
export async function updateSavedMeal(
  ctx: AuthedContext,
  savedMealId: string,
  options: UpdateSavedMealOptions,
): Promise<SavedMealView> {
  const userId = ctx.principal.userId;
  return updateMealLike(
    ctx,
    {
      lock: lockSavedMeal,
      retireItems: (tx, _userId, id, stamp) =>
        tx.savedMealItem.updateMany({
          where: { userId, savedMealId: id, deletedAt: null },
          data: { deletedAt: stamp, serverUpdatedAt: stamp },
        }),
      insertItems,
      update: async (tx, id, totals, stamp) => {
        const row = await tx.savedMeal.update({
          where: { id },
          data: {
            name: options.name?.trim() || undefined,
            mealType: options.mealType,
            note: options.note,
            ...totals,
            serverUpdatedAt: stamp,
          },
        });
        return (await withItems(tx, userId, [row]))[0];
      },
    },
    savedMealId,
    options,
  );
}

/** Deletes a saved meal of the caller and its items (tombstones); meals logged from it stay. */
export async function deleteSavedMeal(
  ctx: AuthedContext,
  savedMealId: string,
): Promise<{ deleted: number }> {
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    await lockSavedMeal(tx, userId, savedMealId);
    const stamp = new Date(await advanceSyncClock(tx, userId));
    await tx.savedMealItem.updateMany({
      where: { userId, savedMealId, deletedAt: null },
      data: { deletedAt: stamp, serverUpdatedAt: stamp },
    });
    const { count } = await tx.savedMeal.updateMany({
      where: { id: savedMealId, userId, deletedAt: null },
      data: { deletedAt: stamp, serverUpdatedAt: stamp },
    });
    return { deleted: count };
  });
}

/** A stored item as a meal item input: a catalogue food again by its grams, free text as it is. */
function asItemInput(item: MealItemView): MealItemInput {
  const base = { name: item.name, grams: item.grams, portion: item.portion };
  return item.foodId ? { ...base, foodId: item.foodId } : { ...base, ...nutrientsOf(item) };
}

/** Refuses a copy of nothing: a meal without items (a photo meal not yet itemised). */
function itemsToLog(items: MealItemView[], loc: string): MealItemInput[] {
  if (!items.length)
    throw validationError([
      { loc: [loc], msg: 'The meal has no items to log', type: 'value_error' },
    ]);
  return items.map(asItemInput);
}

/**
 * The items of one of the person's saved meals as item inputs (as logging it would send them;
 * the preview score scores them); NOT_FOUND for anyone else's, or a deleted one.
 */
export async function savedMealItems(
  ctx: AuthedContext,
  savedMealId: string,
): Promise<MealItemInput[]> {
  // NOTE: the person's data: the owner's saved meals while viewing as a grantee.
  const userId = readerUserId(ctx);
  const row = await ctx.prisma.savedMeal.findFirst({
    where: { id: savedMealId, userId, deletedAt: null },
  });
  if (!row) throw savedMealNotFound();
  const [saved] = await withItems(ctx.prisma, userId, [row]);
  return itemsToLog(saved.items, 'savedMealId');
}

/**
 * Logs a saved meal of the caller as a new meal (LogMeal's service: catalogue items are resolved
 * again, so the meal carries the catalogue's current nutrients), eaten at `eatenAt` (default now).
 */
export async function logSavedMeal(
  ctx: AuthedContext,
  options: LogSavedMealOptions,
): Promise<MealView> {
  const userId = ctx.principal.userId;
  const row = await ctx.prisma.savedMeal.findFirst({
    where: { id: options.savedMealId, userId, deletedAt: null },
  });
  if (!row) throw savedMealNotFound();
  const [saved] = await withItems(ctx.prisma, userId, [row]);
  const fields: MealFields = {
    mealName: saved.name,
    mealType: options.mealType ?? saved.mealType,
    eatenAt: options.eatenAt ?? null,
    note: saved.note,
  };
  return logMeal(ctx, { ...fields, items: itemsToLog(saved.items, 'savedMealId') });
}

/**
 * Copies one of the caller's logged meals to a new meal eaten at `eatenAt` (default now): the same
 * name, type, note and items (catalogue items resolved again), through LogMeal's service; the
 * photo is not copied.
 */
export async function copyMeal(ctx: AuthedContext, options: CopyMealOptions): Promise<MealView> {
  const userId = ctx.principal.userId;
  const meal = await ctx.prisma.meal.findFirst({
    where: { id: options.mealId, userId, deletedAt: null },
  });
  if (!meal) throw appError('NOT_FOUND', 'Meal not found');
  const items = await ctx.prisma.mealItem.findMany({
    where: { userId, mealId: meal.id, deletedAt: null },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  return logMeal(ctx, {
    mealName: meal.mealName,
    mealType: meal.mealType,
    eatenAt: options.eatenAt ?? null,
    note: meal.note,
    items: itemsToLog(
      items.map((i) => ({ ...i, ...nutrientsOf(i) })),
      'mealId',
    ),
  });
}

/** The person's favorite foods, newest first, optionally after a position. */
export async function favoriteFoods(
  ctx: AuthedContext,
  options: SavedListOptions,
): Promise<FavoriteView[]> {
  return ctx.prisma.favoriteFood.findMany({
    where: { userId: readerUserId(ctx), deletedAt: null, ...newestAfter(options.after) },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: options.limit,
    select: { id: true, foodId: true, name: true, createdAt: true },
  });
}

/**
 * Marks a catalogue food (or the person's own custom food) as a favorite. Adding a favorite again
 * answers the existing one unchanged; one removed earlier is revived as the newest. An unknown food
 * is VALIDATION_FAILED at `food_id`.
 */
export async function addFavoriteFood(
  ctx: AuthedContext,
  options: { foodId: string },
): Promise<FavoriteView> {
  const userId = ctx.principal.userId;
  const select = { id: true, foodId: true, name: true, createdAt: true } as const;
  return ctx.prisma.$transaction(async (tx) => {
    const food = (await loadCatalogueFoods(tx, userId, [options.foodId])).get(options.foodId);
    if (!food)
      throw validationError([
        { loc: ['foodId'], msg: `Unknown food id ${options.foodId}`, type: 'value_error' },
      ]);
    // the clock row is locked until commit, so two adds of one person run one after the other
    const stamp = new Date(await advanceSyncClock(tx, userId));
    const existing = await tx.favoriteFood.findUnique({
      where: { userId_foodId: { userId, foodId: options.foodId } },
    });
    if (existing && !existing.deletedAt) {
      return {
        id: existing.id,
        foodId: existing.foodId,
        name: existing.name,
        createdAt: existing.createdAt,
      };
    }
    if (existing) {
      return tx.favoriteFood.update({
        where: { id: existing.id },
        data: { deletedAt: null, name: food.description, createdAt: stamp, serverUpdatedAt: stamp },
        select,
      });
    }
    return tx.favoriteFood.create({
      data: {
        id: uuidV7s(1)[0],
        userId,
        foodId: options.foodId,
        name: food.description,
        createdAt: stamp,
        serverUpdatedAt: stamp,
      },
      select,
    });
  });
}

/** Removes a favorite of the caller by its food (a tombstone); NOT_FOUND when it is none. */
export async function removeFavoriteFood(
  ctx: AuthedContext,
  options: { foodId: string },
): Promise<{ deleted: number }> {
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    const stamp = new Date(await advanceSyncClock(tx, userId));
    const { count } = await tx.favoriteFood.updateMany({
      where: { userId, foodId: options.foodId, deletedAt: null },
      data: { deletedAt: stamp, serverUpdatedAt: stamp },
    });
    if (!count) throw appError('NOT_FOUND', 'Favorite not found');
    return { deleted: count };
  });
}
