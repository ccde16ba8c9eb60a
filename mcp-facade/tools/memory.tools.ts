/** Memory: the facts the person sets for the assistant to remember (read, set, forget). */
import type { McpTool } from '../tool.ts';

export const memoryTools: McpTool[] = [
  {
    name: 'insights_memory_read',
    title: 'Read memory facts',
    operation: 'memoryFacts',
    scopes: ['memory:read'],
    kind: 'read',
  },
  {
    name: 'memory_fact_set',
    title: 'Set a memory fact',
    operation: 'setMemoryFact',
    scopes: ['memory:write'],
    kind: 'write',
    idempotent: true,
  },
  {
    name: 'insights_memory_forget',
    title: 'Forget a memory fact',
    operation: 'forgetMemoryFact',
    scopes: ['memory:write'],
    kind: 'deletes',
  },
];
