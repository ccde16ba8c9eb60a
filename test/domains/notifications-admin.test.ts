/**
 * Admin notifications (issue 15, spec "Admin"): GET /api/admin/notifications and
 * POST /api/admin/notifications/send over the REST facade: an admin's bearer only (401 without,
 * 403 for anyone else), bounded input, the push honouring the person's preferences and quiet hours
 * (reaching a fake push gateway, test/fakes/push.ts), and every send and listing in the admin audit
 * log, a send in the same transaction as its inbox item.
 */
import { describe, expect, it } from 'vitest';
import { seedUser } from '../factories/users.ts';
import { startFakePushGateway } from '../fakes/push.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const gateway = await startFakePushGateway();
const ADMIN_SENDS = 3;
const app = await startTestApp({
  PUSH_HTTP_URL: gateway.url,
  ADMIN_NOTIFICATION_SENDS_PER_HOUR: String(ADMIN_SENDS),
});
const prisma = app.db.prisma;

let seq = 0;
const SEND = '/api/admin/notifications/send';
const LIST = '/api/admin/notifications';

/** A person with an iOS phone registered through POST /api/devices/token. */
async function personWithPhone() {
  const seeded = await seedUser(app);
  const device = `ios-admin-${++seq}-${clock.ms()}`;
  const res = await rest(app, 'POST', '/api/devices/token', {
    token: seeded.token,
    body: { token: device, platform: 'ios' },
  });
  expect(res.status).toBe(200);
  return { ...seeded, device };
}

const message = (userId: number, extra: Record<string, unknown> = {}) => ({
  user_id: userId,
  title: 'Sensor ends tomorrow',
  body: 'Your sensor expires in 24 hours.',
  category: 'glucose',
  ...extra,
});

/** "HH:MM" of now + minutes in UTC. */
const utc = (minutes: number): string =>
  new Date(clock.ms() + minutes * 60_000).toISOString().slice(11, 16);

describe('POST /api/admin/notifications/send', () => {
  it('sends to one person: an inbox item, a push, and an audit entry', async () => {
    const admin = await seedUser(app, { isAdmin: true });
    const person = await personWithPhone();
    const res = await rest(app, 'POST', SEND, {
      token: admin.token,
      body: message(person.user.id, { link: 'app://devices/sensor', extra: 'ignored' }),
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      push_status: 'sent',
      devices: 1,
      sent: 1,
      notification: {
        user_id: person.user.id,
        source: 'admin',
        category: 'glucose',
        leads_to: 'app://devices/sensor',
      },
    });
    const id = res.body.notification.id;
    expect(gateway.to(person.device)).toMatchObject([
      {
        platform: 'ios',
        body: {
          aps: { alert: { title: 'Sensor ends tomorrow' }, 'thread-id': 'glucose' },
          notification_id: id,
          link: 'app://devices/sensor',
        },
      },
    ]);
    const row = await prisma.notification.findUniqueOrThrow({ where: { id } });
    expect(row).toMatchObject({ userId: person.user.id, sentByUserId: admin.user.id });
    const audit = await prisma.adminAuditEntry.findMany({
      where: { adminUserId: admin.user.id, action: 'sendAdminNotification' },
    });
    expect(audit).toMatchObject([
      { targetUserId: person.user.id, detail: { notificationId: id, category: 'glucose' } },
    ]);
    // the person reads it in their inbox
    const inbox = await gql(app, '{ notificationInbox { id source } }', { token: person.token });
    expect(inbox.body.data.notificationInbox).toEqual([{ id, source: 'admin' }]);
  });

  it("holds the push in the person's quiet hours and for a category turned off", async () => {
    const admin = await seedUser(app, { isAdmin: true });
    const person = await personWithPhone();
    const set = (input: Record<string, unknown>) =>
      gql(
        app,
        'mutation($i: SetNotificationPrefsInput!) { setNotificationPrefs(input: $i) { tone } }',
        {
          token: person.token,
          variables: { i: input },
        },
      );
    await set({ quietStart: utc(-60), quietEnd: utc(60), timeZone: 'UTC' });
    const quiet = await rest(app, 'POST', SEND, {
      token: admin.token,
      body: message(person.user.id),
    });
    expect(quiet.body).toMatchObject({ push_status: 'quiet_hours', devices: 1, sent: 0 });
    await set({ quietStart: null, quietEnd: null, categories: ['account'] });
    const off = await rest(app, 'POST', SEND, {
      token: admin.token,
      body: message(person.user.id),
    });
    expect(off.body).toMatchObject({ push_status: 'category_off', sent: 0 });
    expect(gateway.to(person.device)).toEqual([]);
    await set({ categories: ['glucose'] });
    const sent = await rest(app, 'POST', SEND, {
      token: admin.token,
      body: message(person.user.id),
    });
    expect(sent.body).toMatchObject({ push_status: 'sent', sent: 1 });
    expect(await prisma.notification.count({ where: { userId: person.user.id } })).toBe(3);
  });

  it('answers 401 without a bearer and 403 to a person who is not an admin', async () => {
    const person = await seedUser(app);
    const anonymous = await rest(app, 'POST', SEND, { body: message(person.user.id) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer');
    const forbidden = await rest(app, 'POST', SEND, {
      token: person.token,
      body: message(person.user.id),
    });
    expect(forbidden.status).toBe(403);
    expect(await prisma.notification.count({ where: { userId: person.user.id } })).toBe(0);
  });

  it('checks the bearer before the body (401, not 422, for a bad body without one)', async () => {
    expect((await rest(app, 'POST', SEND, { body: { title: 5 } })).status).toBe(401);
  });

  it.each([
    ['a title over 100 characters', { title: 'x'.repeat(101) }, 'title'],
    ['an empty body', { body: '  ' }, 'body'],
    ['a body over 1000 characters', { body: 'x'.repeat(1001) }, 'body'],
    ['an unknown category', { category: 'spam' }, 'category'],
    ['a link that is not app:// or https://', { link: 'javascript:alert(1)' }, 'link'],
    ['a user id of 0', { user_id: 0 }, 'user_id'],
  ])('refuses %s (422)', async (_case, extra, field) => {
    const admin = await seedUser(app, { isAdmin: true });
    const res = await rest(app, 'POST', SEND, { token: admin.token, body: message(1, extra) });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toContain(field);
  });

  it('answers 404 for a person who does not exist, and audits nothing', async () => {
    const admin = await seedUser(app, { isAdmin: true });
    const res = await rest(app, 'POST', SEND, { token: admin.token, body: message(2_000_000_000) });
    expect(res.status).toBe(404);
    expect(await prisma.adminAuditEntry.count({ where: { adminUserId: admin.user.id } })).toBe(0);
  });

  it(`allows ${ADMIN_SENDS} sends per admin per hour (429 beyond)`, async () => {
    const admin = await seedUser(app, { isAdmin: true });
    const person = await seedUser(app);
    for (let i = 0; i < ADMIN_SENDS; i++)
      expect(
        (await rest(app, 'POST', SEND, { token: admin.token, body: message(person.user.id) }))
          .status,
      ).toBe(200);
    const refused = await rest(app, 'POST', SEND, {
      token: admin.token,
      body: message(person.user.id),
    });
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBeTruthy();
  });
});

describe('GET /api/admin/notifications', () => {
  it('lists sent notifications newest first, paged, filtered by person; the listing is audited', async () => {
    const admin = await seedUser(app, { isAdmin: true });
    const person = await seedUser(app);
    const ids: string[] = [];
    for (const title of ['first', 'second', 'third']) {
      const res = await rest(app, 'POST', SEND, {
        token: admin.token,
        body: message(person.user.id, { title }),
      });
      ids.push(res.body.notification.id);
    }
    const viewer = await seedUser(app, { isAdmin: true });
    const mine = await rest(app, 'GET', `${LIST}?user_id=${person.user.id}`, {
      token: viewer.token,
    });
    expect(mine.status).toBe(200);
    expect(mine.body.map((n: { title: string }) => n.title)).toEqual(['third', 'second', 'first']);
    const page = await rest(app, 'GET', `${LIST}?user_id=${person.user.id}&limit=1&offset=1`, {
      token: viewer.token,
    });
    expect(page.body.map((n: { id: string }) => n.id)).toEqual([ids[1]]);
    const all = await rest(app, 'GET', `${LIST}?limit=100`, { token: viewer.token });
    expect(all.body.length).toBeGreaterThanOrEqual(3);
    const times = all.body.map((n: { created_at: string }) => Date.parse(n.created_at));
    expect(times).toEqual([...times].sort((a, b) => b - a));
    const audit = await prisma.adminAuditEntry.findMany({
      where: { adminUserId: viewer.user.id },
      orderBy: { id: 'asc' },
    });
    expect(audit).toMatchObject([
      { action: 'adminNotifications', targetUserId: person.user.id },
      { action: 'adminNotifications', targetUserId: person.user.id },
      { action: 'adminNotifications', targetUserId: null, detail: { limit: 100 } },
    ]);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['offset=-1', 'offset'],
    ['limit=abc', 'limit'],
  ])('refuses %s (422)', async (query, field) => {
    const admin = await seedUser(app, { isAdmin: true });
    const res = await rest(app, 'GET', `${LIST}?${query}`, { token: admin.token });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['query', field]);
  });

  it('answers 401 without a bearer and 403 to a person who is not an admin', async () => {
    const person = await seedUser(app);
    expect((await rest(app, 'GET', LIST)).status).toBe(401);
    expect((await rest(app, 'GET', LIST, { token: person.token })).status).toBe(403);
  });
});
