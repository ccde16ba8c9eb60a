/**
 * Pydantic v2's lax reading of scalar values (its "Conversion Table", default settings): what the
 * legacy FastAPI server accepted for an int, float, bool or str field, and its error type and
 * message for what it refused. Shared by every reader of client values that keeps those habits:
 * the REST facade's variables (rest-facade/wire-input.ts) and the sync push's records
 * (src/domains/sync/sync.push-schema.ts), so that a synced record takes what any other body takes.
 * Pure functions: they never throw, whatever the input.
 */

/** Strings Pydantic reads as booleans (case-insensitively: "True", "YES", "Off"). */
const BOOL_WORDS: ReadonlyMap<string, boolean> = new Map([
  ['0', false],
  ['f', false],
  ['n', false],
  ['no', false],
  ['off', false],
  ['false', false],
  ['1', true],
  ['t', true],
  ['y', true],
  ['yes', true],
  ['on', true],
  ['true', true],
]);

/** Pydantic's integer text: digits, single underscores between digits, or a `.000` tail. */
const INT_TEXT = /^[+-]?\d+(?:(?:_\d+)+|\.0*)?$/;
/** Pydantic's (Rust's) float text, underscores between digits allowed. */
const FLOAT_TEXT =
  /^[+-]?(?:\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?|\.\d+(?:_\d+)*)(?:[eE][+-]?\d+)?$/;
const NON_FINITE_TEXT = /^[+-]?(?:inf|infinity|nan)$/i;

const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/** A value read (`value`), or why not (`msg`, and Pydantic's error `type`). */
export type Lax = { value: unknown } | { msg: string; type: string };

/** A refusal, in Pydantic's words. */
export const fail = (type: string, msg: string): Lax => ({ type, msg });

/** An int: an integer, a float with no fractional part, integer text, or a boolean; 32-bit. */
export function laxInt(v: unknown): Lax {
  let n: number;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'boolean') n = v ? 1 : 0;
  else if (typeof v === 'string') {
    const s = v.trim();
    if (!INT_TEXT.test(s))
      return fail(
        'int_parsing',
        'Input should be a valid integer, unable to parse string as an integer',
      );
    n = Number(s.replace(/_/g, '').replace(/\.0*$/, ''));
  } else return fail('int_type', 'Input should be a valid integer');
  if (!Number.isFinite(n)) return fail('finite_number', 'Input should be a finite number');
  if (!Number.isInteger(n))
    return fail(
      'int_from_float',
      'Input should be a valid integer, got a number with a fractional part',
    );
  // GraphQL Int is 32-bit, as if every integer field were declared conint(ge=-2**31, le=2**31-1)
  if (n > INT_MAX)
    return fail('less_than_equal', `Input should be less than or equal to ${INT_MAX}`);
  if (n < INT_MIN)
    return fail('greater_than_equal', `Input should be greater than or equal to ${INT_MIN}`);
  return { value: n };
}

/** A number from float text (underscores between digits allowed), NaN for inf/nan text, or null. */
export function floatText(v: string): number | null {
  const s = v.trim();
  if (NON_FINITE_TEXT.test(s)) return Number.NaN;
  return FLOAT_TEXT.test(s) ? Number(s.replace(/_/g, '')) : null;
}

/** A float: a finite number, float text, or a boolean. */
export function laxFloat(v: unknown): Lax {
  let n: number | null;
  if (typeof v === 'number') n = v;
  else if (typeof v === 'boolean') n = v ? 1 : 0;
  else if (typeof v === 'string') {
    n = floatText(v);
    if (n === null)
      return fail(
        'float_parsing',
        'Input should be a valid number, unable to parse string as a number',
      );
  } else return fail('float_type', 'Input should be a valid number');
  return Number.isFinite(n)
    ? { value: n }
    : fail('finite_number', 'Input should be a finite number');
}

/** A bool: true/false, 0/1, or one of Pydantic's words for them. */
export function laxBool(v: unknown): Lax {
  if (typeof v === 'boolean') return { value: v };
  if (v === 0 || v === 1) return { value: v === 1 };
  const word = typeof v === 'string' ? BOOL_WORDS.get(v.toLowerCase()) : undefined;
  if (word !== undefined) return { value: word };
  return typeof v === 'string' || typeof v === 'number'
    ? fail('bool_parsing', 'Input should be a valid boolean, unable to interpret input')
    : fail('bool_type', 'Input should be a valid boolean');
}

/** A str: only a string (Pydantic v2 no longer turns a number into one). */
export function laxString(v: unknown): Lax {
  return typeof v === 'string'
    ? { value: v }
    : fail('string_type', 'Input should be a valid string');
}
