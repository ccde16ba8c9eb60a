/**
 * Client ID metadata documents (issue 13; docs/mcp-oauth.md section 6): the address guard alone,
 * the fetcher's refusals before any connection, its limits against a real local server (through
 * the test-only dial), and metadataClient on the real database: the cache, its lifetime bounds,
 * refetching a stale copy, and every document refusal (an unknown client, never a stale one).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { isClientMetadataUrl, metadataClient } from '../../src/domains/oauth/index.ts';
import {
  ClientMetadataFetchError,
  fetchClientMetadata,
  isPublicAddress,
} from '../../src/integrations/client-metadata.ts';
import { openTestDatabase } from '../harness/app.ts';
import { startFakeClientMetadata } from '../fakes/client-metadata.ts';
import { clock } from '../../src/base/clock.ts';

// The database alone (a fresh copy of the template): metadataClient needs no HTTP app around it.
const database = await openTestDatabase();
afterAll(() => database.close());
const db = database.prisma;
const fake = await startFakeClientMetadata();
const fetcher = (url: URL) => fetchClientMetadata(url, { dial: fake.dial });

let pathCounter = 0;
/** A fresh document path per test. */
function freshPath(): string {
  return `/cimd/${++pathCounter}/client.json`;
}

/** A valid metadata document for `path`, with overrides. */
function documentFor(
  path: string,
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    client_id: fake.clientId(path),
    client_name: 'Example MCP client',
    redirect_uris: ['https://client.example/callback', 'http://127.0.0.1/callback'],
    ...overrides,
  };
}

/** Rejects with ClientMetadataFetchError whose message matches `why`. */
async function expectRefused(promise: Promise<unknown>, why: RegExp): Promise<void> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ClientMetadataFetchError);
  expect((error as Error).message).toMatch(why);
}

describe('isPublicAddress', () => {
  it.each([
    '10.0.0.1',
    '169.254.169.254',
    '127.0.0.1',
    '::1',
    'fc00::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    '100.64.0.1',
    '0.0.0.0',
    '192.168.1.1',
    '224.0.0.1',
    'fe80::1',
    '::',
    'not an address',
  ])('refuses %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(['93.184.216.34', '2606:4700::1', '::ffff:93.184.216.34'])('allows %s', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });
});

describe('isClientMetadataUrl', () => {
  it('answers true for an https URL with a path', () => {
    expect(isClientMetadataUrl('https://client.example/oauth/client.json')).toBe(true);
  });

  it.each([
    'https://client.example',
    'https://client.example/',
    'http://client.example/client.json',
    '3f0c2a7e-6b1d-4c58-9e0a-2d5f1b7c8e90',
    'https://',
  ])('answers false for %s', (id) => {
    expect(isClientMetadataUrl(id)).toBe(false);
  });
});

describe('fetchClientMetadata refusals before any connection', () => {
  it.each([
    ['https://10.0.0.1/c.json', /10\.0\.0\.1 is not a public address/],
    ['https://[::1]/c.json', /::1 is not a public address/],
    ['https://169.254.169.254/latest/meta-data', /not a public address/],
    ['https://[::ffff:127.0.0.1]/c.json', /not a public address/],
    ['http://client.example/c.json', /not https/],
    ['https://client.example/', /no path/],
    ['https://user:pw@client.example/c.json', /user information/],
    ['https://client.example/c.json#x', /fragment/],
  ])('refuses %s', async (url, why) => {
    await expectRefused(fetchClientMetadata(new URL(url)), why);
  });

  it('refuses a name that resolves to loopback (the connection lookup)', async () => {
    await expectRefused(
      fetchClientMetadata(new URL('https://localhost/c.json')),
      /localhost resolves to .* not a public address/,
    );
  });

  it('guards every URL the dial does not map', async () => {
    await expectRefused(
      fetchClientMetadata(new URL('https://localhost/c.json'), { dial: fake.dial }),
      /not a public address/,
    );
    await expectRefused(
      fetchClientMetadata(new URL('https://127.0.0.1/c.json'), { dial: fake.dial }),
      /not a public address/,
    );
  });
});

describe('fetchClientMetadata through the dial', () => {
  it('answers the document and its max-age', async () => {
    const path = freshPath();
    fake.serve(path, {
      body: documentFor(path),
      contentType: 'application/json; charset=utf-8',
      cacheControl: 'public, max-age=600',
    });
    const answer = await fetcher(new URL(fake.clientId(path)));
    expect(answer).toEqual({ document: documentFor(path), maxAgeSeconds: 600 });
  });

  it('answers a null max-age without Cache-Control and 0 for no-store', async () => {
    const path = freshPath();
    fake.serve(path, { body: documentFor(path) });
    expect((await fetcher(new URL(fake.clientId(path)))).maxAgeSeconds).toBeNull();
    fake.serve(path, { body: documentFor(path), cacheControl: 'no-store' });
    expect((await fetcher(new URL(fake.clientId(path)))).maxAgeSeconds).toBe(0);
  });

  it('shares one fetch between concurrent calls for one URL', async () => {
    const path = freshPath();
    fake.serve(path, { body: documentFor(path), delayMs: 50 });
    const url = new URL(fake.clientId(path));
    const [a, b] = await Promise.all([fetcher(url), fetcher(url)]);
    expect(a).toBe(b);
    expect(fake.fetches(path)).toBe(1);
  });

  it('refuses a document over 5 kB (declared length)', async () => {
    const path = freshPath();
    fake.serve(path, { body: documentFor(path, { client_uri: 'x'.repeat(5_200) }) });
    await expectRefused(fetcher(new URL(fake.clientId(path))), /larger than 5120 bytes/);
  });

  it('stops reading a streamed document after 5 kB', async () => {
    const path = freshPath();
    fake.serve(path, { body: 'x'.repeat(200_000), stream: true });
    const started = clock.ms();
    await expectRefused(fetcher(new URL(fake.clientId(path))), /larger than 5120 bytes/);
    // 200 chunks would take a second; the fetch gives up after the sixth
    expect(clock.ms() - started).toBeLessThan(500);
  });

  it('refuses an answer slower than the timeout', async () => {
    const path = freshPath();
    fake.serve(path, { body: documentFor(path), delayMs: 1_000 });
    await expectRefused(
      fetchClientMetadata(new URL(fake.clientId(path)), { dial: fake.dial, timeoutMs: 100 }),
      /within 100 ms/,
    );
  });

  it('refuses a redirect without following it', async () => {
    const path = freshPath();
    const target = freshPath();
    fake.serve(path, { status: 302, location: `${fake.url}${target}` });
    fake.serve(target, { body: documentFor(path) });
    await expectRefused(fetcher(new URL(fake.clientId(path))), /302: redirects are not followed/);
    expect(fake.fetches(target)).toBe(0);
  });

  it.each(['text/html', 'application/jsonx', 'text/plain; charset=utf-8'])(
    'refuses the content type %s',
    async (contentType) => {
      const path = freshPath();
      fake.serve(path, { body: documentFor(path), contentType });
      await expectRefused(fetcher(new URL(fake.clientId(path))), /not application\/json/);
    },
  );

  it.each([404, 500, 204])('refuses status %i', async (status) => {
    const path = freshPath();
    fake.serve(path, { status, body: status === 204 ? '' : documentFor(path) });
    await expectRefused(fetcher(new URL(fake.clientId(path))), new RegExp(`${status}, not 200`));
  });

  it('refuses a body that is not JSON', async () => {
    const path = freshPath();
    fake.serve(path, { body: '{"client_id": ' });
    await expectRefused(fetcher(new URL(fake.clientId(path))), /not valid JSON/);
  });
});

describe('metadataClient', () => {
  /** The cached row of a client_id. */
  const row = (id: string) => db.oAuthClient.findUniqueOrThrow({ where: { id } });

  it('fetches once, answers the client and caches it', async () => {
    const path = freshPath();
    const id = fake.clientId(path);
    fake.serve(path, { body: documentFor(path) });
    const first = await metadataClient(db, id, fetcher);
    const second = await metadataClient(db, id, fetcher);
    expect(fake.fetches(path)).toBe(1);
    expect(second).toEqual(first);
    expect(first).toEqual({
      client_id: id,
      client_id_issued_at: expect.any(Number),
      client_name: 'Example MCP client',
      redirect_uris: ['https://client.example/callback', 'http://127.0.0.1/callback'],
      token_endpoint_auth_method: 'none',
    });
    const stored = await row(id);
    expect(stored).toMatchObject({ kind: 'cimd', authMethod: 'none', secretHash: null });
    expect(stored.fetchedAt).toBeInstanceOf(Date);
  });

  it('answers concurrent first uses of one client alike (one fetch, one row)', async () => {
    const path = freshPath();
    const id = fake.clientId(path);
    fake.serve(path, { body: documentFor(path), delayMs: 20 });
    const answers = await Promise.all([1, 2, 3].map(() => metadataClient(db, id, fetcher)));
    expect(answers.map((a) => a?.client_id)).toEqual([id, id, id]);
    expect(fake.fetches(path)).toBe(1);
  });

  it('refetches a stale copy and stores the new document', async () => {
    const path = freshPath();
    const id = fake.clientId(path);
    fake.serve(path, { body: documentFor(path) });
    await metadataClient(db, id, fetcher);
    await db.oAuthClient.update({ where: { id }, data: { staleAt: new Date(clock.ms() - 1000) } });
    fake.serve(path, { body: documentFor(path, { client_name: 'Renamed client' }) });
    const client = await metadataClient(db, id, fetcher);
    expect(fake.fetches(path)).toBe(2);
    expect(client?.client_name).toBe('Renamed client');
    expect((await row(id)).name).toBe('Renamed client');
  });

  it('refuses the client when the refresh of a stale copy fails (no stale use)', async () => {
    const path = freshPath();
    const id = fake.clientId(path);
    fake.serve(path, { body: documentFor(path) });
    expect(await metadataClient(db, id, fetcher)).toBeDefined();
    await db.oAuthClient.update({ where: { id }, data: { staleAt: new Date(clock.ms() - 1000) } });
    fake.serve(path, { status: 500, body: 'oops' });
    expect(await metadataClient(db, id, fetcher)).toBeUndefined();
    fake.serve(path, { body: documentFor(path, { client_id: 'https://other.example/c.json' }) });
    expect(await metadataClient(db, id, fetcher)).toBeUndefined();
    expect(fake.fetches(path)).toBe(3);
  });

  it.each([
    ['max-age=10', 300],
    ['max-age=7200', 7_200],
    ['max-age=9999999', 86_400],
    ['no-store', 300],
    [undefined, 3_600],
  ])('keeps a copy answered with Cache-Control %s for %i s', async (cacheControl, seconds) => {
    const path = freshPath();
    const id = fake.clientId(path);
    fake.serve(path, { body: documentFor(path), cacheControl });
    await metadataClient(db, id, fetcher);
    const stored = await row(id);
    expect(stored.staleAt!.getTime() - stored.fetchedAt!.getTime()).toBe(seconds * 1000);
  });

  it.each<[string, (path: string) => Record<string, unknown> | string]>([
    [
      'a client_id that is not the URL',
      (p) => documentFor(p, { client_id: `${fake.clientId(p)}?x` }),
    ],
    ['no client_id', (p) => documentFor(p, { client_id: undefined })],
    ['no client_name', (p) => documentFor(p, { client_name: undefined })],
    ['an empty client_name', (p) => documentFor(p, { client_name: ' ' })],
    ['a client_name over 100 characters', (p) => documentFor(p, { client_name: 'n'.repeat(101) })],
    ['no redirect_uris', (p) => documentFor(p, { redirect_uris: undefined })],
    ['a client_secret', (p) => documentFor(p, { client_secret: 'hunter2' })],
    ['a client_secret_expires_at', (p) => documentFor(p, { client_secret_expires_at: 0 })],
    [
      'method client_secret_post',
      (p) => documentFor(p, { token_endpoint_auth_method: 'client_secret_post' }),
    ],
    [
      'method private_key_jwt',
      (p) => documentFor(p, { token_endpoint_auth_method: 'private_key_jwt' }),
    ],
    ['an http redirect URI', (p) => documentFor(p, { redirect_uris: ['http://evil.example/cb'] })],
    [
      'a javascript: redirect URI',
      (p) => documentFor(p, { redirect_uris: ['javascript:alert(1)'] }),
    ],
    [
      'a redirect URI with a fragment',
      (p) => documentFor(p, { redirect_uris: ['https://a.example/cb#f'] }),
    ],
    [
      'grant type client_credentials',
      (p) => documentFor(p, { grant_types: ['client_credentials'] }),
    ],
    ['an array', () => '[]'],
  ])('answers undefined for a document with %s', async (_what, make) => {
    const path = freshPath();
    const id = fake.clientId(path);
    fake.serve(path, { body: make(path) });
    expect(await metadataClient(db, id, fetcher)).toBeUndefined();
    expect(fake.fetches(path)).toBe(1);
    expect(await db.oAuthClient.findUnique({ where: { id } })).toBeNull();
  });

  it('answers undefined without fetching for an id it cannot use', async () => {
    const fetches: URL[] = [];
    const spy = (url: URL) => {
      fetches.push(url);
      return fetcher(url);
    };
    for (const id of [
      'https://client.example/',
      'https://CLIENT.example/c.json',
      'https://client.example/a/../c.json',
      'https://client.example:443/c.json',
      `https://client.example/${'x'.repeat(2_000)}`,
    ])
      expect(await metadataClient(db, id, spy)).toBeUndefined();
    expect(fetches).toEqual([]);
  });

  it('answers undefined when the fetch is refused (a private address)', async () => {
    expect(
      await metadataClient(db, 'https://10.0.0.1/c.json', (url) => fetchClientMetadata(url)),
    ).toBeUndefined();
  });

  it('never answers a registered (DCR) client under a metadata URL', async () => {
    const id = 'https://client.example/registered.json';
    await db.oAuthClient.create({
      data: { id, kind: 'dcr', redirectUris: [], authMethod: 'none', metadata: {} },
    });
    fake.serve('/registered.json', { body: documentFor('/registered.json') });
    expect(await metadataClient(db, id, fetcher)).toBeUndefined();
    expect(fake.fetches('/registered.json')).toBe(0);
  });
});
