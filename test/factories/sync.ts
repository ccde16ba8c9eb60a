/** Records for sync tests, in wire form: ids, journal entries and a push's journal changes. */

/** A maker of record ids: `prefix`, a counter and a random tail (unique across test files). */
export function recordIds(prefix: string): () => string {
  let n = 0;
  return () => `${prefix}${String(++n).padStart(6, '0')}${Math.random().toString(36).slice(2, 8)}`;
}

/** A maker of valid journal entries with new ids; `over` replaces or adds columns. */
export function journalEntries(newId: () => string) {
  return (over: Record<string, unknown> = {}) => ({
    id: newId(),
    body: 'slept well',
    happened_at: 1_763_000_000_000,
    mood: 4,
    ...over,
  });
}

/** A push's `changes` holding only the journal_entries table (absent lists are empty). */
export const journal = (c: { created?: unknown[]; updated?: unknown[]; deleted?: string[] }) => ({
  journal_entries: { created: c.created ?? [], updated: c.updated ?? [], deleted: c.deleted ?? [] },
});
