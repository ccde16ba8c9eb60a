/**
 * Changes: what changed in the person's phone data since a time (the sync pull). list_changes has no
 * scope in the spec, so every token sees it listed; the sync field still needs health:summary:read,
 * and a token gets only the tables whose read scope it holds (the answer's omitted_tables names the
 * others; the scopes are the table registry's, src/domains/sync/sync.tables.ts).
 *
 * Pages: an MCP answer must stay under 100,000 characters (about 25,000 tokens), and a page of
 * 1,000 records can pass that. The rows fix `max_chars`, so a page ends before its records pass
 * SYNC_PAGE_CHARS characters; the answer says has_more and gives next_cursor for the next page.
 * The REST pull of WatermelonDB's documented client (no cursor, limit or max_chars) is one streamed
 * answer instead (rest-facade/changes-responder.ts); an agent's answer must stay bounded, so these
 * tools always page.
 */
import type { McpTool } from '../tool.ts';

/** Characters of records per page of the sync tools (list_changes and list_records alike). */
export const SYNC_PAGE_CHARS = 40_000;

export const changeTools: McpTool[] = [
  {
    name: 'list_changes',
    title: 'List changes of the phone data',
    description: 'The same as sync_changes_read, listed without a scope.',
    operation: 'syncPull',
    scopes: [],
    kind: 'read',
    fixed: { max_chars: SYNC_PAGE_CHARS },
  },
  {
    name: 'sync_changes_read',
    title: 'Read changes of the phone data',
    description: 'The same as list_changes, under health:summary:read.',
    operation: 'syncPull',
    scopes: ['health:summary:read'],
    kind: 'read',
    fixed: { max_chars: SYNC_PAGE_CHARS },
  },
];
