/**
 * Issue 29, items 1 and 2: a body cut short. A multipart upload whose file part never gets its
 * closing boundary (the request ended, or the connection closed mid-body) must answer a 4xx or just
 * close, never end the process; a JSON body that is not a complete document (`[`, an array missing
 * its `]`, an object cut mid-string) answers the legacy 422 `json_invalid` and writes nothing. The
 * fuzz test (test/fuzz/no-5xx.test.ts) sends truncated and aborted bodies to every route; these
 * tests pin the answers, and that the readers settle when the client goes away.
 */
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import express from 'express';
import type { NextFunction, Request, Response } from 'express';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readMultipart } from '../../rest-facade/responders.ts';
import type { MultipartResult } from '../../rest-facade/responders.ts';
import { ROUTES } from '../../rest-facade/routes.ts';
import { jsonStreamBodyParser } from '../../src/platform/json-stream.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { rawRequest } from '../harness/raw-http.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

// An uncaught exception does not end a vitest worker (vitest reports it after the run), so the
// tests record them: a body that ended the process in production shows up here.
const uncaught: unknown[] = [];
const recordUncaught = (err: unknown): void => void uncaught.push(err);
beforeAll(() => void process.on('uncaughtException', recordUncaught));
beforeEach(() => void (uncaught.length = 0));
afterAll(() => void process.off('uncaughtException', recordUncaught));

const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const BOUNDARY = 'cut-short';

/** A multipart body with a text field, then a file part that never gets its closing boundary. */
const UNCLOSED_FORM = Buffer.concat([
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="description"\r\n\r\nsoup\r\n` +
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="photo"; filename="a.png"\r\n` +
      'Content-Type: image/png\r\n\r\n',
  ),
  PNG_1X1,
]);
const FORM_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

const UPLOAD_PATHS = ROUTES.filter((r) => r.responder === 'multipart').map((r) => ({
  key: `${r.method} ${r.path}`,
  method: r.method,
  path: r.path.replace(/\{\w+\}/g, '00000000-0000-4000-8000-000000000001'),
}));

async function expectServerUp(): Promise<void> {
  const ready = await rawRequest(app.baseUrl, { method: 'GET', path: '/readyz' });
  expect(ready.status).toBe(200);
  expect(uncaught).toEqual([]);
}

describe('issue 29: a multipart upload cut short', () => {
  it('finds the upload routes in the route table', () => {
    expect(UPLOAD_PATHS.length).toBeGreaterThanOrEqual(4);
  });

  it('answers 422 when a file part never gets its closing boundary, and stays up', async () => {
    const user = await seedUser(app);
    const callers = {
      'login token': user.token,
      'profile:read token': await seedPersonalToken(app, user.user.id, ['profile:read']),
    };
    for (const route of UPLOAD_PATHS) {
      for (const [caller, token] of Object.entries(callers)) {
        const res = await rawRequest(app.baseUrl, {
          method: route.method,
          path: route.path,
          headers: { authorization: `Bearer ${token}`, 'content-type': FORM_TYPE },
          body: UNCLOSED_FORM,
        });
        expect([res.status, route.key, caller]).toEqual([422, route.key, caller]);
        expect(JSON.parse(res.body)).toEqual({
          detail: [
            { loc: ['body'], msg: 'Malformed multipart/form-data body', type: 'value_error' },
          ],
        });
        await expectServerUp();
      }
    }
  });

  it('stays up when the client closes the connection mid-upload', async () => {
    const user = await seedUser(app);
    const tokens = [user.token, await seedPersonalToken(app, user.user.id, ['profile:read'])];
    for (const route of UPLOAD_PATHS) {
      for (const token of tokens) {
        const res = await rawRequest(app.baseUrl, {
          method: route.method,
          path: route.path,
          headers: { authorization: `Bearer ${token}`, 'content-type': FORM_TYPE },
          body: UNCLOSED_FORM,
          abort: true,
        });
        expect(res.status === 0 || (res.status >= 400 && res.status < 500), route.key).toBe(true);
        await expectServerUp();
      }
    }
  });
});

/** A server of one handler on an ephemeral port (closed after the file). */
async function listen(handler: (req: Request, res: Response) => void): Promise<string> {
  const server: Server = createServer(express().use(handler));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  afterAll(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A promise with its resolve function outside. */
function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('issue 29: body readers settle when the client goes away', () => {
  it('readMultipart settles (refused) when the connection closes mid-file', async () => {
    const result = deferred<MultipartResult>();
    const received = deferred<void>();
    const url = await listen((req) => {
      void readMultipart(req, { maxFileBytes: 1024 * 1024 }).then(result.resolve);
      req.once('data', () => received.resolve());
    });
    const sent = rawRequest(url, {
      method: 'POST',
      path: '/',
      headers: { 'content-type': FORM_TYPE },
      body: UNCLOSED_FORM,
      abort: true,
    });
    await received.promise;
    await sent;
    expect((await result.promise).ok).toBe(false);
    expect(uncaught).toEqual([]);
  });

  it('readMultipart settles when the request was gone before it started reading', async () => {
    const result = deferred<MultipartResult>();
    const url = await listen((req) => {
      req.once('close', () => void readMultipart(req, { maxFileBytes: 1024 }).then(result.resolve));
    });
    await rawRequest(url, {
      method: 'POST',
      path: '/',
      headers: { 'content-type': FORM_TYPE },
      body: UNCLOSED_FORM,
      abort: true,
    });
    expect((await result.promise).ok).toBe(false);
  });

  it('the streaming JSON parser settles when a compressed body is cut off', async () => {
    const failed = deferred<{ type?: string }>();
    const received = deferred<void>();
    const parse = jsonStreamBodyParser('1mb');
    const url = await listen((req, res) => {
      req.once('data', () => received.resolve());
      parse(req, res, ((err?: { type?: string }) =>
        failed.resolve(err ?? { type: 'parsed' })) as NextFunction);
    });
    const gzip = gzipSync(JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ i }))));
    const sent = rawRequest(url, {
      method: 'POST',
      path: '/',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzip.subarray(0, gzip.length >> 1),
      abort: true,
    });
    await received.promise;
    await sent;
    expect((await failed.promise).type).toBe('request.unreadable');
  });
});

describe('issue 29: a truncated JSON body is refused', () => {
  const reading = { sensor_id: 2, timestamp: clock.ms() - 60_000, value_mg_dl: 110 };
  const sample = { sensor_id: 1, timestamp: clock.ms() - 60_000, raw_value: 1500 };
  const truncations = (item: object): Record<string, string> => {
    const whole = JSON.stringify([item, { ...item, timestamp: (item as any).timestamp + 1000 }]);
    return {
      'a lone [': '[',
      'an array missing its ]': whole.slice(0, -1),
      'an array cut after an element': whole.slice(0, whole.indexOf('},') + 1),
      'an array cut after a comma': whole.slice(0, whole.indexOf('},') + 2),
      'an object cut mid-string': whole.slice(0, whole.lastIndexOf('"') - 1),
      'an object missing its }': whole.slice(0, -2),
    };
  };

  for (const [path, item, count] of [
    [
      '/api/glucose/readings/batch',
      reading,
      (userId: number) => app.db.prisma.glucoseReading.count({ where: { userId } }),
    ],
    [
      '/api/glucose/raw/batch',
      sample,
      (userId: number) => app.db.prisma.rawSensorData.count({ where: { userId } }),
    ],
  ] as const) {
    it(`answers 422 json_invalid and stores nothing on POST ${path}`, async () => {
      const { user, token } = await seedUser(app);
      for (const [name, text] of Object.entries(truncations(item))) {
        const res = await rawRequest(app.baseUrl, {
          method: 'POST',
          path,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: text,
        });
        expect([name, res.status]).toEqual([name, 422]);
        expect(JSON.parse(res.body)).toEqual({
          detail: [{ loc: ['body'], msg: 'JSON decode error', type: 'json_invalid' }],
        });
        expect([name, await count(user.id)]).toEqual([name, 0]);
      }
      // the whole document is taken
      const whole = await rest(app, 'POST', path, { token, body: [item] });
      expect(whole.status).toBe(200);
      expect(await count(user.id)).toBe(1);
    });
  }
});
