/**
 * Community (issue 32): circles, visibility and nudges through the real stack, with three people
 * (ann, ben, cat), over MCP (the SDK client on personal tokens), REST (/api/v1/community) and
 * GraphQL. One test per documented rule (src/domains/community/README.md): invite codes, guessing
 * limits, caps, owner-only changes, leaving and hand-over, 404 for foreign ids, visibility and its
 * immediate effect, nudge limits and mutes, scopes and confirm; and a privacy test over the whole
 * JSON of every answer.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Scope } from '../../src/auth/scopes.ts';
import { localDateOf } from '../../src/platform/local-dates.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { seedGlucose, seedMeals, seedMetrics } from '../factories/insights.ts';
import { startTestApp } from '../harness/app.ts';
import { fromNewIp, gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const JOIN_FAILS_ACCOUNT = 3;
const JOIN_FAILS_IP = 5;
const app = await startTestApp({
  COMMUNITY_JOIN_FAILURES_PER_HOUR_PER_ACCOUNT: String(JOIN_FAILS_ACCOUNT),
  COMMUNITY_JOIN_FAILURES_PER_HOUR_PER_IP: String(JOIN_FAILS_IP),
});
const prisma = app.db.prisma;

const ALL: Scope[] = ['community:read', 'community:write', 'sharing:write'];
let seq = 0;
const key = (): string => `idem-community-${clock.ms()}-${++seq}`;

type Structured = Record<string, any>;
type ToolResult = { structuredContent?: unknown; isError?: boolean };
const sc = (result: ToolResult): Structured => {
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  return result.structuredContent as Structured;
};
const errorOf = (result: ToolResult) => {
  expect(result.isError, JSON.stringify(result.structuredContent)).toBe(true);
  return (result.structuredContent as Structured).error as {
    code: string;
    message: string;
    detail?: any;
    retry_after?: number;
  };
};

interface Person {
  id: number;
  token: string;
  client: Client;
  ip: Record<string, string>;
}

/** A person with a phone login and an MCP client (own client IP) for a token with `scopes`. */
async function person(name: string, scopes: Scope[] = ALL): Promise<Person> {
  const seeded = await seedUser(app, { name });
  const ip = fromNewIp();
  const pat = await seedPersonalToken(app, seeded.user.id, scopes);
  const client = await mcpClient(app, pat, { headers: ip });
  return { id: seeded.user.id, token: seeded.token, client, ip };
}

const create = async (p: Person, name = 'Morning walkers'): Promise<Structured> =>
  sc(
    await callTool(p.client, 'community_circle_create', {
      name,
      confirm: true,
      idempotency_key: key(),
    }),
  );
const join = (p: Person, code: string) =>
  callTool(p.client, 'community_circle_join', { code, confirm: true });
const view = (p: Person, circleId: string, userId: number, days = 7) =>
  callTool(p.client, 'community_member_full_view', { circle_id: circleId, user_id: userId, days });
const setShares = (p: Person, circleId: string, shares: string[]) =>
  callTool(p.client, 'community_circle_visibility_set', {
    circle_id: circleId,
    shares,
    confirm: true,
  });
const nudge = (p: Person, userId: number, kind = 'cheer', text?: string) =>
  callTool(p.client, 'community_nudge_send', {
    user_id: userId,
    kind,
    ...(text === undefined ? {} : { text }),
    confirm: true,
  });

/** ann's circle with ben and cat in it (joined in that order). */
async function threeInACircle() {
  const [ann, ben, cat] = [await person('Ann'), await person('Ben'), await person('Cat')];
  const circle = await create(ann);
  sc(await join(ben, circle.invite_code));
  sc(await join(cat, circle.invite_code));
  return { ann, ben, cat, circle, id: circle.id as string };
}

const MINE = [
  'community_circle_create',
  'community_circle_join',
  'community_circle_leave',
  'community_circle_read',
  'community_circle_rename',
  'community_circle_visibility_set',
  'community_circles_read',
  'community_invite_rotate',
  'community_member_full_view',
  'community_member_remove',
  'community_nudge_send',
  'community_nudges_mark_seen',
  'community_nudges_read',
];

describe('the community tools', () => {
  it('lists the thirteen tools with titles, distinct descriptions, bounds and confirm', async () => {
    const { client } = await person('Lister');
    const tools = (await client.listTools()).tools.filter((t) => MINE.includes(t.name));
    expect(tools.map((t) => t.name).sort()).toEqual(MINE);
    expect(new Set(tools.map((t) => t.title)).size).toBe(MINE.length);
    expect(new Set(tools.map((t) => t.description)).size).toBe(MINE.length);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of [
      'community_circle_create',
      'community_circle_join',
      'community_circle_visibility_set',
      'community_nudge_send',
      'community_circle_leave',
      'community_member_remove',
    ]) {
      expect(byName.get(name)!.inputSchema.required, name).toContain('confirm');
    }
    const props = (n: string) => byName.get(n)!.inputSchema.properties as Record<string, any>;
    expect(props('community_circle_create').name).toMatchObject({ maxLength: 60 });
    expect(props('community_member_full_view').days).toMatchObject({ minimum: 1, maximum: 31 });
    expect(props('community_nudge_send').text).toMatchObject({ maxLength: 140 });
    expect([...props('community_nudge_send').kind.enum].sort()).toEqual([
      'cheer',
      'congrats',
      'high_five',
      'keep_going',
      'lets_move',
    ]);
    expect(props('community_circle_visibility_set').shares.items.enum).toHaveLength(7);
    expect(byName.get('community_member_full_view')!.annotations?.readOnlyHint).toBe(true);
  });

  it('refuses shares and deletes tools without confirm: true', async () => {
    const { ann, id } = await threeInACircle();
    const unconfirmed = await callTool(ann.client, 'community_circle_create', {
      name: 'x',
      idempotency_key: key(),
    });
    expect(errorOf(unconfirmed).code).toBe('CONFIRMATION_REQUIRED');
    expect(
      errorOf(await callTool(ann.client, 'community_circle_leave', { circle_id: id })).code,
    ).toBe('CONFIRMATION_REQUIRED');
    expect(
      errorOf(
        await callTool(ann.client, 'community_circle_visibility_set', {
          circle_id: id,
          shares: [],
        }),
      ).code,
    ).toBe('CONFIRMATION_REQUIRED');
    expect(await prisma.communityMember.count({ where: { circleId: id } })).toBe(3);
  });

  it('needs community:write, and sharing:write as well to create, join or set visibility', async () => {
    const reader = await person('Reader', ['community:read']);
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toContain('community_circles_read');
    expect(names).not.toContain('community_nudge_send');
    expect(
      errorOf(
        await callTool(reader.client, 'community_nudge_send', {
          user_id: 1,
          kind: 'cheer',
          confirm: true,
        }),
      ),
    ).toMatchObject({ code: 'INSUFFICIENT_SCOPE', detail: { scope: 'community:write' } });

    const writer = await person('Writer', ['community:read', 'community:write']);
    const refused = await callTool(writer.client, 'community_circle_create', {
      name: 'No sharing',
      confirm: true,
      idempotency_key: key(),
    });
    expect(errorOf(refused)).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { scope: 'sharing:write' },
    });
    // the GraphQL field itself requires both (not only the MCP row)
    const pat = await seedPersonalToken(app, writer.id, ['community:read', 'community:write']);
    const res = await gql(app, 'mutation { createCircle(name: "x") { id } }', { token: pat });
    expect(res.body.errors[0].extensions).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { scope: 'sharing:write' },
    });
    expect(await prisma.communityMember.count({ where: { userId: writer.id } })).toBe(0);
  });
});

describe('circles', () => {
  it('creates with the creator as owner, answers a 12-character code once, stores only its hash', async () => {
    const ann = await person('Ann');
    const circle = await create(ann, '  Step sisters  ');
    expect(circle).toMatchObject({
      name: 'Step sisters',
      member_count: 1,
      is_owner: true,
      your_shares: [],
    });
    expect(circle.invite_code).toMatch(/^[A-HJ-NP-Z2-9]{12}$/);
    const row = await prisma.communityCircle.findUniqueOrThrow({ where: { id: circle.id } });
    expect(JSON.stringify(row)).not.toContain(circle.invite_code);
    expect(row.inviteCodeHash).toMatch(/^[0-9a-f]{64}$/);
    const read = sc(await callTool(ann.client, 'community_circle_read', { circle_id: circle.id }));
    expect(read.invite_code).toBeNull();
    expect(
      errorOf(
        await callTool(ann.client, 'community_circle_create', {
          name: '   ',
          confirm: true,
          idempotency_key: key(),
        }),
      ).code,
    ).toBe('VALIDATION_FAILED');
    expect(
      errorOf(
        await callTool(ann.client, 'community_circle_create', {
          name: 'x'.repeat(61),
          confirm: true,
          idempotency_key: key(),
        }),
      ).code,
    ).toBe('VALIDATION_FAILED');
  });

  it('joins with the code (any case, dashes), idempotently; a wrong code is a 404 saying so', async () => {
    const ann = await person('Ann');
    const ben = await person('Ben');
    const circle = await create(ann);
    const code = circle.invite_code as string;
    const spaced = `${code.slice(0, 4)}-${code.slice(4, 8)}-${code.slice(8)}`.toLowerCase();
    const joined = sc(await join(ben, spaced));
    expect(joined).toMatchObject({
      id: circle.id,
      member_count: 2,
      is_owner: false,
      invite_code: null,
    });
    expect(joined.members.map((m: any) => [m.name, m.is_owner, m.is_you])).toEqual([
      ['Ann', true, false],
      ['Ben', false, true],
    ]);
    expect(sc(await join(ben, code))).toMatchObject({ id: circle.id, member_count: 2 });
    const wrong = errorOf(await join(ben, 'ZZZZZZZZZZZZ'));
    expect(wrong.code).toBe('NOT_FOUND');
    expect(wrong.message).toMatch(/invite code/);
  });

  it('limits wrong codes per account: over the limit even the right code is 429', async () => {
    const ann = await person('Ann');
    const circle = await create(ann);
    const guesser = await person('Guesser');
    for (let i = 0; i < JOIN_FAILS_ACCOUNT; i++) {
      // each guess from another address: the account's own count stops it
      const client = await mcpClient(app, await seedPersonalToken(app, guesser.id, ALL), {
        headers: fromNewIp(),
      });
      expect(errorOf(await join({ ...guesser, client }, `WRONG${i}WRONG${i}`)).code).toBe(
        'NOT_FOUND',
      );
    }
    const limited = errorOf(await join(guesser, circle.invite_code));
    expect(limited.code).toBe('RATE_LIMITED');
    expect(limited.retry_after).toBeGreaterThan(0);
    expect(await prisma.communityMember.count({ where: { userId: guesser.id } })).toBe(0);
    // another account is not limited by this one's guesses
    const other = await person('Other');
    sc(await join(other, circle.invite_code));
  });

  it('limits wrong codes per client IP across accounts', async () => {
    const ann = await person('Ann');
    const circle = await create(ann);
    const ip = fromNewIp();
    const from = async (name: string): Promise<Person> => {
      const p = await person(name);
      return {
        ...p,
        client: await mcpClient(app, await seedPersonalToken(app, p.id, ALL), { headers: ip }),
      };
    };
    for (let i = 0; i < JOIN_FAILS_IP; i++) {
      const p = await from(`Guesser ${i}`); // a new account for each guess: under its own limit
      expect(errorOf(await join(p, `NOPE${i}NOPE${i}`)).code).toBe('NOT_FOUND');
    }
    const last = await from('Last');
    expect(errorOf(await join(last, circle.invite_code)).code).toBe('RATE_LIMITED');
    // the same account from another address joins
    const elsewhere = await mcpClient(app, await seedPersonalToken(app, last.id, ALL), {
      headers: fromNewIp(),
    });
    sc(await join({ ...last, client: elsewhere }, circle.invite_code));
  });

  it('rotation ends the old code at once and answers the new one to the owner only', async () => {
    const { ann, ben, id, circle } = await threeInACircle();
    expect(
      errorOf(await callTool(ben.client, 'community_invite_rotate', { circle_id: id })).code,
    ).toBe('FORBIDDEN');
    const rotated = sc(await callTool(ann.client, 'community_invite_rotate', { circle_id: id }));
    expect(rotated.invite_code).toMatch(/^[A-HJ-NP-Z2-9]{12}$/);
    expect(rotated.invite_code).not.toBe(circle.invite_code);
    const dan = await person('Dan');
    expect(errorOf(await join(dan, circle.invite_code)).code).toBe('NOT_FOUND');
    expect(sc(await join(dan, rotated.invite_code)).member_count).toBe(4);
  });

  it('lets only the owner rename and remove (403 for members); a removed member loses access at once', async () => {
    const { ann, ben, cat, id } = await threeInACircle();
    expect(
      errorOf(
        await callTool(ben.client, 'community_circle_rename', { circle_id: id, name: 'Mine' }),
      ).code,
    ).toBe('FORBIDDEN');
    expect(
      errorOf(
        await callTool(ben.client, 'community_member_remove', {
          circle_id: id,
          user_id: cat.id,
          confirm: true,
        }),
      ).code,
    ).toBe('FORBIDDEN');
    expect(
      sc(await callTool(ann.client, 'community_circle_rename', { circle_id: id, name: 'Renamed' }))
        .name,
    ).toBe('Renamed');
    sc(await setShares(cat, id, ['steps']));
    expect(sc(await view(ben, id, cat.id)).shared).toEqual(['steps']);
    const after = sc(
      await callTool(ann.client, 'community_member_remove', {
        circle_id: id,
        user_id: cat.id,
        confirm: true,
      }),
    );
    expect(after.member_count).toBe(2);
    expect(
      errorOf(await callTool(cat.client, 'community_circle_read', { circle_id: id })).code,
    ).toBe('NOT_FOUND');
    expect(errorOf(await view(cat, id, ben.id)).code).toBe('NOT_FOUND');
    expect(errorOf(await view(ben, id, cat.id)).code).toBe('NOT_FOUND');
    expect(
      errorOf(
        await callTool(ann.client, 'community_member_remove', {
          circle_id: id,
          user_id: cat.id,
          confirm: true,
        }),
      ).code,
    ).toBe('NOT_FOUND');
  });

  it('hands ownership to the longest-standing member when the owner leaves; the last leave ends the circle', async () => {
    const { ann, ben, cat, id } = await threeInACircle();
    const left = sc(
      await callTool(ann.client, 'community_circle_leave', { circle_id: id, confirm: true }),
    );
    expect(left).toEqual({ circle_id: id, circle_deleted: false, owner_user_id: ben.id });
    const read = sc(await callTool(ben.client, 'community_circle_read', { circle_id: id }));
    expect(read.is_owner).toBe(true);
    sc(await callTool(ben.client, 'community_circle_rename', { circle_id: id, name: 'Ben rules' }));
    expect(
      errorOf(await callTool(ann.client, 'community_circle_read', { circle_id: id })).code,
    ).toBe('NOT_FOUND');
    sc(await callTool(ben.client, 'community_circle_leave', { circle_id: id, confirm: true }));
    const last = sc(
      await callTool(cat.client, 'community_circle_leave', { circle_id: id, confirm: true }),
    );
    expect(last).toEqual({ circle_id: id, circle_deleted: true, owner_user_id: null });
    expect(await prisma.communityCircle.findUnique({ where: { id } })).toBeNull();
  });

  it("account deletion: the owner's circles pass on, a circle they were alone in ends", async () => {
    const { ann, ben, id } = await threeInACircle();
    const alone = (await create(ann, 'Just me')).id as string;
    expect((await rest(app, 'DELETE', '/api/auth/me', { token: ann.token })).status).toBe(200);
    expect(await prisma.communityCircle.findUnique({ where: { id: alone } })).toBeNull();
    const read = sc(await callTool(ben.client, 'community_circle_read', { circle_id: id }));
    expect(read.is_owner).toBe(true);
    expect(read.members.map((m: Structured) => m.user_id)).not.toContain(ann.id);
  });

  it('answers 404 (never 403) for a circle the caller is not in, over MCP and REST', async () => {
    const { id, ann } = await threeInACircle();
    const eve = await person('Eve');
    for (const [tool, args] of [
      ['community_circle_read', { circle_id: id }],
      ['community_circle_rename', { circle_id: id, name: 'x' }],
      ['community_invite_rotate', { circle_id: id }],
      ['community_circle_leave', { circle_id: id, confirm: true }],
      ['community_member_remove', { circle_id: id, user_id: ann.id, confirm: true }],
      ['community_circle_visibility_set', { circle_id: id, shares: ['steps'], confirm: true }],
      ['community_member_full_view', { circle_id: id, user_id: ann.id }],
    ] as const) {
      expect(errorOf(await callTool(eve.client, tool, args)).code, tool).toBe('NOT_FOUND');
    }
    expect(
      (await rest(app, 'GET', `/api/v1/community/circles/${id}`, { token: eve.token })).status,
    ).toBe(404);
    expect(
      (
        await rest(app, 'GET', `/api/v1/community/circles/${id}/members/${ann.id}`, {
          token: eve.token,
        })
      ).status,
    ).toBe(404);
    expect(
      (await rest(app, 'GET', '/api/v1/community/circles/no-such-circle', { token: ann.token }))
        .status,
    ).toBe(404);
  });

  it('caps a circle at 50 members (409 beyond) and a person at 20 circles (409 beyond)', async () => {
    const ann = await person('Ann');
    const circle = await create(ann);
    const users = await prisma.user.createManyAndReturn({
      data: Array.from({ length: 49 }, (_, i) => ({ email: `cap${i}.${clock.ms()}@example.com` })),
      select: { id: true },
    });
    await prisma.communityMember.createMany({
      data: users.map((u) => ({ circleId: circle.id, userId: u.id })),
    });
    const late = await person('Late');
    const full = errorOf(await join(late, circle.invite_code));
    expect(full).toMatchObject({ code: 'CONFLICT', detail: { code: 'circle_full', max: 50 } });

    const busy = await person('Busy');
    for (let i = 0; i < 20; i++) {
      await prisma.communityCircle.create({
        data: {
          name: `c${i}`,
          inviteCodeHash: `busy-${busy.id}-${i}`,
          members: { create: { userId: busy.id } },
        },
      });
    }
    const tooMany = await callTool(busy.client, 'community_circle_create', {
      name: 'One more',
      confirm: true,
      idempotency_key: key(),
    });
    expect(errorOf(tooMany)).toMatchObject({
      code: 'CONFLICT',
      detail: { code: 'too_many_circles' },
    });
    const small = await create(ann, 'Small');
    expect(errorOf(await join(busy, small.invite_code)).code).toBe('CONFLICT');
  });
});

describe('visibility and the member view', () => {
  it('shares nothing by default, exactly the chosen summaries once set, and narrowing or leaving applies on the next call', async () => {
    const { ann, ben, id } = await threeInACircle();
    await prisma.user.update({ where: { id: ben.id }, data: { timezone: 'Europe/Berlin' } });
    // the ten readings (at and the nine minutes before it) must fall on one Berlin day
    let at = new Date(clock.ms() - 5 * 60_000);
    if (
      localDateOf(new Date(at.getTime() - 9 * 60_000), 'Europe/Berlin') !==
      localDateOf(at, 'Europe/Berlin')
    ) {
      at = new Date(at.getTime() - 20 * 60_000);
    }
    const day = localDateOf(at, 'Europe/Berlin');
    await seedMetrics(app, ben.token, [
      { metric_type: 'steps', value: 1000, timestamp: at.toISOString(), source: 'Watch' },
      { metric_type: 'steps', value: 2500, timestamp: at.toISOString(), source: 'Phone' },
      { metric_type: 'active_energy', value: 300, timestamp: at.toISOString(), source: 'Watch' },
    ]);
    await seedGlucose(
      app,
      ben.token,
      Array.from({ length: 10 }, (_, i) => ({
        timestamp: new Date(at.getTime() - i * 60_000),
        valueMgDl: i < 8 ? 120 : 250,
      })),
    );
    const dayOf = (v: Structured) => v.days.find((d: any) => d.date === day);

    const hidden = sc(await view(ann, id, ben.id, 2));
    expect(hidden.shared).toEqual([]);
    expect(hidden.not_shared).toHaveLength(7);
    expect(Object.entries(dayOf(hidden)).filter(([k, v]) => k !== 'date' && v !== null)).toEqual(
      [],
    );

    sc(await setShares(ben, id, ['steps', 'activity_score', 'glucose_time_in_range']));
    const shown = sc(await view(ann, id, ben.id, 2));
    expect(shown.shared).toEqual(['steps', 'activity_score', 'glucose_time_in_range']);
    expect(shown.not_shared).toEqual([
      'active_energy',
      'exercise_minutes',
      'sleep_minutes',
      'sleep_score',
    ]);
    expect(dayOf(shown)).toMatchObject({
      steps: 2500, // the largest source, as the health summary counts it
      active_energy_kcal: null,
      glucose_time_in_range_pct: 80,
      sleep_score: null,
    });
    expect(dayOf(shown).activity_score).toBeGreaterThan(0);
    // the member sees what the circle sees of them
    expect(sc(await view(ben, id, ben.id, 2)).shared).toEqual(shown.shared);

    sc(await setShares(ben, id, ['activity_score']));
    const narrowed = sc(await view(ann, id, ben.id, 2));
    expect(dayOf(narrowed)).toMatchObject({ steps: null, glucose_time_in_range_pct: null });

    sc(await callTool(ben.client, 'community_circle_leave', { circle_id: id, confirm: true }));
    expect(errorOf(await view(ann, id, ben.id)).code).toBe('NOT_FOUND');
  });

  it('keeps visibility per circle: another circle of the same people sees only its own choice', async () => {
    const { ann, ben, id } = await threeInACircle();
    const other = await create(ann, 'Other');
    sc(await join(ben, other.invite_code));
    sc(await setShares(ben, id, ['steps']));
    expect(sc(await view(ann, other.id, ben.id)).shared).toEqual([]);
    expect(sc(await view(ann, id, ben.id)).shared).toEqual(['steps']);
  });

  it('bounds days (1..31) and answers 404 for a person not in the circle', async () => {
    const { ann, id } = await threeInACircle();
    const eve = await person('Eve');
    expect(errorOf(await view(ann, id, ann.id, 32)).code).toBe('VALIDATION_FAILED');
    expect(errorOf(await view(ann, id, ann.id, 0)).code).toBe('VALIDATION_FAILED');
    expect(sc(await view(ann, id, ann.id, 31)).days).toHaveLength(31);
    expect(errorOf(await view(ann, id, eve.id)).code).toBe('NOT_FOUND');
  });

  it('serves the REST read routes and the graph connections', async () => {
    const { ann, ben, id } = await threeInACircle();
    const circles = await rest(app, 'GET', '/api/v1/community/circles', { token: ann.token });
    expect(circles.status).toBe(200);
    expect(circles.body.map((c: any) => c.id)).toContain(id);
    const one = await rest(app, 'GET', `/api/v1/community/circles/${id}`, { token: ben.token });
    expect(one.body.members).toHaveLength(3);
    const member = await rest(
      app,
      'GET',
      `/api/v1/community/circles/${id}/members/${ben.id}?days=3`,
      {
        token: ann.token,
      },
    );
    expect(member.status).toBe(200);
    expect(member.body.days).toHaveLength(3);
    const bad = await rest(
      app,
      'GET',
      `/api/v1/community/circles/${id}/members/${ben.id}?days=40`,
      {
        token: ann.token,
      },
    );
    expect(bad.status).toBe(422);
    const graph = await gql(
      app,
      'query { me { circles(first: 5) { nodes { id memberCount } pageInfo { hasNextPage } } nudges { nodes { id } } } }',
      { token: ann.token },
    );
    expect(graph.body.errors).toBeUndefined();
    expect(graph.body.data.me.circles.nodes).toEqual([{ id, memberCount: 3 }]);
  });
});

describe('nudges', () => {
  it('sends to a circle-mate, stores and notifies; at most 3 a day to one person (429 with retry-after)', async () => {
    const { ann, ben, cat } = await threeInACircle();
    const first = sc(await nudge(ann, ben.id, 'high_five', 'Great walk!'));
    expect(first).toMatchObject({
      kind: 'high_five',
      text: 'Great walk!',
      recipient_user_id: ben.id,
      remaining_today: 2,
    });
    sc(await nudge(ann, ben.id));
    expect(sc(await nudge(ann, ben.id)).remaining_today).toBe(0);
    const fourth = errorOf(await nudge(ann, ben.id));
    expect(fourth).toMatchObject({ code: 'RATE_LIMITED', detail: { reason: 'nudges_per_day' } });
    expect(fourth.retry_after).toBeGreaterThan(0);
    expect(
      await prisma.communityNudge.count({ where: { senderId: ann.id, recipientId: ben.id } }),
    ).toBe(3);
    // per recipient: cat can still be nudged
    sc(await nudge(ann, cat.id));
    const inbox = await prisma.notification.findMany({
      where: { userId: ben.id, category: 'community' },
    });
    expect(inbox).toHaveLength(3);
    expect(inbox.map((n) => n.title)).toContain('Ann sent you a high five');
  });

  it('counts the limit in the table, across restarts of the count (a seeded nudge counts)', async () => {
    const { ann, ben } = await threeInACircle();
    await prisma.communityNudge.createMany({
      data: [0, 1, 2].map(() => ({ senderId: ann.id, recipientId: ben.id, kind: 'cheer' })),
    });
    expect(errorOf(await nudge(ann, ben.id)).code).toBe('RATE_LIMITED');
  });

  it('refuses a person who shares no circle (404) and bounds the text', async () => {
    const { ann } = await threeInACircle();
    const eve = await person('Eve');
    expect(errorOf(await nudge(ann, eve.id)).code).toBe('NOT_FOUND');
    expect(errorOf(await nudge(ann, ann.id)).code).toBe('NOT_FOUND');
    expect(errorOf(await nudge(ann, 999_999)).code).toBe('NOT_FOUND');
    expect(errorOf(await nudge(ann, eve.id, 'cheer', 'x'.repeat(141))).code).toBe(
      'VALIDATION_FAILED',
    );
    expect(errorOf(await nudge(ann, eve.id, 'poke')).code).toBe('VALIDATION_FAILED');
  });

  it("mutes: a muted sender's nudges are neither stored nor delivered, and the sender is not told", async () => {
    const { ann, ben } = await threeInACircle();
    const muted = await rest(app, 'POST', `/api/v1/community/mutes/${ann.id}`, {
      token: ben.token,
    });
    expect(muted.status).toBe(200);
    expect(muted.body).toEqual({ user_id: ann.id, muted: true });
    const before = await prisma.notification.count({ where: { userId: ben.id } });
    const sent = sc(await nudge(ann, ben.id, 'cheer', 'hello?'));
    expect(sent).toMatchObject({ kind: 'cheer', recipient_user_id: ben.id, remaining_today: 2 });
    expect(await prisma.communityNudge.count({ where: { recipientId: ben.id } })).toBe(0);
    expect(await prisma.notification.count({ where: { userId: ben.id } })).toBe(before);
    const circle = sc(
      await callTool(ben.client, 'community_circle_read', {
        circle_id: sc(await callTool(ben.client, 'community_circles_read', {})).items[0].id,
      }),
    );
    expect(circle.members.find((m: any) => m.user_id === ann.id).muted_by_you).toBe(true);
    const unmuted = await rest(app, 'DELETE', `/api/v1/community/mutes/${ann.id}`, {
      token: ben.token,
    });
    expect(unmuted.body).toEqual({ user_id: ann.id, muted: false });
    sc(await nudge(ann, ben.id));
    expect(await prisma.communityNudge.count({ where: { recipientId: ben.id } })).toBe(1);
    const eve = await person('Eve');
    expect(
      (await rest(app, 'POST', `/api/v1/community/mutes/${eve.id}`, { token: ben.token })).status,
    ).toBe(404);
    // GraphQL mutation too
    const g = await gql(app, `mutation { muteCommunityMember(userId: ${ann.id}) { muted } }`, {
      token: ben.token,
    });
    expect(g.body.data.muteCommunityMember.muted).toBe(true);
  });

  it('reads received nudges newest first with an unread filter, and marks them seen (own ids only)', async () => {
    const { ann, ben, cat } = await threeInACircle();
    sc(await nudge(ann, ben.id, 'cheer', 'one'));
    sc(await nudge(cat, ben.id, 'congrats', 'two'));
    sc(await nudge(ben, ann.id, 'lets_move'));
    const all = sc(await callTool(ben.client, 'community_nudges_read', {})).items;
    expect(all.map((n: any) => n.text)).toEqual(['two', 'one']);
    expect(all[0]).toMatchObject({ sender_user_id: cat.id, sender_name: 'Cat', seen_at: null });
    const annNudge = (
      await prisma.communityNudge.findFirstOrThrow({ where: { recipientId: ann.id } })
    ).id;
    const foreign = await callTool(ben.client, 'community_nudges_mark_seen', {
      ids: [all[0].id, annNudge],
    });
    expect(errorOf(foreign).code).toBe('NOT_FOUND');
    expect(
      sc(await callTool(ben.client, 'community_nudges_mark_seen', { ids: [all[0].id] })),
    ).toEqual({ marked: 1 });
    const unread = sc(
      await callTool(ben.client, 'community_nudges_read', { unread_only: true }),
    ).items;
    expect(unread.map((n: any) => n.text)).toEqual(['one']);
    expect(sc(await callTool(ben.client, 'community_nudges_mark_seen', {}))).toEqual({ marked: 1 });
    const page = sc(
      await callTool(ben.client, 'community_nudges_read', { limit: 1, offset: 1 }),
    ).items;
    expect(page.map((n: any) => n.text)).toEqual(['one']);
    const rested = await rest(app, 'GET', '/api/v1/community/nudges?unread_only=true', {
      token: ben.token,
    });
    expect(rested.body).toEqual([]);
    const graph = await gql(
      app,
      'query { me { nudges(first: 1) { nodes { text } pageInfo { hasNextPage endCursor } } } }',
      {
        token: ben.token,
      },
    );
    expect(graph.body.data.me.nudges.nodes).toEqual([{ text: 'two' }]);
    const next = await gql(
      app,
      'query($a: String) { me { nudges(first: 1, after: $a) { nodes { text } pageInfo { hasNextPage } } } }',
      {
        token: ben.token,
        variables: { a: graph.body.data.me.nudges.pageInfo.endCursor },
      },
    );
    expect(next.body.data.me.nudges).toEqual({
      nodes: [{ text: 'one' }],
      pageInfo: { hasNextPage: false },
    });
  });
});

/** Every key of a JSON value, at any depth. */
function keysOf(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) keysOf(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      keysOf(v, out);
    }
  return out;
}

describe('privacy (issue 32)', () => {
  it('exposes no DNA, genome, raw glucose, meal or lab field for a member sharing everything, over REST, GraphQL and MCP', async () => {
    const { ann, ben, id } = await threeInACircle();
    const every = [
      'steps',
      'active_energy',
      'exercise_minutes',
      'sleep_minutes',
      'activity_score',
      'sleep_score',
      'glucose_time_in_range',
    ];
    sc(await setShares(ben, id, every));
    const now = clock.ms();
    await seedGlucose(
      app,
      ben.token,
      Array.from({ length: 20 }, (_, i) => ({
        timestamp: new Date(now - i * 300_000),
        valueMgDl: 90 + i,
      })),
    );
    await seedMeals(app, ben.id, [{ eatenAt: new Date(now - 3_600_000), kcal: 600, carbsG: 80 }]);
    const answers: unknown[] = [];
    for (const [tool, args] of [
      ['community_member_full_view', { circle_id: id, user_id: ben.id, days: 31 }],
      ['community_circle_read', { circle_id: id }],
      ['community_circles_read', {}],
      ['community_nudges_read', {}],
    ] as const) {
      answers.push(sc(await callTool(ann.client, tool, args)));
    }
    for (const path of [
      `/api/v1/community/circles/${id}/members/${ben.id}?days=31`,
      `/api/v1/community/circles/${id}`,
      '/api/v1/community/circles',
    ]) {
      const res = await rest(app, 'GET', path, { token: ann.token });
      expect(res.status).toBe(200);
      answers.push(res.body);
    }
    const graph = await gql(
      app,
      `query($c: String!, $u: Int!) {
        communityMemberView(circleId: $c, userId: $u, days: 31) { days { date steps activeEnergyKcal exerciseMinutes sleepMinutes activityScore sleepScore glucoseTimeInRangePct } shared notShared name }
        me { circles { nodes { members { userId name shares } } } }
      }`,
      { token: ann.token, variables: { c: id, u: ben.id } },
    );
    expect(graph.body.errors).toBeUndefined();
    answers.push(graph.body.data);
    // every share is on: the values are there (the check below is not vacuous)
    expect((answers[0] as Structured).shared).toEqual(every);
    expect(
      (answers[0] as Structured).days.some((d: any) => d.glucose_time_in_range_pct !== null),
    ).toBe(true);
    const keys = new Set(answers.flatMap((a) => keysOf(a)));
    const forbidden = [...keys].filter((k) =>
      /dna|genom|genotyp|variant|snp|mg_?dl|reading|meal|carb|kcal_in|lab|email|glucose_(value|points|series)|value$/i.test(
        k,
      ),
    );
    expect(forbidden).toEqual([]);
    const text = JSON.stringify(answers);
    expect(text).not.toMatch(/@example\.com/);
  });
});
