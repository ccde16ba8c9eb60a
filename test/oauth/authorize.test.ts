/**
 * /oauth/authorize's own checks (docs/mcp-oauth.md section 7) beyond the SDK's: the resource (absent
 * means ours), `state` up to 500 characters, a ticket short enough for any proxy, and the consent
 * request it leads to (requested scopes highlight families, never tick them). Refusals the SDK
 * makes (PKCE method, redirect URI, client): negative-matrix.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { startFakeClientMetadata } from '../fakes/client-metadata.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql } from '../harness/clients.ts';
import { authorize, authorizeParams, registerTestClient } from '../harness/oauth-client.ts';
import { OAuthBrowser } from '../harness/oauth.ts';

const fake = await startFakeClientMetadata();
const app = await startTestApp({}, { clientMetadataDial: fake.dial });

describe('/oauth/authorize', () => {
  it('takes a request without resource as one for this /mcp, and the exact resource too', async () => {
    const client = await registerTestClient(app);
    for (const extra of [{}, { resource: `${app.mcpUrl}/mcp` }] as Record<string, string>[]) {
      const res = await authorize(app, authorizeParams(client.client_id, extra));
      expect(res.status).toBe(302);
      expect(res.location?.pathname).toBe('/oauth/consent');
    }
  });

  it('refuses a state over 500 characters back at the client, with the state', async () => {
    const client = await registerTestClient(app);
    const state = 'x'.repeat(501);
    const res = await authorize(app, authorizeParams(client.client_id, { state }));
    expect(res.status).toBe(302);
    expect(res.location?.searchParams.get('error')).toBe('invalid_request');
    expect(res.location?.searchParams.get('state')).toBe(state);
    expect(
      (await authorize(app, authorizeParams(client.client_id, { state: 'x'.repeat(500) }))).status,
    ).toBe(302);
  });

  it('refuses a request whose ticket would be too long for a Location header', async () => {
    const path = `/long/${'p'.repeat(1_900)}.json`;
    const clientId = fake.clientId(path);
    const redirect = `https://app.example/${'r'.repeat(1_900)}`;
    fake.serve(path, {
      body: {
        client_id: clientId,
        client_name: 'Long',
        redirect_uris: [redirect],
        token_endpoint_auth_method: 'none',
      },
    });
    const res = await authorize(
      app,
      authorizeParams(clientId, { redirect_uri: redirect, state: 's'.repeat(500) }),
    );
    expect(res.status).toBe(302);
    expect(res.location?.origin).toBe('https://app.example');
    expect(res.location?.searchParams.get('error')).toBe('invalid_request');
  });

  it('highlights the families of the asked-for scopes, ticking only reading', async () => {
    const person = await seedUser(app);
    const client = await registerTestClient(app);
    const res = await authorize(
      app,
      authorizeParams(client.client_id, {
        scope: 'health:dna:read health:nutrition:write orders:pay nonsense',
      }),
    );
    const ticket = res.location!.searchParams.get('ticket')!;
    const view = await gql(
      app,
      `query ($ticket: String!) {
        oauthAuthorizationRequest(ticket: $ticket) {
          clientName redirectTarget redirectKind families { id ticked requested }
        }
      }`,
      { token: person.token, variables: { ticket } },
    );
    const request = view.body.data.oauthAuthorizationRequest;
    expect(request).toMatchObject({
      clientName: 'Flow test client',
      redirectTarget: '127.0.0.1:9',
      redirectKind: 'loopback',
    });
    const families = Object.fromEntries(
      request.families.map((f: { id: string; ticked: boolean; requested: boolean }) => [f.id, f]),
    );
    expect(families.read).toMatchObject({ ticked: true, requested: false });
    expect(families.dna).toMatchObject({ ticked: false, requested: true });
    expect(families.change).toMatchObject({ ticked: false, requested: true });
    expect(families.export).toMatchObject({ ticked: false, requested: false });
  });
});

describe('the sign-in page', () => {
  it('refuses a ticket longer than any authorize signs before signing anyone in', async () => {
    const person = await seedUser(app);
    const browser = new OAuthBrowser(app);
    const res = await browser.post('/oauth/sign-in', {
      action: 'password',
      ticket: 'a'.repeat(4_001),
      email: person.user.email,
      password: person.password,
    });
    expect(res.status).toBe(400);
    expect(res.headers.getSetCookie()).toEqual([]);
  });
});
