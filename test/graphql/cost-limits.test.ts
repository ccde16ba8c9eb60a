/**
 * Issue 29, item 9: every document sent to POST /graphql has depth, alias, token, directive and
 * cost limits (GRAPHQL_MAX_*), refused with one clear error (400, BAD_REQUEST, detail.code
 * `document_too_complex`) before anything runs; every persisted operation, the documented dashboard
 * query, GraphiQL's admin query and its introspection fit them.
 */
import { readFileSync } from 'node:fs';
import { getIntrospectionQuery, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  documentLimitRules,
  documentLimitsOf,
  parseWithinLimits,
} from '../../src/graphql/document-limits.ts';
import { loadOperations } from '../../src/schema/operations.ts';
import { schema } from '../../src/schema/schema.ts';
import { GRAPHIQL_ADMIN_QUERY } from '../../src/schema/yoga.ts';
import { fromRoot } from '../../src/base/paths.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp, testConfig } from '../harness/app.ts';
import { gql } from '../harness/clients.ts';

const app = await startTestApp();
const person = await seedUser(app);
const limits = documentLimitsOf(testConfig());

const GRAPHQL_RESPONSE = { accept: 'application/graphql-response+json' };

/** The one refusal of an oversized document: 400 (GraphQL over HTTP), before any field ran. */
async function expectRefused(query: string, limit: string): Promise<void> {
  const res = await gql(app, query, { token: person.token, headers: GRAPHQL_RESPONSE });
  expect(res.status).toBe(400);
  expect(res.body.data).toBeUndefined();
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0].message).toMatch(/^Document too complex: /);
  expect(res.body.errors[0].extensions).toEqual({
    code: 'BAD_REQUEST',
    detail: { code: 'document_too_complex', limit },
  });
}

async function expectAnswered(query: string): Promise<void> {
  const res = await gql(app, query, { token: person.token });
  expect(res.body.errors).toBeUndefined();
  expect(res.status).toBe(200);
}

const aliases = (n: number, field: string): string =>
  `{ ${Array.from({ length: n }, (_, i) => `a${i}: ${field}`).join(' ')} }`;

/** A valid document `depth` levels deep: `me`, inline fragments (a level each), then `id`. */
function nested(depth: number): string {
  return `{ me { ${'... on User { '.repeat(depth - 2)}id${' }'.repeat(depth - 2)} } }`;
}

const READINGS = 'me { glucoseReadings(first: 500) { nodes { id timestamp valueMgDl } } }';

describe('GraphQL document limits (issue 29)', () => {
  it('are the documented defaults', () => {
    expect(limits).toEqual({ depth: 10, aliases: 15, tokens: 1000, cost: 20_000, directives: 20 });
  });

  it("refuses the issue's 400 aliases of `me { glucoseReadings(first: 500) }`, and 2,000 of `me`", async () => {
    await expectRefused(aliases(400, READINGS), 'tokens');
    await expectRefused(aliases(2000, 'me { id }'), 'tokens');
  });

  it('answers a client that accepts only application/json 200 with the error and no data', async () => {
    for (const query of [aliases(2000, 'me { id }'), aliases(limits.aliases + 1, 'me { id }')]) {
      const res = await gql(app, query, {
        token: person.token,
        headers: { accept: 'application/json' },
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        errors: [expect.objectContaining({ message: expect.any(String) })],
      });
      expect(res.body.errors[0].extensions.detail.code).toBe('document_too_complex');
    }
  });

  it('refuses more aliases than GRAPHQL_MAX_ALIASES', async () => {
    await expectAnswered(aliases(limits.aliases, 'me { id }'));
    await expectRefused(aliases(limits.aliases + 1, 'me { id }'), 'aliases');
  });

  it('refuses a deeper selection than GRAPHQL_MAX_DEPTH', async () => {
    await expectAnswered(nested(limits.depth));
    await expectRefused(nested(limits.depth + 1), 'depth');
  });

  it('refuses a document of more tokens than GRAPHQL_MAX_TOKENS, while it is parsed', async () => {
    const ids = (n: number): string => `{ me { ${'id '.repeat(n)}} }`; // n + 5 tokens
    expect(() => parseWithinLimits(ids(limits.tokens - 5), limits)).not.toThrow();
    expect(() => parseWithinLimits(ids(limits.tokens - 4), limits)).toThrow(/Token limit/);
    await expectRefused(ids(limits.tokens - 4), 'tokens');
  });

  it('refuses more directives than GRAPHQL_MAX_DIRECTIVES', async () => {
    const included = (n: number): string => `{ me { ${'id @include(if: true) '.repeat(n)}} }`;
    await expectAnswered(included(limits.directives));
    await expectRefused(included(limits.directives + 1), 'directives');
  });

  it('refuses a document whose estimated cost is over GRAPHQL_MAX_COST (page sizes count)', async () => {
    // issue 30: a list costs its page size times one node (test/graphql/dashboard-week.test.ts)
    const week = 'me { glucoseReadings(first: 10000) { nodes { id timestamp valueMgDl } } }';
    await expectAnswered(`{ ${week} }`);
    const res = await gql(app, aliases(2, week), {
      token: person.token,
      headers: GRAPHQL_RESPONSE,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.detail).toEqual({
      code: 'document_too_complex',
      limit: 'cost',
      cost: 2 * (1 + 1 + 10_000),
      max: limits.cost,
    });
  });

  it("lets the documented dashboard query and GraphiQL's admin query through", async () => {
    const dashboard = readFileSync(fromRoot('docs', 'graphql.md'), 'utf8').match(
      /```graphql\n(query Dashboard[\s\S]*?)```/,
    )?.[1];
    expect(dashboard).toBeDefined();
    await expectAnswered(dashboard!);
    const admin = await gql(app, GRAPHIQL_ADMIN_QUERY, { token: person.token });
    // refused for a non-admin by its scopes, not by its size
    expect(admin.body.errors?.[0].extensions.code).toBe('FORBIDDEN');
  });

  it("lets GraphiQL's introspection through (`__schema` is free of depth and cost)", async () => {
    const introspection = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const res = await gql(app, introspection);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.__schema.queryType.name).toBe('Query');
  });

  it('are met by every persisted operation (REST, MCP and the dashboard name them)', () => {
    const operations = [...loadOperations(schema).byName.values()];
    expect(operations.length).toBeGreaterThan(100);
    const rules = documentLimitRules(limits);
    const over = operations.flatMap((op) => {
      const document = parseWithinLimits(op.body, limits);
      return validate(schema, document, rules).map((e) => `${op.name}: ${e.message}`);
    });
    expect(over).toEqual([]);
  });
});
