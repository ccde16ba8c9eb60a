/**
 * The dashboard graph (issue 12, item 9; docs/graphql.md): `me` reaches the person's data as
 * paginated connections, with the scope checks of the root fields. One nested request costs the
 * same number of SQL statements at 10 and at 100 nodes per list (keyset pages, one query per list,
 * the meal items' foods through one DataLoader batch).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { seedDashboardPerson } from '../factories/dashboard.ts';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { openTestDatabase, startTestApp } from '../harness/app.ts';
import { fromNewIp, gql } from '../harness/clients.ts';
import { countingDatabase } from '../harness/sql-count.ts';

const { database, counter } = countingDatabase(await openTestDatabase());
afterAll(() => database.close()); // registered first, so it runs after the app has closed
const app = await startTestApp({}, { database });

const DASHBOARD = `query Dashboard($n: Int!) {
  me {
    id
    email
    meals(first: $n) {
      nodes { id mealName eatenAt items { id name grams food { fdcId description } } }
      pageInfo { hasNextPage endCursor }
    }
    glucoseReadings(first: $n, sinceHours: 48) {
      nodes { id timestamp valueMgDl }
      pageInfo { hasNextPage endCursor }
    }
    glucoseTrends(sinceHours: 48) { count mean timeInRangePct hourly { hour p50 } }
    sleep(first: $n, days: 30) { nodes { id stage startAt } pageInfo { hasNextPage endCursor } }
    workouts(first: $n, days: 30) { nodes { id activityType } pageInfo { hasNextPage endCursor } }
    metrics(first: $n, days: 30) { nodes { id metricType value } pageInfo { hasNextPage endCursor } }
    accessGrants(first: $n) { nodes { id status inviteeEmail } pageInfo { hasNextPage endCursor } }
    sessions(first: $n) { nodes { id kind current } pageInfo { hasNextPage endCursor } }
    personalTokens(first: $n) { nodes { id name } pageInfo { hasNextPage endCursor } }
    consents(first: $n) { nodes { kind given } pageInfo { hasNextPage endCursor } }
    savedMeals(first: $n) { nodes { id name items { id } } pageInfo { hasNextPage endCursor } }
    favoriteFoods(first: $n) { nodes { id foodId } pageInfo { hasNextPage endCursor } }
  }
}`;

/** The statements one request sends, and its answer. */
async function counted(token: string, query: string, variables: Record<string, unknown> = {}) {
  counter.reset();
  const res = await gql(app, query, { token, variables });
  return { statements: [...counter.statements], res };
}

const MEALS_PAGE = `query ($first: Int!, $after: String) {
  me { meals(first: $first, after: $after) {
    nodes { id eatenAt } pageInfo { hasNextPage endCursor } } }
}`;

describe('the dashboard graph', () => {
  const people: Record<number, SeededUser> = {};
  const answers: Record<number, { statements: string[]; res: Awaited<ReturnType<typeof gql>> }> =
    {};

  it('answers a nested request with the same number of SQL statements at 10 and 100 nodes per list', async () => {
    for (const n of [10, 100]) {
      people[n] = await seedDashboardPerson(app, n);
      await counted(people[n].token, DASHBOARD, { n }); // warm: the credential's first use
      answers[n] = await counted(people[n].token, DASHBOARD, { n });
    }
    for (const n of [10, 100]) {
      const { res } = answers[n];
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      const me = (res.body.data as any).me;
      for (const list of [
        'meals',
        'glucoseReadings',
        'sleep',
        'workouts',
        'metrics',
        'accessGrants',
        'sessions',
        'personalTokens',
        'savedMeals',
        'favoriteFoods',
      ]) {
        expect(me[list].nodes, list).toHaveLength(n);
        expect(me[list].pageInfo.hasNextPage, list).toBe(false);
      }
      expect(me.consents.nodes).toEqual([
        { kind: 'meal_photo', given: true },
        { kind: 'assistant', given: false },
      ]);
      expect(me.glucoseTrends.count).toBe(n);
      const items = me.meals.nodes.flatMap((m: any) => m.items);
      expect(items).toHaveLength(2 * n);
      expect(items.every((i: any) => i.food?.fdcId === i.name)).toBe(true);
      expect(new Set(items.map((i: any) => i.food.fdcId)).size).toBe(n);
    }
    const [at10, at100] = [answers[10].statements, answers[100].statements];
    console.info(`dashboard SQL statements: ${at10.length} at 10 per list, ${at100.length} at 100`);
    expect(at100.length).toBe(at10.length);
    // a statement or two per list: 18 before saved meals (a statement, and one for their items) and
    // favorite foods (one) joined the graph in issue 17
    expect(at10.length).toBeLessThanOrEqual(21);
    // the 200 meal items' foods: one batch, not one query per item
    expect(at100.filter((sql) => /FROM foods f/.test(sql))).toHaveLength(1);
    if (process.env.SHOW_SQL) console.info(at100.map((sql) => sql.slice(0, 120)).join('\n'));
  });

  it('is not vacuous: the counter sees a request whose statements grow with its objects', async () => {
    const person = people[10];
    const ids = (await gql(app, '{ meals { id } }', { token: person.token })).body.data.meals.map(
      (m: any) => m.id as string,
    );
    const byId = (k: number) =>
      `{ ${ids
        .slice(0, k)
        .map((id: string, i: number) => `m${i}: meal(mealId: "${id}") { id }`)
        .join(' ')} }`;
    const [two, five] = [
      await counted(person.token, byId(2)),
      await counted(person.token, byId(5)),
    ];
    expect(five.res.body.errors).toBeUndefined();
    // one meal by id costs its own statements (the meal, its items): 3 more meals, 6 more statements
    expect(five.statements.length - two.statements.length).toBe(6);
  });

  it("answers each list as its root field does: the same nodes, in the root field's order", async () => {
    const token = people[10].token;
    const root = await gql(
      app,
      `{ meals(limit: 100) { id } healthSleep(days: 30) { id } healthWorkouts(days: 30) { id }
         healthMetrics(metricType: heart_rate, days: 30) { id } accessGrants { id }
         sessions { id } personalTokens { id } consents { kind }
         glucoseReadings(sinceHours: 48) { id } }`,
      { token },
    );
    expect(root.body.errors).toBeUndefined();
    const me = (answers[10].res.body.data as any).me;
    const ids = (list: { id?: unknown; kind?: unknown }[]) => list.map((x) => x.id ?? x.kind);
    const r = root.body.data;
    expect(ids(me.meals.nodes)).toEqual(ids(r.meals));
    expect(ids(me.sleep.nodes)).toEqual(ids(r.healthSleep));
    expect(ids(me.workouts.nodes)).toEqual(ids(r.healthWorkouts));
    expect(ids(me.metrics.nodes)).toEqual(ids(r.healthMetrics));
    expect(ids(me.accessGrants.nodes)).toEqual(ids(r.accessGrants));
    expect(ids(me.sessions.nodes)).toEqual(ids(r.sessions));
    expect(ids(me.personalTokens.nodes)).toEqual(ids(r.personalTokens));
    expect(ids(me.consents.nodes)).toEqual(ids(r.consents));
    expect(ids(me.glucoseReadings.nodes)).toEqual(ids(r.glucoseReadings));
  });
});

describe('pagination', () => {
  it('walks a list page by page with first/after: every node once, in order', async () => {
    const person = await seedDashboardPerson(app, 10);
    const seen: string[] = [];
    let after: string | null = null;
    for (let page = 0; page < 10; page++) {
      const res: Awaited<ReturnType<typeof gql>> = await gql(app, MEALS_PAGE, {
        token: person.token,
        variables: { first: 3, after },
      });
      expect(res.body.errors).toBeUndefined();
      const { nodes, pageInfo } = (res.body.data as any).me.meals;
      seen.push(...nodes.map((m: any) => m.id));
      if (!pageInfo.hasNextPage) break;
      after = pageInfo.endCursor;
    }
    expect(seen).toHaveLength(10);
    expect(new Set(seen).size).toBe(10);
    const all = await gql(app, MEALS_PAGE, { token: person.token, variables: { first: 10 } });
    expect(all.body.data.me.meals.nodes.map((m: any) => m.id)).toEqual(seen);

    // the short account lists page the same way
    const tokens = `query ($after: String) { me { personalTokens(first: 4, after: $after) {
      nodes { id } pageInfo { hasNextPage endCursor } } } }`;
    const first = await gql(app, tokens, { token: person.token });
    const page1 = first.body.data.me.personalTokens;
    expect(page1.nodes).toHaveLength(4);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const second = await gql(app, tokens, {
      token: person.token,
      variables: { after: page1.pageInfo.endCursor },
    });
    const page2 = second.body.data.me.personalTokens;
    expect(page2.nodes).toHaveLength(4);
    expect(page2.nodes.map((t: any) => t.id)).not.toContain(page1.nodes[3].id);
  });

  it.each([
    ['first 0', { first: 0 }],
    ['first above 500 (issue 30: a meal page holds 500)', { first: 501 }],
    ['a cursor that is not one', { first: 5, after: 'not-a-cursor' }],
  ])('refuses %s with VALIDATION_FAILED', async (_name, variables) => {
    const person = await seedUser(app);
    const res = await gql(app, MEALS_PAGE, { token: person.token, variables });
    expect(res.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(res.body.data.me.meals).toBeNull();
  });

  it('allows glucose readings up to their own page bound (10,080 since issue 30)', async () => {
    const person = await seedUser(app);
    const q = (first: number) =>
      gql(app, `{ me { glucoseReadings(first: ${first}) { nodes { id } } } }`, {
        token: person.token,
      });
    expect((await q(10_080)).body.errors).toBeUndefined();
    expect((await q(10_081)).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });
});

describe("scopes on the graph are the root fields' scopes", () => {
  /** The first error of a document, without its path (which differs between root and graph). */
  async function errorOf(token: string, query: string) {
    const res = await gql(app, query, { token });
    expect(res.body.errors, query).toHaveLength(1);
    const { message, extensions } = res.body.errors[0];
    return { message, extensions };
  }

  it.each([
    ['meals', 'health:nutrition:read', '{ meals { id } }', '{ me { meals { nodes { id } } } }'],
    [
      'saved meals',
      'health:nutrition:read',
      '{ savedMeals { id } }',
      '{ me { savedMeals { nodes { id } } } }',
    ],
    [
      'favorite foods',
      'health:nutrition:read',
      '{ favoriteFoods { id } }',
      '{ me { favoriteFoods { nodes { id } } } }',
    ],
    [
      'glucose readings',
      'health:glucose:read',
      '{ glucoseReadings { id } }',
      '{ me { glucoseReadings { nodes { id } } } }',
    ],
    [
      'glucose trends',
      'health:glucose:read',
      '{ glucoseTrends { count } }',
      '{ me { glucoseTrends { count } } }',
    ],
    ['sleep', 'health:sleep:read', '{ healthSleep { id } }', '{ me { sleep { nodes { id } } } }'],
    [
      'workouts',
      'health:workouts:read',
      '{ healthWorkouts { id } }',
      '{ me { workouts { nodes { id } } } }',
    ],
    [
      'metrics',
      'health:metrics:read',
      '{ healthMetrics(metricType: steps) { id } }',
      '{ me { metrics { nodes { id } } } }',
    ],
    [
      'grants',
      'sharing:read',
      '{ accessGrants { id } }',
      '{ me { accessGrants { nodes { id } } } }',
    ],
    ['sessions', 'account:read', '{ sessions { id } }', '{ me { sessions { nodes { id } } } }'],
    [
      'consents',
      'consents:read',
      '{ consents { kind } }',
      '{ me { consents { nodes { kind } } } }',
    ],
    [
      'insights',
      'insights:read',
      '{ insights { items { id } } }',
      '{ me { insights { nodes { id } } } }',
    ],
  ])(
    "a token without the scope of %s gets the root field's error, and the rest of `me`",
    async (_name, scope, root, graph) => {
      const person = await seedUser(app);
      const token = await seedPersonalToken(app, person.user.id, ['profile:read']);
      const expected = await errorOf(token, root);
      expect(expected.extensions.code).toBe('INSUFFICIENT_SCOPE');
      expect(expected.extensions.detail.scope).toBe(scope);
      expect(await errorOf(token, graph)).toEqual(expected);
      // the profile of `me` still answers beside the refused field
      const res = await gql(app, graph.replace('{ me {', '{ me { id'), { token });
      expect(res.body.data.me.id).toBe(person.user.id);

      const allowed = await seedPersonalToken(app, person.user.id, ['profile:read', scope as any]);
      const ok = await gql(app, graph, { token: allowed });
      expect(ok.body.errors).toBeUndefined();
    },
  );

  it("refuses a personal token the caller's tokens, as the root field does (login sessions only)", async () => {
    const person = await seedUser(app);
    const token = await seedPersonalToken(app, person.user.id, ['profile:read']);
    const expected = await errorOf(token, '{ personalTokens { id } }');
    expect(expected.extensions.code).toBe('FORBIDDEN');
    expect(await errorOf(token, '{ me { personalTokens { nodes { id } } } }')).toEqual(expected);
  });

  it('needs a credential', async () => {
    const res = await gql(app, '{ me { meals { nodes { id } } } }');
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});

describe('whose data', () => {
  it("reads the owner's data while viewing as, and the caller's own account", async () => {
    const owner = await seedDashboardPerson(app, 10);
    const grantee = await seedUser(app);
    await seedActiveGrant(app, owner, grantee);
    const grants = await gql(app, '{ accessGrants { id } }', { token: grantee.token });
    await switchViewAs(app, grantee.token, grants.body.data.accessGrants[0].id);

    const q = `{ me { id meals(first: 100) { nodes { id items { food { fdcId } } } }
      sessions { nodes { id current } } accessGrants { nodes { id viewing } } } meals { id } }`;
    const res = await gql(app, q, { token: grantee.token });
    expect(res.body.errors).toBeUndefined();
    const { me, meals } = res.body.data;
    expect(me.id).toBe(grantee.user.id); // `me` stays the caller's own profile
    expect(me.meals.nodes.map((m: any) => m.id)).toEqual(meals.map((m: any) => m.id));
    expect(me.meals.nodes).toHaveLength(10); // the owner's meals, their foods resolved
    expect(me.meals.nodes[0].items[0].food.fdcId).toMatch(`dash-${owner.user.id}-`);
    expect(me.sessions.nodes).toEqual([{ id: grantee.sessionId, current: true }]);
    expect(me.accessGrants.nodes).toEqual([{ id: expect.any(Number), viewing: true }]);
  });

  it("never reads another person's rows, not even through their `User` object", async () => {
    const other = await seedDashboardPerson(app, 10);
    const caller = await seedUser(app);
    const own = await gql(app, '{ me { meals { nodes { id } } sessions { nodes { id } } } }', {
      token: caller.token,
    });
    expect(own.body.data.me.meals.nodes).toEqual([]);
    expect(own.body.data.me.sessions.nodes).toEqual([{ id: caller.sessionId }]);

    // a sign-in answers the other person's User object: its data fields are NOT_FOUND
    const res = await gql(
      app,
      `mutation ($input: LoginInput!) { webLogin(input: $input) {
         user { id meals { nodes { id } } personalTokens { nodes { id } } } } }`,
      {
        token: caller.token,
        headers: fromNewIp(),
        variables: { input: { email: other.user.email, password: other.password } },
      },
    );
    expect(res.body.data.webLogin.user.id).toBe(other.user.id);
    expect(res.body.data.webLogin.user.meals).toBeNull();
    expect(res.body.data.webLogin.user.personalTokens).toBeNull();
    expect(res.body.errors.map((e: any) => e.extensions.code)).toEqual(['NOT_FOUND', 'NOT_FOUND']);
  });
});
