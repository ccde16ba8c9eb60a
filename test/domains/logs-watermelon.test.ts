/**
 * Blood pressure and logs with the real WatermelonDB client (issue 16): what an agent logs through
 * MCP reaches the phone's pull (edits and deletions too), and what the phone pushes appears in the
 * MCP reads (bp_readings_list, sun_today_read).
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { createLocal, localRows, Phone, watermelon } from './sync-watermelon.helpers.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const { Model, appSchema, tableSchema } = watermelon;

class ReadingRecord extends Model {
  static table = 'blood_pressure_readings';
}
class EntryRecord extends Model {
  static table = 'log_entries';
}

const optional = (name: string, type = 'string') => ({ name, type, isOptional: true });

/** The phone's schema of the two tables (sync schema version 5). */
const logsPhone = {
  schema: appSchema({
    version: 5,
    tables: [
      tableSchema({
        name: 'blood_pressure_readings',
        columns: [
          { name: 'systolic', type: 'number' },
          { name: 'diastolic', type: 'number' },
          optional('pulse', 'number'),
          { name: 'measured_at', type: 'number' },
          { name: 'source', type: 'string' },
          optional('note'),
        ],
      }),
      tableSchema({
        name: 'log_entries',
        columns: [
          { name: 'kind', type: 'string' },
          optional('name'),
          optional('value', 'number'),
          optional('unit'),
          optional('dose'),
          optional('duration_minutes', 'number'),
          { name: 'logged_at', type: 'number' },
          optional('note'),
          { name: 'source', type: 'string' },
        ],
      }),
    ],
  }),
  modelClasses: [ReadingRecord, EntryRecord],
};

describe('blood pressure and logs with the WatermelonDB client', () => {
  it('pulls what an agent logs, edits and deletes, and serves what the phone pushes', async () => {
    const u = await seedUser(app);
    const agent = await mcpClient(
      app,
      await seedPersonalToken(app, u.user.id, [
        'health:logs:write',
        'health:metrics:read',
        'health:summary:read',
      ]),
    );
    const phone = new Phone(app, u.token, logsPhone);

    // the phone logs offline, then syncs: the agent reads it
    const measuredAt = clock.ms() - 60_000;
    const phoneReading = await createLocal(phone, 'blood_pressure_readings', {
      systolic: 122,
      diastolic: 81,
      pulse: 66,
      measured_at: measuredAt,
      source: 'phone',
    });
    await createLocal(phone, 'log_entries', {
      kind: 'sun_session',
      duration_minutes: 20,
      logged_at: clock.ms() - 120_000,
      source: 'phone',
    });
    await phone.sync();
    const page = (await callTool(agent, 'bp_readings_list', {})).structuredContent as any;
    expect(page.sessions.at(-1).readings).toEqual([
      expect.objectContaining({ id: phoneReading, systolic: 122, diastolic: 81, source: 'phone' }),
    ]);
    const sun = (await callTool(agent, 'sun_today_read', {})).structuredContent as any;
    expect((sun.items ?? sun)[0]).toMatchObject({ kind: 'sun', score: 100 });

    // the agent logs, edits and deletes: the phone learns of all three on its next sync
    const logged = (
      await callTool(agent, 'bp_reading_log', {
        systolic: 140,
        diastolic: 90,
        idempotency_key: `wm-${randomUUID()}`,
      })
    ).structuredContent as any;
    const water = (
      await callTool(agent, 'logs_hydration_add', {
        ml: 400,
        idempotency_key: `wm-w-${randomUUID()}`,
      })
    ).structuredContent as any;
    await callTool(agent, 'logs_entry_edit', { entry_id: water.id, input: { value: 450 } });
    await callTool(agent, 'bp_reading_delete', { reading_id: phoneReading, confirm: true });
    await phone.sync();
    const readings = await localRows(phone, 'blood_pressure_readings');
    expect(readings.map((r) => r.id)).toEqual([logged.id]);
    expect(readings[0]).toMatchObject({ systolic: 140, diastolic: 90, source: 'mcp' });
    const entries = await localRows(phone, 'log_entries');
    expect(entries.find((e) => e.id === water.id)).toMatchObject({
      kind: 'hydration',
      value: 450,
      unit: 'ml',
    });
    expect(phone.pushStatuses.every((s) => s === 200)).toBe(true);
  });
});
