/**
 * The served OpenAPI document: valid OpenAPI 3.1 (checked by a maintained validator), one
 * operation per route row, and real answers of the running app match the documented schemas.
 * The docs page loads in headless Chromium with every asset from this server.
 */
import { launchChromium, offlinePage } from '../harness/browser.ts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiDocument } from '../../rest-facade/openapi.ts';
import { ROUTES } from '../../rest-facade/routes.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

let doc: OpenApiDocument;
beforeAll(async () => {
  const res = await app.fetch('/api/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  doc = (await res.json()) as OpenApiDocument;
});

/** Checks a body against the schema documented for (path, method, status), refs resolved in the document. */
function matchesDocumented(path: string, method: string, status: number, body: unknown): string[] {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema(doc as object, 'openapi.json');
  const responses = doc.paths[path]?.[method as 'get']?.responses ?? {};
  const answer = responses[String(status)];
  expect(answer, `${method.toUpperCase()} ${path} documents no ${status}`).toBeDefined();
  const escaped = path.replace(/~/g, '~0').replace(/\//g, '~1');
  const at =
    answer && '$ref' in answer
      ? answer.$ref.slice(1)
      : `/paths/${escaped}/${method}/responses/${status}`;
  // at: a Response Object; its JSON schema is under content/application/json/schema
  const validate = ajv.compile({ $ref: `openapi.json#${at}/content/application~1json/schema` });
  validate(body);
  return (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
}

describe('GET /api/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(
      structuredClone(doc) as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.info).toMatchObject({ version: '0.1.0' });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({
      type: 'http',
      scheme: 'bearer',
    });
  });

  it('is checked by a validator that does reject a broken document', async () => {
    const broken = {
      ...structuredClone(doc),
      paths: { '/x': { get: { responses: { '200': { content: 'none' } } } } },
    };
    const result = await new Validator().validate(
      broken as unknown as Parameters<Validator['validate']>[0],
    );
    expect(result.valid).toBe(false);
  });

  it('has one operation per route row, named after its persisted operation', () => {
    for (const route of ROUTES) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase() as 'get'];
      expect(op, `${route.method} ${route.path}`).toBeDefined();
      expect(op!.operationId.split('_')[0]).toBe(route.operation);
      expect(op!.summary.length).toBeGreaterThan(0);
      expect(op!.tags).toEqual([route.tag]);
      expect(op!.responses[String(route.status ?? 200)]).toBeDefined();
    }
    const ids = Object.values(doc.paths).flatMap((item) =>
      Object.values(item).map((op) => op.operationId),
    );
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(ROUTES.length);
  });

  it('documents auth: 401 and bearer security on protected operations, none on public ones', () => {
    expect(doc.paths['/api/auth/me'].get).toMatchObject({
      operationId: 'me',
      security: [{ bearerAuth: ['profile:read'] }],
      responses: { '401': { $ref: '#/components/responses/Unauthenticated' } },
    });
    expect(doc.paths['/api/auth/login'].post!.security).toEqual([]);
    expect(doc.paths['/api/auth/login'].post!.responses['401']).toBeUndefined();
    expect(doc.paths['/api/auth/login'].post!.responses['422']).toEqual({
      $ref: '#/components/responses/ValidationFailed',
    });
  });

  it('documents the personal-token paths, parameters and bodies from the schema', () => {
    const create = doc.paths['/api/v1/tokens'].post!;
    expect(create.operationId).toBe('createPersonalToken');
    expect(create.requestBody).toEqual({
      required: true,
      content: {
        'application/json': { schema: { $ref: '#/components/schemas/CreatePersonalTokenInput' } },
      },
    });
    expect(doc.components.schemas.CreatePersonalTokenInput).toMatchObject({
      type: 'object',
      properties: {
        name: { type: 'string' },
        scopes: { type: 'array', items: { type: 'string' } },
        expires_at: { format: 'date-time' },
      },
      required: ['name', 'scopes'],
      additionalProperties: false,
    });
    expect(Object.keys(create.responses).sort()).toEqual(['201', '401', '403', '422']);
    expect(doc.paths['/api/v1/tokens'].get!.responses['200']).toEqual({
      description: 'Successful Response',
      content: {
        'application/json': {
          schema: { type: 'array', items: { $ref: '#/components/schemas/PersonalTokenOut' } },
        },
      },
    });
    const revoke = doc.paths['/api/v1/tokens/{token_id}'].delete!;
    expect(revoke.operationId).toBe('revokePersonalToken');
    expect(revoke.parameters).toEqual([
      {
        name: 'token_id',
        in: 'path',
        required: true,
        schema: { type: 'integer', minimum: -2147483648, maximum: 2147483647 },
      },
    ]);
    expect(doc.components.schemas.PersonalTokenOut).toMatchObject({
      required: ['id', 'name', 'scopes', 'hint', 'expires_at', 'last_used_at', 'created_at'],
    });
  });
});

describe('query parameters', () => {
  it('declare the bounds their arguments enforce (rest-api.md), and every number parameter has both', async () => {
    const doc = (await rest(app, 'GET', '/api/openapi.json')).body as OpenApiDocument;
    const readings = doc.paths['/api/glucose/readings'].get!.parameters!;
    const byName = Object.fromEntries(readings.map((p) => [p.name, p.schema]));
    expect(byName.since_hours).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 43800,
      default: 24,
    });
    expect(byName.limit).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 50000,
      default: 500,
    });
    const unbounded: string[] = [];
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const p of operation.parameters ?? []) {
          const type = (p.schema as { type?: unknown }).type;
          const numeric = type === 'integer' || type === 'number';
          if (
            numeric &&
            ((p.schema as { minimum?: number }).minimum === undefined ||
              (p.schema as { maximum?: number }).maximum === undefined)
          ) {
            unbounded.push(`${method} ${path} ${p.name}`);
          }
        }
      }
    }
    expect(unbounded).toEqual([]);
  });

  it("documents sensor/unbind's serial_number as a required query parameter", async () => {
    const doc = (await rest(app, 'GET', '/api/openapi.json')).body as OpenApiDocument;
    const unbind = doc.paths['/api/devices/sensor/unbind'].post!;
    expect(unbind.parameters).toEqual([
      expect.objectContaining({ name: 'serial_number', in: 'query', required: true }),
    ]);
    expect(unbind.requestBody).toBeUndefined();
  });
});

describe('real answers match the documented schemas', () => {
  it('GET /api/auth/me (200 UserOut, 401)', async () => {
    const { token } = await seedUser(app);
    const me = await rest(app, 'GET', '/api/auth/me', { token });
    expect(me.status).toBe(200);
    expect(matchesDocumented('/api/auth/me', 'get', 200, me.body)).toEqual([]);
    const anonymous = await rest(app, 'GET', '/api/auth/me');
    expect(anonymous.status).toBe(401);
    expect(matchesDocumented('/api/auth/me', 'get', 401, anonymous.body)).toEqual([]);
  });

  it('POST, GET and DELETE /api/v1/tokens (201, 200, 403, 422)', async () => {
    const { user, token } = await seedUser(app);
    const created = await rest(app, 'POST', '/api/v1/tokens', {
      token,
      body: {
        name: 'script',
        scopes: ['health:glucose:read'],
        expires_at: new Date(clock.ms() + 86_400_000).toISOString(),
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^hdp_pat_/);
    expect(matchesDocumented('/api/v1/tokens', 'post', 201, created.body)).toEqual([]);

    const list = await rest(app, 'GET', '/api/v1/tokens', { token });
    expect(list.status).toBe(200);
    expect(list.body.length).toBeGreaterThan(0);
    expect(matchesDocumented('/api/v1/tokens', 'get', 200, list.body)).toEqual([]);

    const revoked = await rest(app, 'DELETE', `/api/v1/tokens/${created.body.id}`, { token });
    expect(revoked.status).toBe(200);
    expect(matchesDocumented('/api/v1/tokens/{token_id}', 'delete', 200, revoked.body)).toEqual([]);

    const personal = await seedPersonalToken(app, user.id, ['health:glucose:read']);
    const refused = await rest(app, 'POST', '/api/v1/tokens', {
      token: personal,
      body: { name: 'x', scopes: ['profile:read'] },
    });
    expect(refused.status).toBe(403);
    expect(matchesDocumented('/api/v1/tokens', 'post', 403, refused.body)).toEqual([]);

    const invalid = await rest(app, 'POST', '/api/v1/tokens', {
      token,
      body: { name: '', scopes: ['no:such'] },
    });
    expect(invalid.status).toBe(422);
    expect(matchesDocumented('/api/v1/tokens', 'post', 422, invalid.body)).toEqual([]);
  });

  it('rejects an answer that does not fit (the check is not vacuous)', () => {
    expect(matchesDocumented('/api/auth/me', 'get', 200, { id: 'one' })).not.toEqual([]);
    expect(matchesDocumented('/api/v1/tokens', 'post', 422, { detail: 'text' })).not.toEqual([]);
  });
});

describe('GET /api/docs', () => {
  it('loads in headless Chromium from this server alone and lists every operation', async () => {
    const browser = await launchChromium();
    try {
      const { page, elsewhere } = await offlinePage(browser, app.baseUrl);
      const problems: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && problems.push(m.text())));
      page.on('pageerror', (e) => void problems.push(e.message));
      const res = await page.goto(`${app.baseUrl}/api/docs`);
      expect(res?.status()).toBe(200);
      // Tags start collapsed (docExpansion none); opening each in turn lists its operations
      await page.waitForSelector('.opblock-tag', { timeout: 20_000 });
      const tags = [...new Set(ROUTES.map((r) => r.tag))];
      const listed: string[] = [];
      for (const tag of tags) {
        const section = page.locator(`.opblock-tag[data-tag="${tag}"]`);
        await section.click();
        const ids = page.locator(
          `.opblock-tag-section:has(> .opblock-tag[data-tag="${tag}"]) .opblock-summary-operation-id`,
        );
        const expected = ROUTES.filter((r) => r.tag === tag).length;
        await expect.poll(() => ids.count(), { timeout: 10_000 }).toBe(expected);
        listed.push(...(await ids.allInnerTexts()));
        await section.click();
      }
      expect(listed).toHaveLength(ROUTES.length);
      expect(listed).toContain('createPersonalToken');
      expect(elsewhere).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('serves only the Swagger UI files the page needs', async () => {
    expect((await app.fetch('/api/docs/assets/swagger-ui-bundle.js')).status).toBe(200);
    expect((await app.fetch('/api/docs/assets/index.html')).status).toBe(404);
    expect((await app.fetch('/api/docs/assets/../../openapi.json')).status).not.toBe(500);
  });
});
