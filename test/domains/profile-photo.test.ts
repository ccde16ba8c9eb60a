import { existsSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { GIF, HEIC, JPEG, PNG, WEBP, jpegOfSize } from '../fakes/images.ts';
import { startTestApp } from '../harness/app.ts';
import { gql } from '../harness/clients.ts';
import type { JsonResponse } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { multipartStart, rawRequest } from '../harness/raw-http.ts';

const app = await startTestApp();
const MB = 1024 * 1024;

async function upload(
  token: string | null,
  data: Uint8Array<ArrayBuffer> | null,
  type = 'image/png',
  field = 'file',
): Promise<JsonResponse> {
  const form = new FormData();
  if (data) form.append(field, new Blob([data], { type }), 'photo');
  const res = await app.fetch('/api/auth/profile-photo', {
    method: 'POST',
    headers: token ? { authorization: `Bearer ${token}` } : {},
    body: form,
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const fileOf = (url: string): string =>
  path.join(app.config.DATA_DIR, 'uploads', url.replace(/^.*\/media\//, ''));

describe('POST /api/auth/profile-photo', () => {
  it('stores the photo and answers UserOut with its URL, served back with its type and cache headers', async () => {
    const { user, token } = await seedUser(app);
    const res = await upload(token, PNG, 'image/png');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: user.id,
      email: user.email,
      profile_photo_url: expect.stringMatching(/^\/media\/profile\/[\w-]{22}\.png$/),
    });

    const photo = await app.fetch(res.body.profile_photo_url);
    expect(photo.status).toBe(200);
    expect(photo.headers.get('content-type')).toBe('image/png');
    expect(photo.headers.get('cache-control')).toBe('private, max-age=31536000, immutable');
    expect(photo.headers.get('x-content-type-options')).toBe('nosniff');
    expect(new Uint8Array(await photo.arrayBuffer())).toEqual(PNG);

    const etag = photo.headers.get('etag')!;
    const again = await app.fetch(res.body.profile_photo_url, {
      headers: { 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    const head = await app.fetch(res.body.profile_photo_url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(PNG.length));

    const me = await gql(app, '{ me { profilePhotoUrl } }', { token });
    expect(me.body.data.me.profilePhotoUrl).toBe(res.body.profile_photo_url);
  });

  it('deletes the old photo when it is replaced', async () => {
    const { token } = await seedUser(app);
    const first = await upload(token, PNG, 'image/png');
    const second = await upload(token, JPEG, 'image/jpeg');
    expect(second.status).toBe(200);
    expect(second.body.profile_photo_url).toMatch(/\.jpg$/);
    expect(existsSync(fileOf(first.body.profile_photo_url))).toBe(false);
    expect((await app.fetch(first.body.profile_photo_url)).status).toBe(404);
    expect(existsSync(fileOf(second.body.profile_photo_url))).toBe(true);
  });

  it('accepts JPEG, PNG, WebP and HEIC by their bytes, also when the declared type says nothing', async () => {
    const { token } = await seedUser(app);
    for (const [data, type, ext] of [
      [JPEG, 'image/jpeg', 'jpg'],
      [WEBP, 'image/webp', 'webp'],
      [HEIC, 'image/heic', 'heic'],
      [PNG, 'application/octet-stream', 'png'],
      [WEBP, '', 'webp'],
    ] as const) {
      const res = await upload(token, data, type);
      expect(res.status, `${type} ${ext}`).toBe(200);
      expect(res.body.profile_photo_url).toMatch(new RegExp(`\\.${ext}$`));
    }
  });

  it('answers 422 for other types, by the bytes and by the declared type', async () => {
    const { token } = await seedUser(app);
    const cases: [Uint8Array<ArrayBuffer>, string, RegExp][] = [
      [GIF, 'image/gif', /Unsupported image type image\/gif/],
      [
        new Uint8Array(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')),
        'image/png',
        /not a JPEG, PNG, WebP or HEIC image/,
      ],
      [GIF, 'image/jpeg', /not a JPEG, PNG, WebP or HEIC image/],
      [PNG, 'text/plain', /Unsupported image type text\/plain/],
      [new Uint8Array(0), 'image/png', /empty/],
    ];
    for (const [data, type, msg] of cases) {
      const res = await upload(token, data, type);
      expect(res.status, type).toBe(422);
      expect(res.body.detail).toEqual([
        { loc: ['body', 'file'], msg: expect.stringMatching(msg), type: 'value_error' },
      ]);
    }
    const me = await gql(app, '{ me { profilePhotoUrl } }', { token });
    expect(me.body.data.me.profilePhotoUrl).toBeNull();
  });

  it('answers 422 when the file part is missing or the body is not multipart', async () => {
    const { token } = await seedUser(app);
    const missing = await upload(token, null);
    expect(missing.status).toBe(422);
    expect(missing.body.detail).toEqual([
      { loc: ['body', 'file'], msg: 'Field required', type: 'missing' },
    ]);
    const otherField = await upload(token, PNG, 'image/png', 'photo');
    expect(otherField.status).toBe(422);
    const json = await app.fetch('/api/auth/profile-photo', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ file: 'x' }),
    });
    expect(json.status).toBe(422);
  });

  it('answers 413 beyond PROFILE_PHOTO_MAX_BYTES (5 MB), and beyond UPLOAD_MAX_BYTES', async () => {
    const { token } = await seedUser(app);
    expect(app.config.PROFILE_PHOTO_MAX_BYTES).toBe(5 * MB);
    const atLimit = await upload(token, jpegOfSize(5 * MB), 'image/jpeg');
    expect(atLimit.status).toBe(200);
    const over = await upload(token, jpegOfSize(5 * MB + 1), 'image/jpeg');
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ detail: `The photo is larger than ${5 * MB} bytes` });
    const huge = await upload(token, jpegOfSize(10 * MB + 1), 'image/jpeg');
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ detail: `The photo is larger than ${5 * MB} bytes` });
    // the photo that was accepted is still the current one
    const me = await gql(app, '{ me { profilePhotoUrl } }', { token });
    expect(me.body.data.me.profilePhotoUrl).toBe(atLimit.body.profile_photo_url);
  });

  it('answers 413 once the photo passes 5 MB, before the rest of a far larger body is sent (issue 45)', async () => {
    const { token } = await seedUser(app);
    // 5 MB and a little more of a declared 64 MB: the rest never comes, so only an answer given
    // while most of the body is unsent can arrive (a server reading on would wait for it)
    const form = multipartStart('file', Buffer.from(jpegOfSize(5 * MB + 1024)));
    const res = await rawRequest(app.baseUrl, {
      method: 'POST',
      path: '/api/auth/profile-photo',
      headers: { authorization: `Bearer ${token}`, 'content-type': form.contentType },
      body: form.body,
      contentLength: 64 * MB,
    });
    expect(res.status, res.error).toBe(413);
    expect(JSON.parse(res.body)).toEqual({ detail: `The photo is larger than ${5 * MB} bytes` });
    expect(res.headers.connection).toBe('close');
    const me = await gql(app, '{ me { profilePhotoUrl } }', { token });
    expect(me.body.data.me.profilePhotoUrl).toBeNull();
  });

  it('needs a credential with profile:write', async () => {
    expect((await upload(null, PNG)).status).toBe(401);
    const { user } = await seedUser(app);
    const readOnly = await seedPersonalToken(app, user.id, ['profile:read']);
    const refused = await upload(readOnly, PNG);
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toEqual({ code: 'insufficient_scope', scope: 'profile:write' });
    const writer = await seedPersonalToken(app, user.id, ['profile:write']);
    expect((await upload(writer, PNG)).status).toBe(200);
  });

  it('works as a GraphQL multipart upload at /graphql (the web dashboard), with the same read limit', async () => {
    const { token } = await seedUser(app);
    const send = (data: Uint8Array<ArrayBuffer>, type: string): Promise<Response> => {
      const form = new FormData();
      form.append(
        'operations',
        JSON.stringify({
          query: 'mutation($f: File!) { setProfilePhoto(file: $f) { profilePhotoUrl } }',
          variables: { f: null },
        }),
      );
      form.append('map', JSON.stringify({ 0: ['variables.f'] }));
      form.append('0', new Blob([data], { type }), 'me');
      return app.fetch('/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
    };
    const body = await (await send(WEBP, 'image/webp')).json();
    expect(body.errors).toBeUndefined();
    expect(body.data.setProfilePhoto.profilePhotoUrl).toMatch(/\.webp$/);
    const tooLarge = await (await send(jpegOfSize(5 * MB + 1), 'image/jpeg')).json();
    expect(tooLarge.errors[0].extensions.code).toBe('PAYLOAD_TOO_LARGE');
    expect((await send(jpegOfSize(10 * MB + 1), 'image/jpeg')).status).toBe(413);
  });
});

describe('the OpenAPI document', () => {
  it('documents the upload as multipart/form-data with a binary file part', async () => {
    const doc = await (await app.fetch('/api/openapi.json')).json();
    const op = doc.paths['/api/auth/profile-photo'].post;
    expect(op.operationId).toBe('setProfilePhoto');
    expect(op.requestBody.content).toEqual({
      'multipart/form-data': {
        schema: expect.objectContaining({
          properties: { file: expect.objectContaining({ type: 'string', format: 'binary' }) },
          required: ['file'],
        }),
      },
    });
    expect(op.security).toEqual([{ bearerAuth: ['profile:write'] }]);
  });
});

describe('GET /media/...', () => {
  it('answers 404 for unknown keys, private folders and paths that are not keys', async () => {
    for (const p of [
      '/media/profile/AAAAAAAAAAAAAAAAAAAAAA.png',
      '/media/meals/AAAAAAAAAAAAAAAAAAAAAA.png',
      '/media/profile/..%2F..%2Fsecrets.json',
      '/media/profile/%2E%2E',
      '/media/..%2Fsecrets.json/x',
    ]) {
      expect((await app.fetch(p)).status, p).toBe(404);
    }
  });
});

describe('MCP profile_photo_set', () => {
  it('sets the photo from base64 data and content_type through the same rules', async () => {
    const { user } = await seedUser(app);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['profile:write', 'profile:read']),
    );
    const tool = (await client.listTools()).tools.find((t) => t.name === 'profile_photo_set')!;
    expect([...(tool.inputSchema.required ?? [])].sort()).toEqual(['content_type', 'data']);
    expect(tool.annotations).toMatchObject({ destructiveHint: false, idempotentHint: true });

    const ok = await callTool(client, 'profile_photo_set', {
      data: Buffer.from(PNG).toString('base64'),
      content_type: 'image/png',
    });
    expect(ok.isError).toBeFalsy();
    const url = (ok.structuredContent as any).profile_photo_url;
    expect(url).toMatch(/^\/media\/profile\/.+\.png$/);
    expect((await app.fetch(url)).status).toBe(200);

    const badType = await callTool(client, 'profile_photo_set', {
      data: Buffer.from(GIF).toString('base64'),
      content_type: 'image/gif',
    });
    expect((badType.structuredContent as any).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['data'] }],
    });
    const notBase64 = await callTool(client, 'profile_photo_set', {
      data: '%%% not base64 %%%',
      content_type: 'image/png',
    });
    expect((notBase64.structuredContent as any).error).toMatchObject({
      code: 'VALIDATION_FAILED',
      detail: [{ loc: ['data'] }],
    });
    const tooLarge = await callTool(client, 'profile_photo_set', {
      data: Buffer.from(jpegOfSize(5 * MB + 1)).toString('base64'),
      content_type: 'image/jpeg',
    });
    expect((tooLarge.structuredContent as any).error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});
