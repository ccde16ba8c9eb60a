/** Consents: read the person's consents and withdraw AI consent (giving it is for the person, in the app). */
import type { McpTool } from '../tool.ts';

export const consentTools: McpTool[] = [
  {
    name: 'consent_read',
    title: 'Read consents',
    operation: 'consents',
    scopes: ['consents:read'],
    kind: 'read',
  },
  {
    name: 'account_ai_consent_revoke',
    title: 'Withdraw AI consent',
    operation: 'withdrawConsent',
    scopes: ['consents:write'],
    kind: 'deletes',
  },
];
