/**
 * Pothos enum values from a constant list: each member is its own GraphQL name and value. One helper
 * so the cast that keeps the members' literal types lives in one place instead of in every schema
 * file that exposes a list as an enum.
 */

/** `{ a: { value: 'a' }, b: { value: 'b' } }` for `['a', 'b']`, typed by the list's members. */
export function enumValues<T extends string>(list: readonly T[]): Record<T, { value: T }> {
  return Object.fromEntries(list.map((member) => [member, { value: member }])) as Record<
    T,
    { value: T }
  >;
}
