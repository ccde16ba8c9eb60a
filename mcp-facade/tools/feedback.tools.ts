/** Feedback: the person sends feedback reports to the team and lists their own. */
import type { McpTool } from '../tool.ts';

export const feedbackTools: McpTool[] = [
  {
    name: 'feedback_report_send',
    title: 'Send a feedback report',
    operation: 'createFeedbackReport',
    scopes: ['feedback:write'],
    kind: 'write',
  },
  {
    name: 'feedback_report_list',
    title: 'List feedback reports',
    operation: 'feedbackReports',
    scopes: ['account:read'],
    kind: 'read',
  },
];
