/**
 * Where the Apple Health importer stores its two big streams: the metric samples (health_metrics)
 * and the archive records (health_archive_records). On PostgreSQL each goes through COPY on a
 * connection of its own while its rows are new, and through the ON CONFLICT DO NOTHING statements
 * of the REST import (health.service.ts, health.apple-archive.ts) otherwise:
 * - a COPY that meets a row already stored fails whole and stores nothing (src/db/copy.ts); that
 *   batch is stored again through the INSERT, and so are the next ones (a re-import, or the part of
 *   an export the phone already sent, is mostly duplicates);
 * - once an INSERT batch finds every row new, the next batch tries COPY again.
 * So the unique indexes decide what is a duplicate in every case, and a first import of a large
 * export, which is all new rows, loads at COPY speed. On the embedded database both go through the
 * INSERT statements.
 */
import { copyRow, isUniqueViolation, openCopySession } from '../../db/copy.ts';
import type { CopySession } from '../../db/copy.ts';
import type { Database } from '../../db/database.ts';
import { advanceClockStatement } from '../../platform/sync-clock.ts';
import { exportDateUtc, storeArchiveRecords } from './health.apple-archive.ts';
import type { ArchiveRecordColumns } from './health.apple-archive.ts';
import { METRIC_UNITS } from './health.constants.ts';
import { importMetricsFor, metricRowId } from './health.service.ts';
import type { ImportResult, MetricSampleIn } from './health.service.ts';

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

  constructor(private readonly session: CopySession | null) {}

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

/** The importer's writer of metric samples and archive records for one person. */
export class AppleImportStore {
  private constructor(
    private readonly db: ImportDb,
    private readonly userId: number,
    private readonly metricLane: Lane,
    private readonly recordLane: Lane,
  ) {}

  static async open(db: ImportDb, userId: number): Promise<AppleImportStore> {
    const sessions = await Promise.all([openCopySession(db.target), openCopySession(db.target)]);
    return new AppleImportStore(db, userId, new Lane(sessions[0]), new Lane(sessions[1]));
  }

  /** Stores metric samples (stamped with the account's sync clock, as the REST import does). */
  async metrics(samples: MetricSampleIn[]): Promise<ImportResult> {
    const { userId } = this;
    const inserted = await this.metricLane.store(
      samples.length,
      async (session) => {
        await session.query('BEGIN');
        try {
          const clock = advanceClockStatement(userId);
          const [row] = await session.query<{ clock_ms: string }>(clock.text, clock.values);
          const stamp = new Date(Number(row.clock_ms)).toISOString();
          let rows = '';
          for (const s of samples) {
            const source = s.source ?? '';
            const ts = s.timestamp.toISOString();
            rows += copyRow([
              metricRowId(userId, ts, s.metricType, source),
              userId,
              s.metricType,
              s.value,
              METRIC_UNITS[s.metricType],
              ts,
              source,
              stamp,
            ]);
          }
          const copied = await session.copy('health_metrics', METRIC_COLUMNS, rows);
          await session.query('COMMIT');
          return copied;
        } catch (e) {
          await session.query('ROLLBACK');
          throw e;
        }
      },
      async () => (await importMetricsFor(this.db, userId, { samples })).inserted,
    );
    return { inserted, skipped: samples.length - inserted };
  }

  /** Stores archive records; answers how many were new. */
  records(c: ArchiveRecordColumns): Promise<number> {
    const { userId } = this;
    return this.recordLane.store(
      c.length,
      (session) => {
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
        return session.copy('health_archive_records', RECORD_COLUMNS, rows);
      },
      () => storeArchiveRecords(this.db, userId, c),
    );
  }

  close(): Promise<void> {
    return Promise.all([this.metricLane.close(), this.recordLane.close()]).then(() => undefined);
  }
}
