/**
 * Authorization at the OAuth host (docs/mcp-oauth.md section 7): `/oauth/authorize` signs a ticket
 * of the checked request; the consent page shows what it asks (authorizationRequest); the person's
 * answer becomes a single-use code (approveAuthorization) or `access_denied` (denyAuthorization),
 * each answered as the address to send the browser back to.
 *
 * NOTE: nothing is stored before the person approves: the ticket is a short-lived JWS (jose, HS256,
 * a key derived from JWT_SECRET for this use only), so any server process serves the next step and
 * an abandoned consent leaves no row.
 */
import { hkdfSync, randomBytes } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import { redirectUriMatches } from '@modelcontextprotocol/sdk/server/auth/handlers/authorize.js';
import { sha256 } from '../../auth/credentials.ts';
import {
  FAMILY_IDS,
  familyOf,
  SCOPE_FAMILIES,
  scopesOfFamilies,
} from '../../auth/scope-families.ts';
import type { FamilyId } from '../../auth/scope-families.ts';
import { isScope } from '../../auth/scopes.ts';
import type { Db, DbTx } from '../../db/client.ts';
import { appError } from '../../base/errors.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import { clock } from '../../base/clock.ts';

/** Recognisable prefix of authorization codes (only their sha256 is stored). */
export const OAUTH_CODE_PREFIX = 'hdp_oac_';
/** How long a ticket (authorize to consent answer) lives. */
const TICKET_TTL_SECONDS = 600;
/** How long an authorization code lives (it is exchanged at once by the client). */
export const CODE_TTL_MS = 60_000;
/** Longest `state` a client may send (it comes back in the redirect address). */
export const MAX_STATE_CHARS = 500;
const TICKET_TYPE = 'oauth-ticket';
/**
 * Longest ticket: it travels in two redirect addresses (Location headers), which proxies buffer in
 * 4-8 kB; /oauth/authorize refuses a request whose ticket would be longer (a client id or redirect
 * URI of thousands of characters), and the pages refuse a longer one before anything else.
 */
export const MAX_TICKET_CHARS = 4_000;

/** What /oauth/authorize checked, carried to the consent answer inside the signed ticket. */
export interface AuthorizationTicket {
  clientId: string;
  redirectUri: string;
  /** whether /authorize named redirect_uri (then the token request must name the same) */
  redirectUriGiven: boolean;
  codeChallenge: string;
  state?: string;
  /** the protected resource the tokens are for (`<origin>/mcp`) */
  resource: string;
  /** the families holding a scope the client asked for (highlighted on the consent page) */
  requested: FamilyId[];
  /** the issuer (`<origin>`), sent back as `iss` (RFC 9207) */
  issuer: string;
}

/** The ticket key: HKDF of the server secret, so a ticket is never a login token or the reverse. */
function ticketKey(secret: Uint8Array): Uint8Array {
  return new Uint8Array(hkdfSync('sha256', secret, new Uint8Array(0), 'hdp oauth ticket', 32));
}

/** Signs a checked authorization request for the consent page (10 minutes). */
export function signTicket(secret: Uint8Array, ticket: AuthorizationTicket): Promise<string> {
  return new SignJWT({ ...ticket })
    .setProtectedHeader({ alg: 'HS256', typ: TICKET_TYPE })
    .setIssuedAt()
    .setExpirationTime(Math.floor(clock.ms() / 1000) + TICKET_TTL_SECONDS)
    .sign(ticketKey(secret));
}

/** The ticket's request, or null for a forged, altered, expired, overlong or malformed one. */
export async function readTicket(
  secret: Uint8Array,
  token: string,
): Promise<AuthorizationTicket | null> {
  if (token.length > MAX_TICKET_CHARS) return null;
  try {
    const { payload } = await jwtVerify(token, ticketKey(secret), {
      algorithms: ['HS256'],
      typ: TICKET_TYPE,
    });
    const p = payload as Partial<AuthorizationTicket>;
    const strings = [p.clientId, p.redirectUri, p.codeChallenge, p.resource, p.issuer];
    if (strings.some((s) => typeof s !== 'string') || !Array.isArray(p.requested)) return null;
    return {
      clientId: p.clientId!,
      redirectUri: p.redirectUri!,
      redirectUriGiven: p.redirectUriGiven === true,
      codeChallenge: p.codeChallenge!,
      ...(typeof p.state === 'string' ? { state: p.state } : {}),
      resource: p.resource!,
      requested: p.requested.filter(isFamilyId),
      issuer: p.issuer!,
    };
  } catch {
    return null;
  }
}

const isFamilyId = (id: unknown): id is FamilyId =>
  typeof id === 'string' && (FAMILY_IDS as readonly string[]).includes(id);

/** The families of the scopes a client asked for (unknown scopes and `orders:pay` count for none). */
export function requestedFamilies(scopes: readonly string[]): FamilyId[] {
  const ids = scopes.filter(isScope).map((s) => familyOf(s)?.id);
  return FAMILY_IDS.filter((id) => ids.includes(id));
}

/** How the redirect target is shown: this computer, a web site, or an app on the device. */
export type RedirectKind = 'loopback' | 'web' | 'app';

/** One family as the consent page offers it. */
export interface ConsentFamily {
  id: FamilyId;
  label: string;
  scopes: readonly string[];
  /**
   * ticked when the page opens: only reading. NOTE: what the client asks for is highlighted, never
   * ticked: stock clients ask for every scope the metadata lists.
   */
  ticked: boolean;
  /** the client asked for at least one of its scopes */
  requested: boolean;
}

/** What the consent page shows for a ticket. */
export interface AuthorizationRequestView {
  clientId: string;
  clientName: string;
  /** `dcr` (registered by the app itself) or `cimd` (a metadata document at clientId) */
  clientKind: string;
  redirectUri: string;
  /** the host (or scheme, for an app) the browser returns to */
  redirectTarget: string;
  redirectKind: RedirectKind;
  families: ConsentFamily[];
}

function redirectTargetOf(uri: string): { target: string; kind: RedirectKind } {
  const url = new URL(uri);
  if (url.protocol === 'https:') return { target: url.host, kind: 'web' };
  if (url.protocol === 'http:') return { target: url.host, kind: 'loopback' };
  return { target: url.protocol.slice(0, -1), kind: 'app' };
}

const TICKET_EXPIRED =
  'This authorization request has expired or is not valid: go back to the app and connect again';

async function ticketOrThrow(ctx: Context, token: string): Promise<AuthorizationTicket> {
  const ticket = await readTicket(ctx.config.jwtSecret, token);
  if (!ticket) throw appError('BAD_REQUEST', TICKET_EXPIRED);
  return ticket;
}

/** The client of a ticket, still registered with its redirect URI (it may be gone since). */
async function ticketClient(
  db: Db | DbTx,
  ticket: AuthorizationTicket,
): Promise<{ id: string; name: string; kind: string }> {
  const client = await db.oAuthClient.findUnique({
    select: { id: true, name: true, kind: true, redirectUris: true },
    where: { id: ticket.clientId },
  });
  if (!client || !client.redirectUris.some((r) => redirectUriMatches(ticket.redirectUri, r))) {
    throw appError('BAD_REQUEST', TICKET_EXPIRED);
  }
  return { id: client.id, name: client.name ?? client.id, kind: client.kind };
}

/** What the consent page shows: the client, where the browser returns, the families. */
export async function oauthAuthorizationRequest(
  ctx: Context,
  options: { ticket: string },
): Promise<AuthorizationRequestView> {
  const ticket = await ticketOrThrow(ctx, options.ticket);
  const client = await ticketClient(ctx.prisma, ticket);
  const requested = new Set(ticket.requested);
  const { target, kind } = redirectTargetOf(ticket.redirectUri);
  return {
    clientId: client.id,
    clientName: client.name,
    clientKind: client.kind,
    redirectUri: ticket.redirectUri,
    redirectTarget: target,
    redirectKind: kind,
    families: SCOPE_FAMILIES.map((f) => {
      const asked = requested.has(f.id);
      return { id: f.id, label: f.label, scopes: f.scopes, ticked: f.defaultOn, requested: asked };
    }),
  };
}

/** The redirect back to the client: its URI with our parameters, `state` and `iss` added. */
function redirectBack(ticket: AuthorizationTicket, params: Record<string, string>): string {
  const url = new URL(ticket.redirectUri);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  if (ticket.state !== undefined) url.searchParams.set('state', ticket.state);
  url.searchParams.set('iss', ticket.issuer);
  return url.href;
}

export interface ApproveAuthorizationOptions {
  ticket: string;
  /** the families the person ticked (at least one) */
  families: string[];
}

/**
 * The signed-in person approves: a single-use code (60 s) for the ticked families' scopes, and the
 * address to send the browser back to with it. The connection itself is made when the client
 * exchanges the code (an unused code leaves no app listed).
 */
export async function approveOAuthAuthorization(
  ctx: AuthedContext,
  options: ApproveAuthorizationOptions,
): Promise<{ redirectTo: string }> {
  const ticket = await ticketOrThrow(ctx, options.ticket);
  const scopes = scopesOfFamilies(options.families.filter(isFamilyId));
  if (scopes.length === 0) {
    throw appError('VALIDATION_FAILED', 'Tick at least one kind of access, or choose Deny');
  }
  await ticketClient(ctx.prisma, ticket);
  const code = OAUTH_CODE_PREFIX + randomBytes(32).toString('base64url');
  await ctx.prisma.oAuthAuthorizationCode.create({
    data: {
      codeHash: sha256(code),
      userId: ctx.principal.userId,
      clientId: ticket.clientId,
      redirectUri: ticket.redirectUri,
      redirectUriGiven: ticket.redirectUriGiven,
      codeChallenge: ticket.codeChallenge,
      scopes,
      resource: ticket.resource,
      expiresAt: new Date(clock.ms() + CODE_TTL_MS),
    },
  });
  return { redirectTo: redirectBack(ticket, { code }) };
}

/** The person refuses: the address sending the browser back with `access_denied`. */
export async function denyOAuthAuthorization(
  ctx: Context,
  options: { ticket: string },
): Promise<{ redirectTo: string }> {
  const ticket = await ticketOrThrow(ctx, options.ticket);
  await ticketClient(ctx.prisma, ticket);
  return {
    redirectTo: redirectBack(ticket, {
      error: 'access_denied',
      error_description: 'The person declined the request',
    }),
  };
}
