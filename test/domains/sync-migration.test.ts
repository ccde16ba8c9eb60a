/**
 * Issue 29, item 11: an idle sync moves nothing, whatever the client's schema version. Tables and
 * columns added after a client's version arrive whole only on a migration sync, the first pull
 * after WatermelonDB migrated its local database (its `migration` parameter, "Migration Syncs" in
 * WatermelonDB's sync backend documentation); with no migration, a pull since last_pulled_at
 * brings only what changed since.
 */
import { describe, expect, it } from 'vitest';
import { SYNC_SCHEMA_VERSION, SYNCED_TABLES } from '../../src/domains/sync/sync.tables.ts';
import type { SyncedColumn, SyncedTable } from '../../src/domains/sync/sync.tables.ts';
import { recordIds } from '../factories/sync.ts';
import { seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';

const app = await startTestApp();
const newId = recordIds('mig');
const T0 = Date.parse('2026-11-20T08:00:00Z');

/** A value of a column within its rules. */
function valueOf(col: SyncedColumn): unknown {
  if (col.oneOf) return col.oneOf[0];
  switch (col.type) {
    case 'text':
      return 'x';
    case 'bool':
      return true;
    case 'timestamp_ms':
    case 'timestamptz_ms':
      return T0;
    default:
      return col.min !== undefined && col.min > 0 ? col.min : Math.min(1, col.max ?? 1);
  }
}

/**
 * Values that the tables' rules across columns need (issue 47: a push obeys the tools' rules), where
 * a value within each column's own rules is not enough: an expiry after the start, the metric's
 * unit, a night and a workout that last, a custom metric without dose or duration, a steps target,
 * a real date, a lab value of its marker.
 */
const ACROSS_COLUMNS: Record<string, Record<string, unknown>> = {
  sensor_sessions: { expires_at: T0 + 14 * 86_400_000 },
  health_metrics: { unit: 'ms' },
  workout_samples: { end_at: T0 + 3_600_000 },
  snore_nights: { ended_at: T0 + 7 * 3_600_000 },
  log_entries: { dose: null, duration_minutes: null },
  goals: { target: 8000 },
  lab_reports: { drawn_on: '2026-03-14' },
  lab_results: { marker_id: 'glucose', loinc: '2345-7', value: 98, unit: 'mg/dL' },
};

/** A valid new record of `table`: every column given a value. */
const recordOf = (table: SyncedTable): Record<string, unknown> => ({
  ...Object.fromEntries([['id', newId()], ...table.columns.map((c) => [c.wire, valueOf(c)])]),
  ...ACROSS_COLUMNS[table.table],
});

/** A documented pull (WatermelonDB's pullChanges as its docs write it). */
async function documentedPull(
  u: SeededUser,
  lastPulledAt: number | null,
  schemaVersion: number,
  migration: unknown = null,
) {
  const res = await rest(
    app,
    'GET',
    `/api/sync/pull?last_pulled_at=${lastPulledAt}&schema_version=${schemaVersion}&migration=${encodeURIComponent(JSON.stringify(migration))}`,
    { token: u.token },
  );
  expect(res.status, JSON.stringify(res.body).slice(0, 300)).toBe(200);
  return res.body as {
    changes: Record<string, { created: unknown[]; updated: unknown[]; deleted: string[] }>;
    timestamp: number;
  };
}

/** Records in a pull's answer, per table (tables with none left out). */
const moved = (
  changes: Record<string, { created: unknown[]; updated: unknown[]; deleted: string[] }>,
) =>
  Object.fromEntries(
    Object.entries(changes)
      .map(([t, c]) => [t, c.created.length + c.updated.length + c.deleted.length] as const)
      .filter(([, n]) => n > 0),
  );

/** An account with one record in every synced table, pushed by a phone. */
async function accountWithEveryTable(): Promise<SeededUser> {
  const u = await seedUser(app);
  const changes = Object.fromEntries(
    SYNCED_TABLES.map((t) => [t.table, { created: [recordOf(t)], updated: [], deleted: [] }]),
  );
  const res = await rest(app, 'POST', '/api/sync/push', { token: u.token, body: changes });
  expect(res.status, JSON.stringify(res.body).slice(0, 500)).toBe(200);
  return u;
}

describe('issue 29, item 11: an idle sync moves nothing', () => {
  it('for every schema version 1..SYNC_SCHEMA_VERSION, without a migration', async () => {
    const u = await accountWithEveryTable();
    for (let version = 1; version <= SYNC_SCHEMA_VERSION; version++) {
      const first = await documentedPull(u, null, version);
      expect(Object.keys(moved(first.changes)).length, `version ${version}`).toBeGreaterThan(0);
      const idle = await documentedPull(u, first.timestamp, version);
      expect(moved(idle.changes), `version ${version}`).toEqual({});
      const again = await documentedPull(u, idle.timestamp, version);
      expect(moved(again.changes), `version ${version}`).toEqual({});
    }
  });

  it('brings whole, once, the tables and columns a migration sync adds, and nothing after it', async () => {
    const u = await accountWithEveryTable();
    const first = await documentedPull(u, null, 1);
    expect(moved(await documentedPull(u, first.timestamp, 1).then((p) => p.changes))).toEqual({});

    // the phone migrates from version 1 to 3: WatermelonDB sends its migration info once
    const migration = {
      from: 1,
      tables: SYNCED_TABLES.filter((t) => t.since > 1 && t.since <= 3).map((t) => t.table),
      columns: [{ table: 'journal_entries', columns: ['mood'] }],
    };
    const migrated = await documentedPull(u, first.timestamp, 3, migration);
    const whole = SYNCED_TABLES.filter((t) =>
      [t.since, ...t.columns.map((c) => c.since ?? t.since)].some((v) => v > 1 && v <= 3),
    ).map((t) => t.table);
    expect(whole).toContain('journal_entries');
    expect(moved(migrated.changes)).toEqual(Object.fromEntries(whole.map((t) => [t, 1])));
    for (const t of whole) expect(migrated.changes[t].updated, t).toHaveLength(1);

    // the migration info's version range alone decides too (tables and columns may be left out)
    const byVersion = await documentedPull(u, first.timestamp, 3, { from: 1 });
    expect(moved(byVersion.changes)).toEqual(moved(migrated.changes));

    // the next sync has no migration: idle
    expect(moved((await documentedPull(u, migrated.timestamp, 3)).changes)).toEqual({});
  });

  it('answers 422 at the query parameter for migration info that is not WatermelonDB migration info', async () => {
    const u = await seedUser(app);
    for (const migration of [
      '{from',
      '{"tables":[]}',
      '{"from":-1}',
      '[1]',
      '{"from":1,"tables":"x"}',
    ]) {
      const res = await rest(
        app,
        'GET',
        `/api/sync/pull?last_pulled_at=5&migration=${encodeURIComponent(migration)}`,
        { token: u.token },
      );
      expect(res.status, migration).toBe(422);
      expect(res.body.detail[0].loc, migration).toEqual(['query', 'migration']);
    }
  });
});
