/**
 * OAuth connections written straight to the database (docs/mcp-oauth.md section 12): a client, a
 * connection and its tokens, as the token endpoint will make them. Answers the raw secrets.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { newOAuthAccessToken, sha256 } from '../../src/auth/credentials.ts';
import type { Scope } from '../../src/auth/scopes.ts';
import type { TestApp } from '../harness/app.ts';
import { clock } from '../../src/base/clock.ts';

export interface SeedOAuthConnectionOptions {
  /** the resource the tokens are for (default `<app.mcpUrl>/mcp`) */
  resource?: string;
  /** the access token's scopes (default: the connection's) */
  tokenScopes?: Scope[];
  /** access token lifetime in ms (default an hour; negative: already expired) */
  accessTtlMs?: number;
  /** connection lifetime in ms (default 365 days) */
  connectionTtlMs?: number;
  /** another access token of this connection instead of a new connection */
  connectionId?: number;
}

export interface SeededOAuthConnection {
  /** the raw access token (`hdp_oat_...`) */
  accessToken: string;
  /** the raw refresh token (`hdp_ort_...`) */
  refreshToken: string;
  connectionId: number;
  clientId: string;
  accessTokenId: number;
}

const DAY_MS = 86_400_000;

/** A DCR client, a connection of `userId` with `scopes`, an access and a refresh token. */
export async function seedOAuthConnection(
  app: TestApp,
  userId: number,
  scopes: Scope[],
  opts: SeedOAuthConnectionOptions = {},
): Promise<SeededOAuthConnection> {
  const prisma = app.db.prisma;
  const resource = opts.resource ?? `${app.mcpUrl}/mcp`;
  const now = clock.ms();
  const connection = opts.connectionId
    ? await prisma.oAuthConnection.findUniqueOrThrow({ where: { id: opts.connectionId } })
    : await prisma.oAuthConnection.create({
        data: {
          userId,
          clientId: (
            await prisma.oAuthClient.create({
              data: {
                id: randomUUID(),
                kind: 'dcr',
                name: 'Test assistant',
                redirectUris: ['http://127.0.0.1/callback'],
                authMethod: 'none',
                metadata: { client_name: 'Test assistant' },
              },
            })
          ).id,
          clientName: 'Test assistant',
          redirectUri: 'http://127.0.0.1/callback',
          scopes,
          resource,
          expiresAt: new Date(now + (opts.connectionTtlMs ?? 365 * DAY_MS)),
        },
      });
  const accessToken = newOAuthAccessToken();
  const refreshToken = `hdp_ort_${randomBytes(32).toString('base64url')}`;
  const access = await prisma.oAuthToken.create({
    data: {
      tokenHash: sha256(accessToken),
      kind: 'access',
      connectionId: connection.id,
      userId,
      scopes: opts.tokenScopes ?? scopes,
      resource,
      expiresAt: new Date(now + (opts.accessTtlMs ?? 3_600_000)),
    },
  });
  await prisma.oAuthToken.create({
    data: {
      tokenHash: sha256(refreshToken),
      kind: 'refresh',
      connectionId: connection.id,
      userId,
      scopes: opts.tokenScopes ?? scopes,
      resource,
      expiresAt: connection.expiresAt,
    },
  });
  return {
    accessToken,
    refreshToken,
    connectionId: connection.id,
    clientId: connection.clientId,
    accessTokenId: access.id,
  };
}
