/**
 * The `type` of a validation issue, as Pydantic v2 names it: the legacy clients were written against
 * FastAPI's 422 bodies, so a zod issue is reported under the Pydantic error type it corresponds to
 * (too_small on a number is greater_than_equal, on a string string_too_short, ...). Messages stay
 * ours: they say what to send instead.
 */

/** The fields of a zod v4 issue this mapping reads (Standard Schema issues carry them through). */
export interface ZodLikeIssue {
  code?: string;
  origin?: string;
  inclusive?: boolean;
  expected?: string;
  format?: string;
}

const SIZE_TYPES: Record<string, { small: string; big: string }> = {
  string: { small: 'string_too_short', big: 'string_too_long' },
  array: { small: 'too_short', big: 'too_long' },
  set: { small: 'too_short', big: 'too_long' },
};

const TYPE_NAMES: Record<string, string> = {
  string: 'string_type',
  number: 'float_type',
  int: 'int_type',
  boolean: 'bool_type',
  array: 'list_type',
  object: 'dict_type',
  date: 'datetime_type',
};

/** The Pydantic error type of a zod issue; value_error when Pydantic has no closer name. */
export function pydanticIssueType(issue: ZodLikeIssue): string {
  const inclusive = issue.inclusive !== false;
  switch (issue.code) {
    case 'too_small':
      return (
        SIZE_TYPES[issue.origin ?? '']?.small ?? (inclusive ? 'greater_than_equal' : 'greater_than')
      );
    case 'too_big':
      return SIZE_TYPES[issue.origin ?? '']?.big ?? (inclusive ? 'less_than_equal' : 'less_than');
    case 'invalid_type':
      return TYPE_NAMES[issue.expected ?? ''] ?? 'value_error';
    case 'invalid_format':
      return issue.format === 'regex' ? 'string_pattern_mismatch' : 'value_error';
    case 'invalid_value':
      return 'enum';
    case 'not_multiple_of':
      return 'multiple_of';
    case 'unrecognized_keys':
      return 'extra_forbidden';
    default:
      return 'value_error';
  }
}
