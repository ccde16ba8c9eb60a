/**
 * Room monitor (issue 15): linking by client credentials against a real fake cloud
 * (test/fakes/monitor-cloud.ts), the signed webhook, the history sync and monitor_readings_read.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret } from '../../src/domains/monitor/monitor.crypto.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startFakeMonitorCloud } from '../fakes/monitor-cloud.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const SECRET = 'monitor-webhook-secret-0123456789';
const cloud = await startFakeMonitorCloud();
const app = await startTestApp({
  MONITOR_API_BASE: cloud.url,
  MONITOR_WEBHOOK_SECRET: SECRET,
  MONITOR_TIMEOUT_MS: '300',
});

let seq = 0;
const unique = (what: string) => `${what}-${process.pid}-${++seq}`;
const nowS = () => Math.floor(clock.ms() / 1000);
const sign = (body: string, secret = SECRET) =>
  `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

/** A person with a cloud account holding `serials`, linked. */
async function linkedPerson(serials: string[], samples: Record<string, number[]> = {}) {
  const person = await seedUser(app);
  const clientId = unique('client');
  cloud.addAccount(
    clientId,
    'right-secret',
    serials.map((id) => ({
      id,
      room: `Room ${id}`,
      samples: (samples[id] ?? []).map((time, i) => ({
        time,
        temp: 20 + i,
        humidity: 40,
        co2: 600 + i,
        pm25: 3,
      })),
    })),
  );
  const res = await rest(app, 'POST', '/api/monitor/link', {
    token: person.token,
    body: { client_id: clientId, client_secret: 'right-secret' },
  });
  expect(res.status).toBe(200);
  return { ...person, clientId };
}

function push(body: string, headers: Record<string, string>) {
  return app.fetch('/api/monitor/webhook', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
}

const reading = (serialNumber: string, recorded: string, co2 = 700) => ({
  serialNumber,
  recorded,
  temp: 21.5,
  humidity: 44,
  co2,
  pm25: 4.5,
});

describe('POST /api/monitor/link', () => {
  it('links with good credentials, stores the devices and the secret encrypted', async () => {
    const serial = unique('2960');
    const { user, clientId } = await linkedPerson([serial]);
    const link = await app.db.prisma.monitorLink.findUniqueOrThrow({ where: { userId: user.id } });
    expect(link.clientId).toBe(clientId);
    expect(link.secretCiphertext).not.toContain('right-secret');
    expect(decryptSecret(app.config.jwtSecret, link.secretCiphertext)).toBe('right-secret');
    const devices = await app.db.prisma.monitorDevice.findMany({ where: { userId: user.id } });
    expect(devices.map((d) => [d.serialNumber, d.name])).toEqual([[serial, `Room ${serial}`]]);
    const grant = cloud.requests.findLast((r) => r.path === '/v1/token')!;
    expect(grant.body).toMatchObject({ grant_type: 'client_credentials', client_id: clientId });
  });

  it('answers the link without the secret', async () => {
    const person = await seedUser(app);
    const clientId = unique('client');
    cloud.addAccount(clientId, 's3cret', [{ id: unique('2930'), deviceType: 'WAVE_PLUS' }]);
    const res = await rest(app, 'POST', '/api/monitor/link', {
      token: person.token,
      body: { client_id: clientId, client_secret: 's3cret', unknown_field: 1 },
    });
    expect(res.status).toBe(200);
    expect(res.body.linked).toBe(true);
    expect(res.body.devices[0].device_type).toBe('WAVE_PLUS');
    expect(JSON.stringify(res.body)).not.toContain('s3cret');
  });

  it('answers 400 monitor_credentials_rejected for bad credentials and stores nothing', async () => {
    const person = await seedUser(app);
    const clientId = unique('client');
    cloud.addAccount(clientId, 'right-secret', []);
    const res = await rest(app, 'POST', '/api/monitor/link', {
      token: person.token,
      body: { client_id: clientId, client_secret: 'wrong' },
    });
    expect(res.status).toBe(400);
    expect(res.body.detail.code).toBe('monitor_credentials_rejected');
    expect(await app.db.prisma.monitorLink.count({ where: { userId: person.user.id } })).toBe(0);
  });

  it('answers 502 when the cloud fails and 504 when it is too slow', async () => {
    const person = await seedUser(app);
    const clientId = unique('client');
    cloud.addAccount(clientId, 'right-secret', []);
    const body = { client_id: clientId, client_secret: 'right-secret' };
    cloud.fail(503);
    const failed = await rest(app, 'POST', '/api/monitor/link', { token: person.token, body });
    expect(failed.status).toBe(502);
    cloud.delay(1000);
    const slow = await rest(app, 'POST', '/api/monitor/link', { token: person.token, body });
    expect(slow.status).toBe(504);
    expect(slow.body.detail).toMatch(/did not answer in time/);
    expect(await app.db.prisma.monitorLink.count({ where: { userId: person.user.id } })).toBe(0);
  });

  it('refuses a personal token (a login session links) with 403', async () => {
    const { user } = await seedUser(app);
    const pat = await seedPersonalToken(app, user.id, ['health:metrics:read', 'account:write']);
    const body = { client_id: 'c', client_secret: 's' };
    const res = await rest(app, 'POST', '/api/monitor/link', { token: pat, body });
    expect(res.status).toBe(403);
    expect((await rest(app, 'GET', '/api/monitor/sync', { token: pat })).status).toBe(403);
  });

  it('answers 401 without a bearer and 422 for a missing secret', async () => {
    expect((await rest(app, 'POST', '/api/monitor/link', { body: {} })).status).toBe(401);
    const { token } = await seedUser(app);
    const res = await rest(app, 'POST', '/api/monitor/link', { token, body: { client_id: 'x' } });
    expect(res.status).toBe(422);
  });

  it('replaces the link and the devices on a relink', async () => {
    const first = unique('2960');
    const person = await linkedPerson([first]);
    const clientId = unique('client');
    const second = unique('2980');
    cloud.addAccount(clientId, 'other-secret', [{ id: second }]);
    const res = await rest(app, 'POST', '/api/monitor/link', {
      token: person.token,
      body: { client_id: clientId, client_secret: 'other-secret' },
    });
    expect(res.status).toBe(200);
    const links = await app.db.prisma.monitorLink.findMany({ where: { userId: person.user.id } });
    expect(links.map((l) => l.clientId)).toEqual([clientId]);
    const devices = await app.db.prisma.monitorDevice.findMany({
      where: { userId: person.user.id },
    });
    expect(devices.map((d) => d.serialNumber)).toEqual([second]);
  });
});

describe('POST /api/monitor/webhook', () => {
  it('stores a signed delivery: the raw payload, and readings per device and time', async () => {
    const serial = unique('2960');
    const person = await linkedPerson([serial]);
    const body = JSON.stringify({
      data: [reading(serial, '2026-11-20T10:00:00Z'), reading(serial, '2026-11-20T10:05:00')],
    });
    const delivery = unique('delivery');
    const res = await push(body, {
      'x-monitor-signature': sign(body),
      'x-monitor-delivery': delivery,
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, duplicate: false, stored: 2 });
    const kept = await app.db.prisma.monitorDelivery.findUniqueOrThrow({
      where: { deliveryId: delivery },
    });
    expect(kept.payload).toBe(body);
    const rows = await app.db.prisma.monitorReading.findMany({
      where: { serialNumber: serial },
      orderBy: { recordedAt: 'asc' },
    });
    expect(rows.map((r) => [r.userId, r.recordedAt.toISOString(), r.co2, r.pm25])).toEqual([
      [person.user.id, '2026-11-20T10:00:00.000Z', 700, 4.5],
      [person.user.id, '2026-11-20T10:05:00.000Z', 700, 4.5],
    ]);
  });

  it('refuses a forged or missing signature with 403 before writing anything', async () => {
    const serial = unique('2960');
    const body = JSON.stringify({ data: [reading(serial, '2026-11-20T10:00:00Z')] });
    const delivery = unique('delivery');
    for (const signature of [sign(body, 'another-secret-0123456789'), 'sha256=00', undefined]) {
      const headers: Record<string, string> = { 'x-monitor-delivery': delivery };
      if (signature) headers['x-monitor-signature'] = signature;
      const res = await push(body, headers);
      expect(res.status).toBe(403);
      expect((await res.json()).detail.code).toBe('invalid_signature');
    }
    // a signature over other bytes (the body re-serialised) does not match either
    const tampered = body.replace('21.5', '99');
    const res = await push(tampered, {
      'x-monitor-signature': sign(body),
      'x-monitor-delivery': delivery,
    });
    expect(res.status).toBe(403);
    expect(await app.db.prisma.monitorDelivery.count({ where: { deliveryId: delivery } })).toBe(0);
    expect(await app.db.prisma.monitorReading.count({ where: { serialNumber: serial } })).toBe(0);
  });

  it('acknowledges a replayed delivery id and changes nothing', async () => {
    const serial = unique('2960');
    await linkedPerson([serial]);
    const delivery = unique('delivery');
    const body = JSON.stringify({ data: [reading(serial, '2026-11-21T08:00:00Z', 800)] });
    const headers = { 'x-monitor-signature': sign(body), 'x-monitor-delivery': delivery };
    expect(await (await push(body, headers)).json()).toMatchObject({ stored: 1 });
    const again = await push(body, headers);
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ ok: true, duplicate: true, stored: 0 });
    // the same id with another (signed) body is still a repeat
    const other = JSON.stringify({ data: [reading(serial, '2026-11-21T09:00:00Z', 900)] });
    const third = await push(other, {
      'x-monitor-signature': sign(other),
      'x-monitor-delivery': delivery,
    });
    expect(await third.json()).toMatchObject({ duplicate: true });
    expect(await app.db.prisma.monitorReading.count({ where: { serialNumber: serial } })).toBe(1);
    expect(await app.db.prisma.monitorDelivery.count({ where: { deliveryId: delivery } })).toBe(1);
  });

  it('stores a reading once per device and time across deliveries', async () => {
    const serial = unique('2960');
    await linkedPerson([serial]);
    const body = JSON.stringify({ data: [reading(serial, '2026-11-22T08:00:00Z')] });
    for (const delivery of [unique('d'), unique('d')]) {
      const res = await push(body, {
        'x-monitor-signature': sign(body),
        'x-monitor-delivery': delivery,
      });
      expect(res.status).toBe(200);
    }
    expect(await app.db.prisma.monitorReading.count({ where: { serialNumber: serial } })).toBe(1);
  });

  it('keeps a reading of a device nobody linked attached to nobody', async () => {
    const serial = unique('2989');
    const body = JSON.stringify({ data: [reading(serial, '2026-11-22T08:00:00Z')] });
    const res = await push(body, {
      'x-monitor-signature': sign(body),
      'x-monitor-delivery': unique('d'),
    });
    expect(res.status).toBe(200);
    const row = await app.db.prisma.monitorReading.findFirstOrThrow({
      where: { serialNumber: serial },
    });
    expect(row.userId).toBeNull();
    expect(row.deliveryId).not.toBeNull();
  });

  it('answers 422 for a malformed payload (signed) and stores nothing', async () => {
    const serial = unique('2960');
    const bodies = [
      'not json',
      JSON.stringify({ readings: [] }),
      JSON.stringify({ data: [{ ...reading(serial, '2026-11-22T08:00:00Z'), humidity: 140 }] }),
      JSON.stringify({ data: [reading(serial, 'yesterday')] }),
      JSON.stringify({
        data: Array.from({ length: 1001 }, () => reading(serial, '2026-11-22T08:00:00Z')),
      }),
    ];
    for (const body of bodies) {
      const delivery = unique('d');
      const res = await push(body, {
        'x-monitor-signature': sign(body),
        'x-monitor-delivery': delivery,
      });
      expect(res.status).toBe(422);
      expect(await app.db.prisma.monitorDelivery.count({ where: { deliveryId: delivery } })).toBe(
        0,
      );
    }
    const body = JSON.stringify({ data: [] });
    const noId = await push(body, { 'x-monitor-signature': sign(body) });
    expect(noId.status).toBe(422);
  });
});

describe('unattached readings', () => {
  it("become the person's when they link that monitor", async () => {
    const serial = unique('2989');
    const body = JSON.stringify({ data: [reading(serial, '2026-11-23T08:00:00Z')] });
    await push(body, { 'x-monitor-signature': sign(body), 'x-monitor-delivery': unique('d') });
    const person = await linkedPerson([serial]);
    const row = await app.db.prisma.monitorReading.findFirstOrThrow({
      where: { serialNumber: serial },
    });
    expect(row.userId).toBe(person.user.id);
  });
});

describe('GET /api/monitor/sync', () => {
  it('fetches the window from the cloud (following its cursor), stores it once and answers it', async () => {
    const serial = unique('2960');
    const now = nowS();
    const times = Array.from({ length: 600 }, (_, i) => now - 3600 - i * 300).reverse();
    const old = now - 10 * 86_400;
    const person = await linkedPerson([serial], { [serial]: [old, ...times] });
    const res = await rest(app, 'GET', '/api/monitor/sync?days=3', { token: person.token });
    expect(res.status).toBe(200);
    expect(res.body.fetched).toBe(600);
    expect(res.body.stored).toBe(600);
    expect(res.body.devices[0].serial_number).toBe(serial);
    expect(res.body.devices[0].readings).toHaveLength(600);
    expect(res.body.devices[0].readings[0]).toMatchObject({ co2: 601, humidity: 40 });
    const pages = cloud.requests.filter((r) => r.path.startsWith(`/v1/devices/${serial}/samples`));
    expect(pages.at(-1)!.path).toContain('cursor=500');
    const again = await rest(app, 'GET', '/api/monitor/sync?days=3', { token: person.token });
    expect(again.body).toMatchObject({ fetched: 600, stored: 0 });
    expect(await app.db.prisma.monitorReading.count({ where: { userId: person.user.id } })).toBe(
      600,
    );
  });

  it('bounds the window to 1..30 days', async () => {
    const person = await linkedPerson([unique('2960')]);
    for (const days of [0, 31, 'x']) {
      const res = await rest(app, 'GET', `/api/monitor/sync?days=${days}`, { token: person.token });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['query', 'days']);
    }
  });

  it('answers 404 monitor_not_linked without a link and 502 when the cloud fails', async () => {
    const { token } = await seedUser(app);
    const res = await rest(app, 'GET', '/api/monitor/sync', { token });
    expect(res.status).toBe(404);
    expect(res.body.detail.code).toBe('monitor_not_linked');
    const person = await linkedPerson([unique('2960')]);
    cloud.fail(500);
    expect((await rest(app, 'GET', '/api/monitor/sync', { token: person.token })).status).toBe(502);
  });

  it('answers 409 monitor_relink_needed when the stored secret no longer opens', async () => {
    const person = await linkedPerson([unique('2960')]);
    await app.db.prisma.monitorLink.update({
      where: { userId: person.user.id },
      data: { secretCiphertext: 'c2VhbGVkIHVuZGVyIGFub3RoZXIga2V5IGJ5IGEgb3RoZXIgc2VydmVy' },
    });
    const res = await rest(app, 'GET', '/api/monitor/sync', { token: person.token });
    expect(res.status).toBe(409);
    expect(res.body.detail.code).toBe('monitor_relink_needed');
  });
});

describe('MCP monitor_readings_read', () => {
  async function seeded() {
    const serial = unique('2960');
    const now = nowS();
    const person = await linkedPerson([serial], {
      [serial]: Array.from({ length: 30 }, (_, i) => now - 60 - i * 300),
    });
    await rest(app, 'GET', '/api/monitor/sync?days=1', { token: person.token });
    return { ...person, serial };
  }

  it("reads the person's readings a page at a time, never another person's device", async () => {
    const mine = await seeded();
    const theirs = await seeded();
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, mine.user.id, ['health:metrics:read']),
    );
    const first = await callTool(client, 'monitor_readings_read', { days: 1, limit: 20 });
    const page = first.structuredContent as any;
    expect(page.items).toHaveLength(20);
    expect(page.items.every((r: any) => r.serial_number === mine.serial)).toBe(true);
    expect(page.items[0].recorded_at > page.items[19].recorded_at).toBe(true);
    const next = await callTool(client, 'monitor_readings_read', {
      days: 1,
      limit: 20,
      cursor: page.next_cursor,
    });
    expect((next.structuredContent as any).items).toHaveLength(10);
    const other = await callTool(client, 'monitor_readings_read', {
      serial_number: theirs.serial,
    });
    expect((other.structuredContent as any).items).toEqual([]);
  });

  it('answers the same readings as me { monitorReadings } in the dashboard graph', async () => {
    const mine = await seeded();
    const query = `{ me { monitorReadings(first: 25, days: 1) {
      nodes { serialNumber co2 } pageInfo { hasNextPage endCursor } } } }`;
    const res = await gql(app, query, { token: mine.token });
    const conn = res.body.data.me.monitorReadings;
    expect(conn.nodes).toHaveLength(25);
    expect(conn.nodes.every((n: any) => n.serialNumber === mine.serial)).toBe(true);
    expect(conn.pageInfo.hasNextPage).toBe(true);
  });

  it('refuses a token without health:metrics:read and out-of-bounds arguments', async () => {
    const mine = await seeded();
    const noScope = await mcpClient(
      app,
      await seedPersonalToken(app, mine.user.id, ['health:glucose:read']),
    );
    const refused = await callTool(noScope, 'monitor_readings_read', {});
    expect((refused.structuredContent as any).error.code).toBe('INSUFFICIENT_SCOPE');
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, mine.user.id, ['health:metrics:read']),
    );
    for (const args of [{ days: 31 }, { days: 0 }, { limit: 1001 }, { cursor: 'bogus' }]) {
      const res = await callTool(client, 'monitor_readings_read', args);
      expect(res.isError, JSON.stringify(args)).toBe(true);
      expect((res.structuredContent as any).error.code).toBe('VALIDATION_FAILED');
    }
    const listed = await client.listTools();
    const tool = listed.tools.find((t) => t.name === 'monitor_readings_read')!;
    expect(tool.inputSchema.properties!.days).toMatchObject({ minimum: 1, maximum: 30 });
  });
});

describe('account deletion', () => {
  it("deletes the person's link, devices and readings", async () => {
    const serial = unique('2960');
    const person = await linkedPerson([serial]);
    const body = JSON.stringify({ data: [reading(serial, '2026-11-22T08:00:00Z')] });
    await push(body, { 'x-monitor-signature': sign(body), 'x-monitor-delivery': unique('d') });
    await app.db.prisma.user.delete({ where: { id: person.user.id } });
    expect(await app.db.prisma.monitorLink.count({ where: { userId: person.user.id } })).toBe(0);
    expect(await app.db.prisma.monitorDevice.count({ where: { serialNumber: serial } })).toBe(0);
    expect(await app.db.prisma.monitorReading.count({ where: { serialNumber: serial } })).toBe(0);
  });
});

describe('an unconfigured server', () => {
  it('answers 503 to link and webhook when the monitor settings are unset', async () => {
    const bare = await startTestApp();
    const { token } = await seedUser(bare);
    const link = await rest(bare, 'POST', '/api/monitor/link', {
      token,
      body: { client_id: 'c', client_secret: 's' },
    });
    expect(link.status).toBe(503);
    const hook = await bare.fetch('/api/monitor/webhook', { method: 'POST', body: '{}' });
    expect(hook.status).toBe(503);
  });
});
