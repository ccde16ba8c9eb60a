/** The synced-table registry (issue 4) against the Prisma datamodel and the wire-name rules. */
import { describe, expect, it } from 'vitest';
import { SYNC_SCHEMA_VERSION, SYNCED_TABLES, tableChangedSince } from '../../src/domains/sync/synced-tables.ts';
import { toCamel, toSnake } from '../../src/wire.ts';
import { startTestApp } from '../harness/app.ts';

const app = await startTestApp();

describe('SYNCED_TABLES', () => {
  it('names plain identifiers that survive the facade case mapping, and no table twice', () => {
    const ident = /^[a-z][a-z_]*[a-z]$/;
    expect(new Set(SYNCED_TABLES.map((t) => t.table)).size).toBe(SYNCED_TABLES.length);
    for (const t of SYNCED_TABLES) {
      for (const name of [t.table, t.sqlTable, ...t.columns.flatMap((c) => [c.wire, c.db])]) {
        expect(name, t.table).toMatch(ident);
        expect(toSnake(toCamel(name)), name).toBe(name);
      }
      expect(tableChangedSince(t)).toBeLessThanOrEqual(SYNC_SCHEMA_VERSION);
    }
  });

  it('follows the synced-table convention in the migrated database', async () => {
    for (const t of SYNCED_TABLES) {
      const rows = await app.db.prisma.$queryRawUnsafe<{ column_name: string; data_type: string; is_nullable: string }[]>(
        'SELECT column_name, data_type, is_nullable FROM information_schema.columns WHERE table_name = $1',
        t.sqlTable,
      );
      const col = (name: string) => rows.find((r) => r.column_name === name);
      expect(col('id'), t.table).toMatchObject({ data_type: 'text', is_nullable: 'NO' });
      expect(col('user_id'), t.table).toMatchObject({ data_type: 'integer', is_nullable: 'NO' });
      expect(col('server_updated_at'), t.table).toMatchObject({ data_type: 'timestamp without time zone', is_nullable: 'NO' });
      expect(col('deleted_at'), t.table).toMatchObject({ data_type: 'timestamp without time zone', is_nullable: 'YES' });
      const types: Record<string, string> = { text: 'text', int: 'integer', float: 'double precision', bool: 'boolean', timestamp_ms: 'timestamp without time zone', timestamptz_ms: 'timestamp with time zone' };
      for (const c of t.columns) expect(col(c.db)?.data_type, `${t.table}.${c.db}`).toBe(types[c.type]);
    }
  });
});
