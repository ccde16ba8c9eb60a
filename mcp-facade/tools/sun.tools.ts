/** Sun: advice for a day at a place (clear-sky UV index, minutes of sun advised). */
import type { McpTool } from '../tool.ts';

export const sunTools: McpTool[] = [
  {
    name: 'sun_advice_read',
    title: 'Read sun advice for today',
    operation: 'sunAdvice',
    scopes: ['health:summary:read'],
    kind: 'read',
  },
];
