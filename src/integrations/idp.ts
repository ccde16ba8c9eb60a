/**
 * Identity providers (Apple, Google, any OpenID Connect issuer): verifies an ID token with jose
 * against the provider's JSON Web Key Set, its issuer and our client ids. The key sets are fetched
 * lazily, cached by jose (refetched on an unknown `kid`, at most every 30 s) and time out after
 * IDP_TIMEOUT_MS. Thin by design: what a verified identity means for accounts is decided in
 * src/domains/identity/.
 *
 * It must never accept a token that fails any check: signature by a key of the provider's set,
 * `iss`, `aud`, `exp` (30 s clock tolerance), an asymmetric algorithm, and a `sub`.
 */
import { createRemoteJWKSet, errors, jwtVerify } from 'jose';
import type { JWTPayload, JWTVerifyGetKey } from 'jose';
import type { Config, IdentityProviderConfig } from '../config.ts';
import { appError } from '../errors.ts';

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

/** Key-set failures are the provider's (or the network's), not the caller's. */
function upstreamError(e: unknown, provider: string): Error | null {
  if (e instanceof errors.JWKSTimeout)
    return appError('UPSTREAM_TIMEOUT', `The ${provider} key set did not answer in time`);
  if (
    e instanceof errors.JWKSInvalid ||
    !(e instanceof errors.JOSEError) ||
    e.code === 'ERR_JOSE_GENERIC'
  ) {
    return appError('UPSTREAM_FAILED', `The ${provider} key set could not be fetched`);
  }
  return null;
}

function claimString(payload: JWTPayload, name: string): string | null {
  const v = payload[name];
  return typeof v === 'string' && v.length > 0 ? v : null;
}

export function createIdentityProviders(
  config: Pick<Config, 'identityProviders' | 'IDP_TIMEOUT_MS'>,
): IdentityProviders {
  const keySets = new Map<string, JWTVerifyGetKey>();
  const keySetOf = (p: IdentityProviderConfig): JWTVerifyGetKey => {
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
        throw upstreamError(e, provider) ?? appError('UNAUTHENTICATED', 'Invalid identity token');
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
