/**
 * Feedback reports (issue 15): feedback_report_send / feedback_report_list through the MCP SDK
 * client, and the GraphQL fields behind them (scopes, bounds, ownership, idempotent retry, the
 * daily cap).
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp({ FEEDBACK_REPORTS_PER_DAY: '5' });

let seq = 0;
const key = () => `feedback-key-${process.pid}-${++seq}`;
const structured = (r: { structuredContent?: unknown }): any => r.structuredContent;

const SEND = `mutation($input: CreateFeedbackReportInput!) {
  createFeedbackReport(input: $input) { id category message appVersion context createdAt }
}`;
const LIST = `query($limit: Int!, $cursor: String) {
  feedbackReports(limit: $limit, cursor: $cursor) { items { id message } nextCursor }
}`;

async function agent(userId: number) {
  return mcpClient(app, await seedPersonalToken(app, userId, ['feedback:write', 'account:read']));
}

describe('MCP feedback_report_send and feedback_report_list', () => {
  it('sends a report and lists it back', async () => {
    const { user } = await seedUser(app);
    const client = await agent(user.id);
    const sent = await callTool(client, 'feedback_report_send', {
      category: 'bug',
      message: '  The sync button spins forever  ',
      app_version: '2.4.1',
      context: 'settings > sync',
      idempotency_key: key(),
    });
    expect(sent.isError).toBeFalsy();
    expect(structured(sent)).toMatchObject({
      category: 'bug',
      message: 'The sync button spins forever',
      app_version: '2.4.1',
      context: 'settings > sync',
    });
    const listed = await callTool(client, 'feedback_report_list', {});
    expect(structured(listed).items.map((r: any) => r.id)).toEqual([structured(sent).id]);
  });

  it('answers a retry with the same key once, without a second report', async () => {
    const { user } = await seedUser(app);
    const client = await agent(user.id);
    const args = { category: 'idea', message: 'dark mode', idempotency_key: key() };
    const first = await callTool(client, 'feedback_report_send', args);
    const retry = await callTool(client, 'feedback_report_send', args);
    expect(structured(retry).id).toBe(structured(first).id);
    expect(await app.db.prisma.feedbackReport.count({ where: { userId: user.id } })).toBe(1);
    const missing = await callTool(client, 'feedback_report_send', {
      category: 'idea',
      message: 'no key',
    });
    expect(missing.isError).toBe(true);
  });

  it('requires feedback:write to send and account:read to list', async () => {
    const { user } = await seedUser(app);
    const readOnly = await mcpClient(app, await seedPersonalToken(app, user.id, ['account:read']));
    const send = await callTool(readOnly, 'feedback_report_send', {
      category: 'bug',
      message: 'x',
      idempotency_key: key(),
    });
    expect(structured(send).error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { code: 'insufficient_scope', scope: 'feedback:write' },
    });
    const writeOnly = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['feedback:write']),
    );
    const list = await callTool(writeOnly, 'feedback_report_list', {});
    expect(structured(list).error.code).toBe('INSUFFICIENT_SCOPE');
  });

  it('refuses an unknown category, an empty or too long message and long extras', async () => {
    const { user } = await seedUser(app);
    const client = await agent(user.id);
    const bad = [
      { category: 'complaint', message: 'x' },
      { category: 'bug', message: '   ' },
      { category: 'bug', message: 'x'.repeat(4001) },
      { category: 'bug', message: 'x', app_version: 'v'.repeat(41) },
      { category: 'bug', message: 'x', context: 'c'.repeat(1001) },
    ];
    for (const args of bad) {
      const res = await callTool(client, 'feedback_report_send', {
        ...args,
        idempotency_key: key(),
      });
      expect(res.isError, JSON.stringify(args).slice(0, 80)).toBe(true);
      expect(structured(res).error.code).toBe('VALIDATION_FAILED');
    }
    const ok = await callTool(client, 'feedback_report_send', {
      category: 'bug',
      message: 'x'.repeat(4000),
      idempotency_key: key(),
    });
    expect(ok.isError).toBeFalsy();
    expect(await app.db.prisma.feedbackReport.count({ where: { userId: user.id } })).toBe(1);
  });
});

describe('GraphQL createFeedbackReport and feedbackReports', () => {
  it("lists only the person's own reports, newest first, a page at a time", async () => {
    const me = await seedUser(app);
    const other = await seedUser(app);
    for (const message of ['one', 'two', 'three']) {
      const res = await gql(app, SEND, {
        token: me.token,
        variables: { input: { category: 'idea', message } },
      });
      expect(res.body.errors).toBeUndefined();
    }
    await gql(app, SEND, {
      token: other.token,
      variables: { input: { category: 'bug', message: 'not yours' } },
    });
    const first = await gql(app, LIST, { token: me.token, variables: { limit: 2 } });
    const page = first.body.data.feedbackReports;
    expect(page.items.map((r: any) => r.message)).toEqual(['three', 'two']);
    const next = await gql(app, LIST, {
      token: me.token,
      variables: { limit: 2, cursor: page.nextCursor },
    });
    expect(next.body.data.feedbackReports).toEqual({
      items: [expect.objectContaining({ message: 'one' })],
      nextCursor: null,
    });
    const bounds = await gql(app, LIST, { token: me.token, variables: { limit: 101 } });
    expect(bounds.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
    const bogus = await gql(app, LIST, { token: me.token, variables: { limit: 2, cursor: 'x' } });
    expect(bogus.body.errors[0].extensions.code).toBe('VALIDATION_FAILED');
  });

  it('lists the same reports as me { feedbackReports } in the dashboard graph', async () => {
    const me = await seedUser(app);
    for (const message of ['first', 'second', 'third']) {
      await gql(app, SEND, {
        token: me.token,
        variables: { input: { category: 'idea', message } },
      });
    }
    const query = `query($after: String) { me { feedbackReports(first: 2, after: $after) {
      nodes { message } pageInfo { hasNextPage endCursor } } } }`;
    const first = await gql(app, query, { token: me.token });
    const conn = first.body.data.me.feedbackReports;
    expect(conn.nodes.map((n: any) => n.message)).toEqual(['third', 'second']);
    expect(conn.pageInfo.hasNextPage).toBe(true);
    const next = await gql(app, query, {
      token: me.token,
      variables: { after: conn.pageInfo.endCursor },
    });
    expect(next.body.data.me.feedbackReports).toEqual({
      nodes: [{ message: 'first' }],
      pageInfo: { hasNextPage: false, endCursor: null },
    });
  });

  it('caps reports per person per day with 429 rate_limited', async () => {
    const me = await seedUser(app);
    const send = () =>
      gql(app, SEND, {
        token: me.token,
        variables: { input: { category: 'other', message: 'm' } },
      });
    for (let i = 0; i < 5; i += 1) expect((await send()).body.errors).toBeUndefined();
    const over = await send();
    expect(over.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      detail: { code: 'rate_limited' },
    });
    expect(await app.db.prisma.feedbackReport.count({ where: { userId: me.user.id } })).toBe(5);
  });

  it('answers 401-coded errors without a credential', async () => {
    const res = await gql(app, LIST, { variables: { limit: 2 } });
    expect(JSON.stringify(res.body.errors)).toContain('UNAUTHENTICATED');
  });
});
