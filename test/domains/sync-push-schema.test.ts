/**
 * The push's schemas derived from the table registry (issue 12): one per synced table, answering in
 * the legacy server's words, and reading the body as the phone sent it (the facade hands it over
 * untouched, so a camelCase spelling is not a wire name).
 */
import { describe, expect, it } from 'vitest';
import { issuesAt, PUSH_ENTRY_SCHEMAS } from '../../src/domains/sync/sync.push-schema.ts';
import { SYNCED_TABLES } from '../../src/domains/sync/sync.tables.ts';
import { journal, journalEntries, recordIds } from '../factories/sync.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';

const app = await startTestApp();
const entry = journalEntries(recordIds('psc'));

/** The issues of `value` as `table`'s entry, located from the table. */
function issuesOf(table: string, value: unknown) {
  const parsed = PUSH_ENTRY_SCHEMAS.get(table)!.safeParse(value);
  return parsed.success ? [] : issuesAt([table], parsed.error);
}

describe('PUSH_ENTRY_SCHEMAS', () => {
  it('has one schema per synced table', () => {
    expect([...PUSH_ENTRY_SCHEMAS.keys()]).toEqual(SYNCED_TABLES.map((t) => t.table));
  });

  it("keeps only the registry's columns of a record, and reads absent or null lists as empty", () => {
    const parsed = PUSH_ENTRY_SCHEMAS.get('journal_entries')!.parse({
      created: [{ id: 'a', body: 'x', mood: null, _status: 'created', happenedAt: 5 }],
      updated: null,
    });
    expect(parsed).toEqual({
      created: [{ id: 'a', body: 'x', mood: null }],
      updated: [],
      deleted: [],
    });
  });

  it('refuses each column kind and rule in Pydantic words', () => {
    const record = {
      id: 'a',
      sensor_id: 1.5,
      timestamp: 'today',
      value_mg_dl: 5,
      source: 'guess',
    };
    expect(issuesOf('glucose_readings', { created: [record] })).toEqual([
      {
        loc: ['glucose_readings', 'created', 0, 'sensor_id'],
        msg: 'Input should be a valid integer, got a number with a fractional part',
        type: 'int_from_float',
      },
      {
        loc: ['glucose_readings', 'created', 0, 'timestamp'],
        msg: 'Input should be a valid number, unable to parse string as a number',
        type: 'float_parsing',
      },
      {
        loc: ['glucose_readings', 'created', 0, 'value_mg_dl'],
        msg: 'Input should be greater than or equal to 10',
        type: 'greater_than_equal',
      },
      {
        loc: ['glucose_readings', 'created', 0, 'source'],
        msg: 'Input should be one of: manual, cgm, sensor',
        type: 'enum',
      },
    ]);
    expect(issuesOf('glucose_readings', { updated: [{ id: 'b', value_mg_dl: null }] })).toEqual([
      {
        loc: ['glucose_readings', 'updated', 0, 'value_mg_dl'],
        msg: 'Input should not be null',
        type: 'missing',
      },
    ]);
  });

  it('refuses a repeated id where it stands, in body order, without reading the record further', () => {
    const issues = issuesOf('journal_entries', {
      created: [
        { id: 'a', mood: 'x' },
        { id: 'a', mood: 'y' },
      ],
      deleted: ['a', 5],
    });
    expect(issues).toEqual([
      {
        loc: ['journal_entries', 'created', 0, 'mood'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
      },
      {
        loc: ['journal_entries', 'created', 1, 'id'],
        msg: 'The same record appears twice in one push',
        type: 'value_error',
      },
      {
        loc: ['journal_entries', 'deleted', 0],
        msg: 'The same record appears twice in one push',
        type: 'value_error',
      },
      {
        loc: ['journal_entries', 'deleted', 1],
        msg: 'id should be a string of 1 to 64 characters',
        type: 'string_type',
      },
    ]);
  });
});

describe('POST /api/sync/push reads the wire names as sent (issue 12)', () => {
  it('treats a camelCase table name as an unknown table and ignores a camelCase column', async () => {
    const u = await seedUser(app);
    const camelTable = await rest(app, 'POST', '/api/sync/push?last_pulled_at=0', {
      token: u.token,
      body: { journalEntries: { created: [entry()], updated: [], deleted: [] } },
    });
    expect(camelTable.status).toBe(422);
    expect(camelTable.body.detail).toEqual([
      {
        loc: ['body', 'journalEntries'],
        msg: 'Unknown synced table: journalEntries',
        type: 'enum',
      },
    ]);

    const a = entry({ happened_at: undefined, happenedAt: 1_763_000_000_000 });
    const pushed = await rest(app, 'POST', '/api/sync/push', {
      token: u.token,
      body: journal({ created: [a] }),
    });
    expect(pushed.status).toBe(200);
    const row = await app.db.prisma.journalEntry.findUniqueOrThrow({ where: { id: a.id } });
    expect(row.happenedAt).toBeNull();
  });
});

describe("issue 29, item 12: a pushed record takes Pydantic's lax values, like every other body", () => {
  it('reads numeric text and whole floats for numbers and timestamps, and stores numbers', async () => {
    const u = await seedUser(app);
    const a = entry({ mood: '5', happened_at: '1763000000000' });
    const b = entry({ mood: 3.0, happened_at: 1_763_000_000_000.0 });
    const c = entry({ mood: ' 2 ', happened_at: '1.763e12' });
    const res = await rest(app, 'POST', '/api/sync/push', {
      token: u.token,
      body: journal({ created: [a, b, c] }),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const rows = await app.db.prisma.journalEntry.findMany({
      where: { userId: u.user.id },
      orderBy: { id: 'asc' },
    });
    expect(rows.map((r) => [r.id, r.mood, r.happenedAt?.getTime()])).toEqual([
      [a.id, 5, 1_763_000_000_000],
      [b.id, 3, 1_763_000_000_000],
      [c.id, 2, 1_763_000_000_000],
    ]);
    const pulled = await rest(app, 'GET', '/api/sync/pull', { token: u.token });
    expect(pulled.body.changes.journal_entries.created).toContainEqual({
      ...a,
      mood: 5,
      happened_at: 1_763_000_000_000,
    });

    // a float column takes numeric text; bounds are checked on the number read
    const reading = await rest(app, 'POST', '/api/sync/push', {
      token: u.token,
      body: {
        glucose_readings: {
          created: [
            { id: 'lax-g1', sensor_id: '7', timestamp: '1763000000000', value_mg_dl: '120.5' },
          ],
        },
      },
    });
    expect(reading.status, JSON.stringify(reading.body)).toBe(200);
    const stored = await app.db.prisma.glucoseReading.findUniqueOrThrow({
      where: { id: 'lax-g1' },
    });
    expect([stored.sensorId, stored.valueMgDl]).toEqual([7, 120.5]);
    const low = await rest(app, 'POST', '/api/sync/push', {
      token: u.token,
      body: { glucose_readings: { created: [{ id: 'lax-g2', timestamp: T, value_mg_dl: '5' }] } },
    });
    expect(low.status).toBe(422);
    expect(low.body.detail[0]).toMatchObject({
      loc: ['body', 'glucose_readings', 'created', 0, 'value_mg_dl'],
      type: 'greater_than_equal',
    });
  });

  it('still refuses text that is not a number, in Pydantic words', async () => {
    const u = await seedUser(app);
    const res = await rest(app, 'POST', '/api/sync/push', {
      token: u.token,
      body: journal({ created: [entry({ mood: 'good', happened_at: 'yesterday' })] }),
    });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      {
        loc: ['body', 'journal_entries', 'created', 0, 'happened_at'],
        msg: 'Input should be a valid number, unable to parse string as a number',
        type: 'float_parsing',
      },
      {
        loc: ['body', 'journal_entries', 'created', 0, 'mood'],
        msg: 'Input should be a valid integer, unable to parse string as an integer',
        type: 'int_parsing',
      },
    ]);
    expect(issuesOf('journal_entries', { created: [{ id: 'x', mood: '5.5' }] })[0].type).toBe(
      'int_parsing',
    );
    expect(issuesOf('journal_entries', { created: [{ id: 'x', mood: [5] }] })[0].type).toBe(
      'int_type',
    );
  });
});

const T = 1_763_000_000_000;
