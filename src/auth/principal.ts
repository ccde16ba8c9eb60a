/**
 * Who is calling, resolved once per request from a bearer token, a session cookie, a personal token
 * or an OAuth access token.
 */
import type { Scope } from './scopes.ts';

/**
 * A grantee reading an owner's shared data through an active access grant (src/auth/view-as.ts).
 * The caller stays the grantee (`Principal.userId`): only whose data is read changes.
 */
export interface ViewAs {
  grantId: number;
  /** the person whose data this credential reads */
  ownerId: number;
}

/** What every principal carries besides its credential. */
interface CallerFacts {
  /**
   * the caller's profile time zone (users.timezone; null when unset) as read with the credential,
   * kept as fresh as it through the credential cache's epoch; absent: not read
   */
  zone?: string | null;
}

export type Principal = CallerFacts &
  (
    | {
        kind: 'session';
        userId: number;
        sessionId: string;
        /** native: bearer token from a phone login; web: HttpOnly cookie */
        sessionKind: 'native' | 'web';
        isAdmin: boolean;
        scopes: ReadonlySet<Scope>;
        /** set while this session views another person's data (read-only); absent or null: its own */
        viewAs?: ViewAs | null;
      }
    | {
        kind: 'personal_token';
        userId: number;
        tokenId: number;
        isAdmin: false;
        scopes: ReadonlySet<Scope>;
        /** set while this token views another person's data (read-only); absent or null: its own */
        viewAs?: ViewAs | null;
      }
    | {
        /** an OAuth access token of the MCP host's /mcp (src/domains/oauth, docs/mcp-oauth.md) */
        kind: 'oauth';
        userId: number;
        /** the approved connection: what limits count by and what a disconnect ends */
        connectionId: number;
        /** the access token's row (rotates hourly) */
        tokenId: number;
        clientId: string;
        isAdmin: false;
        scopes: ReadonlySet<Scope>;
        /** always null in this increment: an OAuth connection cannot view as yet */
        viewAs?: ViewAs | null;
      }
  );

/**
 * Whose data a read serves: the owner's while the credential views as a grantee, else the caller's.
 * NOTE: use it for the person's data (profile as data, health records); use `principal.userId` for
 * the caller's own account and credentials (sessions, tokens, grants, `me`). Writes never need it:
 * the scope loader refuses every write scope while viewing as (src/graphql/builder.ts).
 */
export function readerUserId(ctx: { principal: Principal }): number {
  return ctx.principal.viewAs?.ownerId ?? ctx.principal.userId;
}
