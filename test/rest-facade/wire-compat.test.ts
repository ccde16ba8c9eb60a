/**
 * Issue 11, items 2, 3, 4 and 6: the REST facade keeps the legacy FastAPI server's wire habits on
 * every route (../shared/notes/legacy-wire.md), through the real stack. Unknown body fields are
 * ignored and camelCase spellings are not aliases; scalars are read in Pydantic v2's lax mode, in
 * bodies as in query strings; a wrong method on a known path is 405 with Allow, an unknown path is
 * JSON for API clients; every 422 uses one wire `loc` form.
 */
import { GraphQLInputObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { readWireValue } from '../../rest-facade/wire-input.ts';
import type { ValidationIssue } from '../../src/base/errors.ts';
import { schema } from '../../src/schema/schema.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

const minutesAgo = (m: number): string => new Date(clock.ms() - m * 60_000).toISOString();
/** A whole second a few minutes ago (Unix seconds and milliseconds name it exactly). */
const secondsAgo = (s: number): Date => new Date((Math.floor(clock.ms() / 1000) - s) * 1000);

describe('issue 11: unknown body fields are ignored', () => {
  it('ignores undeclared fields of a body, at the top and nested in lists', async () => {
    const { user, token, password } = await seedUser(app);
    const reading = await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { timestamp: minutesAgo(1), value_mg_dl: 101, trend: 'flat', trend_rate: 0.1 },
    });
    expect(reading.status).toBe(200);
    expect(reading.body.value_mg_dl).toBe(101);

    const login = await rest(app, 'POST', '/api/auth/login', {
      body: { email: user.email, password, device_name: 'Pixel 8' },
    });
    expect(login.status).toBe(200);
    expect(login.body.access_token).toEqual(expect.any(String));

    const batch = await rest(app, 'POST', '/api/glucose/readings/batch', {
      token,
      body: [
        { sensor_id: 2, timestamp: minutesAgo(2), value_mg_dl: 110, trend: 'up', meta: { a: 1 } },
      ],
    });
    expect(batch.status).toBe(200);

    const imported = await rest(app, 'POST', '/api/health/platform/import', {
      token,
      body: {
        device: 'Apple Watch',
        samples: [{ metric_type: 'steps', value: 10, timestamp: minutesAgo(3), unit: 'count' }],
      },
    });
    expect(imported.status).toBe(200);
    expect(imported.body).toEqual({ inserted: 1, skipped: 0 });
  });

  it("passes a JSON value (the sync push body) through with the client's own keys", async () => {
    const { token } = await seedUser(app);
    const push = await rest(app, 'POST', '/api/sync/push?last_pulled_at=0', {
      token,
      body: { table_2: { created: [], updated: [], deleted: [] } },
    });
    expect(push.status).toBe(422);
    expect(push.body.detail[0]).toMatchObject({
      loc: ['body', 'table_2'],
      msg: 'Unknown synced table: table_2',
    });
  });

  it('never lets an undeclared field reach the data (is_admin, user_id, __proto__)', async () => {
    const { user, token } = await seedUser(app);
    const body = JSON.parse(
      '{"name":"Renamed","is_admin":true,"user_id":1,"__proto__":{"isAdmin":true},"id":999}',
    );
    const res = await rest(app, 'PATCH', '/api/auth/me', { token, body });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, name: 'Renamed' });
    const stored = await app.db.prisma.user.findUniqueOrThrow({ where: { id: user.id } });
    expect(stored.isAdmin).toBe(false);
  });

  it('does not read camelCase spellings: heightCm is an unknown field, height_cm sets it', async () => {
    const { token } = await seedUser(app);
    const camel = await rest(app, 'PATCH', '/api/auth/me', { token, body: { heightCm: 180 } });
    expect(camel.status).toBe(200);
    expect(camel.body.height_cm).toBeNull();
    const snake = await rest(app, 'PATCH', '/api/auth/me', {
      token,
      body: { height_cm: 180, heightCm: 150 },
    });
    expect(snake.body.height_cm).toBe(180);

    const reading = await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { timestamp: minutesAgo(1), valueMgDl: 100 },
    });
    expect(reading.status).toBe(422);
    expect(reading.body.detail).toEqual([
      { loc: ['body', 'value_mg_dl'], msg: 'Field required', type: 'missing' },
    ]);

    // query parameters too: sinceHours is not since_hours (which would refuse 0)
    expect((await rest(app, 'GET', '/api/glucose/readings?sinceHours=0', { token })).status).toBe(
      200,
    );
    expect((await rest(app, 'GET', '/api/glucose/readings?since_hours=0', { token })).status).toBe(
      422,
    );
  });
});

describe('issue 11: lax coercion as Pydantic v2 does it', () => {
  it('reads numeric strings, whole floats and booleans as Int, and numeric strings as Float, in bodies', async () => {
    const { user, token } = await seedUser(app);
    const at = secondsAgo(60);
    const cases: [Record<string, unknown>, number, number][] = [
      [{ sensor_id: '3', value_mg_dl: '120.5' }, 3, 120.5],
      [{ sensor_id: 4.0, value_mg_dl: 121 }, 4, 121],
      [{ sensor_id: ' 5 ', value_mg_dl: '1_22' }, 5, 122],
      [{ sensor_id: '6.00', value_mg_dl: true }, 6, 1],
      [{ sensor_id: true, value_mg_dl: '1e2' }, 1, 100],
      [{ sensor_id: null, source: null, value_mg_dl: 130 }, 0, 130],
    ];
    for (const [fields, sensor, value] of cases) {
      const res = await rest(app, 'POST', '/api/glucose/readings', {
        token,
        body: { timestamp: at.toISOString(), ...fields },
      });
      if (value < 10) {
        // true is 1.0: read as a number, then refused by the field's own range rule
        expect(res.status, JSON.stringify(fields)).toBe(422);
        expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'value_mg_dl'] });
        continue;
      }
      expect(res.status, JSON.stringify(fields)).toBe(200);
      expect(res.body).toMatchObject({
        id: `g:${user.id}:${sensor}:${at.getTime()}`,
        sensor_id: sensor,
        value_mg_dl: value,
      });
    }
  });

  it('reads DateTime from ISO text and from Unix time in seconds or milliseconds (above 2e10: ms)', async () => {
    const { token } = await seedUser(app);
    const at = secondsAgo(120);
    const seconds = at.getTime() / 1000;
    for (const [sensor, timestamp] of [
      [11, seconds],
      [12, at.getTime()],
      [13, String(seconds)],
      [14, at.toISOString()],
    ] as const) {
      const res = await rest(app, 'POST', '/api/glucose/readings', {
        token,
        body: { sensor_id: sensor, timestamp, value_mg_dl: 100 },
      });
      expect(res.status, String(timestamp)).toBe(200);
      expect(res.body.timestamp).toBe(at.toISOString());
    }
    const batch = await rest(app, 'POST', '/api/glucose/raw/batch', {
      token,
      body: [{ sensor_id: 1, timestamp: at.getTime(), raw_value: '1500' }],
    });
    expect(batch.status).toBe(200);
  });

  it('reads query strings and path parameters with the same rules', async () => {
    const { token } = await seedUser(app);
    await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { sensor_id: 7, timestamp: minutesAgo(5), value_mg_dl: 140 },
    });
    const list = await rest(
      app,
      'GET',
      '/api/glucose/readings?since_hours=24.0&limit=1_0&sensor_id=%207',
      { token },
    );
    expect(list.status).toBe(200);
    expect(list.body.map((r: { value_mg_dl: number }) => r.value_mg_dl)).toEqual([140]);
    // a repeated scalar parameter takes its last value, as FastAPI reads it
    expect(
      (await rest(app, 'GET', '/api/glucose/readings?limit=abc&limit=5', { token })).status,
    ).toBe(200);
    const now = clock.ms();
    const nutrition = await rest(
      app,
      'GET',
      `/api/meals/daily_nutrition?start_ms=${now - 86_400_000}.0&end_ms=${now}`,
      { token },
    );
    expect(nutrition.status).toBe(200);
    const metrics = await rest(app, 'GET', '/api/health/metrics?metric_type=steps&days=7.000', {
      token,
    });
    expect(metrics.status).toBe(200);
  });

  it('never turns a number into a string', async () => {
    const { user, token, password } = await seedUser(app);
    const named = await rest(app, 'PATCH', '/api/auth/me', { token, body: { name: 5 } });
    expect(named.status).toBe(422);
    expect(named.body.detail).toEqual([
      { loc: ['body', 'name'], msg: 'Input should be a valid string', type: 'string_type' },
    ]);
    const login = await rest(app, 'POST', '/api/auth/login', {
      body: { email: user.email, password: 12345678 },
    });
    expect(login.status).toBe(422);
    expect(login.body.detail[0]).toMatchObject({ loc: ['body', 'password'], type: 'string_type' });
    expect(password).toEqual(expect.any(String));
  });

  it('answers 422, never 500, for what no lax rule reads: fractions, words, 32-bit overflow, infinities', async () => {
    const { token } = await seedUser(app);
    const body = (fields: Record<string, unknown>) => ({
      timestamp: minutesAgo(1),
      value_mg_dl: 100,
      ...fields,
    });
    const cases: [Record<string, unknown>, string, string][] = [
      [{ sensor_id: 2.5 }, 'sensor_id', 'int_from_float'],
      [{ sensor_id: 'two' }, 'sensor_id', 'int_parsing'],
      [{ sensor_id: 3_000_000_000 }, 'sensor_id', 'less_than_equal'],
      [{ sensor_id: '-99999999999999999999' }, 'sensor_id', 'greater_than_equal'],
      [{ sensor_id: [1] }, 'sensor_id', 'int_type'],
      [{ value_mg_dl: 'inf' }, 'value_mg_dl', 'finite_number'],
      [{ value_mg_dl: '1e400' }, 'value_mg_dl', 'finite_number'],
      [{ value_mg_dl: '0x10' }, 'value_mg_dl', 'float_parsing'],
      [{ value_mg_dl: null }, 'value_mg_dl', 'float_type'],
      [{ timestamp: 'yesterday' }, 'timestamp', 'datetime_parsing'],
      [{ timestamp: 1e300 }, 'timestamp', 'datetime_parsing'],
      [{ timestamp: 253402300800 * 1000 }, 'timestamp', 'datetime_parsing'],
      [{ timestamp: true }, 'timestamp', 'datetime_type'],
    ];
    for (const [fields, field, type] of cases) {
      const res = await rest(app, 'POST', '/api/glucose/readings', { token, body: body(fields) });
      expect(res.status, JSON.stringify(fields)).toBe(422);
      expect(res.body.detail[0], JSON.stringify(fields)).toMatchObject({
        loc: ['body', field],
        type,
      });
    }
    for (const query of ['since_hours=1e400', 'since_hours=99999999999', 'limit=1.5', 'limit=']) {
      const res = await rest(app, 'GET', `/api/glucose/readings?${query}`, { token });
      expect(res.status, query).toBe(422);
      expect(res.body.detail[0].loc[0], query).toBe('query');
    }
    const grant = await rest(app, 'POST', '/api/auth/grants/12345678901/accept', { token });
    expect(grant.status).toBe(422);
    expect(grant.body.detail[0]).toMatchObject({
      loc: ['path', 'grant_id'],
      type: 'less_than_equal',
    });
  });

  it('reads Boolean from true/false, 0/1 and the words Pydantic accepts, case-insensitively', () => {
    // No REST route takes a Boolean today; the reader is the one every route uses, on a real schema type.
    const type = schema.getType('OnboardingInput') as GraphQLInputObjectType;
    const read = (value: unknown, text = false) => {
      const issues: ValidationIssue[] = [];
      const out = readWireValue({ onboarding_completed: value }, type, {
        text,
        variable: 'input',
        issues,
      }) as Record<string, unknown>;
      return issues.length ? issues : out.onboardingCompleted;
    };
    for (const yes of [
      true,
      1,
      1.0,
      '1',
      't',
      'T',
      'true',
      'True',
      'TRUE',
      'y',
      'yes',
      'Yes',
      'on',
      'ON',
    ])
      expect(read(yes), String(yes)).toBe(true);
    for (const no of [false, 0, '0', 'f', 'F', 'false', 'False', 'n', 'no', 'NO', 'off', 'Off'])
      expect(read(no), String(no)).toBe(false);
    for (const bad of ['2', 'maybe', '', ' true', 2, 0.5]) {
      expect(read(bad), String(bad)).toEqual([
        {
          loc: ['input', 'onboardingCompleted'],
          msg: 'Input should be a valid boolean, unable to interpret input',
          type: 'bool_parsing',
        },
      ]);
    }
    expect(read({})).toEqual([
      {
        loc: ['input', 'onboardingCompleted'],
        msg: 'Input should be a valid boolean',
        type: 'bool_type',
      },
    ]);
    expect(read('yes', true)).toBe(true);
  });
});

describe('issue 11: a wrong method on a known path answers 405', () => {
  it('answers 405 Method Not Allowed with Allow listing the methods the table serves there', async () => {
    const { token } = await seedUser(app);
    const cases: [string, string, string][] = [
      ['PUT', '/api/meals/abc', 'DELETE, PATCH'],
      ['POST', '/api/glucose/trends', 'GET, HEAD'],
      ['GET', '/api/glucose/readings/batch', 'POST'],
      ['DELETE', '/api/auth/login', 'POST'],
      ['PUT', '/api/auth/me', 'DELETE, GET, HEAD, PATCH'],
      ['OPTIONS', '/api/glucose/readings', 'DELETE, GET, HEAD, POST'],
      ['PATCH', '/api/v1/tokens/12', 'DELETE'],
      ['POST', '/healthz', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await rest(app, method, path, { token });
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
      expect(res.body).toEqual({ detail: 'Method Not Allowed' });
    }
  });

  it('answers 405 before authentication, and still serves the methods of the path', async () => {
    const anonymous = await rest(app, 'PUT', '/api/auth/me');
    expect(anonymous.status).toBe(405);
    expect((await rest(app, 'GET', '/api/auth/me')).status).toBe(401);
    const preflight = await app.fetch('/api/admin/auth/login', { method: 'OPTIONS' });
    expect(preflight.status).toBe(200);
    expect((await rest(app, 'GET', '/api/nope')).body).toEqual({ detail: 'Not Found' });
  });
});

describe('issue 11: unknown paths outside /api', () => {
  it('answers JSON 404 to API clients, and a page to a browser', async () => {
    for (const accept of [
      undefined,
      '*/*',
      'application/json',
      'application/json, text/plain, */*',
    ]) {
      for (const path of ['/nope', '/v1/readings', '/.well-known/oauth-authorization-server']) {
        const res = await app.fetch(path, { headers: accept ? { accept } : {} });
        expect(res.status, `${path} ${accept}`).toBe(404);
        expect(res.headers.get('content-type'), `${path} ${accept}`).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ detail: 'Not Found' });
      }
    }
    const post = await rest(app, 'POST', '/nope', { body: {} });
    expect(post).toMatchObject({ status: 404, body: { detail: 'Not Found' } });
    const page = await app.fetch('/nope', {
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toBe("default-src 'none'");
  });

  it('keeps GraphiQL, health checks and media answering', async () => {
    const graphiql = await app.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(graphiql.status).toBe(200);
    expect(graphiql.headers.get('content-type')).toMatch(/^text\/html/);
    expect((await app.fetch('/healthz')).status).toBe(200);
    expect((await app.fetch('/readyz')).status).toBe(200);
    const media = await app.fetch('/media/profile-photos/0123456789abcdef0123456789abcdef.jpg');
    expect(media.status).toBe(404);
    expect(await media.json()).toEqual({ detail: 'Not Found' });
  });
});

describe('issue 11: one loc form in 422 answers', () => {
  it('locates issues inside list bodies and nested lists by index, with wire names', async () => {
    const { token } = await seedUser(app);
    const batch = await rest(app, 'POST', '/api/glucose/readings/batch', {
      token,
      body: [
        { timestamp: minutesAgo(1), value_mg_dl: 100 },
        { timestamp: minutesAgo(2), value_mg_dl: 'high' },
      ],
    });
    expect(batch.status).toBe(422);
    expect(batch.body.detail).toEqual([
      {
        loc: ['body', 1, 'value_mg_dl'],
        msg: 'Input should be a valid number, unable to parse string as a number',
        type: 'float_parsing',
      },
    ]);
    const raw = await rest(app, 'POST', '/api/glucose/raw/batch', {
      token,
      body: [{ sensor_id: 1, timestamp: minutesAgo(1) }],
    });
    expect(raw.body.detail).toEqual([
      { loc: ['body', 0, 'raw_value'], msg: 'Field required', type: 'missing' },
    ]);
    const imported = await rest(app, 'POST', '/api/health/platform/import', {
      token,
      body: {
        samples: [
          { metric_type: 'steps', value: 1, timestamp: minutesAgo(1) },
          { metric_type: 'stairs', value: 1, timestamp: minutesAgo(1) },
        ],
      },
    });
    expect(imported.status).toBe(422);
    expect(imported.body.detail[0]).toMatchObject({
      loc: ['body', 'samples', 1, 'metric_type'],
      type: 'enum',
    });
    const sensor = await rest(app, 'POST', '/api/glucose/process-sensor', {
      token,
      body: { sensor_id: 1, samples: [{ timestamp: minutesAgo(1), rawValue: 1 }] },
    });
    expect(sensor.body.detail).toEqual([
      { loc: ['body', 'samples', 0, 'raw_value'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('locates query parameters in "query" under their wire names, also for a rule\'s own issue', async () => {
    const { token } = await seedUser(app);
    const trends = await rest(
      app,
      'GET',
      '/api/glucose/trends?start_date=2024-02-01&end_date=2024-01-01',
      { token },
    );
    expect(trends.status).toBe(422);
    expect(trends.body.detail[0].loc).toEqual(['query', 'start_date']);
    const metrics = await rest(app, 'GET', '/api/health/metrics?metric_type=floors&days=x', {
      token,
    });
    expect(metrics.body.detail.map((d: { loc: unknown }) => d.loc)).toEqual([
      ['query', 'metric_type'],
      ['query', 'days'],
    ]);
    const nutrition = await rest(app, 'GET', '/api/meals/daily_nutrition?start_ms=10', { token });
    expect(nutrition.body.detail).toEqual([
      { loc: ['query', 'end_ms'], msg: 'Field required', type: 'missing' },
    ]);
  });

  it('never names a GraphQL variable or a camelCase field in a loc', async () => {
    const { token } = await seedUser(app);
    const answers = [
      await rest(app, 'POST', '/api/auth/register', { body: {} }),
      await rest(app, 'POST', '/api/auth/idp', { body: { provider: 'nope', id_token: 'x' } }),
      await rest(app, 'PATCH', '/api/auth/me', { token, body: { date_of_birth: 'soon' } }),
      await rest(app, 'PATCH', '/api/auth/me', { token, body: { weight_kg: 'heavy' } }),
      await rest(app, 'POST', '/api/devices/sensor', {
        token,
        body: { serial_number: 5, started_at: 'then' },
      }),
      await rest(app, 'POST', '/api/glucose/readings', { token, body: {} }),
      await rest(app, 'POST', '/api/health/platform/import', {
        token,
        body: { samples: [{ metricType: 'steps', value: 1, timestamp: 'now' }] },
      }),
      await rest(app, 'POST', '/api/glucose/readings/batch', {
        token,
        body: [{ timestamp: minutesAgo(1), valueMgDl: 1 }],
      }),
    ];
    const locs = answers.flatMap((a) => {
      expect(a.status).toBe(422);
      return a.body.detail.map((d: { loc: (string | number)[] }) => d.loc);
    });
    expect(locs).toEqual(
      expect.arrayContaining([
        ['body', 'email'],
        ['body', 'password'],
        ['body', 'provider'],
        ['body', 'date_of_birth'],
        ['body', 'weight_kg'],
        ['body', 'serial_number'],
        ['body', 'started_at'],
        ['body', 'timestamp'],
        ['body', 'value_mg_dl'],
        ['body', 'samples', 0, 'metric_type'],
        ['body', 'samples', 0, 'timestamp'],
        ['body', 0, 'value_mg_dl'],
      ]),
    );
    for (const loc of locs) {
      expect(['body', 'query', 'path']).toContain(loc[0]);
      for (const part of loc.slice(1)) {
        if (typeof part === 'string') expect(part, JSON.stringify(loc)).toMatch(/^[a-z0-9_]+$/);
      }
      expect(loc).not.toContain('input');
    }
  });
});
