/**
 * Changes: what changed in the person's phone data since a time (the sync pull). list_changes has no
 * scope in the spec, so every token sees it listed; the sync field still needs health:summary:read,
 * and a token gets only the tables whose read scope it holds (the answer's omitted_tables names the
 * others; the scopes are the table registry's, src/domains/sync/synced-tables.ts).
 */
import type { McpTool } from '../tool.ts';

export const changeTools: McpTool[] = [
  { name: 'list_changes', operation: 'PullSyncChanges', scopes: [], kind: 'read' },
  { name: 'sync_changes_read', operation: 'PullSyncChanges', scopes: ['health:summary:read'], kind: 'read' },
];
