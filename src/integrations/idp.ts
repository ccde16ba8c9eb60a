/**
 * Identity providers (Apple, Google, any OpenID Connect issuer): verifies an ID token with jose
 * against the provider's JSON Web Key Set, its issuer and our client ids. The key sets are fetched
 * lazily, cached by jose (refetched on an unknown `kid`, at most every 30 s) and time out after
 * IDP_TIMEOUT_MS. Thin by design: what a verified identity means for accounts is decided in
 * src/domains/identity/.
 *
 * It must never accept a token that fails any check: signature by a key of the provider's set,
 * `iss`, `aud`, `exp` (30 s clock tolerance), an asymmetric algorithm, and a `sub`. Whose fault a
 * failure is decides its answer: the token's is a 401; the provider's (a key set that cannot be
 * fetched, is not JSON or not a key set, or whose key named by the token's `kid` is unusable) is
 * a 502 (issue 29); too slow a 504.
 */
import { createRemoteJWKSet, decodeProtectedHeader, errors, importJWK, jwtVerify } from 'jose';
import type { JWK, JWTPayload } from 'jose';
import type { Config, IdentityProviderConfig } from '../base/config.ts';
import { appError } from '../base/errors.ts';
import { upstreamError } from './upstream.ts';

/** What a verified ID token says about the person. */
export interface VerifiedIdentity {
  provider: string;
  /** the provider's stable subject identifier */
  subject: string;
  email: string | null;
  /** true only when the provider says it verified the address */
  emailVerified: boolean;
  name: string | null;
}

export interface IdentityProviders {
  /** names of the enabled providers, sorted */
  readonly names: readonly string[];
  /** Verifies `idToken` from `provider` (an enabled one); 401 when any check fails, 502/504 when the key set cannot be fetched. */
  verify(provider: string, idToken: string): Promise<VerifiedIdentity>;
}

const ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];
const CLOCK_TOLERANCE_SECONDS = 30;

type RemoteKeySet = ReturnType<typeof createRemoteJWKSet>;

/** What the 502 of a provider's key set says it was asked. */
const KEYS_WHAT = 'serve its signing keys';

/** Key-set failures are the provider's (or the network's), not the caller's. */
function keySetError(e: unknown, provider: string): Error | null {
  if (e instanceof errors.JWKSTimeout)
    return appError(
      'UPSTREAM_TIMEOUT',
      `The ${provider} key set did not answer in time; try again later`,
    );
  if (
    e instanceof errors.JWKSInvalid ||
    !(e instanceof errors.JOSEError) ||
    e.code === 'ERR_JOSE_GENERIC'
  ) {
    return upstreamError(`the ${provider} key set`, KEYS_WHAT);
  }
  return null;
}

/** The key type each family of algorithms verifies with (RS256 -> RSA, ES256 -> EC, EdDSA -> OKP). */
function ktyOf(alg: string): string {
  if (alg.startsWith('RS') || alg.startsWith('PS')) return 'RSA';
  return alg.startsWith('ES') ? 'EC' : 'OKP';
}

/**
 * Whether the set holds a key with the token's `kid` that no token could be verified with: no
 * key type, a type its own `alg` does not use, or key material that does not import. A kid the set
 * does not hold, or a sound key of another type than the token's algorithm, is the token's fault.
 */
async function namedKeyUnusable(keySet: RemoteKeySet, idToken: string): Promise<boolean> {
  let header: { kid?: unknown; alg?: unknown };
  try {
    header = decodeProtectedHeader(idToken);
  } catch {
    return false;
  }
  const { kid } = header;
  if (typeof kid !== 'string' || typeof header.alg !== 'string') return false;
  const named = (keySet.jwks()?.keys ?? []).filter((k: JWK) => k?.kid === kid);
  for (const key of named) {
    if (typeof key.kty !== 'string') return true;
    const alg = typeof key.alg === 'string' ? key.alg : header.alg;
    if (key.kty !== ktyOf(alg)) {
      if (key.alg !== undefined) return true; // the key contradicts its own alg
      continue;
    }
    try {
      await importJWK(key, alg);
    } catch {
      return true;
    }
  }
  return false;
}

function claimString(payload: JWTPayload, name: string): string | null {
  const v = payload[name];
  return typeof v === 'string' && v.length > 0 ? v : null;
}

export function createIdentityProviders(
  config: Pick<Config, 'identityProviders' | 'IDP_TIMEOUT_MS'>,
): IdentityProviders {
  const keySets = new Map<string, RemoteKeySet>();
  const keySetOf = (p: IdentityProviderConfig): RemoteKeySet => {
    let set = keySets.get(p.name);
    if (!set) {
      set = createRemoteJWKSet(new URL(p.jwksUrl), { timeoutDuration: config.IDP_TIMEOUT_MS });
      keySets.set(p.name, set);
    }
    return set;
  };
  return {
    names: Object.keys(config.identityProviders).sort(),
    async verify(provider, idToken) {
      const p = config.identityProviders[provider];
      if (!p) throw new Error(`identity provider ${provider} is not enabled`);
      let payload: JWTPayload;
      try {
        // NOTE: every check of the token happens here; a failure of any one refuses the sign-in.
        ({ payload } = await jwtVerify(idToken, keySetOf(p), {
          issuer: p.issuers,
          audience: p.clientIds,
          algorithms: ALGORITHMS,
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
          requiredClaims: ['sub', 'exp'],
        }));
      } catch (e) {
        const upstream = keySetError(e, provider);
        if (upstream) throw upstream;
        if (await namedKeyUnusable(keySetOf(p), idToken))
          throw upstreamError(`the ${provider} key set`, KEYS_WHAT);
        throw appError('UNAUTHENTICATED', 'Invalid identity token');
      }
      const subject = claimString(payload, 'sub');
      if (!subject) throw appError('UNAUTHENTICATED', 'Invalid identity token');
      // Apple sends email_verified as the string "true"; Google as a boolean.
      const verified = payload.email_verified === true || payload.email_verified === 'true';
      return {
        provider,
        subject,
        email: claimString(payload, 'email'),
        emailVerified: verified,
        name: claimString(payload, 'name'),
      };
    },
  };
}
