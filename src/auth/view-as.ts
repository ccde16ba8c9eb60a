/**
 * The rules of view-as (a grantee reading an owner's data through an access grant), shared by
 * authenticate.ts (which resolves it on every request) and the sharing service (which switches it).
 *
 * NOTE: security-critical. A credential reads another person's data only while the grant is
 * active, unexpired and names the caller as grantee; anything else ends view-as on the next request.
 * While viewing, every write scope is refused (read-only), except the sharing scopes a grantee needs
 * to switch back and to revoke.
 */
import type { Principal } from './principal.ts';
import type { Scope } from './scopes.ts';
import { clock } from '../base/clock.ts';

export const VIEW_AS_READ_ONLY = "read-only while viewing another person's data";

/** The grant columns view-as depends on. */
export interface ViewAsGrant {
  ownerId: number;
  granteeId: number | null;
  status: string;
  expiresAt: Date;
}

/** True when `userId` may read the owner's data through `grant` at `now`. */
export function grantPermitsViewAs(
  grant: ViewAsGrant | null,
  userId: number,
  now: number = clock.ms(),
): boolean {
  return (
    !!grant &&
    grant.status === 'active' &&
    grant.granteeId === userId &&
    grant.expiresAt.getTime() > now
  );
}

/** Scopes a credential may use while viewing as: every `*:read`, plus `sharing:*` (switch back, revoke). */
export function scopeAllowedWhileViewingAs(scope: Scope): boolean {
  return scope.endsWith(':read') || scope.startsWith('sharing:');
}

/**
 * Whether a credential may use `scope` now: it holds the scope (login sessions hold all), and while
 * viewing as, only the scopes above. The scope loader of every field (src/graphql/builder.ts) and
 * the per-table checks of sync use this one rule.
 */
export function credentialHolds(principal: Principal, scope: Scope): boolean {
  return principal.scopes.has(scope) && (!principal.viewAs || scopeAllowedWhileViewingAs(scope));
}
