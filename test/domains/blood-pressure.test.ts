/**
 * Blood pressure (issue 16): bp_readings_list with its 10-minute session rule, bp_reading_log,
 * bp_reading_edit, bp_reading_delete through MCP and their /api/v1/health/blood-pressure routes;
 * scopes, another person's id (404), bounds (4xx), tombstones.
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();
const BP = '/api/v1/health/blood-pressure';
let seq = 0;
const key = () => `bp-key-${process.pid}-${++seq}`;
const at = (minutes: number, seconds = 0) =>
  new Date(Date.UTC(2026, 10, 20, 8, 0, 0) + minutes * 60_000 + seconds * 1000).toISOString();
const range = { from: '2026-11-20T00:00:00Z', to: '2026-11-21T00:00:00Z' };

async function person() {
  const u = await seedUser(app);
  const writer = await mcpClient(
    app,
    await seedPersonalToken(app, u.user.id, ['health:logs:write', 'health:metrics:read']),
  );
  return { ...u, writer };
}

async function logReading(token: string, body: Record<string, unknown>) {
  const res = await rest(app, 'POST', BP, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

describe('bp_readings_list sessions', () => {
  it('joins a reading 10:00 after the first reading of a session, and starts a new one at 10:01', async () => {
    const u = await person();
    await logReading(u.token, { systolic: 130, diastolic: 85, pulse: 70, measured_at: at(0) });
    await logReading(u.token, { systolic: 120, diastolic: 75, measured_at: at(5) });
    await logReading(u.token, { systolic: 125, diastolic: 80, pulse: 80, measured_at: at(10) });
    // 10:01 after the first reading (and only 5:01 after the previous one): a new session
    await logReading(u.token, { systolic: 150, diastolic: 95, measured_at: at(10, 1) });
    const res = await callTool(u.writer, 'bp_readings_list', range);
    expect(res.isError).toBeFalsy();
    const page = res.structuredContent as any;
    expect(page.sessions.map((s: any) => s.reading_count)).toEqual([3, 1]);
    expect(page.sessions[0]).toMatchObject({
      started_at: at(0),
      ended_at: at(10),
      systolic: 125,
      diastolic: 80,
      pulse: 75,
      category: 'stage_1',
    });
    expect(page.sessions[1]).toMatchObject({ systolic: 150, pulse: null, category: 'stage_2' });
    expect(page.next_cursor).toBeNull();
    const viaRest = await rest(app, 'GET', `${BP}?from=${range.from}&to=${range.to}`, {
      token: u.token,
    });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.sessions).toEqual(page.sessions);
  });

  it('pages by whole sessions with a cursor', async () => {
    const u = await person();
    for (let i = 0; i < 5; i++)
      await logReading(u.token, { systolic: 110 + i, diastolic: 70, measured_at: at(i * 30) });
    const first = (await callTool(u.writer, 'bp_readings_list', { ...range, limit: 2 }))
      .structuredContent as any;
    expect(first.sessions.map((s: any) => s.systolic)).toEqual([110, 111]);
    const second = (
      await callTool(u.writer, 'bp_readings_list', {
        ...range,
        limit: 2,
        cursor: first.next_cursor,
      })
    ).structuredContent as any;
    expect(second.sessions.map((s: any) => s.systolic)).toEqual([112, 113]);
    const last = (
      await callTool(u.writer, 'bp_readings_list', {
        ...range,
        limit: 2,
        cursor: second.next_cursor,
      })
    ).structuredContent as any;
    expect(last.sessions.map((s: any) => s.systolic)).toEqual([114]);
    expect(last.next_cursor).toBeNull();
  });

  it("never lists another person's readings", async () => {
    const me = await person();
    const other = await person();
    await logReading(other.token, { systolic: 140, diastolic: 90, measured_at: at(0) });
    const page = (await callTool(me.writer, 'bp_readings_list', range)).structuredContent as any;
    expect(page.sessions).toEqual([]);
  });

  it('refuses out-of-bounds arguments with 422 and a token without health:metrics:read', async () => {
    const u = await person();
    for (const q of [
      'limit=0',
      'limit=101',
      'cursor=bogus',
      'from=2026-01-01T00:00:00Z&to=2025-01-01T00:00:00Z',
      'from=2020-01-01T00:00:00Z&to=2026-01-01T00:00:00Z',
      'from=not-a-date',
    ]) {
      const res = await rest(app, 'GET', `${BP}?${q}`, { token: u.token });
      expect(res.status, q).toBe(422);
    }
    const pat = await seedPersonalToken(app, u.user.id, ['health:logs:write']);
    expect((await rest(app, 'GET', BP, { token: pat })).status).toBe(403);
    const refused = await callTool(await mcpClient(app, pat), 'bp_readings_list', {});
    expect((refused.structuredContent as any).error.code).toBe('INSUFFICIENT_SCOPE');
  });
});

describe('bp_reading_log, bp_reading_edit, bp_reading_delete', () => {
  it('logs a reading through MCP (source mcp) with an idempotency key', async () => {
    const u = await person();
    const args = { systolic: 118, diastolic: 76, pulse: 64, idempotency_key: key() };
    const res = await callTool(u.writer, 'bp_reading_log', args);
    expect(res.isError).toBeFalsy();
    const reading = res.structuredContent as any;
    expect(reading).toMatchObject({ systolic: 118, diastolic: 76, pulse: 64, source: 'mcp' });
    const again = await callTool(u.writer, 'bp_reading_log', args);
    expect((again.structuredContent as any).id).toBe(reading.id);
    expect(await app.db.prisma.bloodPressureReading.count({ where: { userId: u.user.id } })).toBe(
      1,
    );
  });

  it('refuses implausible values, diastolic not below systolic, and far-future times', async () => {
    const u = await person();
    const bad = [
      { systolic: 49, diastolic: 30 },
      { systolic: 301, diastolic: 80 },
      { systolic: 120, diastolic: 29 },
      { systolic: 120, diastolic: 120 },
      { systolic: 120, diastolic: 80, pulse: 19 },
      { systolic: 120, diastolic: 80, pulse: 251 },
      { systolic: 120, diastolic: 80, measured_at: '2099-01-01T00:00:00Z' },
      { systolic: 120, diastolic: 80, note: 'x'.repeat(1001) },
      { systolic: 120.5, diastolic: 80 },
    ];
    for (const body of bad) {
      const res = await rest(app, 'POST', BP, { token: u.token, body });
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
    const res = await callTool(u.writer, 'bp_reading_log', {
      systolic: 90,
      diastolic: 95,
      idempotency_key: key(),
    });
    expect(res.isError).toBe(true);
    expect((res.structuredContent as any).error.code).toBe('VALIDATION_FAILED');
    expect(await app.db.prisma.bloodPressureReading.count({ where: { userId: u.user.id } })).toBe(
      0,
    );
  });

  it('edits and deletes (a tombstone) by id; another person gets 404', async () => {
    const u = await person();
    const other = await person();
    const r = await logReading(u.token, { systolic: 135, diastolic: 85, pulse: 72 });
    const edited = await callTool(u.writer, 'bp_reading_edit', {
      reading_id: r.id,
      input: { systolic: 128, pulse: null },
    });
    expect(edited.structuredContent).toMatchObject({ systolic: 128, diastolic: 85, pulse: null });
    const viaRest = await rest(app, 'PATCH', `${BP}/${r.id}`, {
      token: u.token,
      body: { note: 'after coffee' },
    });
    expect(viaRest.body).toMatchObject({ systolic: 128, note: 'after coffee' });
    // the edit must keep diastolic below systolic
    const crossed = await rest(app, 'PATCH', `${BP}/${r.id}`, {
      token: u.token,
      body: { systolic: 80 },
    });
    expect(crossed.status).toBe(422);

    expect(
      (await rest(app, 'PATCH', `${BP}/${r.id}`, { token: other.token, body: { systolic: 120 } }))
        .status,
    ).toBe(404);
    expect((await rest(app, 'DELETE', `${BP}/${r.id}`, { token: other.token })).status).toBe(404);
    const foreign = await callTool(other.writer, 'bp_reading_delete', {
      reading_id: r.id,
      confirm: true,
    });
    expect((foreign.structuredContent as any).error.code).toBe('NOT_FOUND');

    const deleted = await callTool(u.writer, 'bp_reading_delete', {
      reading_id: r.id,
      confirm: true,
    });
    expect(deleted.structuredContent).toMatchObject({ deleted: 1 });
    const row = await app.db.prisma.bloodPressureReading.findUniqueOrThrow({ where: { id: r.id } });
    expect(row.deletedAt).not.toBeNull();
    expect((await rest(app, 'DELETE', `${BP}/${r.id}`, { token: u.token })).status).toBe(404);
  });

  it('refuses writes to a token without health:logs:write', async () => {
    const u = await person();
    const pat = await seedPersonalToken(app, u.user.id, ['health:metrics:read']);
    expect(
      (await rest(app, 'POST', BP, { token: pat, body: { systolic: 120, diastolic: 80 } })).status,
    ).toBe(403);
    const r = await logReading(u.token, { systolic: 120, diastolic: 80 });
    expect((await rest(app, 'DELETE', `${BP}/${r.id}`, { token: pat })).status).toBe(403);
  });
});
