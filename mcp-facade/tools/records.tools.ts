/**
 * Records: raw rows of one synced table. list_records has no scope in the spec, so every token sees it
 * listed; the field still needs health:metrics:read, and each table its own read scope from the table
 * registry (src/domains/sync/sync.tables.ts: glucose_readings needs health:glucose:read, ...),
 * else INSUFFICIENT_SCOPE. Pages end before SYNC_PAGE_CHARS characters of rows (changes.tools.ts);
 * next_cursor, when not null, reads the next page.
 */
import type { McpTool } from '../tool.ts';
import { SYNC_PAGE_CHARS } from './changes.tools.ts';

export const recordTools: McpTool[] = [
  {
    name: 'list_records',
    title: 'List raw rows of a synced table',
    description: 'Listed without a scope; the same as synced_records_read.',
    operation: 'syncedRecords',
    scopes: [],
    kind: 'read',
    fixed: { max_chars: SYNC_PAGE_CHARS },
  },
  {
    name: 'synced_records_read',
    title: 'Read raw rows of a synced table',
    description: 'The same as list_records, under health:metrics:read.',
    operation: 'syncedRecords',
    scopes: ['health:metrics:read'],
    kind: 'read',
    fixed: { max_chars: SYNC_PAGE_CHARS },
  },
];
