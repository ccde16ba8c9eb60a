/** Blood pressure: readings grouped into sessions, and logging, editing, deleting a reading. */
import type { McpTool } from '../tool.ts';

const write = ['health:logs:write'] as const;

export const bloodPressureTools: McpTool[] = [
  {
    name: 'bp_readings_list',
    title: 'List blood-pressure sessions',
    operation: 'bloodPressureSessions',
    scopes: ['health:metrics:read'],
    kind: 'read',
  },
  {
    name: 'bp_reading_log',
    title: 'Log a blood-pressure reading',
    operation: 'logBloodPressureReading',
    scopes: write,
    kind: 'write',
  },
  {
    name: 'bp_reading_edit',
    title: 'Edit a blood-pressure reading',
    operation: 'updateBloodPressureReading',
    scopes: write,
    kind: 'write',
  },
  {
    name: 'bp_reading_delete',
    title: 'Delete a blood-pressure reading',
    operation: 'deleteBloodPressureReading',
    scopes: write,
    kind: 'deletes',
  },
];
