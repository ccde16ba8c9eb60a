/**
 * Factories that return a graph: a user with a native login token, optionally a personal token
 * with chosen scopes, or a web session (cookie + CSRF token).
 */
import { createSession } from '../../src/domains/account/account.sessions.ts';
import { register } from '../../src/domains/account/account.login.ts';
import { createPersonalToken } from '../../src/domains/tokens/tokens.service.ts';
import { csrfTokenFor } from '../../src/auth/credentials.ts';
import type { Principal } from '../../src/auth/principal.ts';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import { createContextAs } from '../../src/graphql/context.ts';
import type { AuthedContext, Context } from '../../src/graphql/context.ts';
import { createLogger } from '../../src/base/logger.ts';
import type { TestApp } from '../harness/app.ts';
import { clock } from '../../src/base/clock.ts';

let seq = 0;

/**
 * A context for calling services directly: the app's own parts (createContextAs, the same builder
 * every door uses), no caller unless `principal` is given.
 */
export function serviceContext(app: TestApp): Context;
export function serviceContext(app: TestApp, principal: Principal): AuthedContext;
export function serviceContext(app: TestApp, principal: Principal | null = null): Context {
  return createContextAs(
    app.deps,
    {
      ip: '127.0.0.1',
      userAgent: 'factory',
      requestId: 'factory',
      log: createLogger('silent'),
      via: 'graphql',
    },
    principal,
  );
}

export interface SeededUser {
  user: { id: number; email: string };
  password: string;
  /** native (phone) bearer token */
  token: string;
  sessionId: string;
}

export interface SeedUserOptions {
  email?: string;
  password?: string;
  name?: string;
  isAdmin?: boolean;
}

/** A registered user signed in on a phone. */
export async function seedUser(app: TestApp, options: SeedUserOptions = {}): Promise<SeededUser> {
  const ctx = serviceContext(app);
  const email = options.email ?? `user${++seq}.${clock.ms()}@example.com`;
  const password = options.password ?? 'correct horse battery';
  const user = await register(ctx, { email, password, name: options.name ?? 'Test User' });
  if (options.isAdmin)
    await app.db.prisma.user.update({ where: { id: user.id }, data: { isAdmin: true } });
  const session = await createSession(ctx, { userId: user.id, kind: 'native' });
  return {
    user: { id: user.id, email: user.email },
    password,
    token: session.token,
    sessionId: session.sessionId,
  };
}

/** A personal token with the given scopes for an existing user. */
export async function seedPersonalToken(
  app: TestApp,
  userId: number,
  scopes: Scope[],
  name = 'test token',
): Promise<string> {
  const ctx = serviceContext(app, {
    kind: 'session',
    userId,
    sessionId: 'factory',
    sessionKind: 'native',
    isAdmin: false,
    scopes: ALL_SCOPES,
  });
  return (await createPersonalToken(ctx, { name, scopes })).token;
}

/** A web (cookie) session for an existing user: the Cookie header value and its CSRF token. */
export async function seedWebSession(
  app: TestApp,
  userId: number,
): Promise<{ cookie: string; csrf: string; sessionId: string }> {
  const session = await createSession(serviceContext(app), { userId, kind: 'web' });
  return {
    cookie: `hdp_session=${session.token}`,
    csrf: csrfTokenFor(app.config.jwtSecret, session.sessionId),
    sessionId: session.sessionId,
  };
}
