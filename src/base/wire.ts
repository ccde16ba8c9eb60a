/**
 * The documented wire format is snake_case; GraphQL is camelCase. One mapper serves both facades.
 * Only object keys change; values (strings, arrays of scalars) pass through untouched, and so do
 * the keys inside JSON-typed answers (OpaqueKeys).
 */
export function toSnake(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

export function toCamel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
}

/**
 * Memoised key conversion: a 50,000-row answer converts the same few keys 300,000 times. The cache
 * is bounded (request bodies may carry arbitrary keys); beyond the bound keys are converted uncached.
 */
function memo(fn: (k: string) => string): (k: string) => string {
  const cache = new Map<string, string>();
  return (k) => {
    let v = cache.get(k);
    if (v === undefined) {
      v = fn(k);
      if (cache.size < 5_000) cache.set(k, v);
    }
    return v;
  };
}

const toSnakeCached = memo(toSnake);
const toCamelCached = memo(toCamel);

/**
 * Where in an answer values are opaque JSON (GraphQL `JSON` fields): response keys down to them,
 * `true` at a JSON field. Such values keep their keys as they are (a dish named "Rice" stays "Rice").
 */
export interface OpaqueKeys {
  [responseKey: string]: OpaqueKeys | true;
}

function mapKeys(value: unknown, fn: (k: string) => string, opaque?: OpaqueKeys): unknown {
  if (Array.isArray(value)) return value.map((v) => mapKeys(v, fn, opaque));
  // plain objects only (graphql-js builds results with a null prototype); Dates etc. pass through
  const proto: unknown =
    value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    for (const k in value as Record<string, unknown>) {
      if (!Object.hasOwn(value as object, k)) continue;
      const inner = opaque?.[k];
      const v = (value as Record<string, unknown>)[k];
      const mapped = inner === true ? v : mapKeys(v, fn, inner);
      // NOTE: assigning `__proto__` would set the prototype; define it as the own key it is
      if (k === '__proto__')
        Object.defineProperty(out, k, {
          value: mapped,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[fn(k)] = mapped;
    }
    return out;
  }
  return value;
}

/**
 * `value` with snake_case keys, except inside its JSON values: `opaque` is where they are in it
 * (`true`: the value itself is JSON, kept whole).
 */
export const snakeKeys = (value: unknown, opaque?: OpaqueKeys | true): unknown =>
  opaque === true ? value : mapKeys(value, toSnakeCached, opaque);
export const camelKeys = (value: unknown): unknown => mapKeys(value, toCamelCached);
