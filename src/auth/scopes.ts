/**
 * The one scope catalogue: every scope named in the REST read API and the MCP tool catalogue.
 * Personal tokens and OAuth grants carry a subset; login sessions hold them all.
 * A contract test checks this list against docs/spec (no scope missing, none invented).
 */
export const SCOPES = [
  'account:read',
  'account:write',
  'assistant:chat',
  'community:read',
  'community:write',
  'consents:read',
  'consents:write',
  'discovery:read',
  'discovery:write',
  'feedback:write',
  'goals:read',
  'goals:write',
  'health:dna:read',
  'health:dna:write',
  'health:export:read',
  'health:glucose:read',
  'health:labs:read',
  'health:labs:write',
  'health:logs:write',
  'health:metrics:read',
  'health:nutrition:read',
  'health:nutrition:write',
  'health:sleep:read',
  'health:summary:read',
  'health:workouts:read',
  'insights:read',
  'insights:write',
  'media:read',
  'media:write',
  'memory:read',
  'memory:write',
  'notifications:read',
  'notifications:write',
  'orders:pay',
  'orders:read',
  'orders:write',
  'profile:read',
  'profile:write',
  'sharing:read',
  'sharing:write',
] as const;

export type Scope = (typeof SCOPES)[number];

export const ALL_SCOPES: ReadonlySet<Scope> = new Set(SCOPES);

export function isScope(s: string): s is Scope {
  return ALL_SCOPES.has(s as Scope);
}

/** Scopes whose answers are health data: MCP results under them carry meta.phone_last_sync_at. */
export function isHealthScope(s: string): boolean {
  return s.startsWith('health:');
}
