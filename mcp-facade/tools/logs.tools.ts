/** Logs: custom metrics, hydration, medication, nicotine, sleep factors, weight, sun sessions. */
import type { McpTool } from '../tool.ts';

const scopes = ['health:logs:write'] as const;
const writes = (name: string, operation: string, title: string): McpTool => ({
  name,
  title,
  operation,
  scopes,
  kind: 'write',
});

export const logTools: McpTool[] = [
  writes('custom_metric_log', 'logCustomMetric', 'Log a custom metric value'),
  writes('logs_hydration_add', 'addHydration', 'Log water drunk'),
  writes('logs_medication_log', 'logMedication', 'Log a medication taken'),
  writes('logs_nicotine_add', 'addNicotine', 'Log nicotine'),
  writes('logs_sleep_factor_log', 'logSleepFactor', 'Log a sleep factor'),
  writes('logs_weight_add', 'addWeight', 'Log body weight'),
  writes('sun_session_save', 'logSunSession', 'Save a sun session'),
  writes('logs_entry_edit', 'updateLogEntry', 'Edit a log entry'),
  {
    name: 'logs_entry_delete',
    title: 'Delete a log entry',
    operation: 'deleteLogEntry',
    scopes,
    kind: 'deletes',
  },
];
