/**
 * The consent families of the OAuth host (docs/mcp-oauth.md section 7; spec docs/spec/mcp.md,
 * Authentication 7): the consent page shows families, not scopes, and a connection's grant is the
 * union of the ticked families. Reading is on by default; writes, DNA, the assistant, community,
 * export and account changes are off until ticked.
 *
 * NOTE: every catalogue scope but `orders:pay` is in exactly one family (test/contract/
 * scope-families.test.ts), and a default-on family holds read scopes only. `orders:pay` is in none
 * and never in OAUTH_SCOPES: assistants connected by OAuth get no payment (Authentication 9). The two
 * rule-made families ("every *:read / *:write not in another family") take a new catalogue scope by
 * themselves, so adding a scope to src/auth/scopes.ts never leaves it out of consent.
 */
import { SCOPES } from './scopes.ts';
import type { Scope } from './scopes.ts';

/** Scopes no OAuth connection may hold, whatever the person ticks. */
export const NEVER_OVER_OAUTH: ReadonlySet<Scope> = new Set(['orders:pay']);

/** Every scope an OAuth client may ask for and be granted (PRM and AS `scopes_supported`). */
export const OAUTH_SCOPES: readonly Scope[] = SCOPES.filter((s) => !NEVER_OVER_OAUTH.has(s));

export const FAMILY_IDS = [
  'read',
  'change',
  'dna',
  'assistant',
  'community',
  'export',
  'account',
] as const;

/** A family's stable name (the consent form's field value). */
export type FamilyId = (typeof FAMILY_IDS)[number];

export interface ScopeFamily {
  id: FamilyId;
  /** what the consent page shows */
  label: string;
  /** the scopes ticking it grants */
  scopes: readonly Scope[];
  /** ticked when the consent page opens */
  defaultOn: boolean;
}

/** The families that name their scopes; "read" and "change" take every other read and write scope. */
const NAMED: Readonly<Record<Exclude<FamilyId, 'read' | 'change'>, readonly Scope[]>> = {
  dna: ['health:dna:read', 'health:dna:write'],
  assistant: ['assistant:chat'],
  community: ['community:read', 'community:write'],
  export: ['health:export:read'],
  account: ['account:write'],
};

const named: ReadonlySet<Scope> = new Set(Object.values(NAMED).flat());
const unnamed = (suffix: string): Scope[] =>
  OAUTH_SCOPES.filter((s) => s.endsWith(suffix) && !named.has(s));

/** The families in the consent page's order. */
export const SCOPE_FAMILIES: readonly ScopeFamily[] = [
  { id: 'read', label: 'Read your data', scopes: unnamed(':read'), defaultOn: true },
  { id: 'change', label: 'Change your data', scopes: unnamed(':write'), defaultOn: false },
  { id: 'dna', label: 'DNA', scopes: NAMED.dna, defaultOn: false },
  { id: 'assistant', label: 'The assistant', scopes: NAMED.assistant, defaultOn: false },
  { id: 'community', label: 'Community', scopes: NAMED.community, defaultOn: false },
  { id: 'export', label: 'Export', scopes: NAMED.export, defaultOn: false },
  { id: 'account', label: 'Account changes', scopes: NAMED.account, defaultOn: false },
];

/** The family holding a scope, or undefined for a scope no OAuth connection may hold. */
export function familyOf(scope: Scope): ScopeFamily | undefined {
  return SCOPE_FAMILIES.find((f) => f.scopes.includes(scope));
}

/** The grant of the ticked families: the union of their scopes, in catalogue order. */
export function scopesOfFamilies(ids: Iterable<FamilyId>): Scope[] {
  const ticked = new Set(ids);
  const granted = new Set(SCOPE_FAMILIES.filter((f) => ticked.has(f.id)).flatMap((f) => f.scopes));
  return OAUTH_SCOPES.filter((s) => granted.has(s));
}
