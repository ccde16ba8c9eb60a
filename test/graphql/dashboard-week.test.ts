/**
 * Issue 30, item 9: the dashboard reads a week in one request. `me { glucoseReadings }` pages up to
 * a week of one-minute readings and takes a window `from`/`to`, as `me { meals }` does; what bounds
 * a document is its cost with its variables (src/graphql/query-cost.ts), refused over
 * GRAPHQL_MAX_COST; and the SQL statements of each /graphql operation are on /metrics
 * (`graphql_request_db_statements`), matching what the statement-counting harness sees.
 */
import { randomUUID } from 'node:crypto';
import { parse } from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { operationCost } from '../../src/graphql/query-cost.ts';
import { loadOperations } from '../../src/schema/operations.ts';
import { schema } from '../../src/schema/schema.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { openTestDatabase, startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { mcpPost, rpc } from '../harness/mcp.ts';
import { countingDatabase } from '../harness/sql-count.ts';
import { clock } from '../../src/base/clock.ts';

const { database, counter } = countingDatabase(await openTestDatabase());
afterAll(() => database.close()); // registered first, so it runs after the app has closed
const app = await startTestApp({}, { database });

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
const MAX_COST = 20_000;
const GRAPHQL_RESPONSE = { accept: 'application/graphql-response+json' };

const WEEK = `query Week($from: DateTime!, $to: DateTime!, $readings: Int!, $meals: Int!) {
  me {
    glucoseReadings(from: $from, to: $to, first: $readings, sort: "asc") {
      nodes { timestamp valueMgDl }
      pageInfo { hasNextPage endCursor }
    }
    meals(from: $from, to: $to, first: $meals) {
      nodes { id eatenAt items { name grams food { fdcId description } } }
      pageInfo { hasNextPage endCursor }
    }
  }
}`;

/** A week (from a whole hour eight days ago) of 5-minute readings and five meals a day. */
async function seedWeek() {
  const person = await seedUser(app);
  const userId = person.user.id;
  const from = new Date(Math.floor((clock.ms() - 8 * DAY) / (60 * MINUTE)) * 60 * MINUTE);
  const to = new Date(from.getTime() + 7 * DAY);
  const inWeek = Array.from({ length: 2016 }, (_, i) => new Date(from.getTime() + i * 5 * MINUTE));
  // one reading just before the window and one at its (exclusive) end: neither is in the week
  const outside = [new Date(from.getTime() - 5 * MINUTE), to];
  const readings = [...inWeek, ...outside].map((timestamp, i) => ({
    timestamp,
    valueMgDl: 80 + (i % 100),
    source: 'cgm',
  }));
  const stored = await gql(
    app,
    'mutation ($r: [GlucoseReadingInput!]!) { createGlucoseReadingsBatch(readings: $r) }',
    { token: person.token, variables: { r: readings } },
  );
  expect(stored.body.data.createGlucoseReadingsBatch).toBe(2018);

  const p = app.db.prisma;
  const foods = Array.from({ length: 10 }, (_, i) => `week-${userId}-${i}`);
  await p.food.createMany({
    data: foods.map((id, i) => ({ id, source: 'usda_foundation', description: `Food ${i}` })),
  });
  const mealTimes = [
    ...Array.from(
      { length: 35 },
      (_, i) =>
        from.getTime() + Math.floor(i / 5) * DAY + 7 * 60 * MINUTE + (i % 5) * 3 * 60 * MINUTE,
    ),
    from.getTime() - MINUTE,
    to.getTime(),
  ];
  const meals = mealTimes.map((at, i) => ({
    id: randomUUID(),
    userId,
    mealName: `Meal ${i}`,
    eatenAt: new Date(at),
  }));
  await p.meal.createMany({ data: meals });
  await p.mealItem.createMany({
    data: meals.flatMap((m, i) =>
      [foods[i % 10], foods[(i + 1) % 10]].map((foodId) => ({
        id: randomUUID(),
        userId,
        mealId: m.id,
        foodId,
        name: foodId,
        grams: 100,
      })),
    ),
  });
  return { person, from, to, inWeek, weekMeals: meals.slice(0, 35) };
}

const seeded = await seedWeek();

/** The statements one request sends (the harness's own count), and its answer. */
async function counted(query: string, variables: Record<string, unknown> = {}) {
  counter.reset();
  const res = await gql(app, query, { token: seeded.person.token, variables });
  return { statements: [...counter.statements], res };
}

/** The refusal of a document over the cost limit, with the cost it found. */
async function expectTooCostly(
  query: string,
  variables: Record<string, unknown>,
  cost: number,
): Promise<void> {
  const res = await gql(app, query, {
    token: seeded.person.token,
    variables,
    headers: GRAPHQL_RESPONSE,
  });
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toHaveLength(1);
  const [error] = res.body.errors;
  expect(error.message).toBe(
    `Document too complex: its cost is ${cost.toLocaleString('en-US')}, over the limit of 20,000 ` +
      '(objects it can answer: each list counts its page size times the cost of one element; ask ' +
      'smaller pages or fewer lists)',
  );
  expect(error.extensions).toEqual({
    code: 'BAD_REQUEST',
    detail: { code: 'document_too_complex', limit: 'cost', cost, max: MAX_COST },
  });
}

describe('a week of the dashboard in one request (issue 30, item 9)', () => {
  const variables = {
    from: seeded.from.toISOString(),
    to: seeded.to.toISOString(),
    readings: 2016,
    meals: 100,
  };

  it('answers 7 days of 5-minute readings (2,016) and the week of meals, all of them', async () => {
    const { res } = await counted(WEEK, variables);
    expect(res.status).toBe(200);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const { glucoseReadings, meals } = res.body.data.me;
    expect(glucoseReadings.nodes).toHaveLength(2016);
    expect(glucoseReadings.pageInfo).toEqual({ hasNextPage: false, endCursor: null });
    expect(glucoseReadings.nodes.map((r: any) => r.timestamp)).toEqual(
      seeded.inWeek.map((d) => d.toISOString()),
    );
    expect(meals.nodes.map((m: any) => m.id).sort()).toEqual(
      seeded.weekMeals.map((m) => m.id).sort(),
    );
    expect(meals.pageInfo.hasNextPage).toBe(false);
    const items = meals.nodes.flatMap((m: any) => m.items);
    expect(items).toHaveLength(70);
    expect(items.every((i: any) => i.food?.fdcId === i.name)).toBe(true);
  });

  it('costs a fixed, small number of SQL statements, the same for a day as for the week', async () => {
    await counted(WEEK, variables); // warm: the credential is then served from its cache
    const week = await counted(WEEK, variables);
    const day = await counted(WEEK, {
      ...variables,
      to: new Date(seeded.from.getTime() + DAY).toISOString(),
    });
    expect(day.res.body.data.me.glucoseReadings.nodes).toHaveLength(288);
    expect(day.res.body.data.me.meals.nodes).toHaveLength(5);
    if (process.env.SHOW_SQL) console.info(week.statements.map((s) => s.slice(0, 100)).join('\n'));
    // 1 for `me`, 1 for the readings, 2 for the meals and their items, 1 for all the items' foods
    // (one DataLoader batch); the credential comes from its cache
    expect(week.statements).toHaveLength(5);
    expect(day.statements).toHaveLength(week.statements.length);
    expect(week.statements.filter((sql) => /FROM foods f/.test(sql))).toHaveLength(1);
  });

  it('pages on past the week with after, and refuses a window whose end is not after its start', async () => {
    const first = await gql(app, WEEK, {
      token: seeded.person.token,
      variables: { ...variables, readings: 2000 },
    });
    const page = first.body.data.me.glucoseReadings;
    expect(page.pageInfo.hasNextPage).toBe(true);
    const rest = await gql(
      app,
      `query ($from: DateTime!, $to: DateTime!, $after: String) { me {
        glucoseReadings(from: $from, to: $to, first: 100, sort: "asc", after: $after) {
          nodes { timestamp } pageInfo { hasNextPage } } } }`,
      {
        token: seeded.person.token,
        variables: { from: variables.from, to: variables.to, after: page.pageInfo.endCursor },
      },
    );
    expect(rest.body.data.me.glucoseReadings.nodes.map((r: any) => r.timestamp)).toEqual(
      seeded.inWeek.slice(2000).map((d) => d.toISOString()),
    );

    for (const list of ['glucoseReadings', 'meals']) {
      const res = await gql(
        app,
        `query ($from: DateTime!, $to: DateTime!) { me { ${list}(from: $from, to: $to) { nodes { id } } } }`,
        { token: seeded.person.token, variables: { from: variables.to, to: variables.from } },
      );
      expect(res.body.errors[0].extensions.code, list).toBe('VALIDATION_FAILED');
      expect(res.body.errors[0].extensions.detail[0].loc, list).toEqual(['to']);
      expect(res.body.data.me[list]).toBeNull();
    }
  });

  it('keeps the deprecated startMs/endMs of meals, but not mixed with from/to', async () => {
    const q = `query ($s: Float, $e: Float, $from: DateTime) {
      me { meals(startMs: $s, endMs: $e, from: $from, first: 100) { nodes { id } } } }`;
    const window = { s: seeded.from.getTime(), e: seeded.to.getTime() };
    const old = await gql(app, q, { token: seeded.person.token, variables: window });
    expect(old.body.errors).toBeUndefined();
    expect(old.body.data.me.meals.nodes).toHaveLength(35);
    const mixed = await gql(app, q, {
      token: seeded.person.token,
      variables: { ...window, from: variables.from },
    });
    expect(mixed.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    expect(mixed.body.errors[0].extensions.detail[0].loc).toEqual(['startMs']);
  });

  it("reads a window of dates alone as the person's local days", async () => {
    const person = await seedUser(app);
    await app.db.prisma.user.update({
      where: { id: person.user.id },
      data: { timezone: 'Europe/Berlin' },
    });
    // Berlin's 2026-11-23 runs from 23:00 UTC the day before (UTC+1 in November)
    const meals = ['2026-11-22T22:30:00Z', '2026-11-22T23:30:00Z', '2026-11-23T22:30:00Z'].map(
      (at, i) => ({
        id: randomUUID(),
        userId: person.user.id,
        mealName: `M${i}`,
        eatenAt: new Date(at),
      }),
    );
    await app.db.prisma.meal.createMany({ data: meals });
    const res = await gql(
      app,
      '{ me { meals(from: "2026-11-23", to: "2026-11-24") { nodes { mealName } } } }',
      { token: person.token },
    );
    expect(res.body.errors).toBeUndefined();
    // Berlin's 2026-11-23 holds M1 (00:30) and M2 (23:30), not M0 (23:30 the day before); the
    // UTC day would hold M2 alone
    expect(res.body.data.me.meals.nodes).toEqual([{ mealName: 'M2' }, { mealName: 'M1' }]);
  });

  it('bounds each page by its own maximum: 10,080 readings, 500 meals', async () => {
    const q = (list: string, first: number) =>
      gql(app, `{ me { ${list}(first: ${first}) { nodes { id } } } }`, {
        token: seeded.person.token,
      });
    expect((await q('glucoseReadings', 10_080)).body.errors).toBeUndefined();
    expect((await q('glucoseReadings', 10_081)).body.errors[0].extensions.code).toBe(
      'VALIDATION_FAILED',
    );
    expect((await q('meals', 500)).body.errors).toBeUndefined();
    expect((await q('meals', 501)).body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });

  it('costs less than half the limit when written with literals', () => {
    const literal = WEEK.replace(
      'query Week($from: DateTime!, $to: DateTime!, $readings: Int!, $meals: Int!)',
      'query Week($from: DateTime!, $to: DateTime!)',
    )
      .replace('$readings', '2016')
      .replace('$meals', '100');
    expect(operationCost(schema, parse(literal), 'Week')).toBeLessThan(MAX_COST / 2);
  });
});

describe('the cost limit (issue 30, item 9)', () => {
  const readingLists = (first: string) =>
    `a: glucoseReadings(first: ${first}, sinceHours: 240) { nodes { id } }
     b: glucoseReadings(first: ${first}, sinceHours: 240) { nodes { id } }`;
  const twoLiteralLists = `{ me { ${readingLists('10080')} } }`;
  const twoVariableLists = `query ($n: Int!) { me { ${readingLists('$n')} } }`;

  it('refuses two lists of 10,080 readings, and tells the cost and the limit', async () => {
    // `me` 1, each list 1 + 10,080 readings
    await expectTooCostly(twoLiteralLists, {}, 1 + 2 * (1 + 10_080));
  });

  it('counts a page size given by a variable, which the rule before let through as 1', async () => {
    const query = twoVariableLists;
    await expectTooCostly(query, { n: 10_080 }, 1 + 2 * (1 + 10_080));
    // the variable's default counts too when the variable is left out
    await expectTooCostly(query.replace('$n: Int!', '$n: Int! = 10080'), {}, 1 + 2 * (1 + 10_080));
    const fine = await gql(app, query, { token: seeded.person.token, variables: { n: 2016 } });
    expect(fine.body.errors).toBeUndefined();
    expect(fine.body.data.me.a.nodes).toHaveLength(2016);
  });

  it('refuses many large lists of nested objects (meals, their items and foods)', async () => {
    const meals = (alias: string) =>
      `${alias}: meals(first: $n) { nodes { id items { name food { fdcId } } } }`;
    const query = `query ($n: Int!) { me { ${['a', 'b'].map(meals).join(' ')} } }`;
    // each meal 1 + 10 items (a list without a page size counts 10) of 1 + their food 1
    await expectTooCostly(query, { n: 500 }, 1 + 2 * (1 + 500 * (1 + 10 * 2)));
    const one = await gql(app, `query ($n: Int!) { me { ${meals('a')} } }`, {
      token: seeded.person.token,
      variables: { n: 500 },
    });
    expect(one.body.errors).toBeUndefined();
  });

  it('answers a client that accepts only application/json 200 with the refusal and no data', async () => {
    const res = await gql(app, twoLiteralLists, {
      token: seeded.person.token,
      headers: { accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors[0].extensions.detail).toMatchObject({ limit: 'cost' });
  });

  it('counts fragments as written out, and the root lists by their limit', () => {
    const written =
      '{ me { glucoseReadings(first: 300) { nodes { id } pageInfo { endCursor } } } }';
    const fragments = `query { me { ...Lists } }
      fragment Lists on User { glucoseReadings(first: 300) { ... on GlucoseReadingConnection { nodes { ...R } } pageInfo { endCursor } } }
      fragment R on GlucoseReading { id __typename }`;
    expect(operationCost(schema, parse(written), null)).toBe(1 + 1 + 300 + 1);
    expect(operationCost(schema, parse(fragments), null)).toBe(1 + 1 + 300 + 1);
    expect(operationCost(schema, parse('{ glucoseReadings(limit: 50000) { id } }'), null)).toBe(
      50_000,
    );
    expect(operationCost(schema, parse('{ glucoseReadings { id } }'), null)).toBe(500);

    // spreads nested 8 deep, 20 to a level: 20^8 paths to the meals, each fragment walked once
    const levels = Array.from(
      { length: 8 },
      (_, i) => `fragment F${i} on User { ${`...F${i + 1} `.repeat(20)}}`,
    );
    const bomb = `{ me { ...F0 } } ${levels.join(' ')} fragment F8 on User { meals(first: 1) { nodes { id } } }`;
    expect(operationCost(schema, parse(bomb), null)).toBe(1 + 20 ** 8 * 2);
  });

  it('does not count a persisted operation: its arguments are bounded by the schema', async () => {
    const operations = loadOperations(schema);
    const op = operations.byName.get('glucoseReadings')!;
    const variables = { sinceHours: 24 * 10, limit: 50_000 };
    expect(operationCost(schema, op.document, op.name, variables)).toBeGreaterThan(MAX_COST);
    const res = await app.fetch('/graphql', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${seeded.person.token}`,
      },
      body: JSON.stringify({
        variables,
        extensions: { persistedQuery: { version: 1, sha256Hash: op.id } },
      }),
    });
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.glucoseReadings).toHaveLength(2018);
    // the same document sent as text is a client's own: counted, and refused
    const asText = await gql(app, op.body, { token: seeded.person.token, variables });
    expect(asText.body.errors[0].extensions.detail.limit).toBe('cost');
  });
});

/** The samples of `graphql_request_db_statements` for one door and operation type: count and sum. */
async function statementSamples(
  type: string,
  door: 'graphql' | 'rest' | 'mcp' = 'graphql',
): Promise<{ count: number; sum: number }> {
  const res = await app.fetch('/metrics');
  expect(res.status).toBe(200);
  const text = await res.text();
  const value = (suffix: string): number => {
    const line = text
      .split('\n')
      .find((l) =>
        l.startsWith(
          `graphql_request_db_statements_${suffix}{door="${door}",operation_type="${type}"} `,
        ),
      );
    return line ? Number(line.split(' ').at(-1)) : 0;
  };
  return { count: value('count'), sum: value('sum') };
}

describe('graphql_request_db_statements on /metrics (issue 30, item 9)', () => {
  it('is a histogram by door and operation type', async () => {
    const text = await (await app.fetch('/metrics')).text();
    expect(text).toContain('# TYPE graphql_request_db_statements histogram');
  });

  it('counts one observation per operation, of the statements the harness saw it send', async () => {
    const before = await statementSamples('query');
    const { statements, res } = await counted(WEEK, {
      from: seeded.from.toISOString(),
      to: seeded.to.toISOString(),
      readings: 2016,
      meals: 100,
    });
    expect(res.body.errors).toBeUndefined();
    const after = await statementSamples('query');
    expect(after.count - before.count).toBe(1);
    expect(after.sum - before.sum).toBe(statements.length);
    expect(statements.length).toBeGreaterThan(0);
  });

  it('labels a mutation as a mutation, and a document refused before it ran as none', async () => {
    const mutations = await statementSamples('mutation');
    const { statements } = await counted(
      'mutation ($r: [GlucoseReadingInput!]!) { createGlucoseReadingsBatch(readings: $r) }',
      {
        r: [{ timestamp: new Date(clock.ms() - DAY).toISOString(), valueMgDl: 101, source: 'cgm' }],
      },
    );
    const afterMutation = await statementSamples('mutation');
    expect(afterMutation.count - mutations.count).toBe(1);
    expect(afterMutation.sum - mutations.sum).toBe(statements.length);

    const none = await statementSamples('none');
    await counted(
      '{ me { a: glucoseReadings(first: 10080) { nodes { id } } b: glucoseReadings(first: 10080) { nodes { id } } } }',
    );
    await counted('{ me { nope } }');
    expect((await statementSamples('none')).count - none.count).toBe(2);
  });
});

describe('graphql_request_db_statements for the REST and MCP doors', () => {
  /** The observation one request adds under `door` and `type`: what the harness saw it send. */
  async function expectObserved(
    door: 'rest' | 'mcp',
    type: string,
    send: () => Promise<{ status: number }>,
  ): Promise<number> {
    const before = await statementSamples(type, door);
    counter.reset();
    const res = await send();
    const sent = counter.statements.length;
    expect(res.status).toBeLessThan(300);
    const after = await statementSamples(type, door);
    expect(after.count - before.count).toBe(1);
    expect(after.sum - before.sum).toBe(sent);
    return sent;
  }

  it('counts a REST read and a REST write with a body, with their authentication', async () => {
    const token = seeded.person.token;
    const read = await expectObserved('rest', 'query', () =>
      rest(app, 'GET', '/api/auth/me', { token }),
    );
    expect(read).toBeGreaterThan(0);
    const write = await expectObserved('rest', 'mutation', () =>
      rest(app, 'POST', '/api/glucose/readings', {
        token,
        body: { value_mg_dl: 104, timestamp: clock.now().toISOString(), source: 'manual' },
      }),
    );
    expect(write).toBeGreaterThan(0);
  });

  it('counts an MCP tool call, its authentication before the body and its operation after', async () => {
    const token = await seedPersonalToken(app, seeded.person.user.id, ['profile:read']);
    const sent = await expectObserved('mcp', 'query', () =>
      mcpPost(app, rpc('tools/call', { name: 'get_profile', arguments: {} }), { token }),
    );
    // the personal token's lookup (and its second look) and the profile read
    expect(sent).toBeGreaterThanOrEqual(2);
  });

  it('costs an MCP read what the REST read costs once both credentials are cached (no zone read)', async () => {
    const token = await seedPersonalToken(app, seeded.person.user.id, ['profile:read']);
    const mcp = () =>
      mcpPost(app, rpc('tools/call', { name: 'get_profile', arguments: {} }), { token });
    const me = () => rest(app, 'GET', '/api/auth/me', { token: seeded.person.token });
    await mcp();
    await me();
    const viaMcp = await expectObserved('mcp', 'query', mcp);
    const viaRest = await expectObserved('rest', 'query', me);
    expect(viaMcp).toBe(viaRest);
  });

  it('labels a refused REST request none: nothing ran', async () => {
    await expectObserved('rest', 'none', async () => {
      const res = await rest(app, 'GET', '/api/auth/me', {});
      expect(res.status).toBe(401);
      return { status: 200 };
    });
  });
});
