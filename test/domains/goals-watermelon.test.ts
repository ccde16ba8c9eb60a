/**
 * Goals and snoring nights with the real WatermelonDB client (issue 16): a goal set over MCP reaches
 * the phone's pull, a goal and a snoring night the phone creates reach the MCP reads, and clearing
 * a goal over MCP deletes it on the phone.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { createLocal, localRows, Phone, watermelon } from './sync-watermelon.helpers.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const { Model, appSchema, tableSchema } = watermelon;

class GoalRecord extends Model {
  static table = 'goals';
}
class SnoreNightRecord extends Model {
  static table = 'snore_nights';
}

const optional = (name: string) => ({ name, type: 'number', isOptional: true });

/** A WatermelonDB-style id (16 characters, not a uuid): goals and nights take any client id. */
const watermelonId = (): string => randomBytes(8).toString('hex');

/** The phone's schema of the two tables (sync schema version 5). */
const phoneTables = {
  schema: appSchema({
    version: 5,
    tables: [
      tableSchema({
        name: 'goals',
        columns: [
          { name: 'metric', type: 'string' },
          { name: 'target', type: 'number' },
          { name: 'period', type: 'string' },
          { name: 'direction', type: 'string' },
        ],
      }),
      tableSchema({
        name: 'snore_nights',
        columns: [
          { name: 'started_at', type: 'number' },
          { name: 'ended_at', type: 'number' },
          { name: 'snoring_minutes', type: 'number' },
          optional('snoring_percent'),
          optional('loudness_mean_db'),
          optional('loudness_max_db'),
          { name: 'episodes', type: 'number' },
          { name: 'source', type: 'string' },
        ],
      }),
    ],
  }),
  modelClasses: [GoalRecord, SnoreNightRecord],
};

describe('goals and snoring nights with the WatermelonDB client', () => {
  it('carries goals and nights both ways between the phone and MCP', async () => {
    const u = await seedUser(app);
    const phone = new Phone(app, u.token, phoneTables);
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, u.user.id, ['goals:read', 'goals:write', 'health:sleep:read']),
    );

    const set = await callTool(client, 'goals_goal_set', { metric: 'steps', target: 9000 });
    expect(set.isError).toBeFalsy();
    // 23:00 UTC yesterday: a night is dated by its end plus six hours, so this one is today's
    // (an end after 18:00 would be dated tomorrow, past the list's default range)
    const ended = Math.floor(clock.ms() / 86_400_000) * 86_400_000 - 3_600_000;
    const nightId = await createLocal(
      phone,
      'snore_nights',
      {
        started_at: ended - 7 * 3_600_000,
        ended_at: ended,
        snoring_minutes: 33,
        snoring_percent: 8,
        loudness_mean_db: 40,
        loudness_max_db: 61,
        episodes: 5,
        source: 'phone',
      },
      watermelonId(),
    );
    const goalId = await createLocal(
      phone,
      'goals',
      { metric: 'sleep_minutes', target: 450, period: 'day', direction: 'at_least' },
      watermelonId(),
    );
    await phone.sync();

    // MCP -> phone
    const goals = await localRows(phone, 'goals');
    expect(goals.map((g) => [g.metric, g.target]).sort()).toEqual([
      ['sleep_minutes', 450],
      ['steps', 9000],
    ]);
    // phone -> MCP
    const night = await callTool(client, 'snore_night_read', { id: nightId });
    expect(night.structuredContent).toMatchObject({
      id: nightId,
      snoring_minutes: 33,
      episodes: 5,
    });
    const listed = await callTool(client, 'snore_nights_list');
    expect((listed.structuredContent as any).items.map((n: any) => n.id)).toEqual([nightId]);
    const progress = await callTool(client, 'goals_progress_read', { metric: 'sleep_minutes' });
    expect((progress.structuredContent as any).goals[0].goal).toMatchObject({
      id: goalId,
      target: 450,
    });

    // an MCP set of the phone's goal updates that record; a clear deletes it on the phone
    await callTool(client, 'goals_goal_set', { metric: 'sleep_minutes', target: 480 });
    await callTool(client, 'goals_goal_clear', { metric: 'steps', confirm: true });
    await phone.sync();
    const after = await localRows(phone, 'goals');
    expect(after.map((g) => [g.id, g.metric, g.target])).toEqual([[goalId, 'sleep_minutes', 480]]);
  });
});
