/**
 * Meals in the dashboard graph (docs/graphql.md): `User.meals`, a connection of the person's meals
 * (the root field `meals` as pages). An item's food (`MealItem.food`) crosses into the foods
 * domain: it is in src/graphql/references.ts.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { connectionOf, pageArgs, pageOf, positionAfter } from '../../graphql/connection.ts';
import { assertPersonData } from '../../graphql/person.ts';
import { epochMs, Meal } from './meals.schema.ts';
import { listMeals } from './meals.service.ts';

const MealConnection = connectionOf('Meal', Meal);
/** A meal's position in the list: [eaten_at ms, id]. */
const MEAL_POSITION = z.tuple([z.number().int(), z.string().max(64)]);

builder.prismaObjectFields('User', (t) => ({
  meals: t.withAuth({ scope: 'health:nutrition:read' }).field({
    type: MealConnection,
    nullable: true,
    description: "The person's meals with their items, newest first (the root field meals, paged)",
    args: {
      ...pageArgs(t.arg),
      startMs: t.arg.float({ description: 'eaten at or after (ms)', validate: epochMs.nullish() }),
      endMs: t.arg.float({ description: 'eaten before (ms)', validate: epochMs.nullish() }),
    },
    resolve: async (user, { first, after, startMs, endMs }, ctx) => {
      assertPersonData(ctx, user);
      const at = positionAfter(after, MEAL_POSITION);
      const position = at && { eatenAt: new Date(at[0]), id: at[1] };
      const rows = await listMeals(ctx, { limit: first + 1, after: position, startMs, endMs });
      return pageOf(rows, first, (m) => [m.eatenAt.getTime(), m.id]);
    },
  }),
}));
