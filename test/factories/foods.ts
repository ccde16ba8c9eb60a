/**
 * Food factories: logged meal items (the meals tables belong to the meals domain; these rows are
 * written with Prisma directly, as the phone's sync would store them) and custom foods.
 */
import { randomUUID } from 'node:crypto';
import type { TestApp } from '../harness/app.ts';
import { clock } from '../../src/base/clock.ts';

export interface SeedLogOptions {
  /** when the meal was eaten (default: now) */
  eatenAt?: Date;
  /** when the item was logged (default: eatenAt) */
  loggedAt?: Date;
  grams?: number;
}

/** One meal with one item of `foodId`, logged by `userId`. */
export async function seedFoodLog(
  app: TestApp,
  userId: number,
  foodId: string,
  options: SeedLogOptions = {},
): Promise<string> {
  const eatenAt = options.eatenAt ?? clock.now();
  const mealId = randomUUID();
  await app.db.prisma.meal.create({
    data: { id: mealId, userId, eatenAt, mealName: 'test meal', source: 'manual' },
  });
  const item = await app.db.prisma.mealItem.create({
    data: {
      id: randomUUID(),
      userId,
      mealId,
      foodId,
      name: foodId,
      grams: options.grams ?? 100,
      createdAt: options.loggedAt ?? eatenAt,
    },
  });
  return item.id;
}
