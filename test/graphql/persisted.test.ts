/**
 * Persisted operations over POST /graphql (how the web dashboard calls): the sha256 of a manifest
 * entry's body runs that operation with the caller's credential; an unknown hash is refused with
 * the persisted-query-not-found error and runs nothing.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOperations } from '../../src/schema/operations.ts';
import { schema } from '../../src/schema/schema.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import type { JsonResponse } from '../harness/clients.ts';

const app = await startTestApp();

/** POSTs `{ extensions: { persistedQuery } }` (Apollo's format, version 1) with optional variables. */
async function persisted(
  sha256Hash: string,
  options: { token?: string; variables?: Record<string, unknown> } = {},
): Promise<JsonResponse> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/graphql-response+json',
  };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await app.fetch('/graphql', {
    method: 'POST',
    headers,
    body: JSON.stringify({
      variables: options.variables,
      extensions: { persistedQuery: { version: 1, sha256Hash } },
    }),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

function idOf(name: string): string {
  const op = app.operations.byName.get(name);
  if (!op) throw new Error(`no operation ${name} in the manifest`);
  return op.id;
}

describe('persisted operations on /graphql', () => {
  it('validates and compiles every operation of the manifest (done on first use at run time)', () => {
    expect(() => app.operations.checkAll()).not.toThrow();
    const dir = mkdtempSync(path.join(tmpdir(), 'hdp-manifest-'));
    try {
      const file = path.join(dir, 'operations.json');
      const body = 'query Broken { me { noSuchField } }';
      const op = { id: 'x', name: 'Broken', type: 'query', body };
      writeFileSync(
        file,
        JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [op] }),
      );
      const broken = loadOperations(schema, file);
      expect(() => broken.checkAll()).toThrow(/operation Broken does not match the schema/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('identifies each operation by the sha256 of its manifest body', () => {
    for (const op of app.operations.byName.values()) {
      expect(op.id).toBe(createHash('sha256').update(op.body).digest('hex'));
    }
  });

  it('runs me by its hash with a bearer token', async () => {
    const { user, token } = await seedUser(app);
    const res = await persisted(idOf('me'), { token });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.me).toMatchObject({
      id: user.id,
      email: user.email,
      onboardingCompleted: false,
    });
  });

  it('runs a persisted mutation with variables', async () => {
    const { token } = await seedUser(app);
    const res = await persisted(idOf('updateProfile'), {
      token,
      variables: { input: { timezone: 'Europe/Berlin' } },
    });
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data.updateProfile.timezone).toBe('Europe/Berlin');
  });

  it('runs a persisted query over GET too', async () => {
    const { token } = await seedUser(app);
    const extensions = JSON.stringify({
      persistedQuery: { version: 1, sha256Hash: idOf('me') },
    });
    const res = await app.fetch(`/graphql?extensions=${encodeURIComponent(extensions)}`, {
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.me.id).toEqual(expect.any(Number));
  });

  it('keeps the field rules: no credential is UNAUTHENTICATED', async () => {
    const res = await persisted(idOf('me'));
    expect(res.body.data?.me ?? null).toBeNull();
    expect(res.body.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('answers persisted-query-not-found for an unknown hash', async () => {
    const { token } = await seedUser(app);
    const res = await persisted('0'.repeat(64), { token });
    expect(res.body.data).toBeUndefined();
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: 'PersistedQueryNotFound',
        extensions: expect.objectContaining({ code: 'PERSISTED_QUERY_NOT_IN_LIST' }),
      }),
    ]);
  });
});
