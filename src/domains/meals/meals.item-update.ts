/**
 * The one way a meal and a saved meal are changed: in a transaction, lock the row, resolve the new
 * items (when given) like a logged meal's, stamp the change from the sync clock, retire the old
 * items as tombstones and store the new ones, then set the row's fields and recomputed totals.
 * What differs between the two (their tables) is a MealLikeTables.
 */
import type { DbTx } from '../../db/client.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { advanceSyncClock } from '../../platform/sync-clock.ts';
import { resolveItems } from './meals.nutrients.ts';
import type { MealItemInput, Nutrients, ResolvedItem } from './meals.nutrients.ts';

/** The tables of a meal-like row and its items. */
export interface MealLikeTables<Row> {
  /** the caller's live row, locked until the transaction ends; NOT_FOUND otherwise */
  lock(tx: DbTx, userId: number, id: string): Promise<void>;
  /** tombstones the row's live items */
  retireItems(tx: DbTx, userId: number, id: string, stamp: Date): Promise<unknown>;
  /** stores items of the row; answers their totals */
  insertItems(
    tx: DbTx,
    userId: number,
    id: string,
    items: ResolvedItem[],
    stamp: Date,
  ): Promise<Nutrients>;
  /** sets the row's fields (and totals, when the items changed); answers it as callers see it */
  update(tx: DbTx, id: string, totals: Nutrients | undefined, stamp: Date): Promise<Row>;
}

/** Changes the caller's row `id`; `items`, when given, replace every item (`itemsAt`: their loc). */
export function updateMealLike<Row>(
  ctx: AuthedContext,
  tables: MealLikeTables<Row>,
  id: string,
  change: { items?: readonly MealItemInput[] | null; itemsAt?: (string | number)[] },
): Promise<Row> {
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    await tables.lock(tx, userId, id);
    const items = change.items
      ? await resolveItems(tx, userId, change.items, change.itemsAt ?? ['input', 'items'])
      : null;
    const stamp = new Date(await advanceSyncClock(tx, userId));
    let totals: Nutrients | undefined;
    if (items) {
      await tables.retireItems(tx, userId, id, stamp);
      totals = await tables.insertItems(tx, userId, id, items, stamp);
    }
    return tables.update(tx, id, totals, stamp);
  });
}
