/**
 * The documented wire format is snake_case; GraphQL is camelCase. One mapper serves both facades.
 * Only object keys change; values (strings, arrays of scalars) pass through untouched.
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

function mapKeys(value: unknown, fn: (k: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => mapKeys(v, fn));
  // plain objects only (graphql-js builds results with a null prototype); Dates etc. pass through
  const proto: unknown =
    value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    for (const k in value as Record<string, unknown>) {
      if (Object.hasOwn(value as object, k))
        out[fn(k)] = mapKeys((value as Record<string, unknown>)[k], fn);
    }
    return out;
  }
  return value;
}

export const snakeKeys = (value: unknown): unknown => mapKeys(value, toSnakeCached);
export const camelKeys = (value: unknown): unknown => mapKeys(value, toCamelCached);
