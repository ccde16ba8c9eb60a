/**
 * A person with `n` rows in every list the dashboard graph reaches (`me { ... }`): meals of two
 * items each naming catalogue foods (n distinct foods), glucose readings, sleep intervals,
 * workouts, metric samples, access grants, login sessions, personal tokens, saved meals (one item
 * each) and favorite foods; plus a consent (one kind exists). Rows the API caps (20 invitations a
 * day, 50 tokens) are written with Prisma, as the rows of a long-lived account would be.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { TestApp } from '../harness/app.ts';
import { gql } from '../harness/clients.ts';
import { seedUser } from './users.ts';
import type { SeededUser } from './users.ts';
import { clock } from '../../src/base/clock.ts';

const MINUTE = 60_000;
const range = (n: number): number[] => Array.from({ length: n }, (_, i) => i);

/** Runs a mutation as `token` and checks it answered without errors. */
async function mutate(app: TestApp, token: string, query: string, variables: object) {
  const res = await gql(app, query, { token, variables: variables as Record<string, unknown> });
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
}

export async function seedDashboardPerson(app: TestApp, n: number): Promise<SeededUser> {
  const person = await seedUser(app);
  const userId = person.user.id;
  const p = app.db.prisma;
  const now = clock.ms();
  const at = (i: number) => new Date(now - (i + 1) * 5 * MINUTE);

  const foods = range(n).map((i) => `dash-${userId}-${i}`);
  await p.food.createMany({
    data: foods.map((id, i) => ({ id, source: 'usda_foundation', description: `Food ${i}` })),
  });
  const meals = range(n).map((i) => ({
    id: randomUUID(),
    userId,
    mealName: `Meal ${i}`,
    eatenAt: at(i),
  }));
  await p.meal.createMany({ data: meals });
  await p.mealItem.createMany({
    data: meals.flatMap((m, i) =>
      [foods[i], foods[(i + 1) % n]].map((foodId) => ({
        id: randomUUID(),
        userId,
        mealId: m.id,
        foodId,
        name: foodId,
        grams: 100,
      })),
    ),
  });
  // saved meals of one item each, and favorites (issue 17)
  const saved = range(n).map((i) => ({
    id: randomUUID(),
    userId,
    name: `Saved ${i}`,
    createdAt: at(i),
  }));
  await p.savedMeal.createMany({ data: saved });
  await p.savedMealItem.createMany({
    data: saved.map((m, i) => ({
      id: randomUUID(),
      userId,
      savedMealId: m.id,
      foodId: foods[i],
      name: foods[i],
      grams: 50,
    })),
  });
  await p.favoriteFood.createMany({
    data: foods.map((foodId, i) => ({
      id: randomUUID(),
      userId,
      foodId,
      name: foodId,
      createdAt: at(i),
    })),
  });

  await mutate(
    app,
    person.token,
    'mutation ($r: [GlucoseReadingInput!]!) { createGlucoseReadingsBatch(readings: $r) }',
    { r: range(n).map((i) => ({ timestamp: at(i), valueMgDl: 90 + (i % 80), source: 'cgm' })) },
  );
  const interval = (i: number) => ({
    startAt: at(i),
    endAt: new Date(at(i).getTime() + 4 * MINUTE),
  });
  await mutate(
    app,
    person.token,
    'mutation ($input: BatchSyncIn!) { importHealthIntervals(input: $input) { sleep { inserted } } }',
    {
      input: {
        sleep: range(n).map((i) => ({ stage: 'core', ...interval(i), sourceId: `s${i}` })),
        workouts: range(n).map((i) => ({
          activityType: 'walking',
          ...interval(i),
          sourceId: `w${i}`,
        })),
      },
    },
  );
  await mutate(
    app,
    person.token,
    'mutation ($input: AppleHealthImportIn!) { importHealthMetrics(input: $input) { inserted } }',
    {
      input: {
        samples: range(n).map((i) => ({
          metricType: 'heart_rate',
          value: 60 + i,
          timestamp: at(i),
        })),
      },
    },
  );

  const expiresAt = new Date(now + 30 * 86_400_000);
  await p.accessGrant.createMany({
    data: range(n).map((i) => ({
      ownerId: userId,
      inviteeEmail: `invitee${i}.${userId}@example.com`,
      expiresAt,
    })),
  });
  // the seeded login session is one of the n
  await p.session.createMany({
    data: range(n - 1).map(() => ({
      id: randomUUID(),
      userId,
      kind: 'native',
      epoch: 0,
      expiresAt,
    })),
  });
  await p.personalToken.createMany({
    data: range(n).map((i) => ({
      userId,
      name: `token ${i}`,
      scopes: ['profile:read'],
      tokenHash: randomBytes(32).toString('hex'),
      hint: `hdp_${i}`,
    })),
  });
  await p.consent.create({ data: { userId, kind: 'meal_photo' } });
  return person;
}
