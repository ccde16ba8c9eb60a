/**
 * Account deletion: every row keyed by the user in every table, then the user, then their files.
 *
 * It starts by ending every credential of the account under a lock of the user row, once: of
 * concurrent deletions of one account (one token or several, any door) one goes on and the others
 * answer 401, as any request with an ended credential does (issue 29).
 *
 * The tables are derived from the Prisma datamodel (every model with a relation to User, by its
 * foreign-key field), not listed by hand, so a domain added later is covered without touching this
 * file. Rows that name the person by address instead of by id (emailed sign-in codes, invitations
 * to share) are listed in EMAIL_KEYED; a test fails when a model with an address field is neither.
 *
 * The sweep runs SWEEP_PASSES times, each pass one transaction, so rows inserted while it runs (an
 * export job, a sync push in flight) are caught by a later pass; the last pass deletes the user row
 * in the same transaction, and the foreign keys' ON DELETE CASCADE removes anything that slipped in
 * between. Stored files go after the rows are gone.
 */
import { appError } from '../../base/errors.ts';
import { credentialStillLive } from '../../auth/credential-live.ts';
import type { Prisma } from '../../generated/prisma/client.ts';
import { getDatamodel } from '../../generated/pothos-types.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { mealPhotoKeys } from '../meals/index.ts';
import { snoreAudioKeys } from '../snoring/index.ts';
import { runAccountDeletionSteps } from './account.deletion-steps.ts';
import { exportFileKeysOf } from '../export/index.ts';
import { archiveImportIdsWithFiles, removeArchiveImportFile } from '../health/index.ts';
import { removeExportFile } from '../../platform/export-files.ts';
import { clearCookiesOfWebCaller, revokeAllCredentials } from './account.sessions.ts';
import { deleteStoredFiles } from '../../integrations/storage.ts';
import { clock } from '../../base/clock.ts';

/** Sweeps of the user's rows; the last one also deletes the user. */
export const SWEEP_PASSES = 3;

/** A table (Prisma model) and the column naming the person in it. */
export interface PersonKeyedTable {
  model: string;
  field: string;
}

/**
 * Models that name a person by email address rather than by a relation to User: emailed sign-in
 * codes (sent to the address), share invitations addressed to it (pending ones have no grantee),
 * and outreach: newsletter subscribers, privacy requests and waitlist places.
 */
export const EMAIL_KEYED: readonly PersonKeyedTable[] = [
  { model: 'EmailCode', field: 'email' },
  { model: 'AccessGrant', field: 'inviteeEmail' },
  { model: 'DnaRelative', field: 'inviteeEmail' },
  { model: 'NewsletterSubscriber', field: 'email' },
  { model: 'PrivacyRequest', field: 'email' },
  { model: 'WaitlistEntry', field: 'email' },
];

/** Every (model, foreign-key field) that refers to User, from the generated datamodel. */
export function userKeyedTables(): PersonKeyedTable[] {
  const tables: PersonKeyedTable[] = [];
  for (const [model, def] of Object.entries(getDatamodel().datamodel.models)) {
    if (model === 'User') continue;
    for (const field of def.fields) {
      if (field.kind !== 'object' || field.type !== 'User') continue;
      for (const fk of field.relationFromFields ?? []) tables.push({ model, field: fk });
    }
  }
  return tables.sort((a, b) => `${a.model}.${a.field}`.localeCompare(`${b.model}.${b.field}`));
}

const USER_TABLES = userKeyedTables();

type DeleteManyDelegate = {
  deleteMany(args: { where: Record<string, unknown> }): Promise<{ count: number }>;
};

function delegateOf(tx: Prisma.TransactionClient, model: string): DeleteManyDelegate {
  const delegate = (tx as unknown as Record<string, DeleteManyDelegate | undefined>)[
    model[0].toLowerCase() + model.slice(1)
  ];
  if (!delegate) throw new Error(`no Prisma delegate for model ${model}`);
  return delegate;
}

/** One pass: deletes the person's rows in every table; answers how many went. */
async function sweep(tx: Prisma.TransactionClient, userId: number, email: string): Promise<number> {
  let removed = 0;
  // NOTE: every filter names this person only: their id in a foreign key, or their own address.
  for (const t of USER_TABLES)
    removed += (await delegateOf(tx, t.model).deleteMany({ where: { [t.field]: userId } })).count;
  for (const t of EMAIL_KEYED)
    removed += (await delegateOf(tx, t.model).deleteMany({ where: { [t.field]: email } })).count;
  return removed;
}

export interface DeleteAccountOptions {
  /** called after each pass but the last (tests insert rows here to prove a later pass removes them) */
  afterPass?: (pass: number) => Promise<void>;
}

export interface AccountDeletion {
  deleted: boolean;
  /** rows removed besides the user row */
  removedRows: number;
}

/**
 * Ends every credential of the account, the caller's included, unless the caller's credential has
 * already ended (another deletion or a sign-out everywhere committed since this request was
 * authenticated): then it answers null. Answers the account's address.
 */
async function claimDeletion(ctx: AuthedContext): Promise<{ email: string } | null> {
  const userId = ctx.principal.userId;
  return ctx.prisma.$transaction(async (tx) => {
    // NOTE: the user row stays locked until every credential is ended, so of concurrent deletions
    // of one account (one token or several) exactly one goes on; the others find theirs ended.
    const [user] = await tx.$queryRaw<
      { email: string }[]
    >`SELECT email FROM users WHERE id = ${userId} FOR UPDATE`;
    if (!user || !(await credentialStillLive(tx, ctx.principal))) return null;
    await revokeAllCredentials(tx, { userId, at: clock.now() });
    return user;
  });
}

/** What a deleted account's credential gets (a deletion that lost a race to another). */
const accountGone = (): Error => appError('UNAUTHENTICATED', 'Not authenticated');

/** Permanently deletes the caller's account, every row keyed by it, and its stored files. */
export async function deleteAccount(
  ctx: AuthedContext,
  options: DeleteAccountOptions = {},
): Promise<AccountDeletion> {
  const userId = ctx.principal.userId;
  // Every credential ends first: the account's other requests are refused from now on.
  const user = await claimDeletion(ctx);
  if (!user) throw accountGone();
  await ctx.credentials.revoked(userId);
  let removedRows = 0;
  // export files (DATA_DIR/exports), named by the jobs the sweep removes
  const exportFiles = await exportFileKeysOf(ctx.prisma, userId);
  // uploaded health exports not yet imported (DATA_DIR/health-imports), named by their imports
  const archiveUploads = await archiveImportIdsWithFiles(ctx.prisma, userId);
  // stored files named by rows of other tables (meal photos), gathered before each pass removes the rows
  const fileKeys = new Set<string>();
  const sweepWithFiles = async (tx: Prisma.TransactionClient): Promise<number> => {
    for (const key of await mealPhotoKeys(tx, userId)) fileKeys.add(key);
    for (const key of await snoreAudioKeys(tx, userId)) fileKeys.add(key);
    // other domains' steps (a challenge's former member, a circle left empty)
    await runAccountDeletionSteps(tx, userId);
    return sweep(tx, userId, user.email);
  };
  for (let pass = 1; pass < SWEEP_PASSES; pass++) {
    removedRows += await ctx.prisma.$transaction(sweepWithFiles);
    await options.afterPass?.(pass);
  }
  await ctx.prisma.$transaction(async (tx) => {
    removedRows += await sweepWithFiles(tx);
    const gone = await tx.user
      .delete({ where: { id: userId }, select: { profilePhotoKey: true } })
      .catch((e: unknown) => {
        // deleted meanwhile by a deletion with a credential signed in after this one's claim
        if ((e as { code?: string }).code === 'P2025') throw accountGone();
        throw e;
      });
    if (gone.profilePhotoKey) fileKeys.add(gone.profilePhotoKey);
  });
  await deleteStoredFiles(ctx, fileKeys, 'a stored file');
  for (const key of exportFiles) {
    await removeExportFile(ctx.config.DATA_DIR, key).catch((err: unknown) =>
      ctx.log.error({ err, key }, 'could not delete an export file'),
    );
  }
  for (const id of archiveUploads) {
    await removeArchiveImportFile(ctx.config.DATA_DIR, id).catch((err: unknown) =>
      ctx.log.error({ err, id }, 'could not delete an uploaded health export'),
    );
  }
  // again once every row is gone: a personal token looked up during the sweep may have been cached
  await ctx.credentials.revoked(userId);
  clearCookiesOfWebCaller(ctx);
  return { deleted: true, removedRows };
}
