/**
 * Reads REST wire values into GraphQL variables the way the legacy FastAPI server (Pydantic v2,
 * default settings) read its requests (docs/shared notes "legacy-wire"), walking the variable's
 * GraphQL input type:
 * - keys: an input object takes exactly its fields' snake_case wire names (`height_cm` fills
 *   `heightCm`); any other key, the camelCase spelling included, is ignored (Pydantic's
 *   `extra='ignore'`), never copied, so it cannot reach a resolver or the database;
 * - lax scalars (Pydantic's lax mode): Int from a whole float, a numeric string or a boolean;
 *   Float from a numeric string or a boolean; Boolean from 0/1 and the words of `BOOL_WORDS`;
 *   String from strings only; DateTime from ISO text or Unix time in seconds or milliseconds;
 * - text sources (query string, path, multipart text fields) are the same values as text; a list
 *   reads repeated or comma-separated values; a repeated scalar parameter takes its last value;
 * - `JSON` values (sync changes) pass through untouched: their keys are the client's own names.
 * Whatever cannot be read becomes a located issue (`[variable, field, index, ...]`, GraphQL names;
 * `wirePath` turns it into wire names), in Pydantic's words, and the schema's own scalar decides
 * every leaf (`parseValue`), so Int stays 32-bit and DateTime years 0001..9999.
 *
 * Rules of the data never live here: the schema's validators still run on what this produces.
 * It must never throw on any input. It recurses along the input type only (bounded by the type
 * and by the body parsers' MAX_JSON_DEPTH), and never iterates the client's keys.
 */
import {
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
} from 'graphql';
import type {
  GraphQLEnumType,
  GraphQLInputType,
  GraphQLNamedInputType,
  GraphQLScalarType,
} from 'graphql';
import type { ValidationIssue } from '../src/base/errors.ts';
import { toSnake } from '../src/base/wire.ts';
import {
  fail,
  floatText,
  laxBool,
  laxFloat,
  laxInt,
  laxString,
} from '../src/platform/lax-scalars.ts';
import type { Lax } from '../src/platform/lax-scalars.ts';
import { isOffsetless } from '../src/platform/local-time.ts';

type Loc = (string | number)[];

/** A location being walked, built into an array only when an issue needs it. */
interface Path {
  prev: Path | undefined;
  key: string | number;
}

const locOf = (parent: Path | undefined, key: string | number): Loc => {
  const loc: Loc = [key];
  for (let p = parent; p; p = p.prev) loc.push(p.key);
  return loc.reverse();
};

/** Scalars whose values are opaque JSON: passed through as the client sent them. */
const OPAQUE_SCALARS: ReadonlySet<string> = new Set(['JSON']);

/** Unix times up to this magnitude are seconds, beyond it milliseconds (Pydantic's rule). */
const SECONDS_LIMIT = 2e10;
/** The largest JavaScript date, in ms from the epoch. */
const MAX_DATE_MS = 8.64e15;

/**
 * Unix time (seconds up to 2e10, else milliseconds) or date text, as milliseconds since the epoch:
 * the DateTime scalar reads a number as that without parsing text again (a batch's timestamps are
 * parsed once). Text no date parser reads is left to the scalar, whose words the issue keeps.
 */
function laxDateTime(v: unknown): Lax {
  const n = typeof v === 'number' ? v : typeof v === 'string' ? floatText(v) : null;
  if (n === null) {
    if (typeof v !== 'string') return fail('datetime_type', 'Input should be a valid datetime');
    // wall-clock time without an offset is the person's local time: the scalar reads it in their zone
    if (isOffsetless(v.trim())) return { value: v };
    const ms = Date.parse(v);
    return { value: Number.isNaN(ms) ? v : ms };
  }
  const ms = Math.abs(n) <= SECONDS_LIMIT ? n * 1000 : n;
  if (!Number.isFinite(ms) || Math.abs(ms) > MAX_DATE_MS) {
    return fail('datetime_parsing', 'DateTime must be between the years 0001 and 9999');
  }
  return { value: ms };
}

function laxEnum(v: unknown, type: GraphQLEnumType): Lax {
  if (typeof v === 'string' && type.getValue(v)) return { value: v };
  const names = type.getValues().map((e) => `'${e.name}'`);
  const expected =
    names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : names.join('');
  return fail('enum', `Input should be ${expected}`);
}

/** GraphQL's own scalars: their lax rules above decide completely (Int's 32 bits included). */
const BUILT_IN: ReadonlySet<string> = new Set(['Int', 'Float', 'Boolean', 'String']);

const LAX: Readonly<Record<string, (v: unknown) => Lax>> = {
  Int: laxInt,
  Float: laxFloat,
  Boolean: laxBool,
  String: laxString,
  DateTime: laxDateTime,
};

/** What a value that is null or of the wrong shape should have been, in Pydantic's words. */
function shapeIssue(type: GraphQLInputType): { msg: string; type: string } {
  const t = getNullableType(type);
  if (isListType(t)) return { type: 'list_type', msg: 'Input should be a valid list' };
  if (isInputObjectType(t))
    return {
      type: 'model_attributes_type',
      msg: 'Input should be a valid dictionary or object to extract fields from',
    };
  const lax = isEnumType(t)
    ? laxEnum(null, t)
    : (LAX[t.name]?.(null) ?? fail('type_error', `Input should be a valid ${t.name}`));
  return 'msg' in lax ? lax : { type: 'type_error', msg: `Input should be a valid ${t.name}` };
}

/**
 * Reads the wire value at `parent`.`key` (a location built only for an issue). Readers are built
 * once per input type and kept, so a 50,000-reading batch costs one call per value.
 */
type Reader = (
  value: unknown,
  text: boolean,
  parent: Path | undefined,
  key: string | number,
  issues: ValidationIssue[],
) => unknown;

const readers = new WeakMap<GraphQLInputType, Reader>();

function readerFor(type: GraphQLInputType): Reader {
  let reader = readers.get(type);
  if (!reader) {
    reader = buildReader(type);
    readers.set(type, reader);
  }
  return reader;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const proto: unknown = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
};

interface WireField {
  /** the GraphQL field name (camelCase) */
  name: string;
  /** the one key that fills it on the wire (snake_case) */
  wire: string;
  /** non-null without a default: absent is "Field required" */
  required: boolean;
  read: Reader;
}

function buildReader(type: GraphQLInputType): Reader {
  if (isNonNullType(type)) {
    const inner = readerFor(type.ofType);
    const shape = shapeIssue(type.ofType);
    return (value, text, parent, key, issues) => {
      if (value !== null && value !== undefined) return inner(value, text, parent, key, issues);
      issues.push({ loc: locOf(parent, key), ...shape });
      return value;
    };
  }
  if (isListType(type)) {
    const item = readerFor(type.ofType);
    const shape = shapeIssue(type);
    return (value, text, parent, key, issues) => {
      if (value === null || value === undefined) return value;
      const items = Array.isArray(value)
        ? value
        : text && typeof value === 'string'
          ? value.split(',')
          : null;
      if (!items) {
        issues.push({ loc: locOf(parent, key), ...shape });
        return value;
      }
      const path = { prev: parent, key };
      const out = new Array<unknown>(items.length);
      for (let i = 0; i < items.length; i++) out[i] = item(items[i], text, path, i, issues);
      return out;
    };
  }
  if (isInputObjectType(type)) {
    const shape = shapeIssue(type);
    // fields are resolved on first use: input types may refer to themselves
    let fields: WireField[] | undefined;
    return (value, text, parent, key, issues) => {
      if (value === null || value === undefined) return value;
      if (!isPlainObject(value)) {
        issues.push({ loc: locOf(parent, key), ...shape });
        return value;
      }
      fields ??= Object.values(type.getFields()).map((f) => ({
        name: f.name,
        wire: toSnake(f.name),
        required: isNonNullType(f.type) && f.defaultValue === undefined,
        read: readerFor(f.type),
      }));
      const path = { prev: parent, key };
      const out: Record<string, unknown> = {};
      // NOTE: only declared fields are read; any other key of the client's object is never looked at
      for (const field of fields) {
        if (!Object.hasOwn(value, field.wire)) {
          if (field.required)
            issues.push({ loc: locOf(path, field.name), msg: 'Field required', type: 'missing' });
          continue;
        }
        out[field.name] = field.read(value[field.wire], text, path, field.name, issues);
      }
      return out;
    };
  }
  return leafReader(type);
}

function leafReader(type: GraphQLNamedInputType): Reader {
  const last = (value: unknown, text: boolean): unknown =>
    text && Array.isArray(value) ? value.at(-1) : value;
  if (isEnumType(type)) {
    return (wire, text, parent, key, issues) => {
      const value = last(wire, text);
      if (value === null || value === undefined) return value; // null where allowed (NonNull refused it)
      if (typeof value === 'string' && type.getValue(value)) return value;
      const lax = laxEnum(value, type);
      if ('msg' in lax) issues.push({ loc: locOf(parent, key), ...lax });
      return value;
    };
  }
  const scalar = type as GraphQLScalarType;
  if (OPAQUE_SCALARS.has(scalar.name)) return (value) => value;
  const lax = LAX[scalar.name] ?? ((value: unknown): Lax => ({ value }));
  // the built-in scalars' lax rules are complete; other scalars have the last word (DateTime's years, File's shape)
  const check = BUILT_IN.has(scalar.name) ? null : scalar;
  return (wire, text, parent, key, issues) => {
    const value = last(wire, text);
    if (value === null || value === undefined) return value;
    const read = lax(value);
    if ('msg' in read) {
      issues.push({ loc: locOf(parent, key), msg: read.msg, type: read.type });
      return value;
    }
    if (check) {
      try {
        check.parseValue(read.value);
      } catch (e) {
        issues.push({
          loc: locOf(parent, key),
          msg: e instanceof Error ? e.message : String(e),
          type: `${check.name.toLowerCase()}_parsing`,
        });
        return value;
      }
    }
    return read.value;
  };
}

export interface ReadWireOptions {
  /** the value is text (query string, path, multipart text field) rather than JSON */
  text: boolean;
  /** the variable's name: issues are located from it */
  variable: string;
  /** issues found are appended here */
  issues: ValidationIssue[];
}

/**
 * The GraphQL variable value of a wire value of `type` (see the module comment). Issues are
 * appended to `options.issues`; the value returned then is not to be used.
 */
export function readWireValue(
  value: unknown,
  type: GraphQLInputType,
  options: ReadWireOptions,
): unknown {
  return readerFor(type)(value, options.text, undefined, options.variable, options.issues);
}

/**
 * The wire form of a location inside a value of `type`: input fields by their snake_case wire
 * names, list indices as numbers (graphql-js's `samples[0]` split into `samples`, 0), and anything
 * under a `JSON` value exactly as the client sent it. A name the type does not know (a rule's own
 * location) is snake_cased.
 */
export function wirePath(
  type: GraphQLInputType | undefined,
  path: readonly (string | number)[],
): Loc {
  const out: Loc = [];
  const rest = [...path];
  let current: GraphQLInputType | undefined = type;
  while (rest.length) {
    const named = current && getNullableType(current);
    if (named && isScalarType(named) && OPAQUE_SCALARS.has(named.name)) {
      out.push(...rest);
      break;
    }
    const seg = rest.shift()!;
    if (typeof seg === 'number') {
      out.push(seg);
      current = named && isListType(named) ? named.ofType : undefined;
      continue;
    }
    const indexed = /^(\w+)((?:\[\d+\])+)$/.exec(seg);
    if (indexed) {
      rest.unshift(indexed[1], ...[...indexed[2].matchAll(/\d+/g)].map((m) => Number(m[0])));
      continue;
    }
    const field = named && isInputObjectType(named) ? named.getFields()[seg] : undefined;
    out.push(field ? toSnake(field.name) : toSnake(seg));
    current = field?.type;
  }
  return out;
}
