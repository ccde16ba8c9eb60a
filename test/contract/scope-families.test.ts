import { describe, expect, it } from 'vitest';
import {
  familyOf,
  OAUTH_SCOPES,
  SCOPE_FAMILIES,
  scopesOfFamilies,
} from '../../src/auth/scope-families.ts';
import { SCOPES } from '../../src/auth/scopes.ts';

describe('scope families (docs/mcp-oauth.md section 7)', () => {
  it('puts every catalogue scope but orders:pay in exactly one family', () => {
    for (const scope of SCOPES) {
      const holders = SCOPE_FAMILIES.filter((f) => f.scopes.includes(scope)).map((f) => f.id);
      expect([scope, holders.length]).toEqual([scope, scope === 'orders:pay' ? 0 : 1]);
    }
    expect(SCOPE_FAMILIES.flatMap((f) => f.scopes).every((s) => SCOPES.includes(s))).toBe(true);
    expect(familyOf('orders:pay')).toBeUndefined();
  });

  it('turns on by default only families of read scopes', () => {
    const on = SCOPE_FAMILIES.filter((f) => f.defaultOn);
    expect(on.map((f) => f.id)).toEqual(['read']);
    expect(on.flatMap((f) => f.scopes).every((s) => s.endsWith(':read'))).toBe(true);
  });

  it('offers every scope but orders:pay over OAuth', () => {
    expect(OAUTH_SCOPES).toEqual(SCOPES.filter((s) => s !== 'orders:pay'));
    expect(scopesOfFamilies(SCOPE_FAMILIES.map((f) => f.id))).toEqual(OAUTH_SCOPES);
  });

  it('groups the scopes as the design table does', () => {
    expect(Object.fromEntries(SCOPE_FAMILIES.map((f) => [f.label, f.scopes]))).toEqual({
      'Read your data': [
        'account:read',
        'consents:read',
        'discovery:read',
        'goals:read',
        'health:glucose:read',
        'health:labs:read',
        'health:metrics:read',
        'health:nutrition:read',
        'health:sleep:read',
        'health:summary:read',
        'health:workouts:read',
        'insights:read',
        'media:read',
        'memory:read',
        'notifications:read',
        'orders:read',
        'profile:read',
        'sharing:read',
      ],
      'Change your data': [
        'consents:write',
        'discovery:write',
        'feedback:write',
        'goals:write',
        'health:labs:write',
        'health:logs:write',
        'health:nutrition:write',
        'insights:write',
        'media:write',
        'memory:write',
        'notifications:write',
        'orders:write',
        'profile:write',
        'sharing:write',
      ],
      DNA: ['health:dna:read', 'health:dna:write'],
      'The assistant': ['assistant:chat'],
      Community: ['community:read', 'community:write'],
      Export: ['health:export:read'],
      'Account changes': ['account:write'],
    });
  });

  it('grants the union of the ticked families', () => {
    expect(scopesOfFamilies(['dna', 'account'])).toEqual([
      'account:write',
      'health:dna:read',
      'health:dna:write',
    ]);
    expect(scopesOfFamilies([])).toEqual([]);
  });
});
