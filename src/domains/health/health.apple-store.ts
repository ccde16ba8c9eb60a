/**
 * Where the Apple Health importer stores a batch. On PostgreSQL it writes on three connections of
 * its own (metric samples and intervals; archive records; archive workouts), running the same
 * statements as the REST import (health.service.ts, health.apple-archive.ts) straight on the pg
 * driver; on the embedded database through Prisma. The two big streams, metric samples
 * (health_metrics) and archive records (health_archive_records), go by COPY while their rows are
 * new, and through those ON CONFLICT DO NOTHING statements otherwise:
 * - a COPY that meets a row already stored fails whole and stores nothing (src/db/copy.ts); that
 *   batch is stored again through the INSERT, and so are the next ones (a re-import, or the part of
 *   an export the phone already sent, is mostly duplicates);
 * - once an INSERT batch finds every row new, the next batch tries COPY again.
 * So the unique indexes decide what is a duplicate in every case, and a first import of a large
 * export, which is all new rows, loads at COPY speed. On the embedded database both go through the
 * INSERT statements.
 * Those two streams check the account once per transaction rather than once per row
 * (accountLockedOn; docs/decisions.md, "Health archive").
 */
import type { Prisma } from '../../generated/prisma/client.ts';
import { copyRow, isUniqueViolation, lockReferenced, openCopySession } from '../../db/copy.ts';
import type { CopySession } from '../../db/copy.ts';
import type { Database } from '../../db/database.ts';
import { advanceClockStatement } from '../../platform/sync-clock.ts';
import {
  prismaExecute,
  storeArchiveRecords,
  storeArchiveWorkouts,
} from './health.apple-archive.ts';
import type { ExecuteSql } from './health.apple-archive.ts';
import { exportDateUtc } from './health.apple-records.ts';
import type { ArchiveRecordColumns, ArchiveWorkoutIn } from './health.apple-records.ts';
import { METRIC_UNITS } from './health.constants.ts';
import {
  importIntervalsFor,
  importIntervalsWith,
  importMetricsFor,
  metricRowId,
  metricsInsert,
} from './health.service.ts';
import type {
  BatchImportResult,
  ImportIntervalsOptions,
  ImportResult,
  MetricSampleIn,
  SyncedInsert,
} from './health.service.ts';

/** The database the importer writes to: Prisma for the statements, the target for COPY. */
export type ImportDb = Pick<Database, 'prisma' | 'target'>;

const METRIC_COLUMNS = [
  'id',
  'user_id',
  'metric_type',
  'value',
  'unit',
  '"timestamp"',
  'source',
  'server_updated_at',
] as const;

const RECORD_COLUMNS = [
  'user_id',
  'kind',
  'type',
  'value',
  'value_text',
  'unit',
  'start_at',
  'end_at',
  'created_at_source',
  'source_name',
  'source_version',
  'device',
  'metadata',
  'workout_id',
] as const;

/** exportDateUtc remembering its last answer (dates repeat from one record to the next). */
function lastUtc(): (text: string) => string {
  let text = '';
  let utc = '';
  return (next) => {
    if (next !== text) {
      text = next;
      utc = exportDateUtc(next);
    }
    return utc;
  };
}

/** One table's way in: COPY while its rows are new, else the INSERT. */
class Lane {
  private useCopy = true;

  constructor(readonly session: CopySession | null) {}

  /** Stores `length` rows by `copy(session)` or `insert()`; answers how many were new. */
  async store(
    length: number,
    copy: (session: CopySession) => Promise<number>,
    insert: () => Promise<number>,
  ): Promise<number> {
    if (length === 0) return 0;
    if (this.session && this.useCopy) {
      try {
        return await copy(this.session);
      } catch (e) {
        if (!isUniqueViolation(e)) throw e;
        this.useCopy = false;
      }
    }
    const inserted = await insert();
    this.useCopy = inserted === length;
    return inserted;
  }

  close(): Promise<void> {
    return this.session?.close() ?? Promise.resolve();
  }
}

/**
 * Runs `fn` in a transaction on `session` that first locks the account row as a foreign-key check
 * would (the sessions skip the per-row checks: openCopySession's referencesCheckedByCaller).
 */
async function accountLockedOn<T>(
  session: CopySession,
  userId: number,
  fn: () => Promise<T>,
): Promise<T> {
  await session.execute({ text: 'BEGIN' });
  try {
    await lockReferenced(session, 'users', userId);
    const result = await fn();
    await session.execute({ text: 'COMMIT' });
    return result;
  } catch (e) {
    await session.execute({ text: 'ROLLBACK' });
    throw e;
  }
}

/** Runs `fn` in such a transaction after taking the account's sync clock (its `ts`). */
function syncedOn<T>(
  session: CopySession,
  userId: number,
  fn: (ts: number) => Promise<T>,
): Promise<T> {
  return accountLockedOn(session, userId, async () => {
    const [row] = await session.rows<{ clock_ms: string }>(advanceClockStatement(userId));
    return fn(Number(row.clock_ms));
  });
}

/** A synced insert on `session`, in its own transaction; answers the rows inserted. */
async function insertOn(session: CopySession, userId: number, insert: SyncedInsert) {
  const [row] = await syncedOn(session, userId, (ts) =>
    session.rows<{ inserted: number }>(insert(ts)),
  );
  return Number(row?.inserted ?? 0);
}

/** The importer's writer of one person's batches. */
export class AppleImportStore {
  /** runs archive statements (workouts, events, route points) */
  readonly execute: ExecuteSql;

  private constructor(
    private readonly db: ImportDb,
    private readonly userId: number,
    private readonly metricLane: Lane,
    private readonly recordLane: Lane,
    private readonly workoutSession: CopySession | null,
  ) {
    this.execute = workoutSession
      ? (sql: Prisma.Sql) => workoutSession.execute(sql)
      : prismaExecute(db);
  }

  static async open(db: ImportDb, userId: number): Promise<AppleImportStore> {
    // NOTE: the two big streams' sessions check the account once per transaction (accountLockedOn)
    // instead of once per row; the workouts' keep PostgreSQL's checks (events and route points
    // refer to workouts too).
    const checkedOnce = { referencesCheckedByCaller: true };
    const [metrics, records, workouts] = await Promise.all([
      openCopySession(db.target, checkedOnce),
      openCopySession(db.target, checkedOnce),
      openCopySession(db.target),
    ]);
    return new AppleImportStore(db, userId, new Lane(metrics), new Lane(records), workouts);
  }

  /** Stores metric samples (stamped with the account's sync clock, as the REST import does). */
  async metrics(samples: MetricSampleIn[]): Promise<ImportResult> {
    const { userId } = this;
    const session = this.metricLane.session;
    const inserted = await this.metricLane.store(
      samples.length,
      (copySession) =>
        syncedOn(copySession, userId, (ts) => {
          const stamp = new Date(ts).toISOString();
          let rows = '';
          for (const s of samples) {
            const source = s.source ?? '';
            const at = s.timestamp.toISOString();
            rows += copyRow([
              metricRowId(userId, at, s.metricType, source),
              userId,
              s.metricType,
              s.value,
              METRIC_UNITS[s.metricType],
              at,
              source,
              stamp,
            ]);
          }
          return copySession.copy('health_metrics', METRIC_COLUMNS, rows);
        }),
      async () =>
        session
          ? insertOn(session, userId, metricsInsert(userId, samples))
          : (await importMetricsFor(this.db, userId, { samples })).inserted,
    );
    return { inserted, skipped: samples.length - inserted };
  }

  /** Stores sleep and workout intervals (after the batch's metrics: both take the sync clock). */
  intervals(options: ImportIntervalsOptions): Promise<BatchImportResult> {
    const session = this.metricLane.session;
    if (!session) return importIntervalsFor(this.db, this.userId, options);
    const { userId } = this;
    return importIntervalsWith((insert) => insertOn(session, userId, insert), userId, options);
  }

  /** Stores archive records; answers how many were new. */
  records(c: ArchiveRecordColumns): Promise<number> {
    const { userId } = this;
    const session = this.recordLane.session;
    return this.recordLane.store(
      c.length,
      (copySession) => {
        // an instant's end is its start, and consecutive records share their creation date
        const [when, createdWhen] = [lastUtc(), lastUtc()];
        let rows = '';
        for (let i = 0; i < c.length; i++) {
          const created = c.created[i];
          rows += copyRow([
            userId,
            c.kind[i],
            c.type[i],
            c.value[i],
            c.valueText[i],
            c.unit[i],
            when(c.start[i]),
            when(c.end[i]),
            created === null ? null : createdWhen(created),
            c.sourceName[i],
            c.sourceVersion[i],
            c.device[i],
            c.metadata[i],
            c.workoutId[i],
          ]);
        }
        return accountLockedOn(copySession, userId, () =>
          copySession.copy('health_archive_records', RECORD_COLUMNS, rows),
        );
      },
      () =>
        session
          ? accountLockedOn(session, userId, () =>
              storeArchiveRecords((sql) => session.execute(sql), userId, c),
            )
          : storeArchiveRecords(prismaExecute(this.db), userId, c),
    );
  }

  /** Stores archive workouts with their events and inline route points. */
  workouts(workouts: ArchiveWorkoutIn[]) {
    return storeArchiveWorkouts(this.execute, this.userId, workouts);
  }

  close(): Promise<void> {
    return Promise.all([
      this.metricLane.close(),
      this.recordLane.close(),
      this.workoutSession?.close(),
    ]).then(() => undefined);
  }
}
