/** Documents: the facts the assistant drew from the person's uploaded documents (read, delete). */
import type { McpTool } from '../tool.ts';

export const documentTools: McpTool[] = [
  {
    name: 'memory_document_facts_read',
    title: 'Read document facts',
    operation: 'memoryDocumentFacts',
    scopes: ['memory:read'],
    kind: 'read',
  },
  {
    name: 'memory_document_fact_delete',
    title: 'Delete a document fact',
    operation: 'deleteMemoryDocumentFact',
    scopes: ['memory:write'],
    kind: 'deletes',
  },
];
