/**
 * Connected apps (the caller's OAuth connections, listed and disconnected: login sessions only) and
 * the consent page's fields (what an authorization asks, approve, deny).
 */
import { builder } from '../../graphql/builder.ts';
import type { ConnectedAppView } from './oauth.connections.ts';
import { disconnectConnectedApp, connectedApps } from './oauth.connections.ts';
import type { AuthorizationRequestView, ConsentFamily } from './oauth.authorize.ts';
import {
  approveOAuthAuthorization,
  oauthAuthorizationRequest,
  denyOAuthAuthorization,
} from './oauth.authorize.ts';

export const ConnectedApp = builder.objectRef<ConnectedAppView>('ConnectedApp').implement({
  description: 'An app (OAuth client) the person connected to their data over MCP',
  fields: (t) => ({
    id: t.exposeInt('id', { description: 'the connection id' }),
    clientId: t.exposeString('clientId', { description: 'the OAuth client id' }),
    clientName: t.exposeString('clientName', {
      description: "the client's name as the person approved it",
    }),
    scopes: t.exposeStringList('scopes', { description: 'the scopes the person approved' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', description: 'at most 365 days on' }),
    lastUsedAt: t.expose('lastUsedAt', { type: 'DateTime', nullable: true }),
  }),
});

builder.queryFields((t) => ({
  connectedApps: t.withAuth({ loginSession: true }).field({
    type: [ConnectedApp],
    description: "The caller's live OAuth connections (not revoked, not expired), newest first",
    resolve: (_root, _args, ctx) => connectedApps(ctx),
  }),
}));

builder.mutationFields((t) => ({
  disconnectConnectedApp: t.withAuth({ loginSession: true }).field({
    type: ConnectedApp,
    description: "Disconnects one of the caller's connected apps; its tokens stop working at once",
    args: { id: t.arg.int({ required: true }) },
    resolve: (_root, { id }, ctx) => disconnectConnectedApp(ctx, { id }),
  }),
}));

const ConsentFamilyRef = builder.objectRef<ConsentFamily>('OAuthConsentFamily').implement({
  description: 'A group of scopes the consent page offers as one checkbox',
  fields: (t) => ({
    id: t.exposeString('id', { description: 'the form value: read, change, dna, ...' }),
    label: t.exposeString('label'),
    scopes: t.exposeStringList('scopes', { description: 'what ticking it grants' }),
    ticked: t.exposeBoolean('ticked', {
      description: 'ticked when the page opens (reading only)',
    }),
    requested: t.exposeBoolean('requested', { description: 'the client asked for it' }),
  }),
});

const AuthorizationRequestRef = builder
  .objectRef<AuthorizationRequestView>('OAuthAuthorizationRequest')
  .implement({
    description: 'What an app asks for on the OAuth consent page',
    fields: (t) => ({
      clientId: t.exposeString('clientId'),
      clientName: t.exposeString('clientName', {
        description: 'the name the app gave itself (not verified)',
      }),
      clientKind: t.exposeString('clientKind', {
        description: 'dcr (registered itself) or cimd (metadata document at clientId)',
      }),
      redirectUri: t.exposeString('redirectUri'),
      redirectTarget: t.exposeString('redirectTarget', {
        description: 'the host, or the app scheme, the browser returns to',
      }),
      redirectKind: t.exposeString('redirectKind', { description: 'loopback, web or app' }),
      families: t.field({ type: [ConsentFamilyRef], resolve: (r) => r.families }),
    }),
  });

const AuthorizationAnswerRef = builder
  .objectRef<{ redirectTo: string }>('OAuthAuthorizationAnswer')
  .implement({
    description: "Where to send the browser: the app's redirect URI with the answer",
    fields: (t) => ({ redirectTo: t.exposeString('redirectTo') }),
  });

builder.queryFields((t) => ({
  oauthAuthorizationRequest: t.withAuth({ loginSession: true }).field({
    type: AuthorizationRequestRef,
    description: 'The consent page of an OAuth authorization: what the app asks for',
    args: { ticket: t.arg.string({ required: true, description: 'from /oauth/authorize' }) },
    resolve: (_root, args, ctx) => oauthAuthorizationRequest(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  approveOAuthAuthorization: t.withAuth({ loginSession: true }).field({
    type: AuthorizationAnswerRef,
    description: 'Approves an OAuth authorization for the ticked families: a one-time code',
    args: {
      ticket: t.arg.string({ required: true }),
      families: t.arg.stringList({ required: true, description: 'ticked family ids' }),
    },
    resolve: (_root, args, ctx) => approveOAuthAuthorization(ctx, args),
  }),
  denyOAuthAuthorization: t.withAuth({ public: true }).field({
    type: AuthorizationAnswerRef,
    description: 'Declines an OAuth authorization: the app gets access_denied',
    args: { ticket: t.arg.string({ required: true }) },
    resolve: (_root, args, ctx) => denyOAuthAuthorization(ctx, args),
  }),
}));
