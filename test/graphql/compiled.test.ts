/**
 * Issue 4: executeOperation runs the persisted operations compiled (graphql-jit). These tests run
 * the same operation, variables and context through graphql-js (how executeOperation ran before,
 * and how yoga's /graphql still runs) and through executeOperation, and expect the same answer:
 * the same data (compared as the REST wire text, snake_case keys in order) and the same errors
 * (message, path, extensions) after masking.
 */
import { execute, getVariableValues, OperationTypeNode } from 'graphql';
import { describe, expect, it, vi } from 'vitest';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { maskError } from '../../src/base/errors.ts';
import type { Context } from '../../src/graphql/context.ts';
import { schema } from '../../src/schema/schema.ts';
import { snakeKeys } from '../../src/base/wire.ts';
import { seedUser, serviceContext } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

/** graphql-js execution of a persisted operation, masked like executeOperation masks. */
async function referenceExecute(
  name: string,
  variables: Record<string, unknown>,
  ctx: Context,
): Promise<{ data: unknown; errors: unknown[] }> {
  const op = app.operations.byName.get(name)!;
  const coerced = getVariableValues(schema, op.variables, variables);
  if (coerced.errors) return { data: null, errors: coerced.errors.map((e) => e.message) };
  const result = await execute({
    schema,
    document: op.document,
    variableValues: variables,
    contextValue: ctx,
  });
  return {
    data: result.data ?? null,
    errors: (result.errors ?? []).map((e) => maskError(e, ctx.requestId)),
  };
}

/** The comparable form of an answer: the wire text of the data, and each error's message, path and extensions. */
function comparable(result: { data: unknown; errors: unknown[] }): {
  wire: string;
  errors: unknown[];
} {
  return {
    wire: JSON.stringify(snakeKeys(result.data)),
    errors: result.errors.map((e) =>
      typeof e === 'string'
        ? e
        : {
            message: (e as Error).message,
            path: (e as { path?: unknown }).path,
            extensions: (e as { extensions?: unknown }).extensions,
          },
    ),
  };
}

function contextOf(userId: number | null, scopes: ReadonlySet<Scope> = ALL_SCOPES): Context {
  const ctx = { ...serviceContext(app), requestId: 'req-compiled', via: 'rest' as const };
  if (userId === null) return ctx;
  return {
    ...ctx,
    principal: { kind: 'personal_token', userId, tokenId: 1, isAdmin: false, scopes },
  };
}

/**
 * Runs both ways with the clock of this process stopped (windows such as "the last 24 hours" end
 * now); `normalise` blanks what the database's own clock puts in an answer (sync snapshot times).
 */
async function expectSameAnswer(
  name: string,
  variables: Record<string, unknown>,
  ctx: () => Context,
  normalise: (wire: string) => string = (w) => w,
): Promise<{ wire: string; errors: unknown[] }> {
  // NOTE: the wall clock, stopped: src/base/clock.ts adds its own setting on top of it
  // eslint-disable-next-line no-restricted-syntax
  vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
  let reference: { wire: string; errors: unknown[] };
  let compiled: Awaited<ReturnType<typeof app.operations.execute>>;
  try {
    reference = comparable(await referenceExecute(name, variables, ctx()));
    compiled = await app.operations.execute(name, variables, ctx());
  } finally {
    vi.useRealTimers();
  }
  // executeOperation turns coercion errors into one VALIDATION_FAILED; compare those by their presence
  const actual = comparable(
    compiled.errors.length &&
      compiled.errors[0].extensions?.code === 'VALIDATION_FAILED' &&
      typeof reference.errors[0] === 'string'
      ? { data: compiled.data, errors: reference.errors }
      : compiled,
  );
  expect({ ...actual, wire: normalise(actual.wire) }).toEqual({
    ...reference,
    wire: normalise(reference.wire),
  });
  return actual;
}

describe('compiled persisted operations (issue 4)', () => {
  it('answers glucoseReadings exactly like graphql-js, defaults, sort and sensor filter included', async () => {
    const { user, token } = await seedUser(app);
    const start = clock.ms() - 100 * 300_000;
    const readings = Array.from({ length: 100 }, (_, i) => ({
      sensor_id: 1 + (i % 2),
      timestamp: new Date(start + i * 300_000).toISOString(),
      value_mg_dl: 70 + ((i * 37) % 150) + 0.5,
    }));
    const res = await app.fetch('/api/glucose/readings/batch', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(readings),
    });
    expect(await res.json()).toBe(100);
    const ctx = () => contextOf(user.id);
    const all = await expectSameAnswer('glucoseReadings', {}, ctx);
    expect(JSON.parse(all.wire).glucose_readings).toHaveLength(100);
    expect(JSON.parse(all.wire).glucose_readings[0]).toEqual({
      id: `g:${user.id}:2:${Date.parse(readings[99].timestamp)}`,
      sensor_id: 2,
      timestamp: readings[99].timestamp,
      value_mg_dl: readings[99].value_mg_dl,
      source: 'cgm',
      processing_version: null,
    });
    await expectSameAnswer(
      'glucoseReadings',
      { sort: 'asc', limit: 7, sensorId: 2, sinceHours: 48 },
      ctx,
    );
    await expectSameAnswer('glucoseTrends', {}, ctx);
    await expectSameAnswer('glucoseTrends', { startDate: new Date(start).toISOString() }, ctx);
    await expectSameAnswer('cgmSensors', {}, ctx);
  });

  it('refuses exactly like graphql-js: no caller, a missing scope, a failed validation, a bad variable', async () => {
    const { user } = await seedUser(app);
    const anonymous = await expectSameAnswer('glucoseReadings', {}, () => contextOf(null));
    expect(anonymous.errors).toMatchObject([{ extensions: { code: 'UNAUTHENTICATED' } }]);
    const scoped = await expectSameAnswer('glucoseReadings', {}, () =>
      contextOf(user.id, new Set<Scope>(['profile:read' as Scope])),
    );
    expect(scoped.errors).toMatchObject([{ extensions: { code: 'INSUFFICIENT_SCOPE' } }]);
    const invalid = await expectSameAnswer('glucoseReadings', { limit: 0 }, () =>
      contextOf(user.id),
    );
    expect(invalid.errors).toMatchObject([{ extensions: { code: 'VALIDATION_FAILED' } }]);
    const trends = await expectSameAnswer(
      'glucoseTrends',
      { startDate: '2030-01-01', endDate: '2029-01-01' },
      () => contextOf(user.id),
    );
    expect(trends.errors).toMatchObject([{ extensions: { code: 'VALIDATION_FAILED' } }]);
    await expectSameAnswer('glucoseReadings', { limit: 'many' }, () => contextOf(user.id));
  });

  it('masks an unexpected error exactly like graphql-js', async () => {
    const { user } = await seedUser(app);
    const broken = () => ({
      ...contextOf(user.id),
      prisma: new Proxy(app.db.prisma, {
        get: (target, prop) =>
          prop === '$queryRawUnsafe' || prop === '$queryRaw'
            ? () => Promise.reject(new Error('db password is hunter2'))
            : Reflect.get(target, prop),
      }),
    });
    const masked = await expectSameAnswer('glucoseReadings', {}, broken);
    expect(masked.errors).toEqual([
      {
        message: 'Internal Server Error',
        path: ['glucoseReadings'],
        extensions: { code: 'INTERNAL', requestId: 'req-compiled' },
      },
    ]);
    expect(masked.wire).toBe('null');
  });

  it('answers every persisted query exactly like graphql-js, signed in and anonymous', async () => {
    const { user } = await seedUser(app);
    const required: Record<string, Record<string, unknown>> = {
      healthMetrics: { metricType: 'heart_rate' },
      syncedRecords: { table: 'journal_entries' },
    };
    const queries = [...app.operations.byName.values()].filter(
      (op) => op.definition.operation === OperationTypeNode.QUERY,
    );
    expect(queries.length).toBeGreaterThan(10);
    for (const op of queries) {
      const variables = required[op.name] ?? {};
      const normalise = (wire: string): string => wire.replace(/"timestamp":\d+/g, '"timestamp":0');
      await expectSameAnswer(op.name, variables, () => contextOf(user.id), normalise);
      await expectSameAnswer(op.name, variables, () => contextOf(null), normalise);
    }
  });
});
