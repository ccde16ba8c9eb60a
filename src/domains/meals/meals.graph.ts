/**
 * Meals in the dashboard graph (docs/graphql.md): `User.meals`, a connection of the person's meals
 * (the root field `meals` as pages, within a window `from`/`to`: a week of meals is one page), and
 * `User.savedMeals` and `User.favoriteFoods` (issue 17, keyset pages by created_at). An item's food
 * (`MealItem.food`) crosses into the foods domain: it is in src/schema/references.ts.
 */
import { z } from 'zod';
import { validationError } from '../../base/errors.ts';
import { builder } from '../../graphql/builder.ts';
import {
  connectionOf,
  pageArgs,
  pageOf,
  positionAfter,
  rangeArgs,
  windowOf,
} from '../../graphql/connection.ts';
import { assertPersonData } from '../../graphql/person.ts';
import { epochMs, Meal } from './meals.schema.ts';
import { meals } from './meals.service.ts';
import { FavoriteFood, SavedMeal } from './meals.saved-schema.ts';
import { favoriteFoods, savedMeals } from './meals.saved.ts';

const MealConnection = connectionOf('Meal', Meal);
/**
 * The largest page of meals: a quarter year at five a day. With their items and foods 500 meals
 * cost about 10,500 of a document's 20,000 (src/graphql/query-cost.ts).
 */
const MEALS_PAGE_MAX = 500;
/** A meal's position in the list: [eaten_at ms, id]. */
const MEAL_POSITION = z.tuple([z.number().int(), z.string().max(64)]);
const FavoriteFoodConnection = connectionOf('FavoriteFood', FavoriteFood);
const SavedMealConnection = connectionOf('SavedMeal', SavedMeal);
/** A saved meal's or favorite's position: [created_at ms, id]. */
const CREATED_POSITION = z.tuple([z.number().int(), z.string().max(64)]);
/** `from`/`to`, or the deprecated `startMs`/`endMs` (not both ways at once). */
function msWindow(
  range: { from?: Date | null; to?: Date | null },
  startMs: number | null | undefined,
  endMs: number | null | undefined,
): { from?: Date | null; to?: Date | null } {
  if (startMs == null && endMs == null) return range;
  if (range.from || range.to) {
    const msg = 'give the window as from/to or as startMs/endMs, not both';
    throw validationError([{ loc: ['startMs'], msg, type: 'value_error' }]);
  }
  return {
    from: startMs == null ? null : new Date(startMs),
    to: endMs == null ? null : new Date(endMs),
  };
}
const createdAfter = (after: string | null | undefined) => {
  const at = positionAfter(after, CREATED_POSITION);
  return at && { createdAt: new Date(at[0]), id: at[1] };
};

builder.prismaObjectFields('User', (t) => ({
  meals: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: MealConnection,
    nullable: true,
    description: "The person's meals with their items, newest first (the root field meals, paged)",
    args: {
      ...pageArgs(t.arg, MEALS_PAGE_MAX),
      ...rangeArgs(t.arg, 'meals eaten'),
      startMs: t.arg.float({
        description: 'eaten at or after (ms)',
        deprecationReason: 'Use `from`',
        validate: epochMs.nullish(),
      }),
      endMs: t.arg.float({
        description: 'eaten before (ms)',
        deprecationReason: 'Use `to`',
        validate: epochMs.nullish(),
      }),
    },
    resolve: async (user, { first, after, startMs, endMs, ...range }, ctx) => {
      assertPersonData(ctx, user);
      const at = positionAfter(after, MEAL_POSITION);
      const position = at && { eatenAt: new Date(at[0]), id: at[1] };
      const { from, to } = windowOf(msWindow(range, startMs, endMs));
      const rows = await meals(ctx, {
        limit: first + 1,
        after: position,
        startMs: from?.getTime(),
        endMs: to?.getTime(),
      });
      return pageOf(rows, first, (m) => [m.eatenAt.getTime(), m.id]);
    },
  }),
  savedMeals: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: SavedMealConnection,
    nullable: true,
    description: "The person's saved meals with their items, newest first (savedMeals, paged)",
    args: pageArgs(t.arg),
    resolve: async (user, { first, after }, ctx) => {
      assertPersonData(ctx, user);
      const rows = await savedMeals(ctx, { limit: first + 1, after: createdAfter(after) });
      return pageOf(rows, first, (m) => [m.createdAt.getTime(), m.id]);
    },
  }),
  favoriteFoods: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: FavoriteFoodConnection,
    nullable: true,
    description: "The person's favorite foods, newest first (favoriteFoods, paged)",
    args: pageArgs(t.arg),
    resolve: async (user, { first, after }, ctx) => {
      assertPersonData(ctx, user);
      const rows = await favoriteFoods(ctx, { limit: first + 1, after: createdAfter(after) });
      return pageOf(rows, first, (f) => [f.createdAt.getTime(), f.id]);
    },
  }),
}));
