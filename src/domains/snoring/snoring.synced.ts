/**
 * The snoring domain's synced table: the nights a phone measures. Declared with defineSyncedTable
 * (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md). No tool writes a night (the phone measures it); a pushed night
 * holds what the tools that read it rely on (issue 47): it ends after it starts, snores no longer
 * than it lasts, and its mean loudness is not above its loudest.
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
import type { SyncIssue } from '../../platform/synced-tables.ts';

function checkNight(r: Readonly<Record<string, unknown>>): SyncIssue[] {
  const start = r.started_at as number;
  const end = r.ended_at as number;
  if (end <= start) return [{ wire: 'ended_at', msg: 'ended_at must be after started_at' }];
  const issues: SyncIssue[] = [];
  const minutes = (end - start) / 60_000;
  if ((r.snoring_minutes as number) > minutes)
    issues.push({
      wire: 'snoring_minutes',
      msg: `snoring_minutes (${String(r.snoring_minutes)}) is longer than the night (${minutes} minutes)`,
    });
  const mean = r.loudness_mean_db as number | null;
  const max = r.loudness_max_db as number | null;
  if (mean !== null && max !== null && mean > max)
    issues.push({
      wire: 'loudness_mean_db',
      msg: 'loudness_mean_db must not be above loudness_max_db',
    });
  return issues;
}
import { releaseDeletedNightClips } from './snoring.audio.ts';

export const SNORING_SYNCED_TABLES = [
  // Snoring nights (issue 16): the phone measures and pushes them; audio clips are uploaded apart
  // (a pushed record never names a stored file).
  defineSyncedTable({
    table: 'snore_nights',
    sqlTable: 'snore_nights',
    model: 'SnoreNight',
    since: 5,
    readScope: 'health:sleep:read',
    writeScope: 'health:logs:write',
    check: checkNight,
    columns: [
      { wire: 'started_at', db: 'started_at', type: 'timestamp_ms', notNull: true, required: true },
      { wire: 'ended_at', db: 'ended_at', type: 'timestamp_ms', notNull: true, required: true },
      {
        wire: 'snoring_minutes',
        db: 'snoring_minutes',
        type: 'float',
        notNull: true,
        default: 0,
        min: 0,
        max: 1440,
      },
      { wire: 'snoring_percent', db: 'snoring_percent', type: 'float', min: 0, max: 100 },
      { wire: 'loudness_mean_db', db: 'loudness_mean_db', type: 'float', min: 0, max: 150 },
      { wire: 'loudness_max_db', db: 'loudness_max_db', type: 'float', min: 0, max: 150 },
      {
        wire: 'episodes',
        db: 'episodes',
        type: 'int',
        notNull: true,
        default: 0,
        min: 0,
        max: 10000,
      },
      { wire: 'source', db: 'source', type: 'text', notNull: true },
    ],
    // a night deleted through sync loses its clips at once, as deleteSnoreNight removes them
    onDeleted: releaseDeletedNightClips,
  }),
];
