/**
 * Insights come to the person (issue 33): the morning run records and pushes for the people whose
 * local morning has come (and nobody else), once per person and day even when two checks (two
 * replicas of one deployment) run at once, takes back a claim a crashed process left, and honours
 * quiet hours and categories; a predicted low on new glucose (the batch route, a sync push) is
 * pushed once per episode; without a push gateway a push is recorded `not_configured`, never
 * `sent`. Through the real app, its database and the fake push gateway (test/fakes/push.ts).
 */
import { describe, expect, it, vi } from 'vitest';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { createLogger } from '../../src/base/logger.ts';
import { checkPredictedLow } from '../../src/domains/insights/insights.alerts.ts';
import { runMorningCheck } from '../../src/domains/insights/insights.morning.ts';
import type { InsightsWorkDeps } from '../../src/domains/insights/insights.person.ts';
import { notifyPerson } from '../../src/domains/notifications/index.ts';
import { setNotificationPrefs } from '../../src/domains/notifications/notifications.prefs.ts';
import { sendTestNotification } from '../../src/domains/notifications/notifications.send.ts';
import { hallTrace, pushTable, seedGlucose, seedIntervals } from '../factories/insights.ts';
import { seedUser, serviceContext } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startFakePushGateway } from '../fakes/push.ts';
import type { TestApp } from '../harness/app.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const DELIVERY = { INSIGHTS_DELIVERY: 'on', INSIGHTS_MORNING_CHECK_MS: '3600000' };
const gateway = await startFakePushGateway();
const app = await startTestApp({ ...DELIVERY, PUSH_HTTP_URL: gateway.url });
// a second replica of the same deployment (the same database): two processes' checks
const replica = await startTestApp(
  { ...DELIVERY, PUSH_HTTP_URL: gateway.url },
  { database: app.db },
);
// a server without a push gateway
const bare = await startTestApp(DELIVERY);
const prisma = app.db.prisma;

const depsOf = (a: TestApp): InsightsWorkDeps => ({
  ...a.deps,
  log: createLogger('silent'),
  notify: notifyPerson,
});

/** A fixed-offset zone whose local hour is `hour` now (Etc/GMT-5 is UTC+5). */
function zoneAt(hour: number): string {
  let offset = hour - clock.now().getUTCHours();
  if (offset > 14) offset -= 24;
  if (offset < -12) offset += 24;
  return offset === 0 ? 'Etc/GMT' : `Etc/GMT${offset > 0 ? '-' : '+'}${Math.abs(offset)}`;
}

/** "HH:MM" of now + minutes in `zone`. */
function hhmm(zone: string, minutes: number): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(clock.ms() + minutes * 60_000));
}

let seq = 0;

interface Person extends SeededUser {
  zone: string;
  /** the push token of the person's phone */
  phone: string;
}

/** A person at local hour `hour` now, with a phone and a 5-hour night ending 2 hours ago. */
async function person(a: TestApp, hour: number): Promise<Person> {
  const p = await seedUser(a);
  const zone = zoneAt(hour);
  await a.db.prisma.user.update({ where: { id: p.user.id }, data: { timezone: zone } });
  const phone = `ios-${++seq}-${clock.ms()}`;
  const res = await rest(a, 'POST', '/api/devices/token', {
    token: p.token,
    body: { token: phone, platform: 'ios' },
  });
  expect(res.status).toBe(200);
  const h = 3_600_000;
  await seedIntervals(a, p.token, {
    sleep: [
      {
        stage: 'asleep',
        start_at: new Date(clock.ms() - 7 * h).toISOString(),
        end_at: new Date(clock.ms() - 2 * h).toISOString(),
      },
    ],
  });
  return { ...p, zone, phone };
}

const ctxOf = (a: TestApp, userId: number) =>
  serviceContext(a, {
    kind: 'session',
    userId,
    sessionId: 'factory',
    sessionKind: 'native',
    isAdmin: false,
    scopes: ALL_SCOPES,
  });

const inbox = (a: TestApp, userId: number) =>
  a.db.prisma.notification.findMany({ where: { userId }, orderBy: { createdAt: 'asc' } });

const mornings = (a: TestApp, userId: number) =>
  a.db.prisma.insightMorning.findMany({ where: { userId } });

/** The Hall 2018 fall of 2015-03-30 (140 -> 86 mg/dL in 25 minutes), moved to end at `endsAt`. */
function fall(endsAt: number): { timestamp: Date; valueMgDl: number }[] {
  const end = Date.parse('2015-03-30T18:53:23Z');
  return hallTrace()
    .filter((p) => p.timestamp.getTime() > end - 30 * 60_000 && p.timestamp.getTime() <= end)
    .map((p) => ({
      timestamp: new Date(p.timestamp.getTime() + endsAt - end),
      valueMgDl: p.valueMgDl,
    }));
}

describe('the morning run', () => {
  it('records and pushes for a person whose morning has come, not for one whose morning has not', async () => {
    const due = await person(app, 12);
    const early = await person(app, 3);
    await runMorningCheck(depsOf(app), {});
    const rules = await prisma.insight.findMany({
      where: { userId: due.user.id },
      select: { rule: true, date: true },
    });
    expect(rules.map((r) => r.rule).sort()).toEqual(['score_sleep', 'sleep_more']);
    const [item] = await inbox(app, due.user.id);
    expect(item).toMatchObject({
      category: 'insights',
      title: 'Short night',
      source: 'system',
      pushStatus: 'sent',
      link: 'app://insights',
    });
    expect(gateway.to(due.phone)).toHaveLength(1);
    expect(gateway.to(due.phone)[0].body.aps.alert.title).toBe('Short night');
    expect(await mornings(app, due.user.id)).toMatchObject([
      { day: rules[0].date, recorded: 2, pushStatus: 'sent', doneAt: expect.any(Date) },
    ]);
    // local 03:00: the morning has not come, nothing is recorded, claimed or pushed
    expect(await prisma.insight.count({ where: { userId: early.user.id } })).toBe(0);
    expect(await mornings(app, early.user.id)).toEqual([]);
    expect(await inbox(app, early.user.id)).toEqual([]);
    expect(gateway.to(early.phone)).toEqual([]);
  });

  it('runs each person once a day when two replicas check at once, and again never that day', async () => {
    const people = await Promise.all([1, 2, 3].map(() => person(app, 9)));
    const [one, two] = await Promise.all([
      runMorningCheck(depsOf(app), { batch: 1 }),
      runMorningCheck(depsOf(replica), { batch: 1 }),
    ]);
    expect(one.claimed + two.claimed).toBeGreaterThanOrEqual(3);
    for (const p of people) {
      expect(await mornings(app, p.user.id)).toHaveLength(1);
      expect(await inbox(app, p.user.id)).toHaveLength(1);
      expect(gateway.to(p.phone)).toHaveLength(1);
      expect(await prisma.insight.count({ where: { userId: p.user.id } })).toBe(2);
    }
    const again = await Promise.all([
      runMorningCheck(depsOf(app), {}),
      runMorningCheck(depsOf(replica), {}),
    ]);
    expect(again.map((r) => r.claimed)).toEqual([0, 0]);
    for (const p of people) expect(gateway.to(p.phone)).toHaveLength(1);
  });

  it('takes back a claim a crashed process left (stale), not one still running', async () => {
    const crashed = await person(app, 15);
    const running = await person(app, 15);
    const day = new Intl.DateTimeFormat('en-CA', { timeZone: crashed.zone }).format(clock.now());
    await prisma.insightMorning.createMany({
      data: [
        { userId: crashed.user.id, day, claimedAt: new Date(clock.ms() - 11 * 60_000) },
        { userId: running.user.id, day, claimedAt: new Date(clock.ms() - 60_000) },
      ],
    });
    await runMorningCheck(depsOf(app), {});
    expect(await mornings(app, crashed.user.id)).toMatchObject([
      { day, pushStatus: 'sent', doneAt: expect.any(Date) },
    ]);
    expect(gateway.to(crashed.phone)).toHaveLength(1);
    expect(await mornings(app, running.user.id)).toMatchObject([{ day, doneAt: null }]);
    expect(gateway.to(running.phone)).toEqual([]);
  });

  it('honours quiet hours and a category turned off (the item is in the inbox, not pushed)', async () => {
    const quiet = await person(app, 13);
    await setNotificationPrefs(ctxOf(app, quiet.user.id), {
      quietStart: hhmm(quiet.zone, -60),
      quietEnd: hhmm(quiet.zone, 60),
      timeZone: quiet.zone,
    });
    const off = await person(app, 13);
    await setNotificationPrefs(ctxOf(app, off.user.id), { categories: ['glucose', 'account'] });
    await runMorningCheck(depsOf(app), {});
    expect(await inbox(app, quiet.user.id)).toMatchObject([
      { category: 'insights', pushStatus: 'quiet_hours', devicesSent: 0 },
    ]);
    expect(await inbox(app, off.user.id)).toMatchObject([
      { category: 'insights', pushStatus: 'category_off', devicesSent: 0 },
    ]);
    expect(gateway.to(quiet.phone)).toEqual([]);
    expect(gateway.to(off.phone)).toEqual([]);
    expect(await mornings(app, quiet.user.id)).toMatchObject([{ pushStatus: 'quiet_hours' }]);
  });

  it('records score cards without pushing when nothing warrants a push', async () => {
    const p = await seedUser(app);
    await prisma.user.update({ where: { id: p.user.id }, data: { timezone: zoneAt(14) } });
    const h = 3_600_000;
    await seedIntervals(app, p.token, {
      sleep: [
        {
          stage: 'asleep',
          start_at: new Date(clock.ms() - 10 * h).toISOString(),
          end_at: new Date(clock.ms() - 2 * h).toISOString(),
        },
      ],
    });
    await runMorningCheck(depsOf(app), {});
    expect(
      (await prisma.insight.findMany({ where: { userId: p.user.id } })).map((i) => i.rule),
    ).toEqual(['score_sleep']);
    expect(await mornings(app, p.user.id)).toMatchObject([{ recorded: 1, pushStatus: null }]);
    expect(await inbox(app, p.user.id)).toEqual([]);
  });
});

describe('predicted lows on new glucose', () => {
  it('a batch upload of a fall pushes the predicted low once (glucose), its next readings push nothing more', async () => {
    const p = await person(app, 3);
    await seedGlucose(app, p.token, fall(clock.ms() - 60_000));
    // the worker's push settles the item's status (failed until a push service accepts it)
    await vi.waitFor(
      async () => expect(await inbox(app, p.user.id)).toMatchObject([{ pushStatus: 'sent' }]),
      { timeout: 60_000, interval: 100 },
    );
    const [item] = await inbox(app, p.user.id);
    expect(item).toMatchObject({
      category: 'glucose',
      title: 'Low glucose ahead',
      pushStatus: 'sent',
    });
    expect(gateway.to(p.phone)).toHaveLength(1);
    // the same fall evaluated again, twice at once (two workers): recorded once, no second push
    const again = await Promise.all([
      checkPredictedLow(depsOf(app), { userId: p.user.id }),
      checkPredictedLow(depsOf(replica), { userId: p.user.id }),
    ]);
    expect(again.map((r) => [r.fired, r.newEpisode])).toEqual([
      [true, false],
      [true, false],
    ]);
    expect(await inbox(app, p.user.id)).toHaveLength(1);
    expect(gateway.to(p.phone)).toHaveLength(1);
    expect(
      await prisma.insight.count({ where: { userId: p.user.id, rule: 'predicted_low' } }),
    ).toBe(1);
  });

  it('two checks of a new fall at once push once; a fall after the episode gap pushes again', async () => {
    const p = await person(app, 3);
    const h = 3_600_000;
    const earlier = clock.ms() - 2 * h;
    // stored straight in the table, so that only these checks run (no job is queued)
    await prisma.glucoseReading.createMany({
      data: [...fall(earlier - 60_000), ...fall(clock.ms() - 60_000)].map((r, i) => ({
        id: `fall-${p.user.id}-${i}`,
        userId: p.user.id,
        sensorId: 1,
        timestamp: r.timestamp,
        valueMgDl: r.valueMgDl,
        source: 'cgm',
        serverUpdatedAt: clock.now(),
      })),
    });
    const first = await Promise.all([
      checkPredictedLow(depsOf(app), { userId: p.user.id, now: new Date(earlier) }),
      checkPredictedLow(depsOf(replica), { userId: p.user.id, now: new Date(earlier) }),
    ]);
    expect(first.map((r) => r.newEpisode).sort()).toEqual([false, true]);
    expect(gateway.to(p.phone)).toHaveLength(1);
    const later = await checkPredictedLow(depsOf(app), { userId: p.user.id });
    expect(later).toMatchObject({ fired: true, newEpisode: true, pushStatus: 'sent' });
    expect(gateway.to(p.phone)).toHaveLength(2);
  });

  it('a sync push of glucose_readings queues the check too', async () => {
    const p = await person(app, 3);
    await pushTable(app, p.token, 'glucose_readings', {
      created: fall(clock.ms() - 60_000).map((r, i) => ({
        id: `sync-fall-${p.user.id}-${i}`,
        sensor_id: 2,
        timestamp: r.timestamp.getTime(),
        value_mg_dl: r.valueMgDl,
        source: 'cgm',
      })),
    });
    await vi.waitFor(
      async () => expect(await inbox(app, p.user.id)).toMatchObject([{ pushStatus: 'sent' }]),
      { timeout: 60_000, interval: 100 },
    );
    expect(await inbox(app, p.user.id)).toMatchObject([
      { category: 'glucose', pushStatus: 'sent' },
    ]);
  });

  it('old readings (a backfill) and steady glucose push nothing', async () => {
    const p = await person(app, 3);
    const res = await checkPredictedLow(depsOf(app), { userId: p.user.id });
    expect(res).toMatchObject({ fired: false, newEpisode: false });
    await seedGlucose(app, p.token, fall(clock.ms() - 3 * 3_600_000));
    expect(await checkPredictedLow(depsOf(app), { userId: p.user.id })).toMatchObject({
      fired: false,
    });
    expect(await inbox(app, p.user.id)).toEqual([]);
  });
});

describe('without a push gateway (PUSH_HTTP_URL unset)', () => {
  it('records the push as not_configured, never sent', async () => {
    const p = await person(bare, 12);
    await runMorningCheck(depsOf(bare), {});
    expect(await inbox(bare, p.user.id)).toMatchObject([
      { category: 'insights', pushStatus: 'not_configured', devicesSent: 0 },
    ]);
    expect(await mornings(bare, p.user.id)).toMatchObject([{ pushStatus: 'not_configured' }]);
    const low = await checkPredictedLow(depsOf(bare), { userId: p.user.id });
    expect(low.fired).toBe(false);
    const sent = await sendTestNotification(ctxOf(bare, p.user.id), {});
    expect(sent).toMatchObject({ pushStatus: 'not_configured', devices: 1, sent: 0 });
    const read = await gql(bare, '{ notificationInbox { category pushStatus devicesSent } }', {
      token: p.token,
    });
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.notificationInbox).toEqual([
      { category: 'account', pushStatus: 'not_configured', devicesSent: 0 },
      { category: 'insights', pushStatus: 'not_configured', devicesSent: 0 },
    ]);
  });
});
