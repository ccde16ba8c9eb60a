/** Connected apps: the caller's OAuth connections, listed and disconnected (login sessions only). */
import { builder } from '../../graphql/builder.ts';
import type { ConnectedAppView } from './oauth.connections.ts';
import { disconnectConnectedApp, listConnectedApps } from './oauth.connections.ts';

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
    resolve: (_root, _args, ctx) => listConnectedApps(ctx),
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
