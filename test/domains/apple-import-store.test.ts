/**
 * The Apple Health importer's writer (health.apple-store.ts): on PostgreSQL it stores by COPY while
 * rows are new and through the ON CONFLICT statements otherwise; on PGlite always through the
 * statements. Either way the rows stored must be the ones the REST import's statements store, and
 * duplicates (stored earlier, or twice in one batch) must be skipped.
 */
import { describe, expect, it } from 'vitest';
import { copyRow, lockReferenced, openCopySession, ReferencedRowGone } from '../../src/db/copy.ts';
import {
  prismaExecute,
  storeArchiveRecords,
} from '../../src/domains/health/health.apple-archive.ts';
import {
  ArchiveRecordColumns,
  exportDateText,
  exportDateUtc,
  pushRecord,
} from '../../src/domains/health/health.apple-records.ts';
import type { ArchiveRecordIn } from '../../src/domains/health/health.apple-records.ts';
import { AppleImportStore } from '../../src/domains/health/health.apple-store.ts';
import { importMetricsFor } from '../../src/domains/health/health.service.ts';
import type { MetricSampleIn } from '../../src/domains/health/health.service.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';

const app = await startTestApp();
const prisma = app.db.prisma;

/** A record with awkward text in every text column (COPY's escapes, quotes, JSON, unicode). */
function awkward(i: number, over: Partial<ArchiveRecordIn> = {}): ArchiveRecordIn {
  return {
    kind: 'quantity',
    type: 'HKQuantityTypeIdentifierHeartRate',
    valueText: String(60 + i),
    unit: 'count/min',
    start: `2024-03-0${1 + (i % 9)} 0${i % 10}:15:00 -0700`,
    end: `2024-03-0${1 + (i % 9)} 0${i % 10}:15:30 +1400`,
    created: i % 2 ? null : '2024-03-10 12:00:00 +0000',
    sourceName: `Ann's\tWatch\n"${i}" \\ ✓`,
    sourceVersion: i % 3 ? null : '10.1\r',
    device: '<<HKDevice: 0x1>, name:Apple Watch, tab\there>',
    metadata: i % 2 ? null : { 'key\twith tab': 'line\nbreak \\ "q"', emoji: '🫀' },
    ...over,
  };
}

function columns(records: ArchiveRecordIn[]): ArchiveRecordColumns {
  const c = new ArchiveRecordColumns();
  for (const r of records) pushRecord(c, r);
  return c;
}

/** A person's archive records, every stored column but the row's own id. */
async function archiveRows(userId: number): Promise<unknown[]> {
  return prisma.$queryRaw`
    SELECT kind, type, value, value_text, unit, start_at, end_at, created_at_source, source_name,
           source_version, device, metadata, workout_id
    FROM health_archive_records WHERE user_id = ${userId}::int
    ORDER BY start_at, end_at, source_name, value_text`;
}

async function metricRows(userId: number): Promise<unknown[]> {
  return prisma.$queryRaw`
    SELECT metric_type, value, unit, "timestamp", source, deleted_at
    FROM health_metrics WHERE user_id = ${userId}::int ORDER BY "timestamp", metric_type, source`;
}

const samples = (n: number, from = 0): MetricSampleIn[] =>
  Array.from({ length: n }, (_v, k) => ({
    metricType: (from + k) % 2 ? 'heart_rate' : 'steps',
    value: from + k + 0.25,
    timestamp: new Date(Date.UTC(2024, 2, 1, 0, from + k)),
    source: `Watch\t${(from + k) % 3}\\`,
  }));

describe('export dates and COPY rows', () => {
  it('turns an export date with its offset into the UTC instant', () => {
    expect(exportDateUtc('2016-11-14 07:25:41 -0700')).toBe('2016-11-14T14:25:41.000Z');
    expect(exportDateUtc('2016-11-14 07:25:41 +0530')).toBe('2016-11-14T01:55:41.000Z');
    expect(exportDateUtc('2024-02-29 00:10:00 +1400')).toBe('2024-02-28T10:10:00.000Z');
    // past year 9999 ISO writes +010000; PostgreSQL reads the plain form
    expect(exportDateUtc('9999-12-31 23:00:00 -1400')).toBe('10000-01-01T13:00:00.000Z');
    expect(exportDateText('2023-02-29 00:00:00 +0000')).toBeNull();
    expect(exportDateText('2024-13-01 00:00:00 +0000')).toBeNull();
    expect(exportDateText('2024-02-29 24:00:00 +0000')).toBeNull();
    expect(exportDateText('0999-01-01 00:00:00 +0000')).toBeNull();
    expect(exportDateText('2024-02-29 23:59:59 +0000')).toBe('2024-02-29 23:59:59 +0000');
  });

  it("writes COPY's text format: tabs between fields, \\N for null, escapes", () => {
    expect(copyRow([1, null, 'a\tb\nc\rd\\e', 2.5, ''])).toBe(
      '1\t\\N\ta\\tb\\nc\\rd\\\\e\t2.5\t\n',
    );
  });
});

describe('the importer writer', () => {
  it('stores archive records exactly as the INSERT statement does', async () => {
    const [viaStore, viaInsert] = [await seedUser(app), await seedUser(app)];
    const late = { start: '9999-12-31 23:00:00 -1400', end: '9999-12-31 23:00:00 -1400' };
    const batch = columns([
      ...Array.from({ length: 12 }, (_v, i) => awkward(i)),
      awkward(99, late),
    ]);
    const store = await AppleImportStore.open(app.db, viaStore.user.id);
    try {
      expect(await store.records(batch)).toBe(13);
    } finally {
      await store.close();
    }
    expect(await storeArchiveRecords(prismaExecute(app.db), viaInsert.user.id, batch)).toBe(13);
    const stored = await archiveRows(viaStore.user.id);
    expect(stored).toHaveLength(13);
    expect(stored).toEqual(await archiveRows(viaInsert.user.id));
    const [latest] = await prisma.$queryRaw<{ at: string }[]>`
      SELECT max(start_at)::text AS at FROM health_archive_records WHERE user_id = ${viaStore.user.id}::int`;
    expect(latest.at).toBe('10000-01-01 13:00:00');
  });

  it('stores metric samples exactly as the REST import does, stamped with the sync clock', async () => {
    const [viaStore, viaInsert] = [await seedUser(app), await seedUser(app)];
    const store = await AppleImportStore.open(app.db, viaStore.user.id);
    try {
      expect(await store.metrics(samples(30))).toEqual({ inserted: 30, skipped: 0 });
    } finally {
      await store.close();
    }
    await importMetricsFor(app.db, viaInsert.user.id, { samples: samples(30) });
    expect(await metricRows(viaStore.user.id)).toEqual(await metricRows(viaInsert.user.id));
    const [clock] = await prisma.$queryRaw<{ clock_ms: bigint }[]>`
      SELECT clock_ms FROM sync_state WHERE user_id = ${viaStore.user.id}::int`;
    const stamps = await prisma.$queryRaw<{ at: number }[]>`
      SELECT DISTINCT (extract(epoch from server_updated_at) * 1000)::float8 AS at
      FROM health_metrics WHERE user_id = ${viaStore.user.id}::int`;
    expect(stamps).toEqual([{ at: Number(clock.clock_ms) }]);
  });

  it('skips rows stored before and rows repeated in a batch, then stores new batches whole', async () => {
    const { user } = await seedUser(app);
    const store = await AppleImportStore.open(app.db, user.id);
    try {
      const first = Array.from({ length: 10 }, (_v, i) => awkward(i));
      expect(await store.records(columns(first))).toBe(10);
      // half stored already, one repeated within the batch
      const overlap = [...first.slice(5), awkward(20), awkward(21), awkward(21)];
      expect(await store.records(columns(overlap))).toBe(2);
      expect(await store.records(columns([awkward(30), awkward(31)]))).toBe(2);
      expect(await store.records(columns([awkward(30)]))).toBe(0);

      expect(await store.metrics(samples(10))).toEqual({ inserted: 10, skipped: 0 });
      expect(await store.metrics([...samples(10, 5), ...samples(1, 14)])).toEqual({
        inserted: 5,
        skipped: 6,
      });
      expect(await store.metrics(samples(4, 100))).toEqual({ inserted: 4, skipped: 0 });
    } finally {
      await store.close();
    }
    expect(await archiveRows(user.id)).toHaveLength(14);
    expect(await metricRows(user.id)).toHaveLength(19);
  });
});

describe('the account checked once per transaction', () => {
  it('refuses to write for an account deleted during the import, leaving no rows', async () => {
    const { user } = await seedUser(app);
    const store = await AppleImportStore.open(app.db, user.id);
    try {
      expect(await store.records(columns([awkward(1)]))).toBe(1);
      expect(await store.metrics(samples(2))).toEqual({ inserted: 2, skipped: 0 });
      await prisma.user.delete({ where: { id: user.id } });
      await expect(store.records(columns([awkward(2)]))).rejects.toThrow();
      await expect(store.metrics(samples(2, 10))).rejects.toThrow();
    } finally {
      await store.close();
    }
    expect(await archiveRows(user.id)).toEqual([]);
    expect(await metricRows(user.id)).toEqual([]);
  });

  it.runIf(app.db.target.kind === 'pg')(
    'skips the per-row checks, and a deletion waiting on the lock still removes the rows written under it',
    async () => {
      const { user } = await seedUser(app);
      const session = (await openCopySession(app.db.target, { referencesCheckedByCaller: true }))!;
      try {
        const [role] = await session.rows<{ role: string }>({
          text: 'SELECT current_setting($1) AS role',
          values: ['session_replication_role'],
        });
        expect(role.role).toBe('replica');
        await session.execute({ text: 'BEGIN' });
        await lockReferenced(session, 'users', user.id);
        const deletion = prisma.user.delete({ where: { id: user.id } });
        let deleted = false;
        void deletion.then(() => (deleted = true));
        const written = await storeArchiveRecords(
          (sql) => session.execute(sql),
          user.id,
          columns([awkward(1), awkward(2)]),
        );
        expect(written).toBe(2);
        await new Promise((r) => setTimeout(r, 200));
        expect(deleted).toBe(false); // the deletion waits for the writer's transaction
        await session.execute({ text: 'COMMIT' });
        await deletion;
        await expect(lockReferenced(session, 'users', user.id)).rejects.toBeInstanceOf(
          ReferencedRowGone,
        );
      } finally {
        await session.close();
      }
      expect(await archiveRows(user.id)).toEqual([]);
    },
  );
});
