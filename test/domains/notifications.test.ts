/**
 * Notifications (issue 15): every tool of the MCP `notifications` family through the SDK client
 * (scopes, bounds, confirm, ownership), preferences and quiet hours honoured by sends, APNs and FCM
 * payloads reaching a fake push gateway (a real HTTP server, test/fakes/push.ts) through the HTTP
 * sender, dead tokens retired, and the log sender used without PUSH_HTTP_URL.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { nextFireAt } from '../../src/domains/notifications/notifications.reminders.ts';
import { createPushSender } from '../../src/integrations/push.ts';
import { createLogger } from '../../src/base/logger.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startFakePushGateway } from '../fakes/push.ts';
import { startTestApp, testConfig } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const gateway = await startFakePushGateway();
const TEST_SENDS = 4;
const app = await startTestApp({
  PUSH_HTTP_URL: gateway.url,
  PUSH_APNS_TOPIC: 'org.example.glucose',
  PUSH_FCM_PROJECT: 'glucose-prod',
  NOTIFICATION_TEST_SENDS_PER_HOUR: String(TEST_SENDS),
});
const prisma = app.db.prisma;

const RW: Scope[] = ['notifications:read', 'notifications:write'];
let seq = 0;
const key = (): string => `idem-notify-${clock.ms()}-${++seq}`;

type Structured = Record<string, any>;
const sc = (result: { structuredContent?: unknown; isError?: boolean }): Structured => {
  expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
  return result.structuredContent as Structured;
};
const errorOf = (result: { structuredContent?: unknown; isError?: boolean }) => {
  expect(result.isError).toBe(true);
  return (result.structuredContent as Structured).error as {
    code: string;
    detail?: any;
  };
};

/** A person with a phone login and an MCP client for a personal token with `scopes`. */
async function person(scopes: Scope[] = RW) {
  const seeded = await seedUser(app);
  const client = await mcpClient(app, await seedPersonalToken(app, seeded.user.id, scopes));
  return { ...seeded, client };
}

/** Registers a phone's push token through POST /api/devices/token; answers the token. */
async function phone(loginToken: string, platform: 'ios' | 'android'): Promise<string> {
  const token = `${platform}-${++seq}-${clock.ms()}`;
  const res = await rest(app, 'POST', '/api/devices/token', {
    token: loginToken,
    body: { token, platform },
  });
  expect(res.status).toBe(200);
  return token;
}

/** "HH:MM" of `now + minutes` in `zone`. */
function hhmm(zone: string, minutes: number): string {
  return new Intl.DateTimeFormat('en-GB', {
    timeZone: zone,
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).format(new Date(clock.ms() + minutes * 60_000));
}

describe('the notifications tools', () => {
  it('lists the ten tools with titles, distinct descriptions, bounds and confirm', async () => {
    const { client } = await person();
    const tools = (await client.listTools()).tools.filter((t) => t.name.includes('notifications'));
    expect(tools.map((t) => t.name).sort()).toEqual([
      'notifications_inbox_mark_read',
      'notifications_inbox_read',
      'notifications_item_open',
      'notifications_prefs_read',
      'notifications_reminder_add',
      'notifications_reminder_delete',
      'notifications_reminder_toggle',
      'notifications_test_send',
      'notifications_tones_read',
      'set_notifications_prefs',
    ]);
    expect(new Set(tools.map((t) => t.description)).size).toBe(10);
    for (const t of tools) expect(t.title).toBeTruthy();
    const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
    expect(byName.notifications_reminder_delete.inputSchema.required).toContain('confirm');
    expect(byName.notifications_reminder_delete.annotations?.destructiveHint).toBe(true);
    expect(byName.notifications_reminder_add.inputSchema.required).toContain('idempotency_key');
    expect(byName.notifications_inbox_read.inputSchema.properties?.limit).toMatchObject({
      minimum: 1,
      maximum: 100,
    });
    expect(byName.notifications_reminder_add.inputSchema.properties?.label).toMatchObject({
      maxLength: 100,
    });
  });

  it('needs notifications:write to change anything, and read to read', async () => {
    const reader = await person(['notifications:read']);
    expect(sc(await callTool(reader.client, 'notifications_prefs_read')).tone).toBe('default');
    const listed = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(listed).not.toContain('set_notifications_prefs');
    expect(
      errorOf(await callTool(reader.client, 'set_notifications_prefs', { tone: 'bell' })),
    ).toMatchObject({ code: 'INSUFFICIENT_SCOPE', detail: { scope: 'notifications:write' } });
    const writer = await person(['notifications:write']);
    expect(errorOf(await callTool(writer.client, 'notifications_inbox_read', {}))).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { scope: 'notifications:read' },
    });
  });
});

describe('preferences', () => {
  it('answers the defaults in the profile zone, then what was set; omitted fields stay', async () => {
    const { client, token } = await person();
    await rest(app, 'PATCH', '/api/auth/me', { token, body: { timezone: 'Europe/Berlin' } });
    expect(sc(await callTool(client, 'notifications_prefs_read'))).toEqual({
      categories: ['reminders', 'glucose', 'meals', 'insights', 'account', 'news', 'community'],
      quiet_start: null,
      quiet_end: null,
      time_zone: 'Europe/Berlin',
      quiet_now: false,
      tone: 'default',
      reminders: [],
    });
    const set = sc(
      await callTool(client, 'set_notifications_prefs', {
        categories: ['glucose', 'account'],
        quiet_start: '22:00',
        quiet_end: '07:00',
        tone: 'chime',
      }),
    );
    expect(set).toMatchObject({
      categories: ['glucose', 'account'],
      quiet_start: '22:00',
      quiet_end: '07:00',
      time_zone: 'Europe/Berlin',
      tone: 'chime',
    });
    const partial = sc(await callTool(client, 'set_notifications_prefs', { tone: 'bell' }));
    expect(partial).toMatchObject({ categories: ['glucose', 'account'], quiet_start: '22:00' });
    const cleared = sc(
      await callTool(client, 'set_notifications_prefs', { quiet_start: null, quiet_end: null }),
    );
    expect(cleared).toMatchObject({ quiet_start: null, quiet_end: null, tone: 'bell' });
  });

  it('counts quiet hours in their time zone (quiet_now)', async () => {
    const { client } = await person();
    const zone = 'Asia/Kolkata'; // UTC+05:30: a window around now there is not around now in UTC
    const there = {
      quiet_start: hhmm(zone, -30),
      quiet_end: hhmm(zone, 30),
      time_zone: zone,
    };
    expect(sc(await callTool(client, 'set_notifications_prefs', there)).quiet_now).toBe(true);
    const utc = { ...there, time_zone: 'UTC' };
    expect(sc(await callTool(client, 'set_notifications_prefs', utc)).quiet_now).toBe(false);
  });

  it('reads an end before the start as quiet hours spanning midnight', async () => {
    const { client } = await person();
    const set = (start: number, end: number) =>
      callTool(client, 'set_notifications_prefs', {
        quiet_start: hhmm('UTC', start),
        quiet_end: hhmm('UTC', end),
        time_zone: 'UTC',
      });
    // from an hour ahead round the clock to half an hour ahead: now is inside
    expect(sc(await set(60, 30)).quiet_now).toBe(true);
    // from half an hour ahead to an hour ahead: now is outside
    expect(sc(await set(30, 60)).quiet_now).toBe(false);
  });

  it.each([
    ['a start without an end', { quiet_start: '22:00' }, 'quiet_end'],
    ['an end equal to the start', { quiet_start: '22:00', quiet_end: '22:00' }, 'quiet_end'],
    ['a time past 23:59', { quiet_start: '24:00', quiet_end: '07:00' }, 'quiet_start'],
    ['a tone the app does not ship', { tone: 'foghorn' }, 'tone'],
    ['a zone that is no IANA zone', { time_zone: 'Mars/Olympus' }, 'time_zone'],
    ['an unknown category', { categories: ['spam'] }, 'categories'],
  ])('refuses %s (VALIDATION_FAILED)', async (_case, args, loc) => {
    const { client } = await person();
    const error = errorOf(await callTool(client, 'set_notifications_prefs', args));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.detail[0].loc[0]).toMatch(new RegExp(`^${loc}`));
  });

  it('reads the fixed tone catalogue', async () => {
    const { client } = await person(['notifications:read']);
    const tones = sc(await callTool(client, 'notifications_tones_read')).items;
    expect(tones.map((t: { id: string }) => t.id)).toEqual([
      'default',
      'chime',
      'pulse',
      'bell',
      'breeze',
      'silent',
    ]);
    expect(tones[1]).toEqual({ id: 'chime', name: 'Chime', description: 'a soft two-note chime' });
  });
});

describe('reminders', () => {
  it('adds a reminder with its next local time, toggles it, deletes it only with confirm', async () => {
    const { client } = await person();
    const added = sc(
      await callTool(client, 'notifications_reminder_add', {
        label: 'Evening walk',
        local_time: '19:45',
        days: [7, 1, 2, 3, 4, 5, 1],
        time_zone: 'America/New_York',
        idempotency_key: key(),
      }),
    );
    expect(added).toMatchObject({ label: 'Evening walk', local_time: '19:45', enabled: true });
    expect(added.days).toEqual([1, 2, 3, 4, 5, 7]);
    const next = new Date(added.next_at);
    expect(next.getTime()).toBeGreaterThan(clock.ms());
    expect(next.getTime()).toBeLessThanOrEqual(clock.ms() + 2 * 86_400_000);
    const weekday = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      weekday: 'short',
    }).format(next);
    expect(weekday).not.toBe('Sat');
    expect(
      new Intl.DateTimeFormat('en-GB', {
        timeZone: 'America/New_York',
        hour: '2-digit',
        minute: '2-digit',
        hourCycle: 'h23',
      }).format(next),
    ).toBe('19:45');

    const off = sc(
      await callTool(client, 'notifications_reminder_toggle', { id: added.id, enabled: false }),
    );
    expect(off).toMatchObject({ enabled: false, next_at: null });
    const prefs = sc(await callTool(client, 'notifications_prefs_read'));
    expect(prefs.reminders).toMatchObject([{ id: added.id, enabled: false }]);

    const unconfirmed = await callTool(client, 'notifications_reminder_delete', { id: added.id });
    expect(errorOf(unconfirmed).code).toBe('CONFIRMATION_REQUIRED');
    expect(await prisma.notificationReminder.count({ where: { id: added.id } })).toBe(1);
    sc(await callTool(client, 'notifications_reminder_delete', { id: added.id, confirm: true }));
    expect(await prisma.notificationReminder.count({ where: { id: added.id } })).toBe(0);
  });

  it('computes the next time across a DST change in the reminder zone', () => {
    const daily = {
      id: 'r',
      label: 'walk',
      localTime: '07:30',
      days: [1, 2, 3, 4, 5, 6, 7],
      timeZone: 'Europe/Berlin',
      enabled: true,
      createdAt: clock.now(),
    };
    // Saturday 28 March 2026 noon UTC; Berlin moves to UTC+2 on Sunday 29 March at 02:00
    const saturday = new Date('2026-03-28T12:00:00Z');
    expect(nextFireAt(daily, saturday)?.toISOString()).toBe('2026-03-29T05:30:00.000Z');
    expect(nextFireAt(daily, new Date('2026-03-27T12:00:00Z'))?.toISOString()).toBe(
      '2026-03-28T06:30:00.000Z',
    );
    expect(nextFireAt({ ...daily, days: [1] }, saturday)?.toISOString()).toBe(
      '2026-03-30T05:30:00.000Z',
    );
    expect(nextFireAt({ ...daily, enabled: false }, saturday)).toBeNull();
  });

  it('fires only on its weekdays (next_at falls on one of them)', async () => {
    const { client } = await person();
    const added = sc(
      await callTool(client, 'notifications_reminder_add', {
        label: 'Sensor change',
        local_time: '08:00',
        days: [3],
        time_zone: 'UTC',
        idempotency_key: key(),
      }),
    );
    const next = new Date(added.next_at);
    expect(next.getUTCDay()).toBe(3);
    expect(next.toISOString().slice(11, 16)).toBe('08:00');
    expect(next.getTime() - clock.ms()).toBeLessThanOrEqual(7 * 86_400_000);
  });

  it("answers 404 for another person's reminder and leaves it alone", async () => {
    const owner = await person();
    const other = await person();
    const { id } = sc(
      await callTool(owner.client, 'notifications_reminder_add', {
        label: 'Pills',
        local_time: '09:00',
        days: [1],
        idempotency_key: key(),
      }),
    );
    for (const [tool, args] of [
      ['notifications_reminder_toggle', { id, enabled: false }],
      ['notifications_reminder_delete', { id, confirm: true }],
    ] as const)
      expect(errorOf(await callTool(other.client, tool, args)).code).toBe('NOT_FOUND');
    expect(await prisma.notificationReminder.findUnique({ where: { id } })).toMatchObject({
      enabled: true,
    });
  });

  it.each([
    ['no weekday', { days: [] }, 'days'],
    ['weekday 0', { days: [0] }, 'days'],
    ['weekday 8', { days: [8] }, 'days'],
    ['a time like 7:5', { local_time: '7:5' }, 'local_time'],
    ['an empty label', { label: ' ' }, 'label'],
    ['a label of 101 characters', { label: 'x'.repeat(101) }, 'label'],
  ])('refuses %s (VALIDATION_FAILED)', async (_case, args, loc) => {
    const { client } = await person();
    const base = { label: 'Walk', local_time: '08:00', days: [1], idempotency_key: key() };
    const error = errorOf(
      await callTool(client, 'notifications_reminder_add', { ...base, ...args }),
    );
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.detail[0].loc[0]).toBe(loc);
  });

  it('keeps at most 50 reminders per person (409 beyond)', async () => {
    const { client, user } = await person();
    await prisma.notificationReminder.createMany({
      data: Array.from({ length: 50 }, (_, i) => ({
        userId: user.id,
        label: `r${i}`,
        localTime: '08:00',
        days: [1],
        timeZone: 'UTC',
      })),
    });
    const error = errorOf(
      await callTool(client, 'notifications_reminder_add', {
        label: 'one more',
        local_time: '08:00',
        days: [1],
        idempotency_key: key(),
      }),
    );
    expect(error).toMatchObject({ code: 'CONFLICT', detail: { code: 'too_many_reminders' } });
  });
});

describe('the inbox', () => {
  async function seedItems(userId: number, n: number) {
    const base = clock.ms() - 60_000 * n;
    for (let i = 0; i < n; i++)
      await prisma.notification.create({
        data: {
          userId,
          category: i % 2 ? 'meals' : 'glucose',
          title: `item ${i}`,
          body: 'body',
          link: i === 0 ? 'app://glucose/readings/1' : null,
          source: 'system',
          pushStatus: 'sent',
          createdAt: new Date(base + i * 60_000),
        },
      });
  }

  it('reads newest first, paged, and only unread items when asked', async () => {
    const { client, user } = await person();
    await seedItems(user.id, 3);
    const page = sc(await callTool(client, 'notifications_inbox_read', { limit: 2 })).items;
    expect(page.map((i: { title: string }) => i.title)).toEqual(['item 2', 'item 1']);
    const rest2 = sc(await callTool(client, 'notifications_inbox_read', { limit: 2, offset: 2 }));
    expect(rest2.items.map((i: { title: string }) => i.title)).toEqual(['item 0']);
    const bad = errorOf(await callTool(client, 'notifications_inbox_read', { limit: 101 }));
    expect(bad.code).toBe('VALIDATION_FAILED');

    const marked = sc(
      await callTool(client, 'notifications_inbox_mark_read', { ids: [page[0].id] }),
    );
    expect(marked).toEqual({ marked: 1 });
    const unread = sc(await callTool(client, 'notifications_inbox_read', { unread_only: true }));
    expect(unread.items.map((i: { title: string }) => i.title)).toEqual(['item 1', 'item 0']);
    expect(sc(await callTool(client, 'notifications_inbox_mark_read', {}))).toEqual({ marked: 2 });
    expect(
      sc(await callTool(client, 'notifications_inbox_read', { unread_only: true })).items,
    ).toEqual([]);
  });

  it('opens an item: read and opened, leading to its link or its category screen', async () => {
    const { client, user } = await person();
    await seedItems(user.id, 2);
    const [second, first] = sc(await callTool(client, 'notifications_inbox_read', {})).items;
    const opened = sc(await callTool(client, 'notifications_item_open', { id: first.id }));
    expect(opened).toMatchObject({ id: first.id, leads_to: 'app://glucose/readings/1' });
    expect(opened.read_at).toBeTruthy();
    expect(opened.opened_at).toBeTruthy();
    const again = sc(await callTool(client, 'notifications_item_open', { id: first.id }));
    expect(again.opened_at).toBe(opened.opened_at);
    const other = sc(await callTool(client, 'notifications_item_open', { id: second.id }));
    expect(other).toMatchObject({ link: null, leads_to: 'app://meals' });
  });

  it("answers 404 for another person's items and changes nothing", async () => {
    const owner = await person();
    const other = await person();
    await seedItems(owner.user.id, 1);
    const [item] = sc(await callTool(owner.client, 'notifications_inbox_read', {})).items;
    expect(
      errorOf(await callTool(other.client, 'notifications_item_open', { id: item.id })).code,
    ).toBe('NOT_FOUND');
    await seedItems(other.user.id, 1);
    const [mine] = sc(await callTool(other.client, 'notifications_inbox_read', {})).items;
    const mixed = await callTool(other.client, 'notifications_inbox_mark_read', {
      ids: [mine.id, item.id],
    });
    expect(errorOf(mixed).code).toBe('NOT_FOUND');
    const rows = await prisma.notification.findMany({ where: { id: { in: [mine.id, item.id] } } });
    expect(rows.map((r) => r.readAt)).toEqual([null, null]);
  });
});

describe('pushes', () => {
  it('sends a test push to every phone, APNs shape to iOS and FCM shape to Android, in quiet hours', async () => {
    const { client, token } = await person();
    const ios = await phone(token, 'ios');
    const android = await phone(token, 'android');
    sc(
      await callTool(client, 'set_notifications_prefs', {
        tone: 'chime',
        quiet_start: hhmm('UTC', -60),
        quiet_end: hhmm('UTC', 60),
        time_zone: 'UTC',
      }),
    );
    const result = sc(await callTool(client, 'notifications_test_send', {}));
    expect(result).toMatchObject({
      push_status: 'sent',
      devices: 2,
      sent: 2,
      retired: 0,
      tone: 'chime',
      notification: { source: 'test', category: 'account', devices_sent: 2 },
    });
    const id = result.notification.id;

    const [apns] = gateway.to(ios);
    expect(apns.path).toBe(`/3/device/${ios}`);
    expect(apns.headers).toMatchObject({
      'apns-push-type': 'alert',
      'apns-topic': 'org.example.glucose',
    });
    expect(apns.body).toEqual({
      aps: {
        alert: { title: 'Test notification', body: 'Notifications reach this phone.' },
        sound: 'chime.caf',
        'thread-id': 'account',
        'mutable-content': 1,
      },
      notification_id: id,
      category: 'account',
    });
    const [fcm] = gateway.to(android);
    expect(fcm.path).toBe('/v1/projects/glucose-prod/messages:send');
    expect(fcm.body).toEqual({
      message: {
        token: android,
        notification: { title: 'Test notification', body: 'Notifications reach this phone.' },
        android: { notification: { sound: 'chime', channel_id: 'account' } },
        data: { notification_id: id, category: 'account' },
      },
    });
    const inbox = sc(await callTool(client, 'notifications_inbox_read', {})).items;
    expect(inbox).toMatchObject([{ id, push_status: 'sent', devices_sent: 2 }]);
  });

  it('holds a test push of a category turned off (still in the inbox)', async () => {
    const { client, token } = await person();
    const ios = await phone(token, 'ios');
    sc(await callTool(client, 'set_notifications_prefs', { categories: ['account'] }));
    const held = sc(await callTool(client, 'notifications_test_send', { category: 'glucose' }));
    expect(held).toMatchObject({ push_status: 'category_off', devices: 1, sent: 0 });
    expect(gateway.to(ios)).toEqual([]);
    expect(sc(await callTool(client, 'notifications_inbox_read', {})).items).toMatchObject([
      { push_status: 'category_off', category: 'glucose' },
    ]);
  });

  it('answers no_devices without a phone', async () => {
    const { client } = await person();
    expect(sc(await callTool(client, 'notifications_test_send', {}))).toMatchObject({
      push_status: 'no_devices',
      devices: 0,
      sent: 0,
    });
  });

  it('retires a token the push service reports unregistered (APNs 410, FCM UNREGISTERED)', async () => {
    const { client, token } = await person();
    const ios = await phone(token, 'ios');
    const android = await phone(token, 'android');
    const live = await phone(token, 'android');
    gateway.deadTokens.add(ios);
    gateway.deadTokens.add(android);
    const first = sc(await callTool(client, 'notifications_test_send', {}));
    expect(first).toMatchObject({ devices: 3, sent: 1, retired: 2, push_status: 'sent' });
    const rows = await prisma.deviceToken.findMany({ where: { token: { in: [ios, android] } } });
    expect(rows.map((r) => r.deletedAt)).toEqual([expect.any(Date), expect.any(Date)]);
    const second = sc(await callTool(client, 'notifications_test_send', {}));
    expect(second).toMatchObject({ devices: 1, sent: 1, retired: 0 });
    expect(gateway.to(ios)).toHaveLength(1);
    expect(gateway.to(live)).toHaveLength(2);
  });

  it('records failed when every push service refuses, and retires nothing', async () => {
    const { client, token } = await person();
    const ios = await phone(token, 'ios');
    gateway.failNext();
    const result = sc(await callTool(client, 'notifications_test_send', {}));
    expect(result).toMatchObject({ push_status: 'failed', devices: 1, sent: 0, retired: 0 });
    expect((await prisma.deviceToken.findUnique({ where: { token: ios } }))?.deletedAt).toBeNull();
  });

  it(`allows ${TEST_SENDS} test sends per person per hour (429 rate_limited beyond)`, async () => {
    const { client } = await person();
    for (let i = 0; i < TEST_SENDS; i++) sc(await callTool(client, 'notifications_test_send'));
    const refused = errorOf(await callTool(client, 'notifications_test_send'));
    expect(refused).toMatchObject({ code: 'RATE_LIMITED', detail: { code: 'rate_limited' } });
  });

  it('logs instead of sending without PUSH_HTTP_URL (the log sender), and says not_configured', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const sender = createPushSender(testConfig(), createLogger('info', sink));
    const before = gateway.pushes.length;
    const outcome = await sender.send(
      { token: 'secret-token', platform: 'ios' },
      {
        notificationId: 'n1',
        title: 'Private title',
        body: 'b',
        category: 'news',
        tone: 'default',
        link: null,
      },
    );
    // issue 33: nothing left the server, so the push is never counted as sent
    expect(outcome).toBe('not_configured');
    expect(gateway.pushes.length).toBe(before);
    expect(lines.join('')).toContain('push logged, not sent');
    expect(lines.join('')).not.toContain('secret-token');
    expect(lines.join('')).not.toContain('Private title');
  });
});
