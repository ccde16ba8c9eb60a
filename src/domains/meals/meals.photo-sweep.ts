/**
 * Photos of meals deleted through sync. A phone deletes a meal by pushing a tombstone, which the
 * sync domain's generic push writes without knowing of photos or storage (docs/decisions.md,
 * "Snoring clips of a night deleted through sync", the same case). The photo's public URL would
 * then keep serving the picture of a meal the person deleted. Every app therefore runs this sweep
 * each hour: it lets go of the photos of deleted meals, then removes their files.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { registerSweep } from '../../platform/jobs.ts';
import type { JobQueue } from '../../platform/jobs.ts';
import { deletePhotos } from './meals.service.ts';

/** How often every app removes the photos of meals deleted through sync. */
export const MEAL_PHOTO_SWEEP_MS = 60 * 60_000;
/** Most photos one sweep removes (the next sweep takes the rest). */
export const MEAL_PHOTO_SWEEP_BATCH = 500;

type SweepDeps = Pick<AuthedContext, 'prisma' | 'storage' | 'log'>;

/**
 * Clears the photo of at most `limit` deleted meals of anyone and removes those files; answers
 * how many. The rows are taken FOR UPDATE SKIP LOCKED, so apps sweeping at once each take other
 * meals and no file is removed twice; the row lets go of its key before its file goes (as
 * deleteMeal does). The meal's sync stamp is left alone: the photo is not a synced column.
 */
export async function sweepDeletedMealPhotos(
  deps: SweepDeps,
  limit = MEAL_PHOTO_SWEEP_BATCH,
): Promise<number> {
  const released = await deps.prisma.$queryRaw<{ key: string }[]>`
    WITH gone AS (
      SELECT id, photo_key FROM meals
       WHERE deleted_at IS NOT NULL AND photo_key IS NOT NULL
       LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    UPDATE meals m SET photo_key = NULL FROM gone WHERE m.id = gone.id
    RETURNING gone.photo_key AS key`;
  await deletePhotos(
    deps,
    released.map((r) => r.key),
  );
  return released.length;
}

/** Registers the hourly sweep on the app's job queue (its timers end with the app). */
export function registerMealPhotoSweep(deps: SweepDeps & { jobs: JobQueue }): void {
  registerSweep(deps, MEAL_PHOTO_SWEEP_MS, 'photos of meals deleted through sync', () =>
    sweepDeletedMealPhotos(deps),
  );
}
