/**
 * The SDK's OAuth server interfaces over the oauth domain (docs/mcp-oauth.md sections 1, 7-9): the
 * clients store (registered clients and client ID metadata documents), the provider the SDK's
 * authorize, token and revocation handlers call, and our client authentication that runs before
 * theirs. Rules live in src/domains/oauth; this file only translates their refusals into the SDK's
 * OAuth error classes.
 */
import type { NextFunction, Request, Response } from 'express';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type {
  AuthorizationParams,
  OAuthServerProvider,
} from '@modelcontextprotocol/sdk/server/auth/provider.js';
import {
  CustomOAuthError,
  InvalidClientError,
  InvalidClientMetadataError,
  InvalidGrantError,
  InvalidRequestError,
  InvalidScopeError,
  InvalidTargetError,
} from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationFull } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Db } from '../db/client.ts';
import {
  challengeForCode,
  checkClientSecret,
  ClientMetadataRefused,
  exchangeCode,
  getClient,
  isClientMetadataUrl,
  MAX_STATE_CHARS,
  MAX_TICKET_CHARS,
  metadataClient,
  OAuthGrantRefused,
  refreshTokens,
  registerClient,
  requestedFamilies,
  revokeToken,
  signTicket,
} from '../domains/oauth/index.ts';
import type { ClientMetadataFetcher } from '../domains/oauth/index.ts';

/** Where /oauth/authorize sends the browser with its ticket (web-pages/oauth-pages.ts). */
export const CONSENT_PATH = '/oauth/consent';

/**
 * The clients the SDK's handlers know: a registered (DCR) client by its id, or, for an https URL
 * id, the client its metadata document describes (fetched and cached by the domain). A refused
 * registration becomes the RFC 7591 error the SDK answers with 400.
 */
export function clientsStore(
  db: Db,
  fetchMetadata: ClientMetadataFetcher,
): OAuthRegisteredClientsStore {
  return {
    getClient: (clientId) =>
      isClientMetadataUrl(clientId)
        ? metadataClient(db, clientId, fetchMetadata)
        : getClient(db, clientId),
    registerClient: async (client) => {
      try {
        return await registerClient(db, client);
      } catch (err) {
        if (!(err instanceof ClientMetadataRefused)) throw err;
        if (err.code === 'invalid_redirect_uri')
          throw new CustomOAuthError('invalid_redirect_uri', err.message);
        throw new InvalidClientMetadataError(err.message);
      }
    },
  };
}

/** A domain refusal as the SDK's error class (the handlers answer it with 400). */
function asOAuthError(err: unknown): unknown {
  if (!(err instanceof OAuthGrantRefused)) return err;
  if (err.code === 'invalid_target') return new InvalidTargetError(err.message);
  if (err.code === 'invalid_scope') return new InvalidScopeError(err.message);
  return new InvalidGrantError(err.message);
}

async function translated<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw asOAuthError(err);
  }
}

export interface ProviderOptions {
  db: Db;
  clients: OAuthRegisteredClientsStore;
  /** signs consent tickets (JWT_SECRET) */
  secret: Uint8Array;
  /** the host's origin (issuer) and its protected resource `<origin>/mcp` */
  issuer: string;
  resource: string;
}

/**
 * The provider behind the SDK's handlers. `authorize` checks what the SDK leaves to us (resource,
 * state length) and sends the browser to the consent page with a signed ticket; the rest calls the
 * domain. Access tokens are checked by authenticate() on /mcp, never here.
 */
export function oauthProvider(options: ProviderOptions): OAuthServerProvider {
  const { db } = options;
  return {
    clientsStore: options.clients,
    async authorize(
      client: OAuthClientInformationFull,
      params: AuthorizationParams,
      res: Response,
    ) {
      // NOTE: no resource means ours (RFC 8707 makes it optional); any other is refused.
      if (params.resource !== undefined && params.resource.href !== options.resource) {
        throw new InvalidTargetError(`resource must be ${options.resource}`);
      }
      if (params.state !== undefined && params.state.length > MAX_STATE_CHARS) {
        throw new InvalidRequestError(`state longer than ${MAX_STATE_CHARS} characters`);
      }
      const given = (res.req.method === 'POST' ? res.req.body : res.req.query) as Record<
        string,
        unknown
      >;
      const ticket = await signTicket(options.secret, {
        clientId: client.client_id,
        redirectUri: params.redirectUri,
        redirectUriGiven: typeof given.redirect_uri === 'string',
        codeChallenge: params.codeChallenge,
        ...(params.state === undefined ? {} : { state: params.state }),
        resource: options.resource,
        requested: requestedFamilies(params.scopes ?? []),
        issuer: options.issuer,
      });
      if (ticket.length > MAX_TICKET_CHARS) {
        throw new InvalidRequestError(
          'Authorization request too large: shorten state or client_id',
        );
      }
      res.redirect(302, `${CONSENT_PATH}?ticket=${encodeURIComponent(ticket)}`);
    },
    challengeForAuthorizationCode: (client, code) =>
      translated(() => challengeForCode(db, client.client_id, code)),
    exchangeAuthorizationCode: (client, code, _verifier, redirectUri, resource) =>
      translated(() =>
        exchangeCode(db, {
          clientId: client.client_id,
          code,
          ...(redirectUri === undefined ? {} : { redirectUri }),
          ...(resource === undefined ? {} : { resource: resource.href }),
        }),
      ),
    exchangeRefreshToken: (client, refreshToken, scopes, resource) =>
      translated(() =>
        refreshTokens(db, {
          clientId: client.client_id,
          refreshToken,
          ...(scopes === undefined ? {} : { scopes }),
          ...(resource === undefined ? {} : { resource: resource.href }),
        }),
      ),
    verifyAccessToken: () => {
      throw new Error('Access tokens are checked by authenticate() on /mcp');
    },
    revokeToken: (client, request) =>
      translated(() => revokeToken(db, { clientId: client.client_id, token: request.token })),
  };
}

/**
 * Client authentication before the SDK's (which compares plaintext secrets): a confidential client
 * must send its secret, checked against the stored sha256 in constant time; 401 `invalid_client`
 * otherwise. A public client's request passes on.
 */
export function clientAuth(db: Db): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const { client_id: clientId, client_secret: secret } = body;
    if (typeof clientId !== 'string') return next();
    checkClientSecret(db, clientId, typeof secret === 'string' ? secret : undefined).then((ok) => {
      if (ok) return next();
      res
        .status(401)
        .set('cache-control', 'no-store')
        .json(new InvalidClientError('Client authentication failed').toResponseObject());
    }, next);
  };
}
