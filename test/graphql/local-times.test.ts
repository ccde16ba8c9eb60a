/**
 * Issue 30 item 1: a date-time without an offset is the person's local time in their profile zone,
 * through every door (MCP, REST, GraphQL variables and literals); MCP answers write times with the
 * person's offset; a person without a zone, or a time with an offset, is read as before.
 */
import { describe, expect, it } from 'vitest';
import { instantOfLocal, isoWithOffset } from '../../src/platform/local-time.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const prisma = app.db.prisma;

/** A person whose profile zone is `zone`, with a login token. */
async function personIn(zone: string | null) {
  const seeded = await seedUser(app);
  await prisma.user.update({ where: { id: seeded.user.id }, data: { timezone: zone } });
  return seeded;
}

/** Yesterday's local date in Berlin (a day well in the past, never in the future). */
const yesterday = new Date(clock.ms() - 86_400_000).toISOString().slice(0, 10);

describe('reading wall-clock time in a zone', () => {
  it.each([
    ['2026-11-27T08:00:00', 'Europe/Berlin', '2026-11-27T07:00:00.000Z'],
    ['2026-11-27T08:00', 'Europe/Berlin', '2026-11-27T07:00:00.000Z'],
    ['2026-11-27 08:00:00.250', 'Europe/Berlin', '2026-11-27T07:00:00.250Z'],
    ['2026-07-01T08:00:00', 'Europe/Berlin', '2026-07-01T06:00:00.000Z'],
    ['2026-11-27', 'Europe/Berlin', '2026-11-26T23:00:00.000Z'],
    ['2026-11-27T08:00:00', 'America/New_York', '2026-11-27T13:00:00.000Z'],
    ['2026-11-27T08:00:00', 'Asia/Kolkata', '2026-11-27T02:30:00.000Z'],
    ['2026-11-27T08:00:00', 'UTC', '2026-11-27T08:00:00.000Z'],
    // spring forward: 02:30 does not happen in Berlin; it moves on by the hour skipped (03:30 CEST)
    ['2026-03-29T02:30:00', 'Europe/Berlin', '2026-03-29T01:30:00.000Z'],
    // fall back: 02:30 happens twice; the earlier (CEST) is meant
    ['2026-10-25T02:30:00', 'Europe/Berlin', '2026-10-25T00:30:00.000Z'],
    ['2026-10-25T03:30:00', 'Europe/Berlin', '2026-10-25T02:30:00.000Z'],
  ])('%s in %s is %s', (text, zone, iso) => {
    expect(instantOfLocal(text, zone)?.toISOString()).toBe(iso);
  });

  it.each(['2026-02-30T08:00:00', '2026-11-27T24:00:00', '2026-11-27T08:60', '2026-13-01', 'x'])(
    'reads no time from %s',
    (text) => expect(instantOfLocal(text, 'Europe/Berlin')).toBeNull(),
  );

  it('writes an instant with the zone offset it had then', () => {
    const at = new Date('2026-11-27T07:00:00Z');
    expect(isoWithOffset(at, 'Europe/Berlin')).toBe('2026-11-27T08:00:00.000+01:00');
    expect(isoWithOffset(new Date('2026-07-01T06:00:00Z'), 'Europe/Berlin')).toBe(
      '2026-07-01T08:00:00.000+02:00',
    );
    expect(isoWithOffset(at, 'America/St_Johns')).toBe('2026-11-27T03:30:00.000-03:30');
    expect(isoWithOffset(at, 'UTC')).toBe('2026-11-27T07:00:00.000Z');
  });
});

describe('an offset-less time from an agent (MCP)', () => {
  it('is local time in the profile zone, and the answer carries the offset', async () => {
    const { user } = await personIn('Europe/Berlin');
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, user.id, ['health:nutrition:write']),
    );
    const result = await callTool(client, 'nutrition_meal_log', {
      idempotency_key: 'local-time-1',
      meal_name: 'Porridge',
      eaten_at: `${yesterday}T08:00:00`,
      items: [{ name: 'Oats', grams: 50, kcal: 190, carbs_g: 30 }],
    });
    expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
    const meal = (await prisma.meal.findFirstOrThrow({ where: { userId: user.id } })).eatenAt;
    const expected = instantOfLocal(`${yesterday}T08:00:00`, 'Europe/Berlin')!;
    expect(meal.toISOString()).toBe(expected.toISOString());
    const answered = (result.structuredContent as any).eaten_at as string;
    expect(answered).toBe(isoWithOffset(expected, 'Europe/Berlin'));
    expect(answered).toMatch(/T08:00:00\.000\+0[12]:00$/);
    expect(Date.parse(answered)).toBe(expected.getTime());
  });

  it('keeps a time that names its offset, and a person without a zone is in UTC', async () => {
    const berlin = await personIn('Europe/Berlin');
    const utc = await personIn(null);
    for (const [who, text, iso] of [
      [berlin, `${yesterday}T08:00:00Z`, `${yesterday}T08:00:00.000Z`],
      [berlin, `${yesterday}T08:00:00-05:00`, `${yesterday}T13:00:00.000Z`],
      [utc, `${yesterday}T08:00:00`, `${yesterday}T08:00:00.000Z`],
    ] as const) {
      const client = await mcpClient(
        app,
        await seedPersonalToken(app, who.user.id, ['health:nutrition:write']),
      );
      const result = await callTool(client, 'nutrition_meal_log', {
        idempotency_key: `k-${text}`,
        eaten_at: text,
        items: [{ name: 'Tea', grams: 200, kcal: 2 }],
      });
      expect(result.isError, text).toBeFalsy();
      const meal = await prisma.meal.findFirstOrThrow({
        where: { userId: who.user.id },
        orderBy: { createdAt: 'desc' },
      });
      expect(meal.eatenAt.toISOString(), text).toBe(iso);
    }
  });
});

describe('an offset-less time from the phone (REST) and from GraphQL', () => {
  it('REST: a glucose reading at local 07:15 is stored at 07:15 Berlin; answers stay UTC', async () => {
    const { user, token } = await personIn('Europe/Berlin');
    const created = await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { timestamp: `${yesterday}T07:15:00`, value_mg_dl: 101 },
    });
    expect(created.status).toBe(200);
    const expected = instantOfLocal(`${yesterday}T07:15:00`, 'Europe/Berlin')!;
    expect(created.body.timestamp).toBe(expected.toISOString());
    const stored = await prisma.glucoseReading.findFirstOrThrow({ where: { userId: user.id } });
    expect(stored.timestamp.toISOString()).toBe(expected.toISOString());
  });

  it('GraphQL: variables and literals alike', async () => {
    const { token } = await personIn('America/New_York');
    const expected = instantOfLocal(`${yesterday}T06:00:00`, 'America/New_York')!.toISOString();
    const mutation = `mutation($t: DateTime!) { createGlucoseReading(input: { timestamp: $t, valueMgDl: 90 }) { timestamp } }`;
    const byVariable = await gql(app, mutation, {
      token,
      variables: { t: `${yesterday}T06:00:00` },
    });
    expect(byVariable.body.errors).toBeUndefined();
    expect(byVariable.body.data.createGlucoseReading.timestamp).toBe(expected);
    const literal = `mutation { createGlucoseReading(input: { timestamp: "${yesterday}T06:00:00", valueMgDl: 91 }) { timestamp } }`;
    const byLiteral = await gql(app, literal, { token });
    expect(byLiteral.body.errors).toBeUndefined();
    expect(byLiteral.body.data.createGlucoseReading.timestamp).toBe(expected);
  });

  it('refuses a wall time that names no real time, with 422 at the field', async () => {
    const { token } = await personIn('Europe/Berlin');
    const res = await rest(app, 'POST', '/api/glucose/readings', {
      token,
      body: { timestamp: '2026-02-30T07:15:00', value_mg_dl: 101 },
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.detail)).toContain('timestamp');
  });
});

describe('the zone comes with the credential', () => {
  it('answers in a new zone at once after the profile changes it, through a cached token', async () => {
    const seeded = await personIn('Europe/Berlin');
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, seeded.user.id, ['profile:read']),
    );
    const createdAt = async (): Promise<string> => {
      const result = await callTool(client, 'get_profile');
      expect(result.isError, JSON.stringify(result.structuredContent)).toBeFalsy();
      return (result.structuredContent as { created_at: string }).created_at;
    };
    const created = (await prisma.user.findUniqueOrThrow({ where: { id: seeded.user.id } }))
      .createdAt;
    // the first call caches the token (and the zone with it); the second is served from the cache
    expect(await createdAt()).toBe(isoWithOffset(created, 'Europe/Berlin'));
    expect(await createdAt()).toBe(isoWithOffset(created, 'Europe/Berlin'));
    const changed = await rest(app, 'PATCH', '/api/auth/me', {
      token: seeded.token,
      body: { timezone: 'America/New_York' },
    });
    expect(changed.status).toBe(200);
    expect(await createdAt()).toBe(isoWithOffset(created, 'America/New_York'));
  });
});
