/** The GraphQL context: built once per request by yoga (POST /graphql) or by the facades. */
import type { Principal } from '../auth/principal.ts';
import type { Config } from '../config.ts';
import type { Db } from '../db/client.ts';
import type { IdentityProviders } from '../integrations/idp.ts';
import type { Mailer } from '../integrations/mailer.ts';
import type { Storage } from '../integrations/storage.ts';
import type { Logger } from '../logger.ts';
import type { Limits } from '../platform/limits.ts';

export interface Context {
  prisma: Db;
  config: Config;
  mailer: Mailer;
  /** stored files (profile photos), local disk by default */
  storage: Storage;
  /** ID-token verification for identity-provider sign-in */
  idp: IdentityProviders;
  /** rate limits shared by every replica (memory, or Redis with REDIS_URL) */
  limits: Limits;
  principal: Principal | null;
  requestId: string;
  log: Logger;
  ip: string | null;
  userAgent: string | null;
  /** which door the request came through */
  via: 'graphql' | 'rest' | 'mcp' | 'web';
  /** Set-Cookie values for the HTTP answer (src/auth/cookies.ts); facades and yoga send them */
  responseCookies: string[];
}

/** The context inside a field whose auth scopes passed: the caller is known. */
export interface AuthedContext extends Context {
  principal: Principal;
}
