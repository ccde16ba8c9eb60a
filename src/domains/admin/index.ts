/** What other domains may use of admin: the audit log an admin action writes. */
export { recordAdminAction } from './admin.audit.ts';
export type { AdminActionOptions } from './admin.audit.ts';
