/**
 * Challenges (issue 32): the 8 challenges tools and community_challenge_set / _end through the MCP
 * SDK client, and the /api/v1/challenges read routes, with three people who share a circle (made
 * directly in the database). Each rule of src/domains/challenges/README.md has a test here that
 * fails when the rule breaks.
 */
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { CIRCLE_SHARES } from '../../src/domains/community/community.rules.ts';
import { localDateOf } from '../../src/platform/local-dates.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { dateOf, dayAt, rand, seedMetric } from './goals.helpers.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const db = app.db.prisma;
const ALL = ['community:read', 'community:write'];

async function person(name: string, timezone = 'UTC', scopes: string[] = ALL) {
  const u = await seedUser(app, { name });
  await db.user.update({ where: { id: u.user.id }, data: { timezone } });
  const pat = await seedPersonalToken(app, u.user.id, scopes as any);
  return { id: u.user.id, token: u.token, pat, client: await mcpClient(app, pat) };
}
type Person = Awaited<ReturnType<typeof person>>;

/**
 * A circle with these members, the first the owner (the longest-standing), each sharing every
 * summary with it unless `shares` says otherwise (issue 47: points follow what is shared).
 */
async function circle(...members: Person[]): Promise<string> {
  return circleSharing(members, [...CIRCLE_SHARES]);
}
async function circleSharing(members: Person[], shares: string[] | Map<Person, string[]>) {
  const id = rand();
  await db.communityCircle.create({
    data: { id, name: `circle ${id}`, inviteCodeHash: randomBytes(16).toString('hex') },
  });
  for (const [i, m] of members.entries())
    await join(id, m, i, Array.isArray(shares) ? shares : (shares.get(m) ?? []));
  return id;
}
const join = (circleId: string, p: Person, minutes = 10, shares: string[] = [...CIRCLE_SHARES]) =>
  db.communityMember.create({
    data: {
      circleId,
      userId: p.id,
      shares,
      joinedAt: new Date(Date.UTC(2026, 0, 1, 0, minutes)),
    },
  });

/** Three friends: A (UTC), B (Tokyo), C (Los Angeles), sharing one circle owned by A. */
async function trio() {
  const a = await person('Ana');
  const b = await person('Bo', 'Asia/Tokyo');
  const c = await person('Cy', 'America/Los_Angeles');
  const circleId = await circle(a, b, c);
  return { a, b, c, circleId };
}

const sc = (r: any): any => r.structuredContent;
const errorOf = (r: any): any => (r.isError ? sc(r).error : undefined);

async function create(p: Person, args: Record<string, unknown>) {
  return callTool(p.client, 'challenges_challenge_create', {
    title: 'Step week',
    metric: 'steps',
    days: 2,
    confirm: true,
    idempotency_key: rand(),
    ...args,
  });
}
async function created(p: Person, args: Record<string, unknown>): Promise<string> {
  const r = await create(p, args);
  expect(errorOf(r)).toBeUndefined();
  return sc(r).challenge.id;
}
const read = async (p: Person, id: string) =>
  sc(await callTool(p.client, 'challenge_read', { challenge_id: id }));
/** Moves a challenge so that it started `daysAgo` days ago (UTC dates). */
const startedDaysAgo = (id: string, daysAgo: number) =>
  db.challenge.update({ where: { id }, data: { startDate: dateOf(-daysAgo) } });
const standingOf = (detail: any, userId: number) =>
  detail.standings.find((s: any) => s.user_id === userId);

describe('a friends challenge from invitation to winner', () => {
  it("scores goal_percent with the 200-a-day cap in each person's zone, marks typed days, names the winner", async () => {
    const { a, b, c } = await trio();
    // B's own daily goal (5,000) is fixed when B accepts; A has none: the default 10,000
    await db.goal.create({
      data: { id: rand(), userId: b.id, metric: 'steps', target: 5000, period: 'day' },
    });
    const id = await created(a, { invitees: [b.id, c.id] });
    const accepted = await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    expect(errorOf(accepted)).toBeUndefined();
    expect(sc(accepted).challenge.your_status).toBe('accepted');
    // a goal changed after accepting changes nothing
    await db.goal.updateMany({ where: { userId: b.id }, data: { target: 100 } });
    expect(
      errorOf(await callTool(c.client, 'challenges_challenge_decline', { challenge_id: id })),
    ).toBeUndefined();
    await startedDaysAgo(id, 3); // days: today-3 and today-2
    // A (UTC): 15,000 -> 150; 30,000 -> 300 capped at 200; a smaller typed source is not the day's figure
    await seedMetric(app, a.id, 'steps', 15_000, dayAt(-3, 12));
    await seedMetric(app, a.id, 'steps', 30_000, dayAt(-2, 12));
    await seedMetric(app, a.id, 'steps', 5_000, dayAt(-2, 13), 'manual');
    // B (Tokyo, goal 5,000): 10:00Z is 19:00 of today-3 in Tokyo -> 6,000 = 120;
    // 16:00Z is 01:00 of today-2 in Tokyo -> 7,500 typed = 150; today-2 16:00Z is today-1 in Tokyo: not counted
    await seedMetric(app, b.id, 'steps', 6_000, dayAt(-3, 10));
    await seedMetric(app, b.id, 'steps', 7_500, dayAt(-3, 16), 'manual');
    await seedMetric(app, b.id, 'steps', 9_000, dayAt(-2, 16));
    const detail = await read(a, id);
    expect(detail.challenge.status).toBe('finished');
    expect(standingOf(detail, a.id)).toMatchObject({
      points: 350,
      rank: 1,
      winner: true,
      days_counted: 2,
      typed_days: 0,
      goal_target: 10_000,
    });
    expect(standingOf(detail, b.id)).toMatchObject({
      points: 270,
      rank: 2,
      winner: false,
      days_counted: 2,
      typed_days: 1,
      goal_target: 5000,
    });
    expect(standingOf(detail, c.id)).toBeUndefined();
    expect(detail.participants.map((p: any) => [p.name, p.status])).toEqual([
      ['Ana', 'accepted'],
      ['Bo', 'accepted'],
      ['Cy', 'declined'],
    ]);
    // REST answers the same standings, to every participant
    const viaRest = await rest(app, 'GET', `/api/v1/challenges/${id}`, { token: b.pat });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.standings).toEqual(detail.standings);
    const list = await rest(app, 'GET', '/api/v1/challenges', { token: c.pat });
    expect(list.body.map((x: any) => [x.id, x.your_status])).toContainEqual([id, 'declined']);
  });

  it('is running until the last local day has ended for every participant', async () => {
    const { a, c } = await trio();
    const id = await created(a, { invitees: [c.id], days: 1 });
    await callTool(c.client, 'challenges_challenge_accept', { challenge_id: id });
    // the only day is yesterday (UTC): over in UTC, but not in Los Angeles until 07:00/08:00Z today
    await startedDaysAgo(id, 1);
    const laHasLeftIt = localDateOf(clock.now(), 'America/Los_Angeles') === dateOf(0);
    const detail = await read(a, id);
    expect(detail.challenge.status).toBe(laHasLeftIt ? 'finished' : 'running');
    await startedDaysAgo(id, 2);
    expect((await read(a, id)).challenge.status).toBe('finished');
  });

  it('scores "most in total" and lets a tie share the win', async () => {
    const { a, b } = await trio();
    const id = await created(a, { invitees: [b.id], scoring: 'total', metric: 'active_energy' });
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    await startedDaysAgo(id, 4);
    await seedMetric(app, a.id, 'active_energy', 400, dayAt(-4, 12));
    await seedMetric(app, a.id, 'active_energy', 2_000, dayAt(-3, 12));
    await seedMetric(app, b.id, 'active_energy', 1_200, dayAt(-4, 3));
    await seedMetric(app, b.id, 'active_energy', 1_200, dayAt(-3, 3));
    const detail = await read(b, id);
    expect(detail.challenge.scoring).toBe('total');
    expect(detail.standings.map((s: any) => [s.points, s.rank, s.winner])).toEqual([
      [2400, 1, true],
      [2400, 1, true],
    ]);
  });

  it("cuts a half-hour zone's days exactly: two samples of one UTC hour count on two Kolkata days", async () => {
    const a = await person('Ana');
    const k = await person('Kiran', 'Asia/Kolkata');
    await circle(a, k);
    const id = await created(a, { invitees: [k.id], scoring: 'total', days: 1 });
    await callTool(k.client, 'challenges_challenge_accept', { challenge_id: id });
    await startedDaysAgo(id, 2);
    // Kolkata is UTC+05:30: the challenge's day ends at 18:30Z; 23:50 counts, 00:10 the next day not
    const end = dayAt(-1, -5.5).getTime();
    await seedMetric(app, k.id, 'steps', 500, new Date(end - 10 * 60_000));
    await seedMetric(app, k.id, 'steps', 700, new Date(end + 10 * 60_000));
    expect(standingOf(await read(a, id), k.id)).toMatchObject({ points: 500, days_counted: 1 });
  });

  it('refuses total scoring of a percentage, a habit scored otherwise, 32 days and a start past 30 days', async () => {
    const { a, b } = await trio();
    for (const args of [
      { metric: 'glucose_time_in_range', scoring: 'total' },
      { metric: 'habit', habit: 'read', scoring: 'goal_percent' },
      { metric: 'steps', scoring: 'checkins' },
      { metric: 'habit' },
      { days: 32 },
      { days: 0 },
      { start_date: dateOf(31) },
      { start_date: dateOf(-2) },
      { invitees: [] },
      { invitees: Array.from({ length: 21 }, (_, i) => i + 1) },
      { invitees: [a.id] },
    ]) {
      const r = await create(a, { invitees: [b.id], ...args });
      expect([JSON.stringify(args), errorOf(r)?.code]).toEqual([
        JSON.stringify(args),
        'VALIDATION_FAILED',
      ]);
    }
    expect(await db.challenge.count({ where: { creatorId: a.id } })).toBe(0);
  });

  it('starts tomorrow by default', async () => {
    const { a, b } = await trio();
    const id = await created(a, { invitees: [b.id] });
    expect((await read(a, id)).challenge).toMatchObject({
      start_date: dateOf(1),
      status: 'upcoming',
    });
  });
});

describe('no data (issue 47)', () => {
  it.each([
    ['goal_percent', 'steps', 12_000, 120],
    ['total', 'steps', 12_000, 12_000],
  ] as const)(
    'scores 0 points under %s: the person who walked wins',
    async (scoring, metric, v, points) => {
      const { a, b, c } = await trio();
      const id = await created(a, { invitees: [b.id, c.id], scoring, metric, days: 1 });
      for (const p of [b, c])
        await callTool(p.client, 'challenges_challenge_accept', { challenge_id: id });
      await startedDaysAgo(id, 2);
      await seedMetric(app, a.id, metric, v, dayAt(-2, 12));
      const detail = await read(a, id);
      expect(standingOf(detail, a.id)).toMatchObject({ points, rank: 1, winner: true });
      for (const p of [b, c]) {
        expect(standingOf(detail, p.id)).toMatchObject({ points: 0, rank: 2, winner: false });
      }
    },
  );

  it('scores 0 points for a habit without a check-in', async () => {
    const { a, b } = await trio();
    const id = await created(a, {
      invitees: [b.id],
      metric: 'habit',
      habit: 'a walk',
      start_date: dateOf(0),
      days: 2,
    });
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    await startedDaysAgo(id, 1);
    await callTool(a.client, 'challenges_challenge_checkin', { challenge_id: id });
    const detail = await read(a, id);
    expect(standingOf(detail, a.id)).toMatchObject({ points: 1, rank: 1 });
    expect(standingOf(detail, b.id)).toMatchObject({ points: 0, rank: 2 });
  });
});

describe('the other metrics', () => {
  it("count exercise minutes, asleep minutes and glucose time in range by their domains' rules", async () => {
    const { a, b } = await trio();
    const make = async (metric: string) => {
      const id = await created(a, { invitees: [b.id], metric });
      await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
      await startedDaysAgo(id, 3);
      return id;
    };
    const [exercise, sleep, glucose] = [
      await make('exercise_minutes'),
      await make('sleep_minutes'),
      await make('glucose_time_in_range'),
    ];
    const workout = (minutes: number, at: Date, source = 'watch') =>
      db.workoutSample.create({
        data: {
          id: rand(),
          userId: a.id,
          activityType: 'running',
          startAt: at,
          endAt: new Date(at.getTime() + minutes * 60_000),
          durationMinutes: minutes,
          source,
        },
      });
    await workout(45, dayAt(-3, 10)); // 45 of 30 -> 150
    await workout(15, dayAt(-2, 10), 'manual'); // 15 of 30 -> 50, typed
    const sleepSample = (stage: string, from: Date, to: Date) =>
      db.sleepSample.create({
        data: { id: rand(), userId: a.id, stage, startAt: from, endAt: to, source: 'watch' },
      });
    await sleepSample('asleep', dayAt(-4, 23), dayAt(-3, 7)); // the night ending on day 1: 480 of 480 -> 100
    await sleepSample('core', dayAt(-3, 1), dayAt(-3, 3)); // inside it: counted once
    await sleepSample('in_bed', dayAt(-4, 22), dayAt(-3, 8)); // not asleep
    for (const [v, h, source] of [
      [100, 1, 'cgm'],
      [120, 2, 'cgm'],
      [150, 3, 'manual'],
      [250, 4, 'cgm'],
    ] as const)
      await db.glucoseReading.create({
        data: { id: rand(), userId: a.id, valueMgDl: v, timestamp: dayAt(-3, h), source },
      });
    expect(standingOf(await read(a, exercise), a.id)).toMatchObject({
      points: 200,
      days_counted: 2,
      typed_days: 1,
    });
    expect(standingOf(await read(a, sleep), a.id)).toMatchObject({
      points: 100,
      days_counted: 1,
      typed_days: 0,
    });
    // 3 of 4 readings in range: 75 % of the default 70 % goal -> 107 points, the manual reading marks the day
    expect(standingOf(await read(a, glucose), a.id)).toMatchObject({
      points: 107,
      days_counted: 1,
      typed_days: 1,
    });
  });
});

describe('invitations', () => {
  it('expire 48 hours after the invitation: read as expired, accept answers 409', async () => {
    const { a, b } = await trio();
    const id = await created(a, { invitees: [b.id] });
    expect((await read(b, id)).challenge).toMatchObject({ your_status: 'invited' });
    await db.challengeParticipant.update({
      where: { challengeId_userId: { challengeId: id, userId: b.id } },
      data: { invitedAt: new Date(clock.ms() - 48 * 3_600_000 - 1000) },
    });
    expect((await read(b, id)).challenge.your_status).toBe('expired');
    const late = await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    expect(errorOf(late)).toMatchObject({
      code: 'CONFLICT',
      detail: { code: 'invitation_expired' },
    });
  });

  it('are accepted or declined only by the invitee; a declined one is not accepted later', async () => {
    const { a, b, c } = await trio();
    const id = await created(a, { invitees: [b.id] });
    // C is a friend of A but not invited: no part in it
    const foreign = await callTool(c.client, 'challenges_challenge_accept', { challenge_id: id });
    expect(errorOf(foreign)?.code).toBe('NOT_FOUND');
    const creatorDecline = await callTool(a.client, 'challenges_challenge_decline', {
      challenge_id: id,
    });
    expect(errorOf(creatorDecline)?.code).toBe('CONFLICT');
    await callTool(b.client, 'challenges_challenge_decline', { challenge_id: id });
    const again = await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    expect(errorOf(again)?.detail?.code).toBe('invitation_declined');
  });

  it('reach the invitee as a community notification', async () => {
    const { a, b } = await trio();
    await created(a, { invitees: [b.id], title: 'Ten thousand' });
    const items = await db.notification.findMany({ where: { userId: b.id } });
    expect(items.map((n) => [n.category, n.title])).toEqual([
      ['community', 'Challenge invitation'],
    ]);
    expect(items[0].body).toContain('Ten thousand');
  });

  it('go only to friends: a non-friend answers 404 for that id and nothing is created', async () => {
    const { a, b } = await trio();
    const stranger = await person('Dee');
    const r = await create(a, { invitees: [b.id, stranger.id] });
    expect(errorOf(r)).toMatchObject({
      code: 'NOT_FOUND',
      detail: { code: 'not_a_friend', user_id: stranger.id },
    });
    expect(await db.challenge.count({ where: { creatorId: a.id } })).toBe(0);
  });
});

describe('cancel', () => {
  it('is for the creator only (403 for others) and stops the challenge', async () => {
    const { a, b } = await trio();
    const id = await created(a, { invitees: [b.id] });
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    const byB = await callTool(b.client, 'challenges_challenge_cancel', { challenge_id: id });
    expect(errorOf(byB)?.code).toBe('FORBIDDEN');
    const byA = await callTool(a.client, 'challenges_challenge_cancel', { challenge_id: id });
    expect(sc(byA).challenge.status).toBe('cancelled');
    expect(
      errorOf(await callTool(a.client, 'challenges_challenge_cancel', { challenge_id: id })),
    ).toBeUndefined();
    expect(sc(byA).standings.every((s: any) => !s.winner)).toBe(true);
  });

  it('is refused once the challenge has finished (409)', async () => {
    const { a, b } = await trio();
    const id = await created(a, { invitees: [b.id] });
    await startedDaysAgo(id, 5);
    const r = await callTool(a.client, 'challenges_challenge_cancel', { challenge_id: id });
    expect(errorOf(r)?.code).toBe('CONFLICT');
  });
});

describe('a foreign challenge id', () => {
  it('answers 404 through MCP and REST, the same as an unknown id', async () => {
    const { a, b } = await trio();
    const id = await created(a, { invitees: [b.id] });
    const stranger = await person('Eve');
    for (const cid of [id, 'no-such-challenge']) {
      const r = await callTool(stranger.client, 'challenge_read', { challenge_id: cid });
      expect(errorOf(r)?.code).toBe('NOT_FOUND');
      const viaRest = await rest(app, 'GET', `/api/v1/challenges/${cid}`, { token: stranger.pat });
      expect(viaRest.status).toBe(404);
      const cancel = await callTool(stranger.client, 'challenges_challenge_cancel', {
        challenge_id: cid,
      });
      expect(errorOf(cancel)?.code).toBe('NOT_FOUND');
    }
  });
});

describe('habit check-ins', () => {
  it('count one self-reported point per day, idempotent, within the challenge and not in the future', async () => {
    const { a, b } = await trio();
    const id = await created(a, {
      invitees: [b.id],
      metric: 'habit',
      habit: '20 minutes of reading',
      start_date: dateOf(0),
      days: 3,
    });
    const early = await callTool(b.client, 'challenges_challenge_checkin', { challenge_id: id });
    expect(errorOf(early)?.detail?.code).toBe('not_taking_part');
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    await startedDaysAgo(id, 1);
    await callTool(a.client, 'challenges_challenge_checkin', { challenge_id: id });
    const twice = await callTool(a.client, 'challenges_challenge_checkin', { challenge_id: id });
    await callTool(a.client, 'challenges_challenge_checkin', {
      challenge_id: id,
      date: dateOf(-1),
    });
    await callTool(b.client, 'challenges_challenge_checkin', { challenge_id: id });
    expect(standingOf(sc(twice), a.id)).toMatchObject({ points: 1, self_reported: true });
    const detail = await read(a, id);
    expect(detail.challenge.self_reported).toBe(true);
    expect(standingOf(detail, a.id)).toMatchObject({ points: 2, rank: 1, self_reported: true });
    expect(standingOf(detail, b.id)).toMatchObject({ points: 1, rank: 2 });
    for (const date of [dateOf(1), dateOf(-2)]) {
      const r = await callTool(a.client, 'challenges_challenge_checkin', {
        challenge_id: id,
        date,
      });
      expect(errorOf(r)?.code).toBe('VALIDATION_FAILED');
    }
    expect(await db.challengeCheckin.count({ where: { challengeId: id } })).toBe(3);
  });

  it('are refused for a challenge that is not a habit (409)', async () => {
    const { a, b } = await trio();
    const id = await created(a, { invitees: [b.id], start_date: dateOf(0) });
    const r = await callTool(a.client, 'challenges_challenge_checkin', { challenge_id: id });
    expect(errorOf(r)?.detail?.code).toBe('not_a_habit');
  });
});

describe("a circle's challenge", () => {
  it('is set and ended by the owner only, one running per circle, with every current member', async () => {
    const { a, b, c, circleId } = await trio();
    const args = { circle_id: circleId, title: 'Circle steps', metric: 'steps', days: 7 };
    const byB = await callTool(b.client, 'community_challenge_set', args);
    expect(errorOf(byB)?.code).toBe('FORBIDDEN');
    const stranger = await person('Fay');
    expect(errorOf(await callTool(stranger.client, 'community_challenge_set', args))?.code).toBe(
      'NOT_FOUND',
    );
    const set = await callTool(a.client, 'community_challenge_set', args);
    expect(errorOf(set)).toBeUndefined();
    const id = sc(set).challenge.id;
    expect(sc(set).challenge.kind).toBe('circle');
    // the owner takes part; the others are invited (issue 47) and take part once they accept
    expect(sc(set).standings.map((s: any) => s.user_id)).toEqual([a.id]);
    for (const p of [b, c]) {
      const accepted = await callTool(p.client, 'challenges_challenge_accept', {
        challenge_id: id,
      });
      expect(errorOf(accepted)).toBeUndefined();
    }
    expect((await read(a, id)).standings.map((s: any) => s.user_id).sort()).toEqual(
      [a.id, b.id, c.id].sort(),
    );
    const second = await callTool(a.client, 'community_challenge_set', args);
    expect(errorOf(second)).toMatchObject({ code: 'CONFLICT', detail: { challenge_id: id } });
    // C leaves: gone from the standings on the next read; D joins: invited, takes part on accepting
    await db.communityMember.delete({ where: { circleId_userId: { circleId, userId: c.id } } });
    const d = await person('Dan');
    await join(circleId, d, 50);
    const after = await read(b, id);
    expect(after.standings.map((s: any) => s.user_id).sort()).toEqual([a.id, b.id].sort());
    expect((await read(d, id)).challenge.your_status).toBe('invited');
    await callTool(d.client, 'challenges_challenge_accept', { challenge_id: id });
    const joined = await read(b, id);
    expect(joined.standings.map((s: any) => s.user_id).sort()).toEqual([a.id, b.id, d.id].sort());
    expect(standingOf(joined, d.id).goal_target).toBe(10_000);
    expect(errorOf(await callTool(c.client, 'challenge_read', { challenge_id: id }))?.code).toBe(
      'NOT_FOUND',
    );
    // the newcomer sees it in their list
    const listed = await rest(app, 'GET', '/api/v1/challenges', { token: d.pat });
    expect(listed.body.map((x: any) => x.id)).toContain(id);
    // end: confirm required, owner only, then a new one may be set
    const unconfirmed = await callTool(a.client, 'community_challenge_end', {
      circle_id: circleId,
    });
    expect(errorOf(unconfirmed)?.code).toBe('CONFIRMATION_REQUIRED');
    const endByB = await callTool(b.client, 'community_challenge_end', {
      circle_id: circleId,
      confirm: true,
    });
    expect(errorOf(endByB)?.code).toBe('FORBIDDEN');
    const ended = await callTool(a.client, 'community_challenge_end', {
      circle_id: circleId,
      confirm: true,
    });
    expect(sc(ended).challenge).toMatchObject({ id, status: 'ended' });
    const none = await callTool(a.client, 'community_challenge_end', {
      circle_id: circleId,
      confirm: true,
    });
    expect(errorOf(none)?.code).toBe('NOT_FOUND');
    expect(errorOf(await callTool(a.client, 'community_challenge_set', args))).toBeUndefined();
  });

  it('is declined like an invitation, but never cancelled (409: the owner ends it)', async () => {
    const { a, b, circleId } = await trio();
    const set = await callTool(a.client, 'community_challenge_set', {
      circle_id: circleId,
      title: 'Sleep',
      metric: 'sleep_minutes',
      days: 3,
    });
    const id = sc(set).challenge.id;
    const declined = await callTool(b.client, 'challenges_challenge_decline', { challenge_id: id });
    expect(sc(declined).challenge.your_status).toBe('declined');
    expect(standingOf(sc(declined), b.id)).toBeUndefined();
    expect(
      errorOf(await callTool(a.client, 'challenges_challenge_decline', { challenge_id: id }))
        ?.detail?.code,
    ).toBe('already_accepted');
    expect(
      errorOf(await callTool(a.client, 'challenges_challenge_cancel', { challenge_id: id }))?.code,
    ).toBe('CONFLICT');
  });
});

describe('friends', () => {
  it('are the people who share a circle, with the circles shared', async () => {
    const { a, b, c, circleId } = await trio();
    const second = await circle(a, b);
    const r = await callTool(a.client, 'challenges_friends_read');
    const items = sc(r).items ?? sc(r).result;
    expect(
      items.map((f: any) => [f.user_id, f.name, f.circles.map((x: any) => x.id).sort()]),
    ).toEqual([
      [b.id, 'Bo', [circleId, second].sort()],
      [c.id, 'Cy', [circleId]],
    ]);
    const viaRest = await rest(app, 'GET', '/api/v1/challenges/friends', { token: c.pat });
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.map((f: any) => f.user_id)).toEqual([a.id, b.id]);
  });
});

describe('confirmation and scopes', () => {
  it('asks for confirm:true to create', async () => {
    const { a, b } = await trio();
    const r = await callTool(a.client, 'challenges_challenge_create', {
      title: 'x',
      metric: 'steps',
      days: 2,
      invitees: [b.id],
      idempotency_key: rand(),
    });
    expect(errorOf(r)?.code).toBe('CONFIRMATION_REQUIRED');
  });

  it('refuses writes without community:write and reads without community:read', async () => {
    const reader = await person('Rae', 'UTC', ['community:read']);
    const friend = await person('Fin');
    await circle(reader, friend);
    const r = await create(reader, { invitees: [friend.id] });
    expect(errorOf(r)?.code).toBe('INSUFFICIENT_SCOPE');
    const names = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(
      expect.arrayContaining(['challenges_list', 'challenge_read', 'challenges_friends_read']),
    );
    expect(names).not.toContain('challenges_challenge_create');
    expect(names).not.toContain('community_challenge_set');
    const none = await person('Nia', 'UTC', ['goals:read']);
    expect((await rest(app, 'GET', '/api/v1/challenges', { token: none.pat })).status).toBe(403);
    expect(errorOf(await callTool(none.client, 'challenges_list'))?.code).toBe(
      'INSUFFICIENT_SCOPE',
    );
  });
});

describe('a deleted participant', () => {
  it('shows as "a former member" without points, never the winner', async () => {
    const { a, b, c } = await trio();
    const id = await created(a, { invitees: [b.id, c.id] });
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    await startedDaysAgo(id, 3);
    await seedMetric(app, b.id, 'steps', 20_000, dayAt(-3, 1));
    await seedMetric(app, a.id, 'steps', 1_000, dayAt(-3, 12));
    // the real account deletion (DELETE /api/auth/me), which runs challenges' deletion step
    expect((await rest(app, 'DELETE', '/api/auth/me', { token: b.token })).status).toBe(200);
    const detail = await read(a, id);
    expect(detail.former_members).toBe(1);
    expect(detail.standings).toEqual([
      expect.objectContaining({ user_id: a.id, points: 10, winner: true }),
      expect.objectContaining({
        user_id: null,
        name: 'a former member',
        points: null,
        winner: false,
      }),
    ]);
  });
});

describe('issue 47: who takes part and who sees what', () => {
  it("enrols nobody in a circle's challenge: a member who has not accepted is not in the standings", async () => {
    const { a, b, c, circleId } = await trio();
    const set = await callTool(a.client, 'community_challenge_set', {
      circle_id: circleId,
      title: 'In range',
      metric: 'glucose_time_in_range',
      days: 2,
      start_date: dateOf(0),
    });
    const id = sc(set).challenge.id;
    await startedDaysAgo(id, 2);
    await db.glucoseReading.create({
      data: { id: rand(), userId: b.id, valueMgDl: 120, timestamp: dayAt(-2, 12), source: 'cgm' },
    });
    const detail = await read(a, id);
    expect(detail.standings.map((s: any) => s.user_id)).toEqual([a.id]);
    expect(detail.participants.map((p: any) => [p.user_id, p.status])).toEqual([
      [a.id, 'accepted'],
      [b.id, 'invited'],
      [c.id, 'invited'],
    ]);
    // the invitation reaches the members, as a friends challenge's does
    const told = await db.notification.findMany({ where: { userId: { in: [b.id, c.id] } } });
    expect(told.map((n) => n.title)).toEqual(['Challenge invitation', 'Challenge invitation']);
    expect((await read(b, id)).challenge.your_status).toBe('invited');
  });

  it('shows no points of a member who has not shared the metric to another member, but their own to them', async () => {
    const a = await person('Ana');
    const b = await person('Bo');
    // B shares only steps with the circle; the challenge counts glucose time in range
    const circleId = await circleSharing(
      [a, b],
      new Map([
        [a, [...CIRCLE_SHARES]],
        [b, ['steps']],
      ]),
    );
    const set = await callTool(a.client, 'community_challenge_set', {
      circle_id: circleId,
      title: 'In range',
      metric: 'glucose_time_in_range',
      days: 1,
      start_date: dateOf(0),
    });
    const id = sc(set).challenge.id;
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    await startedDaysAgo(id, 2);
    for (const [userId, v, h] of [
      [a.id, 120, 12],
      [b.id, 120, 12],
      [b.id, 250, 13],
    ])
      await db.glucoseReading.create({
        data: { id: rand(), userId, valueMgDl: v, timestamp: dayAt(-2, h), source: 'cgm' },
      });
    const byA = await read(a, id);
    // B takes part (named, ranked) but nothing of B's time in range reaches A
    expect(standingOf(byA, b.id)).toEqual({
      user_id: b.id,
      name: 'Bo',
      former_member: false,
      shared: false,
      points: null,
      figure: null,
      daily_figures: [],
      rank: 2,
      days_counted: 0,
      typed_days: 0,
      self_reported: false,
      goal_target: null,
      winner: false,
    });
    expect(byA.participants.find((p: any) => p.user_id === b.id).goal_target).toBeNull();
    const viaRest = await rest(app, 'GET', `/api/v1/challenges/${id}`, { token: a.pat });
    expect(viaRest.body.standings).toEqual(byA.standings);
    // B sees their own figures, and A's (A shares it)
    const byB = await read(b, id);
    expect(standingOf(byB, b.id)).toMatchObject({
      shared: true,
      points: 71, // 50 % of the 70 % default goal
      figure: 50,
      goal_target: 70,
      days_counted: 1,
    });
    expect(standingOf(byB, a.id)).toMatchObject({ shared: true, points: 142, figure: 100 });
    // sharing it with the circle shows it at once
    await db.communityMember.update({
      where: { circleId_userId: { circleId, userId: b.id } },
      data: { shares: ['steps', 'glucose_time_in_range'] },
    });
    expect(standingOf(await read(a, id), b.id)).toMatchObject({ shared: true, points: 71 });
  });

  it("withholds a friends challenge's points the same way", async () => {
    const a = await person('Ana');
    const b = await person('Bo');
    await circleSharing(
      [a, b],
      new Map([
        [a, [...CIRCLE_SHARES]],
        [b, ['sleep_minutes']],
      ]),
    );
    const id = await created(a, { invitees: [b.id], days: 1 });
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    await startedDaysAgo(id, 2);
    await seedMetric(app, b.id, 'steps', 9_000, dayAt(-2, 12));
    expect(standingOf(await read(a, id), b.id)).toMatchObject({
      shared: false,
      points: null,
      rank: 1,
    });
    expect(standingOf(await read(b, id), b.id)).toMatchObject({ shared: true, points: 90 });
  });
});

describe('issue 47: fair scoring', () => {
  it('scores a goal of 100 steps against the 3,000-step floor', async () => {
    const { a, b } = await trio();
    await db.goal.create({
      data: { id: rand(), userId: b.id, metric: 'steps', target: 100, period: 'day' },
    });
    const id = await created(a, { invitees: [b.id], days: 1 });
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    await startedDaysAgo(id, 2);
    await seedMetric(app, b.id, 'steps', 1_500, dayAt(-2, 3));
    expect(standingOf(await read(a, id), b.id)).toMatchObject({
      points: 50,
      goal_target: 3_000,
    });
  });

  it('keeps the goal of the start: a goal changed after the start does not change the standings', async () => {
    const { a, b } = await trio();
    await db.goal.create({
      data: { id: rand(), userId: b.id, metric: 'steps', target: 10_000, period: 'day' },
    });
    const id = await created(a, { invitees: [b.id], days: 3, start_date: dateOf(0) });
    await startedDaysAgo(id, 2);
    await seedMetric(app, b.id, 'steps', 8_000, dayAt(-2, 3));
    // after the start B lowers the goal, then accepts: the goal read at the invitation stays
    await db.goal.updateMany({ where: { userId: b.id }, data: { target: 4_000 } });
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    const before = await read(a, id);
    expect(standingOf(before, b.id)).toMatchObject({ points: 80, goal_target: 10_000 });
    await db.goal.updateMany({ where: { userId: b.id }, data: { target: 3_000 } });
    expect((await read(a, id)).standings).toEqual(before.standings);
  });

  it('scores 16 hours of sleep against an 8-hour goal as 100 points, not 200, and a night at most 8 h in total', async () => {
    const { a, b } = await trio();
    const make = async (scoring: string) => {
      const id = await created(a, { invitees: [b.id], metric: 'sleep_minutes', scoring, days: 1 });
      await startedDaysAgo(id, 3);
      return id;
    };
    const [percent, total] = [await make('goal_percent'), await make('total')];
    // 16 h asleep in the night ending on the morning of today-3
    await db.sleepSample.create({
      data: {
        id: rand(),
        userId: a.id,
        stage: 'asleep',
        startAt: dayAt(-4, 19),
        endAt: dayAt(-3, 11),
        source: 'watch',
      },
    });
    const day = { date: dateOf(-3), figure: 960, typed: false };
    expect(standingOf(await read(a, percent), a.id)).toMatchObject({
      points: 100,
      figure: 960,
      goal_target: 480,
      daily_figures: [{ ...day, points: 100 }],
    });
    expect(standingOf(await read(a, total), a.id)).toMatchObject({
      points: 480,
      figure: 960,
      daily_figures: [{ ...day, points: 480 }],
    });
  });

  it("answers each person's own figure and day figures to those allowed to see them", async () => {
    const { a, b } = await trio();
    const id = await created(a, { invitees: [b.id], days: 2 });
    await callTool(b.client, 'challenges_challenge_accept', { challenge_id: id });
    await startedDaysAgo(id, 3);
    await seedMetric(app, a.id, 'steps', 15_000, dayAt(-3, 12));
    await seedMetric(app, a.id, 'steps', 4_000, dayAt(-2, 12), 'manual');
    const mine = {
      figure: 19_000,
      points: 190,
      daily_figures: [
        { date: dateOf(-3), figure: 15_000, points: 150, typed: false },
        { date: dateOf(-2), figure: 4_000, points: 40, typed: true },
      ],
    };
    expect(standingOf(await read(a, id), a.id)).toMatchObject(mine);
    expect(standingOf(await read(b, id), a.id)).toMatchObject({ shared: true, ...mine });
    const viaRest = await rest(app, 'GET', `/api/v1/challenges/${id}`, { token: b.pat });
    expect(standingOf(viaRest.body, a.id)).toMatchObject(mine);
  });
});
