/**
 * Inputs for the no-5xx fuzz test (issue 10): fast-check arbitraries derived from JSON Schemas (the
 * OpenAPI document's parameters and bodies, MCP tools' input schemas), the hostile value classes of
 * the issue, and mutations that put one hostile value where the schema expects a valid one.
 * Nothing here names a route or a tool: everything is driven by the schemas it is given.
 */
import fc from 'fast-check';
import { clock } from '../../src/base/clock.ts';

/** JSON text written verbatim into a body (what JSON.stringify cannot write: -0, 1e400, 20,000 levels). */
export class RawJson {
  constructor(
    readonly text: string,
    readonly label: string,
  ) {}
}

/** Serialises a value to JSON text, writing RawJson leaves verbatim (no recursion into them). */
export function jsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(jsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const fields = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${jsonText(v)}`);
    return `{${fields.join(',')}}`;
  }
  if (value === undefined) return 'null';
  return JSON.stringify(value);
}

/** A short, readable excerpt of any value or text (hostile values are long by design). */
export function excerpt(value: unknown, max = 140): string {
  const text = typeof value === 'string' ? value : jsonText(value);
  const shown = text.length > max ? `${text.slice(0, max)}…(+${text.length - max} chars)` : text;
  return shown
    .replaceAll('\u0000', '\\u0000')
    .replace(/[\ud800-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

// ---------------------------------------------------------------------------------------------
// Hostile values

export const DEEP = 20_000;

export const deepArrays = (n: number): RawJson =>
  new RawJson('['.repeat(n) + ']'.repeat(n), `${n} levels of [`);
export const deepObjects = (n: number): RawJson =>
  new RawJson('{"a":'.repeat(n) + '1' + '}'.repeat(n), `${n} levels of {"a":`);
const deepMixed = (n: number): RawJson =>
  new RawJson('[{"a":'.repeat(n) + 'null' + '}]'.repeat(n), `${n} levels of [{"a":`);

const NUL_STRINGS = [
  '\u0000',
  'a\u0000b',
  'user\u0000@example.com',
  '2024-01-01T00:00:00Z\u0000',
  '\u0000'.repeat(16),
];

/** ISO-looking dates JavaScript parses (or almost does) that PostgreSQL cannot store. */
const OUT_OF_RANGE_DATES = [
  '+275760-09-13T00:00:00.000Z',
  '-271821-04-20T00:00:00.000Z',
  '+275760-09-13',
  '275760-09-13',
  '9999-12-31T23:59:59.999Z',
  '0000-01-01T00:00:00Z',
  '-000001-01-01T00:00:00Z',
  '2024-13-45T25:61:61Z',
  '20000-01-01',
];

/** Number texts beyond int4, int8, double, timestamps; also -0 and NaN/Infinity as strings. */
const OUT_OF_RANGE_NUMBER_TEXTS = [
  '1e20',
  '-1e20',
  '2147483648',
  '-2147483649',
  '4294967296',
  '9223372036854775808',
  '-9223372036854775809',
  '99999999999999999999999999',
  '8640000000000001',
  '-0',
  '1e308',
  '-1e308',
  '1e400',
  '-1e400',
  '1e-400',
];
const NUMBER_WORDS = ['NaN', 'Infinity', '-Infinity'];

const HUGE_BODY_STRINGS = [
  'x'.repeat(65_536),
  '\u00e9'.repeat(70_000),
  'a,'.repeat(40_000),
  '😀'.repeat(33_000),
];
/** huge, but below Node's 16 KB request-head limit (beyond it Node itself answers 431) */
const HUGE_URL_STRINGS = ['x'.repeat(8_000), 'a,'.repeat(4_000)];

const LONE_SURROGATES = ['\ud800', 'a\udfffb', '\udc00\ud800', 'x'.repeat(10) + '\ud83d'];

/** Malformed or suspicious percent-encoding, written verbatim into a URL. */
const BAD_PERCENT = [
  '%C0%AE',
  '%C0%AE%C0%AE',
  '%uff0e%uff0e',
  '%u002e',
  '%ED%A0%80',
  '%ED%BF%BF',
  '%',
  '%%',
  '%G0',
  '%E2%82',
  '%FF%FE',
  '..%2F..%2F',
  '%2e%2e',
];

/** Sets an own, enumerable field (also one named `__proto__`, which plain assignment would not create). */
function ownField(target: object, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    configurable: true,
    writable: true,
  });
}

function extraFields(): Record<string, unknown> {
  const extra: Record<string, unknown> = {
    unknown_field: 1,
    zz_extra: 'x',
    is_admin: true,
    user_id: 1,
    '': 0,
    'a.b': [1],
  };
  // own properties named like the prototype chain (JSON.parse creates them as own properties too)
  ownField(extra, '__proto__', { is_admin: true });
  ownField(extra, 'constructor', { prototype: { x: 1 } });
  return extra;
}

/** The input classes of issue 10 that replace or add a value inside an otherwise valid input. */
export const LEAF_CLASSES = [
  'nul',
  'out-of-range',
  'huge-string',
  'wrong-type',
  'deep-nesting',
  'extra-fields',
  'bad-encoding',
] as const;
export type LeafClass = (typeof LEAF_CLASSES)[number];

/** What a schema position holds, as far as choosing a hostile value goes. */
export type Kind =
  | 'string'
  | 'date'
  | 'integer'
  | 'number'
  | 'boolean'
  | 'array'
  | 'object'
  | 'any';

/** Integer texts past int4/int8 (most telling first), and the same for floats and timestamps. */
const INT_TEXTS = [
  '9223372036854775808',
  '2147483648',
  '-2147483649',
  '-9223372036854775809',
  '4294967296',
  '1e20',
  '-0',
  '99999999999999999999999999',
];
const FLOAT_TEXTS = [
  '1e20',
  '-1e20',
  '8640000000000001',
  '1e308',
  '-1e308',
  '1e400',
  '-1e400',
  '9223372036854775808',
  '-0',
];

/**
 * A hostile value of `cls` for a position of kind `kind` currently holding `current`; `pick`
 * chooses among the candidates, so successive runs walk through them.
 */
export function hostileValue(cls: LeafClass, kind: Kind, current: unknown, pick: number): unknown {
  const one = <T>(list: readonly T[]): T => list[pick % list.length];
  const raw = (texts: string[]): RawJson[] => texts.map((t) => new RawJson(t, t));
  switch (cls) {
    case 'nul':
      if (typeof current === 'string' && current.length && pick % 2 === 0) {
        const at = pick % (current.length + 1);
        return `${current.slice(0, at)}\u0000${current.slice(at)}`;
      }
      return one(NUL_STRINGS);
    case 'out-of-range':
      if (kind === 'integer') return one([...raw(INT_TEXTS), ...NUMBER_WORDS]);
      if (kind === 'number') return one([...raw(FLOAT_TEXTS), ...NUMBER_WORDS]);
      if (kind === 'date') return one(OUT_OF_RANGE_DATES);
      if (kind === 'string') return one([...OUT_OF_RANGE_DATES, ...INT_TEXTS, ...NUMBER_WORDS]);
      return one([...raw(OUT_OF_RANGE_NUMBER_TEXTS), ...OUT_OF_RANGE_DATES]);
    case 'huge-string':
      return one(HUGE_BODY_STRINGS);
    case 'wrong-type':
      if (kind === 'string' || kind === 'date') return one([123, {}, [], true, { a: 'b' }, 1.5]);
      if (kind === 'integer' || kind === 'number')
        return one(['12', 'abc', {}, [], true, '1e3', 1.5, '']);
      if (kind === 'boolean') return one(['true', 1, {}, [], 'yes']);
      if (kind === 'array') return one([{}, 'a', 1, { 0: 1 }, [[[]]]]);
      if (kind === 'object') return one([[], 'a', 1, [{}], true]);
      return one(['', 0, {}, [], false]);
    case 'deep-nesting':
      return one([
        deepArrays(DEEP),
        deepObjects(DEEP),
        deepMixed(5_000),
        deepArrays(1_000),
        deepObjects(100),
      ]);
    case 'extra-fields':
      return extraFields();
    case 'bad-encoding':
      return one(LONE_SURROGATES);
  }
}

/**
 * A hostile text for a URL part (path parameter or query value) of kind `kind`, written verbatim;
 * `current` is the part's valid text, already percent-encoded.
 */
export function hostileUrlText(cls: LeafClass, kind: Kind, current: string, pick: number): string {
  const one = <T>(list: readonly T[]): T => list[pick % list.length];
  switch (cls) {
    case 'nul':
      return one([`${current}%00`, '%00', 'a%00b', `%00${current}%00`]);
    case 'out-of-range': {
      const value = hostileValue('out-of-range', kind, current, pick);
      return encodeURIComponent(value instanceof RawJson ? value.text : String(value));
    }
    case 'huge-string':
      return one(HUGE_URL_STRINGS);
    case 'wrong-type':
      return one(['abc', '1.5', 'true', '[]', '%7B%7D', '', '1,2,3', 'null']);
    case 'deep-nesting':
      return one(['%5B'.repeat(2_000), '%7B%22a%22%3A'.repeat(1_000)]);
    case 'extra-fields':
      return current;
    case 'bad-encoding':
      return one(BAD_PERCENT);
  }
}

// ---------------------------------------------------------------------------------------------
// JSON Schema -> arbitrary

export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  default?: unknown;
}

/** Follows local `$ref`s (`#/components/schemas/X`) inside `root`. */
export function resolveSchema(schema: JsonSchema, root: unknown): JsonSchema {
  let s = schema;
  for (let hops = 0; s.$ref && hops < 20; hops++) {
    if (!s.$ref.startsWith('#/')) throw new Error(`unsupported $ref ${s.$ref}`);
    let at: any = root;
    for (const part of s.$ref.slice(2).split('/'))
      at = at?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (!at) throw new Error(`unresolved $ref ${s.$ref}`);
    s = at as JsonSchema;
  }
  return s;
}

/** The schema's types (a type list, or inferred from its keywords). */
export function typesOf(s: JsonSchema): string[] {
  if (s.type !== undefined) return Array.isArray(s.type) ? s.type : [s.type];
  if (s.properties) return ['object'];
  if (s.items) return ['array'];
  return [];
}

/** Midnight UTC today: dates near "now", the same for every run of one day. */
const TODAY = Math.floor(clock.ms() / 86_400_000) * 86_400_000;
const DAY = 86_400_000;

const isoDate = fc.oneof(
  fc.integer({ min: -60 * DAY, max: DAY / 2 }).map((off) => new Date(TODAY + off).toISOString()),
  fc
    .date({ min: new Date('2000-01-01'), max: new Date('2035-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  fc
    .integer({ min: -30, max: 0 })
    .map((off) => new Date(TODAY + off * DAY).toISOString().slice(0, 10)),
);

const epochMs = fc.integer({ min: -60 * DAY, max: DAY / 2 }).map((off) => TODAY + off);

/** Strings of the shapes inputs usually have, so some generated values get past validation. */
const PLAUSIBLE = [
  'a',
  'test',
  'Test User',
  'user@example.com',
  'fuzz.partner@example.com',
  'correct horse battery',
  '00000000-0000-0000-0000-000000000001',
  '1',
  '42',
  '12345678',
  '123456',
  '0123456789012',
  'desc',
  'asc',
  'image/png',
  'US',
];

/** A numeric range named in a description ("glucose, mg/dL (10..1000)", "0 < grams <= 5000"). */
function describedRange(s: JsonSchema): { min?: number; max?: number } {
  const text = (s as { description?: string }).description ?? '';
  const range = text.match(/(-?\d[\d,]*(?:\.\d+)?)\s*\.\.\s*(-?\d[\d,]*(?:\.\d+)?)/);
  if (range)
    return { min: Number(range[1].replace(/,/g, '')), max: Number(range[2].replace(/,/g, '')) };
  const atMost = text.match(/<=\s*(\d+)/);
  return atMost ? { min: 0, max: Number(atMost[1]) } : {};
}

function stringArbitrary(s: JsonSchema): fc.Arbitrary<string> {
  if (s.format === 'date-time' || s.format === 'date') return isoDate;
  const described = /characters/.test((s as { description?: string }).description ?? '')
    ? describedRange(s)
    : {};
  const min = s.minLength ?? described.min ?? 0;
  const max = s.maxLength ?? described.max ?? Math.max(min, 24);
  const fits = PLAUSIBLE.filter((p) => p.length >= min && p.length <= max);
  return fc.oneof(
    { arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, min + 24) }), weight: 2 },
    {
      arbitrary: fits.length
        ? fc.constantFrom(...fits)
        : fc.string({ minLength: min, maxLength: max }),
      weight: 2,
    },
    { arbitrary: isoDate.filter((d) => d.length >= min && d.length <= max), weight: 1 },
    { arbitrary: fc.uuid(), weight: min <= 36 && max >= 36 ? 1 : 0 },
  );
}

function numberArbitrary(s: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const described = describedRange(s);
  const min = s.minimum ?? described.min;
  const max = s.maximum ?? described.max;
  if (min !== undefined && max !== undefined && min <= max) {
    const inRange = integer
      ? fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 2 ** 31 - 1)) })
      : fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    return fc.oneof(
      { arbitrary: inRange, weight: 4 },
      { arbitrary: fc.integer({ min: -10, max: 1_000 }), weight: 1 },
    );
  }
  if (integer) {
    return fc.oneof(
      fc.integer({ min: 0, max: 10 }),
      fc.integer({ min: 1, max: 200 }),
      fc.integer({ min: -1_000, max: 1_000_000 }),
    );
  }
  return fc.oneof(
    fc.integer({ min: 0, max: 300 }),
    fc.double({ min: -1e4, max: 1e4, noNaN: true, noDefaultInfinity: true }),
    epochMs,
  );
}

function typedArbitrary(
  type: string,
  s: JsonSchema,
  root: unknown,
  depth: number,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return numberArbitrary(s, true);
    case 'number':
      return numberArbitrary(s, false);
    case 'string':
      return stringArbitrary(s);
    case 'array': {
      const item = s.items
        ? valueArbitrary(s.items, root, depth + 1)
        : fc.jsonValue({ maxDepth: 1 });
      return fc.array(item, { minLength: 1, maxLength: 3 });
    }
    case 'object': {
      if (!s.properties)
        return fc.dictionary(fc.string({ maxLength: 6 }), fc.jsonValue({ maxDepth: 1 }), {
          maxKeys: 2,
        });
      const props: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(s.properties))
        props[k] = valueArbitrary(v, root, depth + 1);
      return fc.record(props, { requiredKeys: (s.required ?? []).filter((k) => k in props) });
    }
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

/** Values that fit `schema` (types, enums, required fields), `$ref`s resolved in `root`. */
export function valueArbitrary(
  schema: JsonSchema,
  root: unknown,
  depth = 0,
): fc.Arbitrary<unknown> {
  const s = resolveSchema(schema, root);
  if (depth > 8) return fc.constant(null);
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum?.length) return fc.constantFrom(...s.enum);
  const alternatives = s.anyOf ?? s.oneOf;
  if (alternatives?.length)
    return fc.oneof(...alternatives.map((a) => valueArbitrary(a, root, depth + 1)));
  if (s.allOf?.length === 1) return valueArbitrary(s.allOf[0], root, depth + 1);
  const types = typesOf(s);
  if (!types.length) return fc.jsonValue({ maxDepth: 2 });
  return fc.oneof(
    ...types.map((t) => ({
      arbitrary: typedArbitrary(t, s, root, depth),
      weight: t === 'null' ? 1 : 6,
    })),
  );
}

/** The kind of a schema position (its first non-null type; date-time strings are dates). */
export function kindOf(schema: JsonSchema, root: unknown): Kind {
  const s = resolveSchema(schema, root);
  const type = typesOf(s).find((t) => t !== 'null');
  if (s.enum?.length) return typeof s.enum[0] === 'number' ? 'number' : 'string';
  if (type === 'string') return s.format === 'date-time' || s.format === 'date' ? 'date' : 'string';
  if (
    type === 'integer' ||
    type === 'number' ||
    type === 'boolean' ||
    type === 'array' ||
    type === 'object'
  )
    return type;
  if ((s.anyOf ?? s.oneOf)?.length) return kindOf((s.anyOf ?? s.oneOf)![0], root);
  return 'any';
}

// ---------------------------------------------------------------------------------------------
// Fields and mutations: one hostile value where a valid one was

/** A position inside a value: object keys and array indexes (arrays: their first item). */
export interface Field {
  path: (string | number)[];
  kind: Kind;
}

/** Every position a schema describes, depth first (objects and arrays too, then what they hold). */
export function fieldsOf(
  schema: JsonSchema,
  root: unknown,
  path: (string | number)[] = [],
  depth = 0,
): Field[] {
  const s = resolveSchema(schema, root);
  if (depth > 6) return [];
  const isContainer = (a: JsonSchema): boolean =>
    typesOf(resolveSchema(a, root)).some((t) => t === 'object' || t === 'array');
  const inner = (s.anyOf ?? s.oneOf)?.find(isContainer);
  if (inner) return fieldsOf(inner, root, path, depth + 1);
  const out: Field[] = [];
  for (const [k, v] of Object.entries(s.properties ?? {})) {
    out.push(
      { path: [...path, k], kind: kindOf(v, root) },
      ...fieldsOf(v, root, [...path, k], depth + 1),
    );
  }
  if (s.items) {
    out.push(
      { path: [...path, 0], kind: kindOf(s.items, root) },
      ...fieldsOf(s.items, root, [...path, 0], depth + 1),
    );
  }
  return out;
}

/** The fields that suit `cls` (strings for NUL, numbers and dates first for ranges), or all of them. */
export function fieldsFor(cls: LeafClass, fields: Field[]): Field[] {
  const only = (kinds: Kind[]): Field[] => {
    const suited = fields.filter((f) => kinds.includes(f.kind));
    return suited.length ? suited : fields;
  };
  switch (cls) {
    case 'nul':
    case 'huge-string':
    case 'bad-encoding':
      return only(['string', 'date', 'any']);
    case 'out-of-range': {
      const numbersAndDates = fields.filter((f) => ['date', 'integer', 'number'].includes(f.kind));
      return [
        ...numbersAndDates,
        ...only(['string', 'any']).filter((f) => !numbersAndDates.includes(f)),
      ];
    }
    case 'extra-fields':
      return fields.filter((f) => f.kind === 'object');
    default:
      return fields;
  }
}

/** A deep copy that keeps RawJson leaves (structuredClone would turn them into plain objects). */
export function copyValue(value: unknown): unknown {
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyValue);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    ownField(out, k, copyValue(v));
  }
  return out;
}

/** Reads the value at `path` (undefined where it is absent). */
export function getAt(value: unknown, path: (string | number)[]): unknown {
  let at: any = value;
  for (const k of path) at = at !== null && typeof at === 'object' ? at[k] : undefined;
  return at;
}

/**
 * Sets `path` of `holder.v` to `v`, creating missing containers on the way (an optional object
 * the valid value left out, an array's first item). Returns false when a non-container is in the way.
 */
export function setAt(holder: { v: unknown }, path: (string | number)[], v: unknown): boolean {
  if (!path.length) {
    holder.v = v;
    return true;
  }
  const container = (x: unknown): boolean =>
    x !== null && typeof x === 'object' && !(x instanceof RawJson);
  if (!container(holder.v)) holder.v = typeof path[0] === 'number' ? [] : {};
  let at = holder.v as any;
  for (let i = 0; i < path.length - 1; i++) {
    const k = path[i];
    if (!container(at[k])) at[k] = typeof path[i + 1] === 'number' ? [] : {};
    at = at[k];
  }
  ownField(at, path[path.length - 1], v);
  return true;
}

/**
 * A copy of `value` without the optional object fields its schema allows, except those on `keep`
 * (the path a hostile value goes to): the fewest other values that could be refused first.
 */
export function withoutOptional(
  value: unknown,
  schema: JsonSchema,
  root: unknown,
  keep: (string | number)[] = [],
): unknown {
  const s = resolveSchema(schema, root);
  if (value instanceof RawJson || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    const items = s.items;
    return items
      ? value.slice(0, 1).map((v) => withoutOptional(v, items, root, keep.slice(1)))
      : value;
  }
  const objectSchema =
    (s.anyOf ?? s.oneOf)?.map((a) => resolveSchema(a, root)).find((a) => a.properties) ?? s;
  if (!objectSchema.properties) return value;
  const required = new Set(objectSchema.required ?? []);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (!required.has(k) && keep[0] !== k) continue;
    const prop = objectSchema.properties[k];
    out[k] = prop ? withoutOptional(v, prop, root, keep[0] === k ? keep.slice(1) : []) : v;
  }
  return out;
}

/**
 * Puts `cls` into a copy of the valid `value` at one field of `fields` (the `index`-th of those
 * that suit the class, wrapping around); without a suitable field, into an added top-level field.
 * `extra-fields` adds unknown fields (and prototype-named ones) to one object of the value.
 * Answers the new value and where the class went.
 */
export function mutate(
  value: unknown,
  fields: Field[],
  cls: LeafClass,
  index: number,
  pick: number,
  /** the value's schema: given, optional fields other than the target are left out */
  minimal?: { schema: JsonSchema; root: unknown },
): { value: unknown; where: string } {
  const candidates = fieldsFor(cls, fields);
  const targetPath =
    cls === 'extra-fields' || !candidates.length ? [] : candidates[index % candidates.length].path;
  const holder = {
    v: copyValue(
      minimal ? withoutOptional(value, minimal.schema, minimal.root, targetPath) : value,
    ),
  };
  if (cls === 'extra-fields') {
    const objects = [{ path: [] as (string | number)[], kind: 'object' as Kind }, ...candidates];
    const target = objects[index % objects.length];
    const at = getAt(holder.v, target.path);
    const extra = extraFields();
    const isObject =
      at !== null && typeof at === 'object' && !Array.isArray(at) && !(at instanceof RawJson);
    if (isObject) Object.defineProperties(at, Object.getOwnPropertyDescriptors(extra));
    else setAt(holder, target.path, extra);
    return { value: holder.v, where: target.path.join('.') || '(top level)' };
  }
  if (!candidates.length) {
    const root = holder.v;
    if (root !== null && typeof root === 'object' && !Array.isArray(root)) {
      setAt(holder, ['fuzz_field'], hostileValue(cls, 'string', 'text', pick));
      return { value: holder.v, where: 'fuzz_field (added)' };
    }
    return { value: hostileValue(cls, 'any', root, pick), where: '(whole value)' };
  }
  const field = candidates[index % candidates.length];
  setAt(holder, field.path, hostileValue(cls, field.kind, getAt(holder.v, field.path), pick));
  return { value: holder.v, where: field.path.join('.') };
}

/** Malformed JSON texts (each must answer 400/422 with `detail`, never 500). */
export const MALFORMED_JSON = [
  '{',
  '{"a":',
  "{'a': 1}",
  '[1,]',
  '{"a":1,}',
  'nul',
  '{"a":1}garbage',
  '{"a":"\\x41"}',
  '{"a":"\\ud800"}',
  '"unterminated',
  '\u0000',
  '{"a":1e}',
  '{"a":01}',
  ' ',
];

/** Invalid UTF-8 inside an otherwise well-formed JSON string. */
export const INVALID_UTF8_JSON = Buffer.concat([
  Buffer.from('{"name":"'),
  Buffer.from([0xc0, 0xae, 0xed, 0xa0, 0x80, 0xff]),
  Buffer.from('"}'),
]);
