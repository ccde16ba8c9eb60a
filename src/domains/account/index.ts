/** What other domains may use of the account domain (sign-in sessions, address normalisation). */
export { createSession, startWebSession } from './account.sessions.ts';
export type { IssuedSession, WebSessionStart } from './account.sessions.ts';
export { normaliseEmail } from './account.shared.ts';
export { SignInToken, SignInWebSession } from './account.schema.ts';
export {
  accountById,
  accountCounts,
  accountEventsSql,
  accountExists,
  listAccounts,
} from './account.admin.ts';
export type { AccountCountsView, AccountDetailView, AccountSummaryView } from './account.admin.ts';
export { accountDeletionSteps, onAccountDeletion } from './account.deletion-steps.ts';
export type { AccountDeletionStep } from './account.deletion-steps.ts';
