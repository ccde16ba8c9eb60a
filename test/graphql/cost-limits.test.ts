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
import { rawRequest } from '../harness/raw-http.ts';
import { BODY_LIMIT_BYTES } from '../../src/platform/input-guards.ts';

const app = await startTestApp();
const person = await seedUser(app);
const limits = documentLimitsOf(testConfig());

const GRAPHQL_RESPONSE = { accept: 'application/graphql-response+json' };
const JSON_BODY = { 'content-type': 'application/json' };

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
    expect(limits).toEqual({
      depth: 10,
      aliases: 15,
      tokens: 1000,
      cost: 20_000,
      directives: 20,
      chars: 50_000,
    });
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

describe('comments, long documents and large bodies (issue 45)', () => {
  const ids = (n: number): string => `{ me { ${'id '.repeat(n)}} }`; // n + 5 tokens

  it('counts comments toward GRAPHQL_MAX_TOKENS', async () => {
    // `{ me { id } }` is 6 tokens; each comment line is one more
    const commented = (comments: number): string =>
      `${'# a comment\n'.repeat(comments)}{ me { id } }`;
    expect(() => parseWithinLimits(commented(limits.tokens - 6), limits)).not.toThrow();
    expect(() => parseWithinLimits(commented(limits.tokens - 5), limits)).toThrow(/Token limit/);
    await expectAnswered(commented(limits.tokens - 6));
    await expectRefused(commented(limits.tokens - 5), 'tokens');
    // comments after the last token count too, and so do tokens before comments
    await expectRefused(`{ me { id } }\n${'#\n'.repeat(limits.tokens)}`, 'tokens');
    await expectRefused(`${ids(limits.tokens - 10)}\n${'#\n'.repeat(6)}`, 'tokens');
  });

  it('refuses a document longer than GRAPHQL_MAX_DOCUMENT_CHARS (one huge comment is one token)', async () => {
    const padded = (chars: number): string => {
      const query = '{ me { id } }\n#';
      return query + 'x'.repeat(chars - query.length);
    };
    expect(padded(limits.chars)).toHaveLength(limits.chars);
    expect(() => parseWithinLimits(padded(limits.chars), limits)).not.toThrow();
    expect(() => parseWithinLimits(padded(limits.chars + 1), limits)).toThrow(/characters/);
    await expectAnswered(padded(limits.chars));
    const res = await gql(app, padded(limits.chars + 1), {
      token: person.token,
      headers: GRAPHQL_RESPONSE,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        message: `Document too complex: Document longer than ${limits.chars} characters.`,
        extensions: {
          code: 'BAD_REQUEST',
          detail: {
            code: 'document_too_complex',
            limit: 'chars',
            chars: limits.chars + 1,
            max: limits.chars,
          },
        },
      },
    ]);
  });

  it('reads a body of up to 1 MiB, as REST does (variables fill it)', async () => {
    const body = (size: number): string => {
      const head = JSON.stringify({ query: '{ __typename }', variables: { pad: '' } });
      return head.replace('"pad":""', `"pad":"${'x'.repeat(size - head.length)}"`);
    };
    expect(body(BODY_LIMIT_BYTES)).toHaveLength(1024 * 1024);
    const send = (text: string) =>
      app.fetch('/graphql', { method: 'POST', headers: JSON_BODY, body: text });
    const fits = await send(body(BODY_LIMIT_BYTES));
    expect(fits.status).toBe(200);
    expect(await fits.json()).toEqual({ data: { __typename: 'Query' } });
    const over = await send(body(BODY_LIMIT_BYTES + 1));
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({
      errors: [
        {
          message: `Request body too large: at most ${BODY_LIMIT_BYTES} bytes (files go in a multipart upload)`,
          extensions: { code: 'PAYLOAD_TOO_LARGE' },
        },
      ],
    });
  });

  it('answers 413 to an anonymous 25 MB body before it is sent: at its declared length, or once 1 MiB has come', async () => {
    const MB = 1024 * 1024;
    // declared 25 MB, nothing sent: refused on the declaration alone
    const declared = await rawRequest(app.baseUrl, {
      method: 'POST',
      path: '/graphql',
      headers: JSON_BODY,
      body: '',
      contentLength: 25 * MB,
    });
    expect(declared.status, declared.error).toBe(413);
    expect(declared.headers.connection).toBe('close');
    // sent in chunks without a length (the limit is met as the bytes come): refused once 1 MiB
    // has passed, with 24 MB still unsent (they never come: a server reading on would wait)
    const chunked = await rawRequest(app.baseUrl, {
      method: 'POST',
      path: '/graphql',
      headers: JSON_BODY,
      body: `{"query":"{ __typename }","variables":{"pad":"${'x'.repeat(MB + 1024)}`,
      open: true,
    });
    expect(chunked.status, chunked.error).toBe(413);
    expect(JSON.parse(chunked.body).errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
  });
});
