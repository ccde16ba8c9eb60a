/**
 * Records: raw rows of one synced table. list_records has no scope in the spec, so every token sees it
 * listed; the field still needs health:metrics:read, and each table its own read scope from the table
 * registry (src/domains/sync/synced-tables.ts: glucose_readings needs health:glucose:read, ...),
 * else INSUFFICIENT_SCOPE.
 */
import type { McpTool } from '../tool.ts';

export const recordTools: McpTool[] = [
  { name: 'list_records', operation: 'ListSyncedRecords', scopes: [], kind: 'read' },
  { name: 'synced_records_read', operation: 'ListSyncedRecords', scopes: ['health:metrics:read'], kind: 'read' },
];
