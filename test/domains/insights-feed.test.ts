/**
 * The insights feed (issue 17) through the real stack: the rules record what fires (cards route,
 * the list's refresh), idempotently by (person, rule, day); insights_list / insight_read and their
 * /api/v1 routes; insights_card_answer, insights_card_dismiss, insights_seen_mark; scopes, bounds,
 * another person's ids. The alert comes from the real Hall 2018 trace (test/fixtures/cgm).
 */
import { describe, expect, it } from 'vitest';
import { hallTrace, seedGlucose } from '../factories/insights.ts';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const today = () => clock.now().toISOString().slice(0, 10);

async function person(scopes: string[] = ['insights:read', 'insights:write']) {
  const u = await seedUser(app);
  const pat = await seedPersonalToken(app, u.user.id, scopes as any);
  return { ...u, pat, client: await mcpClient(app, pat) };
}

/** The Hall 2018 fall of 2015-03-30 (140 -> 86 mg/dL in 25 minutes, 6 readings), moved to end a minute ago. */
function fallingNow(): { timestamp: Date; valueMgDl: number }[] {
  const end = Date.parse('2015-03-30T18:53:23Z');
  const shift = clock.ms() - 60_000 - end;
  return hallTrace()
    .filter((p) => p.timestamp.getTime() > end - 30 * 60_000 && p.timestamp.getTime() <= end)
    .map((p) => ({ timestamp: new Date(p.timestamp.getTime() + shift), valueMgDl: p.valueMgDl }));
}

let seeded = 0;

/** Constructed insights stored straight in the table (for paging, filters and statuses). */
async function seedInsights(userId: number, n: number, kind = 'score', date = today()) {
  for (let k = 0; k < n; k++) {
    const i = ++seeded;
    await app.db.prisma.insight.create({
      data: {
        userId,
        kind,
        rule: `constructed_${kind}_${i}`,
        subject: date,
        date,
        priority: 3,
        title: `Constructed ${i}`,
        body: 'constructed for the test',
        source: {
          rule: `constructed_${kind}_${i}`,
          window: { start: `${date}T00:00:00.000Z`, end: `${date}T23:59:59.000Z` },
          inputs: [],
          summary: 'constructed',
        },
      },
    });
  }
  return app.db.prisma.insight.findMany({ where: { userId }, orderBy: { id: 'desc' } });
}

const sc = (r: any) => r.structuredContent;

describe('recording: the rules write insights, once per person, rule and day', () => {
  it('records the predicted low of the real trace when the list refreshes, with its source, and never twice', async () => {
    const p = await person();
    await seedGlucose(app, p.token, fallingNow());
    const first = await callTool(p.client, 'insights_list');
    expect(first.isError).toBeFalsy();
    const items = sc(first).items;
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      kind: 'alert',
      rule: 'predicted_low',
      subject: today(),
      date: today(),
      status: 'unseen',
      title: 'Low glucose ahead',
      question: 'Did you act on this alert?',
      answer_choices: ['acted', 'not_needed', 'false_alarm'],
      source: {
        rule: 'predicted_low',
        inputs: [{ table: 'glucose_readings', count: 6 }],
      },
    });
    const w = items[0].source;
    expect(Date.parse(w.window_end) - Date.parse(w.window_start)).toBe(30 * 60_000);
    expect(w.summary).toContain('glucose_readings: 6 rows');
    // a second list, the cards route and the suggestions route write nothing twice
    await callTool(p.client, 'insights_list');
    expect((await rest(app, 'GET', '/api/insights/cards', { token: p.token })).status).toBe(200);
    await rest(app, 'GET', '/api/insights/suggestions', { token: p.token });
    expect(await app.db.prisma.insight.count({ where: { userId: p.user.id } })).toBe(1);
    const viaRest = await rest(app, 'GET', '/api/v1/insights', { token: p.pat });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.items.map((i: any) => i.id)).toEqual([items[0].id]);
    expect(viaRest.body.next_cursor).toBeNull();
  });

  it('records the cards the cards route computes (no list needed)', async () => {
    const p = await person();
    await seedGlucose(app, p.token, fallingNow());
    await rest(app, 'GET', '/api/insights/cards', { token: p.token });
    const rows = await app.db.prisma.insight.findMany({ where: { userId: p.user.id } });
    expect(rows.map((r) => [r.kind, r.rule, r.subject])).toEqual([
      ['alert', 'predicted_low', today()],
    ]);
  });

  it("the admin trigger records the person's insights (for the person, once)", async () => {
    const p = await person();
    await seedGlucose(app, p.token, fallingNow());
    const admin = await seedUser(app, { isAdmin: true });
    const r = await rest(app, 'POST', `/api/admin/insights/trigger/${p.user.id}`, {
      token: admin.token,
    });
    expect(r.status).toBe(200);
    const rows = await app.db.prisma.insight.findMany({ where: { userId: p.user.id } });
    expect(rows.map((x) => x.rule)).toEqual(['predicted_low']);
    expect(await app.db.prisma.insight.count({ where: { userId: admin.user.id } })).toBe(0);
    await rest(app, 'POST', `/api/admin/insights/trigger/${p.user.id}`, { token: admin.token });
    expect(await app.db.prisma.insight.count({ where: { userId: p.user.id } })).toBe(1);
  });

  it('a dismissed insight is not listed as active and the rule firing again does not recreate it', async () => {
    const p = await person();
    await seedGlucose(app, p.token, fallingNow());
    const [alert] = sc(await callTool(p.client, 'insights_list')).items;
    const dismissed = await callTool(p.client, 'insights_card_dismiss', { id: alert.id });
    expect(dismissed.isError).toBeFalsy();
    expect(sc(dismissed)).toMatchObject({ id: alert.id, status: 'dismissed' });
    expect(sc(dismissed).dismissed_at).toEqual(expect.any(String));
    expect(sc(await callTool(p.client, 'insights_list')).items).toEqual([]);
    await rest(app, 'GET', '/api/insights/cards', { token: p.token });
    expect(sc(await callTool(p.client, 'insights_list')).items).toEqual([]);
    const rows = await app.db.prisma.insight.findMany({ where: { userId: p.user.id } });
    expect(rows.map((r) => r.status)).toEqual(['dismissed']);
    const listed = await callTool(p.client, 'insights_list', { status: 'dismissed' });
    expect(sc(listed).items.map((i: any) => i.id)).toEqual([alert.id]);
    // dismissing twice changes nothing
    const again = await callTool(p.client, 'insights_card_dismiss', { id: alert.id });
    expect(sc(again).dismissed_at).toBe(sc(dismissed).dismissed_at);
  });
});

describe('insights_list and insight_read (GET /api/v1/insights, /api/v1/insights/{insight_id})', () => {
  it('pages newest first and filters by kind and status', async () => {
    const p = await person();
    await seedInsights(p.user.id, 3, 'score');
    const all = await seedInsights(p.user.id, 2, 'trend');
    const page1 = await rest(app, 'GET', '/api/v1/insights?limit=2', { token: p.pat });
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((i: any) => i.id)).toEqual([all[0].id, all[1].id]);
    const page2 = await rest(
      app,
      'GET',
      `/api/v1/insights?limit=2&cursor=${page1.body.next_cursor}`,
      { token: p.pat },
    );
    expect(page2.body.items.map((i: any) => i.id)).toEqual([all[2].id, all[3].id]);
    const page3 = await rest(
      app,
      'GET',
      `/api/v1/insights?limit=2&cursor=${page2.body.next_cursor}`,
      { token: p.pat },
    );
    expect(page3.body).toEqual({
      items: [expect.objectContaining({ id: all[4].id })],
      next_cursor: null,
    });
    // through MCP, the facade's cursor carries the operation's
    const mcp1 = sc(await callTool(p.client, 'insights_list', { limit: 3 }));
    expect(mcp1.items.map((i: any) => i.id)).toEqual(all.slice(0, 3).map((r) => r.id));
    const mcp2 = sc(
      await callTool(p.client, 'insights_list', { limit: 3, cursor: mcp1.next_cursor }),
    );
    expect(mcp2.items.map((i: any) => i.id)).toEqual(all.slice(3).map((r) => r.id));
    const trends = await callTool(p.client, 'insights_list', { kind: 'trend' });
    expect(sc(trends).items.map((i: any) => i.kind)).toEqual(['trend', 'trend']);
    await callTool(p.client, 'insights_seen_mark', { ids: [all[0].id] });
    const seen = await rest(app, 'GET', '/api/v1/insights?status=seen', { token: p.pat });
    expect(seen.body.items.map((i: any) => i.id)).toEqual([all[0].id]);
    const one = await rest(app, 'GET', `/api/v1/insights/${all[1].id}`, { token: p.pat });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: all[1].id, kind: 'trend', status: 'unseen' });
    const viaMcp = await callTool(p.client, 'insight_read', { id: all[1].id });
    expect(sc(viaMcp)).toEqual(one.body);
  });

  it('refuses out-of-range arguments (422 / VALIDATION_FAILED)', async () => {
    const p = await person();
    for (const q of [
      'limit=0',
      'limit=101',
      'status=active',
      'kind=meal',
      'cursor=abc',
      'cursor=0',
      `cursor=${'9'.repeat(21)}`,
    ]) {
      expect((await rest(app, 'GET', `/api/v1/insights?${q}`, { token: p.pat })).status, q).toBe(
        422,
      );
    }
    expect((await rest(app, 'GET', '/api/v1/insights/0', { token: p.pat })).status).toBe(422);
    expect((await rest(app, 'GET', '/api/v1/insights/99999999999', { token: p.pat })).status).toBe(
      422,
    );
    const bad = await callTool(p.client, 'insight_read', { id: -1 });
    expect(bad.isError).toBe(true);
    expect(sc(bad).error.code).toBe('VALIDATION_FAILED');
  });

  it("never reaches another person's insight (404 / NOT_FOUND)", async () => {
    const owner = await person();
    const [theirs] = await seedInsights(owner.user.id, 1);
    const other = await person();
    const res = await rest(app, 'GET', `/api/v1/insights/${theirs.id}`, { token: other.pat });
    expect(res.status).toBe(404);
    for (const [tool, args] of [
      ['insight_read', { id: theirs.id }],
      ['insights_card_answer', { id: theirs.id, answer: 'yes' }],
      ['insights_card_dismiss', { id: theirs.id }],
      ['insights_seen_mark', { ids: [theirs.id] }],
    ] as const) {
      const r = await callTool(other.client, tool, args);
      expect(r.isError, tool).toBe(true);
      expect(sc(r).error.code, tool).toBe('NOT_FOUND');
    }
    expect(sc(await callTool(other.client, 'insights_list')).items).toEqual([]);
    const row = await app.db.prisma.insight.findUniqueOrThrow({ where: { id: theirs.id } });
    expect(row.status).toBe('unseen');
  });

  it("a grantee viewing as lists the owner's insights (recorded for the owner) and changes none", async () => {
    const owner = await person();
    await seedGlucose(app, owner.token, fallingNow());
    const grantee = await person(['insights:read', 'insights:write', 'sharing:read']);
    await switchViewAs(app, grantee.pat, await seedActiveGrant(app, owner, grantee));
    const listed = await rest(app, 'GET', '/api/v1/insights', { token: grantee.pat });
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((i: any) => i.rule)).toEqual(['predicted_low']);
    const rows = await app.db.prisma.insight.findMany({
      where: { userId: { in: [owner.user.id, grantee.user.id] } },
    });
    expect(rows.map((r) => r.userId)).toEqual([owner.user.id]);
    const read = await rest(app, 'GET', `/api/v1/insights/${rows[0].id}`, { token: grantee.pat });
    expect(read.body).toMatchObject({ id: rows[0].id, status: 'unseen' });
    const dismissed = await callTool(grantee.client, 'insights_card_dismiss', { id: rows[0].id });
    expect(dismissed.isError).toBe(true);
    const after = await app.db.prisma.insight.findUniqueOrThrow({ where: { id: rows[0].id } });
    expect(after.status).toBe('unseen');
  });

  it('needs insights:read (403, not listed) and a credential (401)', async () => {
    const p = await person(['health:summary:read']);
    expect((await rest(app, 'GET', '/api/v1/insights', { token: p.pat })).status).toBe(403);
    expect((await rest(app, 'GET', '/api/v1/insights/1', { token: p.pat })).status).toBe(403);
    expect((await rest(app, 'GET', '/api/v1/insights')).status).toBe(401);
    const names = (await p.client.listTools()).tools.map((t) => t.name);
    expect(names.filter((n) => n.startsWith('insight'))).toEqual([]);
    const r = await callTool(p.client, 'insights_list');
    expect(sc(r).error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { scope: 'insights:read' },
    });
  });
});

describe('insights_card_answer', () => {
  it("takes one of the kind's answers, replaces it when answered again, refuses others", async () => {
    const p = await person();
    const [score] = await seedInsights(p.user.id, 1, 'score');
    const ok = await callTool(p.client, 'insights_card_answer', { id: score.id, answer: 'no' });
    expect(ok.isError).toBeFalsy();
    expect(sc(ok)).toMatchObject({ id: score.id, status: 'answered', answer: 'no' });
    expect(sc(ok).seen_at).toEqual(expect.any(String));
    const again = await callTool(p.client, 'insights_card_answer', { id: score.id, answer: 'yes' });
    expect(sc(again).answer).toBe('yes');
    const wrong = await callTool(p.client, 'insights_card_answer', {
      id: score.id,
      answer: 'will_try',
    });
    expect(wrong.isError).toBe(true);
    expect(sc(wrong).error).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(sc(wrong).error.detail[0]).toMatchObject({ loc: ['answer'] });
    expect(sc(wrong).error.detail[0].msg).toContain('yes, no, not_sure');
    const long = await callTool(p.client, 'insights_card_answer', {
      id: score.id,
      answer: 'x'.repeat(41),
    });
    expect(sc(long).error.code).toBe('VALIDATION_FAILED');
    const [suggestion] = await seedInsights(p.user.id, 1, 'suggestion');
    const tried = await callTool(p.client, 'insights_card_answer', {
      id: suggestion.id,
      answer: 'will_try',
    });
    expect(sc(tried)).toMatchObject({ status: 'answered', answer: 'will_try' });
  });

  it('refuses to answer a dismissed insight (CONFLICT)', async () => {
    const p = await person();
    const [row] = await seedInsights(p.user.id, 1, 'trend');
    await callTool(p.client, 'insights_card_dismiss', { id: row.id });
    const r = await callTool(p.client, 'insights_card_answer', { id: row.id, answer: 'yes' });
    expect(sc(r).error.code).toBe('CONFLICT');
  });

  it('pages the same insights in the dashboard graph (me { insights }), dismissed left out', async () => {
    const p = await person(['insights:read', 'profile:read']);
    const rows = await seedInsights(p.user.id, 3, 'score');
    await app.db.prisma.insight.update({
      where: { id: rows[0].id },
      data: { status: 'dismissed' },
    });
    const q = `query ($after: String) { me { insights(first: 1, after: $after) {
      nodes { id title } pageInfo { hasNextPage endCursor } } } }`;
    const first = await gql(app, q, { token: p.pat });
    expect(first.body.errors).toBeUndefined();
    const page1 = first.body.data.me.insights;
    // rows are newest first; the newest is dismissed
    expect(page1.nodes.map((n: any) => n.id)).toEqual([rows[1].id]);
    expect(page1.pageInfo.hasNextPage).toBe(true);
    const second = await gql(app, q, {
      token: p.pat,
      variables: { after: page1.pageInfo.endCursor },
    });
    const page2 = second.body.data.me.insights;
    expect(page2.nodes.map((n: any) => n.id)).toEqual([rows[2].id]);
    expect(page2.pageInfo.hasNextPage).toBe(false);
  });

  it('needs insights:write: a read-only token neither lists nor calls the write tools', async () => {
    const p = await person(['insights:read']);
    const names = (await p.client.listTools()).tools.map((t) => t.name).sort();
    expect(names.filter((n) => n.startsWith('insight'))).toEqual([
      'insight_read',
      'insights_digest_read',
      'insights_experiments_read',
      'insights_list',
    ]);
    const [row] = await seedInsights(p.user.id, 1);
    for (const [tool, args] of [
      ['insights_card_answer', { id: row.id, answer: 'yes' }],
      ['insights_card_dismiss', { id: row.id }],
      ['insights_seen_mark', { ids: [row.id] }],
    ] as const) {
      const r = await callTool(p.client, tool, args);
      expect(sc(r).error, tool).toMatchObject({
        code: 'INSUFFICIENT_SCOPE',
        detail: { scope: 'insights:write' },
      });
    }
  });
});

describe('insights_seen_mark', () => {
  it('marks the given ids, or every one up to a time; answered and dismissed ones keep their status', async () => {
    const p = await person();
    const rows = await seedInsights(p.user.id, 4);
    await callTool(p.client, 'insights_card_answer', { id: rows[3].id, answer: 'yes' });
    await callTool(p.client, 'insights_card_dismiss', { id: rows[2].id });
    const byIds = await callTool(p.client, 'insights_seen_mark', { ids: [rows[0].id, rows[0].id] });
    expect(sc(byIds)).toEqual({ marked: 1 });
    const twice = await callTool(p.client, 'insights_seen_mark', { ids: [rows[0].id] });
    expect(sc(twice)).toEqual({ marked: 0 });
    const upTo = await callTool(p.client, 'insights_seen_mark', {
      up_to: clock.now().toISOString(),
    });
    expect(sc(upTo)).toEqual({ marked: 1 }); // rows[1]; rows[2] dismissed, rows[3] answered
    const after = await app.db.prisma.insight.findMany({
      where: { userId: p.user.id },
      orderBy: { id: 'desc' },
    });
    expect(after.map((r) => r.status)).toEqual(['seen', 'seen', 'dismissed', 'answered']);
    const [later] = await seedInsights(p.user.id, 1);
    const old = await callTool(p.client, 'insights_seen_mark', { up_to: '2020-01-01T00:00:00Z' });
    expect(sc(old)).toEqual({ marked: 0 });
    expect(
      (await app.db.prisma.insight.findUniqueOrThrow({ where: { id: later.id } })).status,
    ).toBe('unseen');
  });

  it('needs exactly one of ids and up_to, at most 100 ids', async () => {
    const p = await person();
    const [row] = await seedInsights(p.user.id, 1);
    for (const args of [
      {},
      { ids: [row.id], up_to: clock.now().toISOString() },
      { ids: [] },
      { ids: Array.from({ length: 101 }, (_, i) => i + 1) },
      { ids: [0] },
      { up_to: 'yesterday' },
      { up_to: '1999-12-31T00:00:00Z' },
      { up_to: '2100-01-02T00:00:00Z' },
    ]) {
      const r = await callTool(p.client, 'insights_seen_mark', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(sc(r).error.code, JSON.stringify(args)).toBe('VALIDATION_FAILED');
    }
  });
});
