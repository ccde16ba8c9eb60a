import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pydanticIssueType } from '../../src/graphql/issue-types.ts';
import type { ZodLikeIssue } from '../../src/graphql/issue-types.ts';

/** The type reported for the first issue of `value` against `schema`. */
function typeOf(schema: z.ZodType, value: unknown): string {
  const result = schema.safeParse(value);
  if (result.success) throw new Error(`expected ${JSON.stringify(value)} to fail`);
  return pydanticIssueType(result.error.issues[0] as ZodLikeIssue);
}

describe('validation issue types as Pydantic v2 names them (the legacy clients read FastAPI 422 bodies)', () => {
  it.each([
    ['number >= 1', z.number().min(1), 0, 'greater_than_equal'],
    ['number > 0', z.number().positive(), 0, 'greater_than'],
    ['number <= 100', z.number().max(100), 101, 'less_than_equal'],
    ['integer', z.number().int(), 1.5, 'int_type'],
    ['short string', z.string().min(1), '', 'string_too_short'],
    ['long string', z.string().max(3), 'four', 'string_too_long'],
    ['short list', z.array(z.number()).min(1), [], 'too_short'],
    ['long list', z.array(z.number()).max(1), [1, 2], 'too_long'],
    ['pattern', z.string().regex(/^[A-Z]{2}$/), 'de', 'string_pattern_mismatch'],
    ['choice', z.enum(['mg/dL', 'mmol/L']), 'mg', 'enum'],
    ['string', z.string(), 5, 'string_type'],
    ['refinement', z.string().refine(() => false), 'x', 'value_error'],
  ])('%s', (_name, schema, value, type) => {
    expect(typeOf(schema, value)).toBe(type);
  });
});
