import { describe, expect, it } from 'vitest';
import { httpAnswerFor } from '../rest-facade/http-errors.ts';
import { createIdentityProviders } from '../src/integrations/idp.ts';
import { createMailer } from '../src/integrations/mailer.ts';
import { createStorage } from '../src/integrations/storage.ts';
import { createLogger } from '../src/base/logger.ts';
import { createContextAs } from '../src/graphql/context.ts';
import { ALL_SCOPES } from '../src/auth/scopes.ts';
import { startTestApp } from './harness/app.ts';

const app = await startTestApp();

describe('error masking', () => {
  it('masks an unexpected error as INTERNAL with the request id, and REST answers 500', async () => {
    const broken = new Proxy(app.db.prisma, {
      get: (target, prop) =>
        prop === 'user'
          ? { findUniqueOrThrow: () => Promise.reject(new Error('db password is hunter2')) }
          : Reflect.get(target, prop),
    });
    const deps = {
      prisma: broken,
      config: app.config,
      mailer: createMailer(app.config, createLogger('silent')),
      storage: createStorage(app.config),
      idp: createIdentityProviders(app.config),
      limits: app.limits,
      models: null,
      jobs: app.deps.jobs,
      credentials: app.deps.credentials,
    };
    const request = {
      requestId: 'req-123',
      log: createLogger('silent'),
      ip: null,
      userAgent: null,
      via: 'rest' as const,
    };
    const ctx = createContextAs(deps, request, {
      kind: 'session' as const,
      userId: 1,
      sessionId: 's',
      sessionKind: 'native' as const,
      isAdmin: false,
      scopes: ALL_SCOPES,
    });
    const result = await app.operations.execute('me', {}, ctx);
    expect(result.errors).toHaveLength(1);
    expect(result.errors[0].message).toBe('Internal Server Error');
    expect(result.errors[0].extensions).toEqual({ code: 'INTERNAL', requestId: 'req-123' });
    const answer = httpAnswerFor(result.errors[0], { variables: new Map() });
    expect(answer).toEqual({
      status: 500,
      headers: {},
      body: { detail: 'Internal Server Error', request_id: 'req-123' },
    });
    expect(JSON.stringify(answer)).not.toContain('hunter2');
  });

  it('answers 404 JSON for an unknown API path', async () => {
    const res = await app.fetch('/api/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ detail: 'Not Found' });
  });

  it('echoes a safe x-request-id and makes one up otherwise', async () => {
    const given = await app.fetch('/healthz', { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const unsafe = await app.fetch('/healthz', { headers: { 'x-request-id': 'a b<script>' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('reports readiness from the database', async () => {
    expect(await (await app.fetch('/readyz')).json()).toEqual({ status: 'ready' });
    expect(await (await app.fetch('/healthz')).json()).toEqual({ status: 'ok' });
  });
});
