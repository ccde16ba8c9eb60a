/** Who is calling, resolved once per request from a bearer token, a session cookie or a personal token. */
import type { Scope } from './scopes.ts';

export type Principal =
  | {
      kind: 'session';
      userId: number;
      sessionId: string;
      /** native: bearer token from a phone login; web: HttpOnly cookie */
      sessionKind: 'native' | 'web';
      isAdmin: boolean;
      scopes: ReadonlySet<Scope>;
    }
  | {
      kind: 'personal_token';
      userId: number;
      tokenId: number;
      isAdmin: false;
      scopes: ReadonlySet<Scope>;
    };
