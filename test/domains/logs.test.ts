/**
 * Logs (issue 16): the seven logging tools, logs_entry_edit and logs_entry_delete through MCP and
 * their /api/v1/health/logs routes: each kind's columns and bounds, scopes, another person's id
 * (404), tombstones, idempotency.
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();
const LOGS = '/api/v1/health/logs';
let seq = 0;
const key = () => `logs-${process.pid}-${++seq}`;

async function person() {
  const u = await seedUser(app);
  const client = await mcpClient(
    app,
    await seedPersonalToken(app, u.user.id, ['health:logs:write']),
  );
  return { ...u, client };
}

/** Each tool, its route, a good input and what it stores. */
const KINDS = [
  {
    tool: 'custom_metric_log',
    path: 'custom-metrics',
    args: { name: 'Mood', value: 7, unit: 'points' },
    stored: { kind: 'custom_metric', name: 'Mood', value: 7, unit: 'points' },
    bad: [{ name: 'Mood' }, { name: ' ', value: 1 }, { name: 'Mood', value: 2e6 }],
  },
  {
    tool: 'logs_hydration_add',
    path: 'hydration',
    args: { ml: 250 },
    stored: { kind: 'hydration', value: 250, unit: 'ml', name: null },
    bad: [{ ml: 0 }, { ml: 5001 }, {}],
  },
  {
    tool: 'logs_medication_log',
    path: 'medications',
    args: { name: 'Ibuprofen', dose: '400 mg' },
    stored: { kind: 'medication', name: 'Ibuprofen', dose: '400 mg', value: null },
    bad: [{ dose: '1' }, { name: 'x'.repeat(101) }, { name: 'A', dose: 'x'.repeat(51) }],
  },
  {
    tool: 'logs_nicotine_add',
    path: 'nicotine',
    args: { product: 'cigarette', units: 2 },
    stored: { kind: 'nicotine', name: 'cigarette', value: 2, unit: 'units' },
    bad: [{ units: 0 }, { units: 101 }],
  },
  {
    tool: 'logs_sleep_factor_log',
    path: 'sleep-factors',
    args: { factor: 'late coffee', intensity: 6 },
    stored: { kind: 'sleep_factor', name: 'late coffee', value: 6 },
    bad: [{ intensity: 3 }, { factor: 'alcohol', intensity: 11 }, { factor: 'x', intensity: 1.5 }],
  },
  {
    tool: 'logs_weight_add',
    path: 'weight',
    args: { kg: 72.5 },
    stored: { kind: 'weight', value: 72.5, unit: 'kg' },
    bad: [{ kg: 19.9 }, { kg: 400.1 }, { kg: 70, logged_at: '2999-01-01T00:00:00Z' }],
  },
  {
    tool: 'sun_session_save',
    path: 'sun-sessions',
    args: { duration_minutes: 20, uv_index: 5 },
    stored: { kind: 'sun_session', duration_minutes: 20, value: 5, unit: 'uv_index' },
    bad: [
      { duration_minutes: 0 },
      { duration_minutes: 721 },
      { duration_minutes: 10, uv_index: 21 },
    ],
  },
];

describe('the logging tools', () => {
  for (const k of KINDS) {
    it(`${k.tool} logs a ${k.stored.kind} entry over MCP and REST, and refuses bad input`, async () => {
      const u = await person();
      const res = await callTool(u.client, k.tool, { ...k.args, idempotency_key: key() });
      expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
      expect(res.structuredContent).toMatchObject({ ...k.stored, source: 'mcp' });
      const viaRest = await rest(app, 'POST', `${LOGS}/${k.path}`, {
        token: u.token,
        body: k.args,
      });
      expect(viaRest.status).toBe(201);
      expect(viaRest.body).toMatchObject({ ...k.stored, source: 'manual' });
      for (const body of k.bad) {
        const bad = await rest(app, 'POST', `${LOGS}/${k.path}`, { token: u.token, body });
        expect(bad.status, JSON.stringify(body)).toBe(422);
      }
      const refused = await callTool(u.client, k.tool, { ...k.bad[0], idempotency_key: key() });
      expect((refused.structuredContent as any).error.code).toBe('VALIDATION_FAILED');
      expect(await app.db.prisma.logEntry.count({ where: { userId: u.user.id } })).toBe(2);
    });
  }

  it('logs once per idempotency_key', async () => {
    const u = await person();
    const args = { ml: 300, idempotency_key: key() };
    const first = (await callTool(u.client, 'logs_hydration_add', args)).structuredContent as any;
    const again = (await callTool(u.client, 'logs_hydration_add', args)).structuredContent as any;
    expect(again.id).toBe(first.id);
    expect(await app.db.prisma.logEntry.count({ where: { userId: u.user.id } })).toBe(1);
  });

  it('refuses a token without health:logs:write', async () => {
    const u = await seedUser(app);
    const pat = await seedPersonalToken(app, u.user.id, ['health:metrics:read']);
    const res = await rest(app, 'POST', `${LOGS}/weight`, { token: pat, body: { kg: 70 } });
    expect(res.status).toBe(403);
    const tools = await (await mcpClient(app, pat)).listTools();
    expect(tools.tools.map((t) => t.name)).not.toContain('logs_weight_add');
  });
});

describe('logs_entry_edit and logs_entry_delete', () => {
  it("edits an entry within its kind's rules and deletes it as a tombstone", async () => {
    const u = await person();
    const entry = (await callTool(u.client, 'logs_weight_add', { kg: 80, idempotency_key: key() }))
      .structuredContent as any;
    const edited = await callTool(u.client, 'logs_entry_edit', {
      entry_id: entry.id,
      input: { value: 79.4, note: 'morning' },
    });
    expect(edited.structuredContent).toMatchObject({
      kind: 'weight',
      value: 79.4,
      note: 'morning',
    });
    // the edited entry must still be a plausible weight, and a weight has no duration
    for (const input of [
      { value: 500 },
      { value: null },
      { duration_minutes: 5 },
      { unit: 'lb' },
    ]) {
      const res = await rest(app, 'PATCH', `${LOGS}/${entry.id}`, { token: u.token, body: input });
      expect(res.status, JSON.stringify(input)).toBe(422);
    }
    const viaRest = await rest(app, 'PATCH', `${LOGS}/${entry.id}`, {
      token: u.token,
      body: { note: null },
    });
    expect(viaRest.body).toMatchObject({ value: 79.4, note: null });

    const deleted = await callTool(u.client, 'logs_entry_delete', {
      entry_id: entry.id,
      confirm: true,
    });
    expect(deleted.structuredContent).toMatchObject({ deleted: 1 });
    const row = await app.db.prisma.logEntry.findUniqueOrThrow({ where: { id: entry.id } });
    expect(row.deletedAt).not.toBeNull();
    expect((await rest(app, 'DELETE', `${LOGS}/${entry.id}`, { token: u.token })).status).toBe(404);
  });

  it("answers 404 for another person's entry and changes nothing", async () => {
    const me = await person();
    const other = await person();
    const entry = (
      await callTool(other.client, 'logs_medication_log', {
        name: 'Aspirin',
        idempotency_key: key(),
      })
    ).structuredContent as any;
    const edit = await rest(app, 'PATCH', `${LOGS}/${entry.id}`, {
      token: me.token,
      body: { name: 'Mine now' },
    });
    expect(edit.status).toBe(404);
    expect((await rest(app, 'DELETE', `${LOGS}/${entry.id}`, { token: me.token })).status).toBe(
      404,
    );
    const mcp = await callTool(me.client, 'logs_entry_delete', {
      entry_id: entry.id,
      confirm: true,
    });
    expect((mcp.structuredContent as any).error.code).toBe('NOT_FOUND');
    const row = await app.db.prisma.logEntry.findUniqueOrThrow({ where: { id: entry.id } });
    expect(row).toMatchObject({ name: 'Aspirin', deletedAt: null });
  });

  it('refuses a delete without confirm and ids longer than 64 characters', async () => {
    const u = await person();
    const entry = (
      await callTool(u.client, 'logs_hydration_add', { ml: 100, idempotency_key: key() })
    ).structuredContent as any;
    const unconfirmed = await callTool(u.client, 'logs_entry_delete', { entry_id: entry.id });
    expect(unconfirmed.isError).toBe(true);
    expect(
      (await rest(app, 'DELETE', `${LOGS}/${'x'.repeat(65)}`, { token: u.token })).status,
    ).toBe(422);
  });
});
