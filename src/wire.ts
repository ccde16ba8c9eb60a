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

function mapKeys(value: unknown, fn: (k: string) => string): unknown {
  if (Array.isArray(value)) return value.map((v) => mapKeys(v, fn));
  // plain objects only (graphql-js builds results with a null prototype); Dates etc. pass through
  const proto = value && typeof value === 'object' ? Object.getPrototypeOf(value) : undefined;
  if (proto === Object.prototype || proto === null) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as object)) out[fn(k)] = mapKeys(v, fn);
    return out;
  }
  return value;
}

export const snakeKeys = (value: unknown): unknown => mapKeys(value, toSnake);
export const camelKeys = (value: unknown): unknown => mapKeys(value, toCamel);
