/**
 * The snoring domain's synced table: the nights a phone measures. Declared with defineSyncedTable
 * (src/platform/synced-tables.ts); the sync domain lists them and carries them
 * (src/domains/sync/README.md).
 */
import { defineSyncedTable } from '../../platform/synced-tables.ts';
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
