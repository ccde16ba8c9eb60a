import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();

describe('POST /api/devices/token (issue 4)', () => {
  it('upserts a push token; registering it from another account moves it there', async () => {
    const me = await seedUser(app);
    const other = await seedUser(app);
    const body = { token: `apns-${clock.ms()}`, platform: 'ios', device_id: 'iphone-1' };
    const first = await rest(app, 'POST', '/api/devices/token', { token: me.token, body });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ token: body.token, platform: 'ios', device_id: 'iphone-1' });
    const again = await rest(app, 'POST', '/api/devices/token', {
      token: me.token,
      body: { ...body, device_id: null },
    });
    expect(again.body.id).toBe(first.body.id);
    expect(await app.db.prisma.deviceToken.count({ where: { token: body.token } })).toBe(1);
    await rest(app, 'POST', '/api/devices/token', { token: other.token, body });
    const row = await app.db.prisma.deviceToken.findUniqueOrThrow({ where: { token: body.token } });
    expect(row.userId).toBe(other.user.id);
  });

  it('answers 422 for an unknown platform or an empty token, 401 without a credential, 403 for a personal token', async () => {
    const me = await seedUser(app);
    expect(
      (
        await rest(app, 'POST', '/api/devices/token', {
          token: me.token,
          body: { token: 'x', platform: 'palm' },
        })
      ).status,
    ).toBe(422);
    expect(
      (
        await rest(app, 'POST', '/api/devices/token', {
          token: me.token,
          body: { token: ' ', platform: 'ios' },
        })
      ).status,
    ).toBe(422);
    expect(
      (await rest(app, 'POST', '/api/devices/token', { body: { token: 'x', platform: 'ios' } }))
        .status,
    ).toBe(401);
    const pat = await seedPersonalToken(app, me.user.id, ['profile:write']);
    expect(
      (
        await rest(app, 'POST', '/api/devices/token', {
          token: pat,
          body: { token: 'x', platform: 'ios' },
        })
      ).status,
    ).toBe(403);
  });
});

describe('POST /api/devices/sensor and /api/devices/sensor/unbind (issue 4)', () => {
  it('upserts by serial number per person; two people may bind the same serial number', async () => {
    const me = await seedUser(app);
    const other = await seedUser(app);
    const started = '2026-11-01T08:00:00.000Z';
    const first = await rest(app, 'POST', '/api/devices/sensor', {
      token: me.token,
      body: { serial_number: 'SN-1', sensor_type: 'libre3', started_at: started },
    });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      serial_number: 'SN-1',
      sensor_type: 'libre3',
      started_at: started,
      status: 'active',
      unbound_at: null,
    });
    const update = await rest(app, 'POST', '/api/devices/sensor', {
      token: me.token,
      body: { serial_number: 'SN-1', expires_at: '2026-11-15T08:00:00.000Z' },
    });
    expect(update.body).toMatchObject({
      id: first.body.id,
      sensor_type: 'libre3',
      started_at: started,
      expires_at: '2026-11-15T08:00:00.000Z',
    });
    const theirs = await rest(app, 'POST', '/api/devices/sensor', {
      token: other.token,
      body: { serial_number: 'SN-1' },
    });
    expect(theirs.body.id).not.toBe(first.body.id);
    expect(await app.db.prisma.sensorSession.count({ where: { serialNumber: 'SN-1' } })).toBe(2);
  });

  it("unbinds the caller's sensor; re-binding re-activates it", async () => {
    const me = await seedUser(app);
    await rest(app, 'POST', '/api/devices/sensor', {
      token: me.token,
      body: { serial_number: 'SN-2' },
    });
    const unbound = await rest(app, 'POST', '/api/devices/sensor/unbind?serial_number=SN-2', {
      token: me.token,
    });
    expect(unbound.status).toBe(200);
    expect(unbound.body).toMatchObject({
      serial_number: 'SN-2',
      status: 'unbound',
      unbound_at: expect.any(String),
    });
    const twice = await rest(app, 'POST', '/api/devices/sensor/unbind?serial_number=SN-2', {
      token: me.token,
    });
    expect(twice.body.unbound_at).toBe(unbound.body.unbound_at);
    const rebound = await rest(app, 'POST', '/api/devices/sensor', {
      token: me.token,
      body: { serial_number: 'SN-2' },
    });
    expect(rebound.body).toMatchObject({ status: 'active', unbound_at: null });
  });

  it("answers 404 for an unknown serial number or another person's, 422 without serial_number, 401 without a credential", async () => {
    const me = await seedUser(app);
    const other = await seedUser(app);
    await rest(app, 'POST', '/api/devices/sensor', {
      token: other.token,
      body: { serial_number: 'SN-3' },
    });
    const theirs = await rest(app, 'POST', '/api/devices/sensor/unbind?serial_number=SN-3', {
      token: me.token,
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ detail: 'Sensor not found' });
    const row = await app.db.prisma.sensorSession.findFirstOrThrow({
      where: { userId: other.user.id, serialNumber: 'SN-3' },
    });
    expect(row.status).toBe('active');
    expect(
      (
        await rest(app, 'POST', '/api/devices/sensor/unbind?serial_number=nope', {
          token: me.token,
        })
      ).status,
    ).toBe(404);
    const missing = await rest(app, 'POST', '/api/devices/sensor/unbind', { token: me.token });
    expect(missing.status).toBe(422);
    expect(missing.body.detail[0].loc).toEqual(['query', 'serial_number']);
    // documented as a query parameter: a client that sends a JSON body is still told to use the query
    const withBody = await rest(app, 'POST', '/api/devices/sensor/unbind', {
      token: me.token,
      body: {},
    });
    expect(withBody.body.detail[0].loc).toEqual(['query', 'serial_number']);
    expect((await rest(app, 'POST', '/api/devices/sensor/unbind?serial_number=SN-3')).status).toBe(
      401,
    );
    expect(
      (await rest(app, 'POST', '/api/devices/sensor', { token: me.token, body: {} })).status,
    ).toBe(422);
  });
});
