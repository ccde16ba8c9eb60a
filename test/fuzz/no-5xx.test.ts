/**
 * Issue 10: no input causes a 5xx. A property-based fuzz test (fast-check, fixed seeds) over every
 * REST operation of the served OpenAPI document and every MCP tool of tools/list (a personal token
 * holding every scope), as an anonymous and as a signed-in caller, with the hostile input classes
 * of the issue: NUL characters, dates and numbers PostgreSQL cannot store, deep nesting, malformed
 * percent-encoding and UTF-8, bogus charsets, malformed JSON and multipart, huge strings, wrong
 * types and unknown fields. Nothing here names a route or a tool, so new ones are covered as they
 * are added.
 *
 * Asserted per request: an answer within 15 s and below 500; a REST 4xx is JSON with `detail`; an
 * MCP answer is a JSON-RPC error or a tool result, a tool call with object arguments is answered
 * with a result (a refusal is `isError: true` with an error code), and no result is an `INTERNAL`
 * error or a JSON-RPC internal error (the masked 500 of MCP). After each operation GET /healthz
 * answers 200. Failures are collected and reported together, grouped by class, as a bug list.
 *
 * Issue 29: bodies cut short. Every route taking a body (and the MCP door) gets its valid body cut
 * at seeded random points: the request ended there (also gzip-encoded), or the connection closed
 * mid-body. Asserted: never a 5xx, a JSON body cut short is never taken (no 2xx), no uncaught
 * exception in the process, and GET /healthz answers 200 after each route.
 *
 * Credentials: a fresh user per operation (and a new one whenever the credential stops working),
 * so operations that end sessions or delete the account need no special case.
 */
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/scopes.ts';
import { seedUser } from '../factories/users.ts';
import { startFakeOpenAI } from '../fakes/openai.ts';
import { startFakePushGateway } from '../fakes/push.ts';
import { startFakeStripe } from '../fakes/stripe.ts';
import { startFakeMonitorCloud } from '../fakes/monitor-cloud.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { rawRequest } from '../harness/raw-http.ts';
import type { RawResponse } from '../harness/raw-http.ts';
import {
  DEEP,
  INVALID_UTF8_JSON,
  LEAF_CLASSES,
  MALFORMED_JSON,
  RawJson,
  deepArrays,
  deepObjects,
  excerpt,
  fieldsFor,
  fieldsOf,
  hostileUrlText,
  hostileValue,
  jsonText,
  kindOf,
  mutate,
  resolveSchema,
  valueArbitrary,
  withoutOptional,
} from './inputs.ts';
import type { JsonSchema, Kind, LeafClass } from './inputs.ts';
import { fuzzReport, statusCounts } from './report.ts';

/** Fixed base seed (the issue number); each (operation, caller, class) derives its own from it. */
const SEED = 10;
const TIMEOUT_MS = 15_000;
const MCP_PATH = '/api/mcp';

/** Runs per (operation, caller) of each class: tuned so the file takes about 1-2 minutes on PGlite. */
const RUNS: Record<string, number> = {
  'schema-valid': 6,
  nul: 12,
  'out-of-range': 12,
  'huge-string': 4,
  'wrong-type': 5,
  'deep-nesting': 4,
  'extra-fields': 3,
  'bad-encoding': 8,
  'raw-deep': 2,
  'malformed-body': 4,
  'charset-bogus': 2,
  'args-not-object': 3,
};
/** The anonymous MCP caller is refused before the body is read: fewer runs tell as much. */
const ANONYMOUS_MCP_RUNS = 1;
/** Targets per failure group shown with an example input and answer (the others by name). */
const BODY_CLASSES = ['raw-deep', 'malformed-body', 'charset-bogus'] as const;
const CLASSES = ['schema-valid', ...LEAF_CLASSES, ...BODY_CLASSES] as const;
/**
 * Bodies cut short (issue 29): the request ended after a prefix of the body, the same gzip-encoded
 * (a whole gzip stream of the prefix, or the whole body's gzip stream cut), or the connection
 * closed by the client mid-body.
 */
const CUTS = ['truncated', 'truncated-gzip', 'aborted'] as const;
type Cut = (typeof CUTS)[number];
/** Runs per (route, cut): the three together add about half a minute per database. */
const CUT_RUNS: Record<Cut, number> = { truncated: 12, 'truncated-gzip': 4, aborted: 6 };
type InputClass = (typeof CLASSES)[number] | 'args-not-object' | Cut;

// Limits that would answer 429 to a fuzz run long before its inputs reach the code under test.
// The shipped food catalogue is imported: food reads answer from real rows (and not 503). The AI
// features call the suite's model server, which answers any of them with a fitting value.
const models = await startFakeOpenAI({ answerFromSchema: true });
// Pushes (test and admin sends) go to the suite's push gateway, which accepts every push.
const pushGateway = await startFakePushGateway();
// Payments call the suite's Stripe server (test/fakes/stripe.ts).
const payments = await startFakeStripe();
// The room-monitor routes reach the suite's monitor cloud (it refuses any fuzzed credentials).
const monitorCloud = await startFakeMonitorCloud();
const app = await startTestApp(
  {
    PUSH_HTTP_URL: pushGateway.url,
    NOTIFICATION_TEST_SENDS_PER_HOUR: '1000000',
    ADMIN_NOTIFICATION_SENDS_PER_HOUR: '1000000',
    OPENAI_API_KEY: 'sk-fuzz',
    OPENAI_BASE_URL: models.url,
    MONITOR_API_BASE: monitorCloud.url,
    MONITOR_WEBHOOK_SECRET: 'fuzz-monitor-webhook-secret',
    AI_DAILY_BUDGET_USD: '1000000',
    MEALS_ANALYZE_DAILY_CAP: '1000000',
    MEALS_SUGGEST_NAME_DAILY_CAP: '1000000',
    MEALS_INSIGHT_DAILY_CAP: '1000000',
    ASSISTANT_DAILY_CAP: '1000000',
    EMAIL_CODES_PER_ADDRESS_PER_HOUR: '1000000',
    EMAIL_CODES_PER_IP_PER_HOUR: '1000000',
    EMAIL_CODE_GUESSES_PER_DAY: '1000000',
    PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: '1000000',
    PASSWORD_RESETS_PER_IP_PER_HOUR: '1000000',
    LOGIN_FAILURES_PER_15_MINUTES: '1000000',
    MCP_CALLS_PER_MINUTE: '1000000',
    MCP_CALLS_PER_DAY: '1000000',
    ...payments.env,
    PAYMENTS_INTENTS_PER_IP_PER_HOUR: '1000000',
  },
  { catalogue: true },
);

// ---------------------------------------------------------------------------------------------
// Bookkeeping

type Caller = 'anonymous' | 'signed-in';

interface Failure {
  surface: 'REST' | 'MCP';
  /** "POST /api/x" or the tool name */
  target: string;
  caller: Caller | 'none';
  cls: InputClass | 'healthz';
  problem: string;
  status: number;
  input: string;
  answer: string;
}

const failures: Failure[] = [];
const stats = {
  REST: {
    requests: 0,
    operations: new Set<string>(),
    statuses: new Map<number, number>(),
    fiveXx: 0,
  },
  MCP: {
    requests: 0,
    operations: new Set<string>(),
    statuses: new Map<number, number>(),
    fiveXx: 0,
    internal: 0,
  },
  healthz: 0,
  credentials: 0,
  /** 4xx answers over 16 KB (error answers stay small: each test asserts there are none) */
  largeErrors: new Map<string, number>(),
};

function count(surface: 'REST' | 'MCP', target: string, res: RawResponse): void {
  const s = stats[surface];
  s.requests += 1;
  s.operations.add(target);
  s.statuses.set(res.status, (s.statuses.get(res.status) ?? 0) + 1);
  if (res.status >= 500) s.fiveXx += 1;
  if (res.status >= 400 && res.status < 500 && res.body.length > 16_384) {
    const key = `${surface} ${target} ${res.status}`;
    stats.largeErrors.set(key, Math.max(stats.largeErrors.get(key) ?? 0, res.body.length));
  }
}

/** A stable 32-bit seed for a name, so adding an operation does not change the others' inputs. */
function seedFor(...parts: string[]): number {
  let h = 2166136261 ^ SEED;
  for (const ch of parts.join('|')) h = Math.imul(h ^ ch.charCodeAt(0), 16777619);
  return h | 0;
}

function answerExcerpt(res: RawResponse): string {
  if (res.status === 0) return res.error ?? 'no answer';
  return `${res.headers['content-type'] ?? '(no content-type)'} ${excerpt(res.body, 160)}`;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isJsonAnswer = (res: RawResponse): boolean =>
  /^application\/json/.test(String(res.headers['content-type'] ?? ''));

async function checkHealth(surface: 'REST' | 'MCP', target: string): Promise<void> {
  const res = await rawRequest(app.baseUrl, {
    method: 'GET',
    path: '/healthz',
    timeoutMs: TIMEOUT_MS,
  });
  stats.healthz += 1;
  if (res.status !== 200) {
    const problem = 'GET /healthz not 200 after the operation';
    const answer = answerExcerpt(res);
    failures.push({
      surface,
      target,
      caller: 'none',
      cls: 'healthz',
      problem,
      status: res.status,
      input: '',
      answer,
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Credentials

/** A new user's login bearer (phone session); an admin's for the admin API (issue 15). */
async function loginBearer(isAdmin = false): Promise<string> {
  stats.credentials += 1;
  return (await seedUser(app, { isAdmin })).token;
}

/** A new user's personal token holding every scope of the catalogue, made through the REST API. */
async function personalToken(): Promise<string> {
  const created = await rest(app, 'POST', '/api/v1/tokens', {
    token: await loginBearer(),
    body: { name: 'fuzz', scopes: [...SCOPES] },
  });
  expect(created.status, excerpt(created.body)).toBe(201);
  return created.body.token as string;
}

// ---------------------------------------------------------------------------------------------
// REST: operations from the OpenAPI document

interface Param {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}

interface RestOperation {
  key: string;
  method: string;
  path: string;
  pathParams: Param[];
  queryParams: Param[];
  body: { kind: 'json' | 'multipart'; schema: JsonSchema } | null;
}

interface OpenApiDoc {
  paths: Record<
    string,
    Record<string, { parameters?: (Param | { $ref: string })[]; requestBody?: any }>
  >;
}

const docRes = await app.fetch('/api/openapi.json');
const doc = (await docRes.json()) as OpenApiDoc;

const REST_OPERATIONS: RestOperation[] = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method]) => ['get', 'put', 'post', 'delete', 'options', 'patch'].includes(method))
    .map(([method, op]) => {
      const params = (op.parameters ?? []).map(
        (p) => resolveSchema(p as JsonSchema, doc) as unknown as Param,
      );
      const requestBody = resolveSchema(op.requestBody ?? {}, doc) as {
        content?: Record<string, { schema: JsonSchema }>;
      };
      const content = requestBody.content ?? {};
      const multipart = content['multipart/form-data'];
      const json = content['application/json'] ?? Object.values(content)[0];
      return {
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        body: multipart
          ? { kind: 'multipart' as const, schema: multipart.schema }
          : json
            ? { kind: 'json' as const, schema: json.schema }
            : null,
      };
    }),
);

/** What one REST run is made of: valid values per the schemas, and picks that steer the mutation. */
interface RestMaterial {
  path: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
  picks: number[];
}

function restMaterial(op: RestOperation): fc.Arbitrary<RestMaterial> {
  const record = (params: Param[]) => {
    const arbs: Record<string, fc.Arbitrary<unknown>> = {};
    for (const p of params) arbs[p.name] = valueArbitrary(p.schema ?? {}, doc);
    return fc.record(arbs, {
      requiredKeys: params.filter((p) => p.required || p.in === 'path').map((p) => p.name),
    });
  };
  return fc.record({
    path: record(op.pathParams),
    query: record(op.queryParams),
    body: op.body ? valueArbitrary(op.body.schema, doc) : fc.constant({}),
    picks: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
  });
}

/** A value as URL text (objects as JSON: a wrong type for a scalar parameter). */
function urlText(v: unknown): string {
  if (v instanceof RawJson) return v.text;
  if (typeof v === 'string') return v;
  if (v !== null && typeof v === 'object') return jsonText(v);
  return String(v);
}

function queryString(pairs: [string, string][]): string {
  return pairs.length ? `?${pairs.map(([k, v]) => `${k}=${v}`).join('&')}` : '';
}

function queryPairs(query: Record<string, unknown>): [string, string][] {
  return Object.entries(query).flatMap(([k, v]): [string, string][] =>
    Array.isArray(v)
      ? v.map((x) => [encodeURIComponent(k), encodeURIComponent(urlText(x))])
      : [[encodeURIComponent(k), encodeURIComponent(urlText(v))]],
  );
}

const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);

interface Part {
  name: string | Buffer;
  filename?: string | Buffer;
  contentType?: string;
  data: string | Buffer;
}

function multipartBody(parts: Part[], boundary: string): Buffer {
  const chunks: Buffer[] = [];
  const b = (x: string | Buffer): Buffer => (typeof x === 'string' ? Buffer.from(x, 'utf8') : x);
  for (const p of parts) {
    chunks.push(b(`--${boundary}\r\nContent-Disposition: form-data; name="`), b(p.name), b('"'));
    if (p.filename !== undefined) chunks.push(b('; filename="'), b(p.filename), b('"'));
    chunks.push(b('\r\n'));
    if (p.contentType) chunks.push(b(`Content-Type: ${p.contentType}\r\n`));
    chunks.push(b('\r\n'), b(p.data), b('\r\n'));
  }
  chunks.push(b(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

function isBinary(schema: JsonSchema): boolean {
  const s = resolveSchema(schema, doc);
  return s.format === 'binary' || s.format === 'byte';
}

/** The valid parts of a multipart body: file properties get a tiny PNG, the others text. */
function multipartParts(schema: JsonSchema, value: unknown): Part[] {
  const s = resolveSchema(schema, doc);
  const fields = (value ?? {}) as Record<string, unknown>;
  return Object.entries(s.properties ?? {}).flatMap(([name, prop]): Part[] => {
    if (isBinary(prop))
      return [{ name, filename: 'photo.png', contentType: 'image/png', data: PNG_1X1 }];
    return name in fields && fields[name] !== undefined
      ? [{ name, data: urlText(fields[name]) }]
      : [];
  });
}

/** Puts a leaf class into a multipart body: a field value, a file name, a part name, or parts. */
function mutateParts(
  parts: Part[],
  cls: LeafClass,
  index: number,
  pick: number,
): { parts: Part[]; where: string } {
  const out = parts.map((p) => ({ ...p }));
  const files = out.filter((p) => p.filename !== undefined);
  const texts = out.filter((p) => p.filename === undefined);
  const file = files.length ? files[index % files.length] : undefined;
  if (!texts.length) texts.push(out[out.push({ name: 'fuzz_field', data: 'x' }) - 1]);
  const text = texts[index % texts.length];
  const variant = (index + pick) % 3;
  const onFile = variant === 0 && file !== undefined;
  const where = onFile ? `file part ${String(file.name)}` : `field ${String(text.name)}`;
  switch (cls) {
    case 'nul':
      if (onFile) file.filename = 'a\u0000b.png';
      else if (variant === 1) text.name = `${String(text.name)}\u0000`;
      else text.data = 'a\u0000b';
      break;
    case 'out-of-range': {
      const value = hostileValue('out-of-range', 'string', String(text.data), pick);
      text.data = value instanceof RawJson ? value.text : String(value);
      break;
    }
    case 'huge-string':
      if (onFile) file.filename = `${'x'.repeat(8_000)}.png`;
      else text.data = 'x'.repeat(65_536 + 100);
      break;
    case 'wrong-type':
      if (file && variant !== 2) {
        delete file.filename;
        file.data = 'not a file';
      } else {
        text.filename = 'value.txt';
        text.contentType = 'text/plain';
      }
      break;
    case 'deep-nesting':
      text.data = '['.repeat(DEEP);
      break;
    case 'extra-fields':
      // more files than the parser allows, and fields the operation does not take
      for (let i = 0; i < 6; i++) {
        out.push({
          name: `extra_file_${i}`,
          filename: `e${i}.png`,
          contentType: 'image/png',
          data: PNG_1X1,
        });
      }
      out.push(
        { name: 'unknown_field', data: '1' },
        { name: '__proto__', data: '{"is_admin":true}' },
      );
      out.push({ name: 'constructor', data: 'x' });
      break;
    case 'bad-encoding': {
      const bad = Buffer.from([0xc0, 0xae, 0xed, 0xa0, 0x80, 0xff]);
      if (onFile) file.filename = Buffer.concat([bad, Buffer.from('.png')]);
      else if (variant === 1 && file) file.contentType = 'image/png; charset=%C0%AE';
      else text.data = bad;
      break;
    }
  }
  return { parts: out, where };
}

interface RestRequest {
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** what the report shows of the input */
  shown: string;
}

/** Where a leaf class can go: a path or query parameter, the body (its n-th suitable field), the path itself. */
type Target =
  | { site: 'path' | 'query'; name: string; kind: Kind }
  | { site: 'body'; index: number }
  | { site: 'path-static' };

/**
 * The targets of `cls` in `op`, interleaved by site (path, query, body, ...), so the first runs
 * reach every site and later runs walk through the remaining fields.
 */
function targetsFor(op: RestOperation, cls: LeafClass): Target[] {
  const params = (ps: Param[], site: 'path' | 'query'): Target[] => {
    const fields = ps.map((p) => ({ path: [p.name], kind: kindOf(p.schema ?? {}, doc) }));
    return fieldsFor(cls, fields).map(
      (f): Target => ({ site, name: String(f.path[0]), kind: f.kind }),
    );
  };
  const path = cls === 'extra-fields' ? [] : params(op.pathParams, 'path');
  const query: Target[] =
    op.queryParams.length && cls !== 'extra-fields'
      ? params(op.queryParams, 'query')
      : [{ site: 'query', name: 'fuzz_param', kind: 'string' }];
  let bodyCount = 1;
  if (op.body?.kind === 'json') {
    // extra-fields: the top-level object and each nested one
    bodyCount =
      fieldsFor(cls, fieldsOf(op.body.schema, doc)).length + (cls === 'extra-fields' ? 1 : 0);
  } else if (op.body?.kind === 'multipart') {
    bodyCount = Object.keys(resolveSchema(op.body.schema, doc).properties ?? {}).length;
  }
  bodyCount = Math.max(1, bodyCount);
  const body: Target[] = Array.from({ length: bodyCount }, (_, index) => ({ site: 'body', index }));
  const statics: Target[] =
    cls === 'bad-encoding' || cls === 'nul' ? [{ site: 'path-static' }] : [];
  const lists = [path, query, body, statics];
  const out: Target[] = [];
  for (let i = 0; lists.some((l) => i < l.length); i++)
    for (const l of lists) if (i < l.length) out.push(l[i]);
  return out;
}

/** Builds the request of one run: run `run` of a class goes to its `run`-th target (wrapping around). */
function restRequest(
  op: RestOperation,
  cls: InputClass,
  m: RestMaterial,
  run: number,
): RestRequest {
  const headers: Record<string, string> = {};
  const pathValues: Record<string, string> = {};
  for (const p of op.pathParams)
    pathValues[p.name] = encodeURIComponent(urlText(m.path[p.name] ?? '1'));
  let pairs = queryPairs(m.query);
  let bodyValue: unknown = m.body;
  let suffix = '';
  let raw: { text: string | Buffer; type: string } | null = null;
  let where = '';
  const [p0, p1] = m.picks;
  const validForm = (): { text: Buffer; type: string } => ({
    text: multipartBody(multipartParts(op.body!.schema, m.body), 'fuzzb'),
    type: 'multipart/form-data; boundary=fuzzb',
  });

  if ((LEAF_CLASSES as readonly string[]).includes(cls)) {
    const leaf = cls as LeafClass;
    const targets = targetsFor(op, leaf);
    const target = targets[run % targets.length];
    // first pass over the targets: each class's most telling value (first of its list); then random ones
    const pick = run < targets.length ? 0 : p1;
    // first pass: nothing optional besides the target, so the hostile value is the one judged
    const minimal = run < targets.length;
    if (minimal) {
      pairs = pairs.filter(([k]) =>
        op.queryParams.some((q) => q.required && encodeURIComponent(q.name) === k),
      );
      if (op.body?.kind === 'json' && target.site !== 'body')
        bodyValue = withoutOptional(m.body, op.body.schema, doc);
    }
    if (target.site === 'path') {
      pathValues[target.name] = hostileUrlText(leaf, target.kind, pathValues[target.name], pick);
      where = `path ${target.name}`;
    } else if (target.site === 'path-static') {
      suffix = `/${hostileUrlText(leaf, 'string', 'x', pick)}`;
      where = 'path';
    } else if (target.site === 'query') {
      where = `query ${target.name}`;
      if (leaf === 'extra-fields') {
        const dup = pairs[p0 % Math.max(pairs.length, 1)]?.[0] ?? 'limit';
        pairs = [
          ...pairs,
          ['unknown', '1'],
          ['__proto__', 'x'],
          ['constructor%5Bprototype%5D%5Bx%5D', '1'],
        ];
        pairs.push(['a%5Bb%5D%5Bc%5D', '1'], [dup, '1'], [dup, '2']); // nested keys; a parameter twice
      } else {
        const name = encodeURIComponent(target.name);
        const current = queryPairs(m.query).find(([k]) => k === name)?.[1] ?? 'x';
        pairs = [
          ...pairs.filter(([k]) => k !== name),
          [name, hostileUrlText(leaf, target.kind, current, pick)],
        ];
        if (leaf === 'bad-encoding' && pick % 2 === 0)
          pairs.push([hostileUrlText(leaf, 'string', '', pick + 1), '1']);
      }
    } else if (target.site === 'body' && op.body?.kind === 'multipart') {
      const boundary = `fuzz${m.picks[3]}`;
      const mutated = mutateParts(multipartParts(op.body.schema, m.body), leaf, target.index, pick);
      raw = {
        text: multipartBody(mutated.parts, boundary),
        type: `multipart/form-data; boundary=${boundary}`,
      };
      where = `body ${mutated.where}`;
    } else if (target.site === 'body') {
      const fields = op.body ? fieldsOf(op.body.schema, doc) : [];
      const schema = minimal && op.body ? { schema: op.body.schema, root: doc } : undefined;
      const mutated = mutate(m.body, fields, leaf, target.index, pick, schema);
      bodyValue = mutated.value;
      where = `body ${mutated.where}`;
    }
  } else if (cls === 'raw-deep') {
    raw = {
      text: (run % 2 === 0 ? deepArrays(DEEP) : deepObjects(DEEP)).text,
      type: 'application/json',
    };
  } else if (cls === 'malformed-body') {
    if (op.body?.kind === 'multipart' && run % 2 === 0) {
      const valid = validForm().text;
      const variants: { text: string | Buffer; type: string }[] = [
        {
          text: valid.subarray(0, Math.floor(valid.length / 2)),
          type: 'multipart/form-data; boundary=fuzzb',
        },
        { text: valid, type: 'multipart/form-data; boundary=other' },
        { text: valid, type: 'multipart/form-data' },
        { text: 'garbage', type: 'multipart/form-data; boundary=fuzzb' },
      ];
      raw = variants[p0 % variants.length];
    } else {
      const texts: (string | Buffer)[] = [...MALFORMED_JSON, INVALID_UTF8_JSON];
      raw = { text: texts[p0 % texts.length], type: 'application/json' };
    }
  } else if (cls === 'charset-bogus') {
    const charset = ['bogus', 'utf-99', 'x-unknown-charset'][p0 % 3];
    if (op.body?.kind === 'multipart' && run % 2 === 0) {
      raw = { ...validForm(), type: `multipart/form-data; charset=${charset}; boundary=fuzzb` };
    } else {
      raw = {
        text: jsonText(op.body?.kind === 'json' ? m.body : {}),
        type: `application/json; charset=${charset}`,
      };
    }
  }

  // the class went elsewhere (or there is none): the body stays valid
  if (!raw && op.body?.kind === 'multipart') raw = validForm();
  if (!raw && (op.body?.kind === 'json' || bodyValue !== m.body)) {
    raw = { text: jsonText(bodyValue), type: 'application/json' };
  }

  const path =
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => pathValues[name] ?? '1') +
    suffix +
    queryString(pairs);
  if (raw) headers['content-type'] = raw.type;
  const body = raw?.text;
  const shownBody = body === undefined ? '' : ` [${raw!.type}] ${excerpt(textOf(body), 120)}`;
  return {
    path,
    headers,
    body,
    shown: `${where ? `(${where}) ` : ''}${excerpt(path, 120)}${shownBody}`,
  };
}

/** Bytes as text for the report (latin1 keeps every byte visible). */
const textOf = (body: string | Buffer): string =>
  typeof body === 'string' ? body : body.toString('latin1');

const NO_ANSWER = (res: RawResponse): string =>
  res.timedOut ? `no answer within ${TIMEOUT_MS / 1000} s` : 'connection failed without an answer';

function checkRest(
  op: RestOperation,
  caller: Caller,
  cls: InputClass,
  req: RestRequest,
  res: RawResponse,
): void {
  const fail = (problem: string): void => {
    const [status, input, answer] = [res.status, req.shown, answerExcerpt(res)];
    failures.push({ surface: 'REST', target: op.key, caller, cls, problem, status, input, answer });
  };
  if (res.status === 0) return fail(NO_ANSWER(res));
  if (res.status >= 500) return fail('5xx');
  if (res.status >= 400) {
    if (!isJsonAnswer(res)) return fail('4xx answer is not JSON');
    const body = parseJson(res.body);
    if (body === null || typeof body !== 'object' || !('detail' in body))
      fail('4xx JSON answer has no detail');
  }
}

// ---------------------------------------------------------------------------------------------
// MCP: tools from tools/list

interface McpToolListing {
  name: string;
  inputSchema: JsonSchema;
}

function mcpHeaders(
  token: string | undefined,
  contentType = 'application/json',
): Record<string, string> {
  return {
    'content-type': contentType,
    accept: 'application/json, text/event-stream',
    ...(token ? { authorization: `Bearer ${token}` } : {}),
  };
}

const listingToken = await personalToken();
const listed = await rawRequest(app.baseUrl, {
  method: 'POST',
  path: MCP_PATH,
  headers: mcpHeaders(listingToken),
  body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
});
const MCP_TOOLS =
  (parseJson(listed.body) as { result?: { tools?: McpToolListing[] } } | undefined)?.result
    ?.tools ?? [];

interface McpMaterial {
  args: unknown;
  picks: number[];
}

interface McpRequest {
  headers: Record<string, string>;
  body: string | Buffer;
  /** the request is a well-formed tools/call with an object of arguments */
  wellFormedCall: boolean;
  shown: string;
}

let rpcId = 0;

function mcpRequest(
  tool: McpToolListing,
  cls: InputClass,
  m: McpMaterial,
  run: number,
  token: string | undefined,
): McpRequest {
  const envelope = (args: unknown): string =>
    jsonText({
      jsonrpc: '2.0',
      id: ++rpcId,
      method: 'tools/call',
      params: { name: tool.name, arguments: args },
    });
  let args = m.args;
  let text: string | Buffer;
  let contentType = 'application/json';
  let where = '';
  if ((LEAF_CLASSES as readonly string[]).includes(cls)) {
    const leaf = cls as LeafClass;
    const fields = fieldsOf(tool.inputSchema, tool.inputSchema);
    const targets = Math.max(1, fieldsFor(leaf, fields).length + (leaf === 'extra-fields' ? 1 : 0));
    const first = run < targets; // first pass: the most telling value, nothing optional besides it
    const schema = first ? { schema: tool.inputSchema, root: tool.inputSchema } : undefined;
    const mutated = mutate(m.args, fields, leaf, run % targets, first ? 0 : m.picks[1], schema);
    args = mutated.value;
    where = `(${mutated.where}) `;
    text = envelope(args);
  } else if (cls === 'args-not-object') {
    args = [[], 'text', 1, null, deepArrays(DEEP)][m.picks[0] % 5];
    text = envelope(args);
  } else if (cls === 'raw-deep') {
    const deepArguments = envelope(undefined).replace(
      '"arguments":null',
      `"arguments":${deepObjects(DEEP).text}`,
    );
    text = run % 2 === 0 ? deepArrays(DEEP).text : deepArguments;
  } else if (cls === 'malformed-body') {
    const whole = envelope(args);
    const texts: (string | Buffer)[] = [
      whole.slice(0, Math.floor(whole.length / 2)),
      whole.replace(/"/g, "'"),
      `${whole}garbage`,
      ...MALFORMED_JSON,
      INVALID_UTF8_JSON,
    ];
    text = texts[m.picks[0] % texts.length];
  } else if (cls === 'charset-bogus') {
    text = envelope(args);
    contentType = `application/json; charset=${['bogus', 'utf-99', 'x-unknown-charset'][m.picks[0] % 3]}`;
  } else {
    text = envelope(args);
  }
  const wellFormedCall =
    !['raw-deep', 'malformed-body', 'charset-bogus', 'args-not-object'].includes(cls) &&
    args !== null &&
    typeof args === 'object' &&
    !Array.isArray(args) &&
    !(args instanceof RawJson);
  return {
    headers: mcpHeaders(token, contentType),
    body: text,
    wellFormedCall,
    shown: `${where}${tool.name} [${contentType}] ${excerpt(textOf(text), 140)}`,
  };
}

function checkMcp(
  tool: McpToolListing,
  caller: Caller,
  cls: InputClass,
  req: McpRequest,
  res: RawResponse,
): void {
  const fail = (problem: string): void => {
    const [status, input, answer] = [res.status, req.shown, answerExcerpt(res)];
    failures.push({
      surface: 'MCP',
      target: tool.name,
      caller,
      cls,
      problem,
      status,
      input,
      answer,
    });
  };
  if (res.status === 0) return fail(NO_ANSWER(res));
  if (res.status >= 500) return fail('5xx');
  const body = parseJson(res.body) as
    | { jsonrpc?: string; error?: { code?: unknown }; result?: any }
    | undefined;
  const neither = 'answer is neither a JSON-RPC error nor a tool result';
  if (!body || typeof body !== 'object' || Array.isArray(body)) return fail(neither);
  if (body.error) {
    if (typeof body.error.code !== 'number') return fail('JSON-RPC error without a numeric code');
    if (body.error.code === -32603) {
      stats.MCP.internal += 1;
      return fail('JSON-RPC internal error (-32603): a masked 500');
    }
    if (res.status === 200 && req.wellFormedCall)
      fail('tool call refused as a JSON-RPC error, not as an isError result');
    return;
  }
  if (!body.result) return fail(neither);
  if (res.status >= 400) return fail(`HTTP ${res.status} with a result`);
  if (!Array.isArray(body.result.content)) return fail('tool result without content');
  if (body.result.isError === true) {
    const code = body.result.structuredContent?.error?.code;
    if (typeof code !== 'string')
      return fail('isError result without structuredContent.error.code');
    if (code === 'INTERNAL') {
      stats.MCP.internal += 1;
      fail('isError result with code INTERNAL: a masked 500');
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Bodies cut short (issue 29): every route taking a body, and the MCP door

/** Uncaught exceptions while the file runs: a vitest worker survives them, the server would not. */
const uncaught: unknown[] = [];
/** Uncaught exceptions already reported as a failure of the request they came with. */
let uncaughtSeen = 0;
const recordUncaught = (err: unknown): void => void uncaught.push(err);
process.on('uncaughtException', recordUncaught);
afterAll(() => void process.off('uncaughtException', recordUncaught));

interface CutRequest extends RestRequest {
  body: Buffer;
  /** close the connection after the body instead of ending the request */
  abort: boolean;
}

/**
 * `whole` cut as `cut` says: run 0 at `end` (the most telling point: the closing bracket or
 * boundary never comes), later runs at a random point (never empty, never whole).
 */
function cutBody(
  whole: Buffer,
  end: number,
  type: string,
  cut: Cut,
  picks: number[],
  run: number,
): { body: Buffer; headers: Record<string, string> } {
  const at = Math.max(1, run === 0 ? end : 1 + (picks[0] % (whole.length - 1)));
  const headers: Record<string, string> = { 'content-type': type };
  let body = whole.subarray(0, at);
  if (cut === 'truncated-gzip') {
    headers['content-encoding'] = 'gzip';
    const zipped = gzipSync(whole);
    body =
      picks[1] % 2 === 0
        ? gzipSync(body)
        : zipped.subarray(0, 1 + (picks[2] % (zipped.length - 1)));
  }
  return { body, headers };
}

/** A REST operation's valid body (JSON, or a multipart form with a file part) cut short. */
function cutRequest(op: RestOperation, cut: Cut, m: RestMaterial, run: number): CutRequest {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) =>
    encodeURIComponent(urlText(m.path[name] ?? '1')),
  );
  let whole: Buffer;
  let type = 'application/json';
  let end: number;
  if (op.body?.kind === 'multipart') {
    whole = multipartBody(multipartParts(op.body.schema, m.body), 'fuzzcut');
    type = 'multipart/form-data; boundary=fuzzcut';
    end = whole.lastIndexOf('\r\n--fuzzcut--'); // the last part is never closed
  } else {
    const text = jsonText(m.body);
    whole = Buffer.from(text.length >= 2 ? text : '{}');
    end = whole.length - 1; // the closing bracket never comes
  }
  const { body, headers } = cutBody(whole, end, type, cut, m.picks, run);
  const shown = `(${cut}: ${body.length} of ${whole.length} bytes${headers['content-encoding'] ? ', gzip' : ''}) ${excerpt(path, 120)} [${type}] ${excerpt(textOf(body), 120)}`;
  return { path, headers, body, abort: cut === 'aborted', shown };
}

/** The rules of a body cut short; `taken` names what a 2xx would mean (null: a 2xx may be right). */
function checkCut(
  fail: (problem: string) => void,
  cut: Cut,
  res: RawResponse,
  taken: string | null,
): void {
  for (; uncaughtSeen < uncaught.length; uncaughtSeen++)
    fail(
      `uncaught exception (it ends the server): ${excerpt(String(uncaught[uncaughtSeen]), 120)}`,
    );
  if (res.status >= 500) return fail('5xx');
  if (cut === 'aborted') return; // the answer, if any, may come before the client goes
  if (res.status === 0) return fail(NO_ANSWER(res));
  if (taken && res.status < 400) fail(taken);
}

/** Sends one cut request (with a deadline); an aborted one resolves when the connection closes. */
function sendCut(
  method: string,
  req: CutRequest,
  token: string | undefined,
  extra: Record<string, string> = {},
): Promise<RawResponse> {
  return rawRequest(app.baseUrl, {
    method,
    path: req.path,
    headers: { ...req.headers, ...extra, ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: req.body,
    abort: req.abort,
    timeoutMs: TIMEOUT_MS,
  });
}

// ---------------------------------------------------------------------------------------------
// Report

function report(surface: 'REST' | 'MCP'): string {
  const mine = failures.filter((f) => f.surface === surface).map((f) => ({ ...f, who: f.caller }));
  return fuzzReport(mine, `${surface} failures`, surface === 'REST' ? 'operations' : 'tools');
}

afterAll(() => {
  const statuses = statusCounts;
  console.log(
    [
      `fuzz (seed ${SEED}): ${stats.REST.requests + stats.MCP.requests} requests sent` +
        ` (+${stats.healthz} /healthz, ${stats.credentials} users signed in)`,
      `  REST: ${stats.REST.requests} requests, ${stats.REST.operations.size} of ${REST_OPERATIONS.length} operations, ` +
        `5xx: ${stats.REST.fiveXx}; statuses ${statuses(stats.REST.statuses)}`,
      `  MCP:  ${stats.MCP.requests} requests, ${stats.MCP.operations.size} of ${MCP_TOOLS.length} tools, ` +
        `5xx: ${stats.MCP.fiveXx}, masked internal errors: ${stats.MCP.internal}; statuses ${statuses(stats.MCP.statuses)}`,
      `  5xx total: ${stats.REST.fiveXx + stats.MCP.fiveXx}; failures: ${failures.length}`,
      ...(stats.largeErrors.size
        ? [
            `  4xx answers over 16 KB: ${[...stats.largeErrors].map(([k, n]) => `${k} (${n} B)`).join('; ')}`,
          ]
        : []),
    ].join('\n'),
  );
});

// ---------------------------------------------------------------------------------------------

describe('issue 10: no input causes a 5xx', () => {
  it('derives its targets from the OpenAPI document and tools/list', () => {
    expect(docRes.status).toBe(200);
    expect(REST_OPERATIONS.length).toBeGreaterThan(0);
    expect(listed.status, excerpt(listed.body)).toBe(200);
    expect(MCP_TOOLS.length).toBeGreaterThan(0);
  });

  it('answers every REST operation below 500, and 4xx with detail, for every input class', async () => {
    for (const op of REST_OPERATIONS) {
      for (const caller of ['anonymous', 'signed-in'] as const) {
        // the admin API's inputs are only read for an admin (anyone else: 403)
        const admin = op.path.startsWith('/api/admin/');
        let token = caller === 'signed-in' ? await loginBearer(admin) : undefined;
        for (const cls of CLASSES) {
          let run = 0;
          await fc.assert(
            fc.asyncProperty(restMaterial(op), async (m) => {
              const req = restRequest(op, cls, m, run++);
              const res = await rawRequest(app.baseUrl, {
                method: op.method,
                path: req.path,
                headers: { ...req.headers, ...(token ? { authorization: `Bearer ${token}` } : {}) },
                body: req.body,
                timeoutMs: TIMEOUT_MS,
              });
              count('REST', op.key, res);
              checkRest(op, caller, cls, req, res);
              // the operation may have ended the credential (sign-out, revocation, deletion): start over
              if (token && res.status === 401) token = await loginBearer(admin);
            }),
            { seed: seedFor('REST', op.key, caller, cls), numRuns: RUNS[cls] },
          );
        }
      }
      await checkHealth('REST', op.key);
    }
    const mine = failures.filter((f) => f.surface === 'REST');
    expect(mine.length, report('REST')).toBe(0);
    expect(
      [...stats.largeErrors.keys()].filter((k) => k.startsWith('REST ')),
      '4xx answers over 16 KB',
    ).toEqual([]);
  }, 600_000);

  it('answers every MCP tool with a JSON-RPC error or a tool result, never a 5xx or INTERNAL', async () => {
    for (const tool of MCP_TOOLS) {
      const arbitrary = fc.record({
        args: valueArbitrary(tool.inputSchema, tool.inputSchema),
        picks: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
      });
      for (const caller of ['anonymous', 'signed-in'] as const) {
        let token = caller === 'signed-in' ? await personalToken() : undefined;
        for (const cls of [...CLASSES, 'args-not-object'] as const) {
          let run = 0;
          await fc.assert(
            fc.asyncProperty(arbitrary, async (m) => {
              const req = mcpRequest(tool, cls, m, run++, token);
              const res = await rawRequest(app.baseUrl, {
                method: 'POST',
                path: MCP_PATH,
                headers: req.headers,
                body: req.body,
                timeoutMs: TIMEOUT_MS,
              });
              count('MCP', tool.name, res);
              checkMcp(tool, caller, cls, req, res);
              if (token && res.status === 401) token = await personalToken();
            }),
            {
              seed: seedFor('MCP', tool.name, caller, cls),
              numRuns: caller === 'anonymous' ? ANONYMOUS_MCP_RUNS : RUNS[cls],
            },
          );
        }
      }
      await checkHealth('MCP', tool.name);
    }
    const mine = failures.filter((f) => f.surface === 'MCP');
    expect(mine.length, report('MCP')).toBe(0);
    expect(
      [...stats.largeErrors.keys()].filter((k) => k.startsWith('MCP ')),
      '4xx answers over 16 KB',
    ).toEqual([]);
  }, 600_000);

  it('issue 29: survives bodies cut short on every route taking one, MCP and /graphql', async () => {
    const start = failures.length;
    const bodyOps = REST_OPERATIONS.filter((op) => op.body);
    for (const op of bodyOps) {
      const admin = op.path.startsWith('/api/admin/');
      let token = await loginBearer(admin);
      for (const cut of CUTS) {
        let run = 0;
        await fc.assert(
          fc.asyncProperty(restMaterial(op), async (m) => {
            const req = cutRequest(op, cut, m, run++);
            const res = await sendCut(op.method, req, token);
            count('REST', op.key, res);
            const fail = (problem: string): void => {
              const [status, input, answer] = [res.status, req.shown, answerExcerpt(res)];
              const target = op.key;
              failures.push({
                surface: 'REST',
                target,
                caller: 'signed-in',
                cls: cut,
                problem,
                status,
                input,
                answer,
              });
            };
            // a multipart form cut after its closing boundary (only the last CRLF missing) is whole
            const taken = op.body?.kind === 'json' ? 'a JSON body cut short was taken (2xx)' : null;
            checkCut(fail, cut, res, taken);
            if (cut !== 'aborted' && res.status >= 400 && res.status < 500) {
              const body = parseJson(res.body);
              if (
                !isJsonAnswer(res) ||
                body === null ||
                typeof body !== 'object' ||
                !('detail' in body)
              )
                fail('4xx answer is not JSON with detail');
            }
            if (res.status === 401) token = await loginBearer(admin);
          }),
          { seed: seedFor('REST-cut', op.key, cut), numRuns: CUT_RUNS[cut] },
        );
      }
      await checkHealth('REST', op.key);
    }

    // the other doors of a JSON body: MCP (tools/call envelopes of the listed tools) and /graphql
    let token = await personalToken();
    const doors = [
      {
        surface: 'MCP' as const,
        path: MCP_PATH,
        headers: { accept: 'application/json, text/event-stream' },
        text: (tool: McpToolListing): string =>
          jsonText({
            jsonrpc: '2.0',
            id: ++rpcId,
            method: 'tools/call',
            params: { name: tool.name, arguments: {} },
          }),
      },
      {
        surface: 'REST' as const,
        path: '/graphql',
        headers: { accept: 'application/json' },
        text: (): string => jsonText({ query: '{ __typename }', variables: {} }),
      },
    ];
    const material = fc.record({
      tool: fc.constantFrom(...MCP_TOOLS),
      picks: fc.array(fc.nat(), { minLength: 4, maxLength: 4 }),
    });
    for (const door of doors) {
      for (const cut of CUTS) {
        let run = 0;
        await fc.assert(
          fc.asyncProperty(material, async ({ tool, picks }) => {
            const whole = Buffer.from(door.text(tool));
            const cutAt = cutBody(whole, whole.length - 1, 'application/json', cut, picks, run++);
            const req: CutRequest = {
              path: door.path,
              ...cutAt,
              abort: cut === 'aborted',
              shown: `(${cut}: ${cutAt.body.length} of ${whole.length} bytes) ${excerpt(textOf(cutAt.body), 140)}`,
            };
            const res = await sendCut('POST', req, token, door.headers);
            if (door.surface === 'MCP') count('MCP', tool.name, res);
            const fail = (problem: string): void => {
              const [status, input, answer] = [res.status, req.shown, answerExcerpt(res)];
              const target = `POST ${door.path}`;
              failures.push({
                surface: door.surface,
                target,
                caller: 'signed-in',
                cls: cut,
                problem,
                status,
                input,
                answer,
              });
            };
            checkCut(fail, cut, res, 'a JSON body cut short was taken (2xx)');
            if (res.status === 401) token = await personalToken();
          }),
          { seed: seedFor('door-cut', door.path, cut), numRuns: 2 * CUT_RUNS[cut] },
        );
      }
      await checkHealth(door.surface, `POST ${door.path}`);
    }

    const mine = failures.slice(start);
    expect(
      mine.length,
      fuzzReport(
        mine.map((f) => ({ ...f, who: f.caller })),
        'failures of bodies cut short',
        'routes',
      ),
    ).toBe(0);
    expect(uncaught, 'uncaught exceptions (each would end the server)').toEqual([]);
    console.log(`bodies cut short: ${bodyOps.length} REST routes taking a body, MCP and /graphql`);
  }, 600_000);
});
