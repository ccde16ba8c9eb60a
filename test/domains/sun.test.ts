/**
 * Sun and the logged scores (issue 16): the sun-advice formulas (solar elevation, clear-sky UV index,
 * minutes to burn, advised minutes), sun_advice_read over MCP and /api/v1/health/sun/advice, and the
 * blood_pressure and sun score kinds read by bp_trends_read and sun_today_read (docs/scores.md).
 */
import { describe, expect, it } from 'vitest';
import { bloodPressureScore, sunScore } from '../../src/domains/insights/insights.scores.ts';
import {
  advisedMinutes,
  clearSkyUvIndex,
  minutesToBurn,
  sunAdviceFor,
  sunElevationDeg,
  uvCategory,
} from '../../src/domains/logs/logs.sun.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
let seq = 0;
const key = () => `sun-${process.pid}-${++seq}`;

describe('sun formulas', () => {
  it('computes the solar elevation: about 90 - latitude + 23.44 at the June solstice noon', () => {
    const advice = sunAdviceFor({
      latitude: 51.5,
      longitude: 0,
      date: '2026-06-21',
      timezone: 'Europe/London',
      skinType: 2,
    });
    expect(advice.maxElevationDeg).toBeCloseTo(90 - 51.5 + 23.44, 0);
    expect(advice.solarNoon.toISOString().slice(0, 16)).toBe('2026-06-21T12:01');
    expect(advice.hours.length).toBeGreaterThan(15);
    expect(advice.hours.every((h) => h.elevationDeg > 0)).toBe(true);
    expect(sunElevationDeg(new Date('2026-06-21T00:00:00Z'), 51.5, 0)).toBeLessThan(0);
  });

  it('estimates the clear-sky UV index as 12.5 sin(elevation)^2.42', () => {
    expect(clearSkyUvIndex(90)).toBeCloseTo(12.5, 6);
    expect(clearSkyUvIndex(30)).toBeCloseTo(12.5 * 0.5 ** 2.42, 6);
    expect(clearSkyUvIndex(0)).toBe(0);
    expect(clearSkyUvIndex(-10)).toBe(0);
    expect([2.9, 3, 5.9, 6, 8, 11].map(uvCategory)).toEqual([
      'low',
      'moderate',
      'moderate',
      'high',
      'very_high',
      'extreme',
    ]);
  });

  it('advises half the minutes to a minimal erythemal dose, at most 60, none below UV 3', () => {
    // skin type II: MED 250 J/m²; UV 10 = 0.25 W/m², so 1000 s = 16.7 min to burn
    expect(minutesToBurn(10, 2)).toBeCloseTo(250 / 15, 6);
    expect(advisedMinutes(10, 2)).toBe(8);
    expect(advisedMinutes(10, 6)).toBe(33);
    expect(advisedMinutes(3, 6)).toBe(60);
    expect(advisedMinutes(2.9, 2)).toBe(0);
    expect(minutesToBurn(0, 2)).toBeNull();
    const winter = sunAdviceFor({
      latitude: 60,
      longitude: 10,
      date: '2026-12-21',
      timezone: 'Europe/Oslo',
      skinType: 3,
    });
    expect(winter.peakUvIndex).toBeLessThan(1);
    expect(winter.advisedMinutes).toBe(0);
  });

  it('handles polar night (no sunrise) without failing', () => {
    const polar = sunAdviceFor({
      latitude: 80,
      longitude: 15,
      date: '2026-12-21',
      timezone: 'UTC',
      skinType: 1,
    });
    expect(polar).toMatchObject({ sunrise: null, sunset: null, hours: [], advisedMinutes: 0 });
  });
});

describe('score formulas', () => {
  const reading = (systolic: number, diastolic: number) => ({
    systolic,
    diastolic,
    measuredAt: clock.now(),
  });
  it('scores blood pressure against the 2017 ACC/AHA thresholds', () => {
    expect(bloodPressureScore('2026-11-20', [reading(118, 78)]).score).toBe(100);
    expect(bloodPressureScore('2026-11-20', [reading(140, 90)]).score).toBe(50);
    expect(bloodPressureScore('2026-11-20', [reading(130, 80), reading(150, 100)]).score).toBe(50);
    expect(bloodPressureScore('2026-11-20', [reading(165, 105)]).score).toBe(0);
    expect(bloodPressureScore('2026-11-20', [reading(80, 50)]).score).toBe(50);
    expect(bloodPressureScore('2026-11-20', [])).toMatchObject({
      score: null,
      reason: 'no_blood_pressure_data',
    });
  });

  it('scores the day’s sun minutes: full from 15 to 60, 0 at none and at 180', () => {
    const sessions = (...minutes: number[]) =>
      minutes.map((durationMinutes) => ({ loggedAt: clock.now(), durationMinutes }));
    expect(sunScore('2026-11-20', sessions(5)).score).toBe(33);
    expect(sunScore('2026-11-20', sessions(10, 5)).score).toBe(100);
    expect(sunScore('2026-11-20', sessions(60)).score).toBe(100);
    expect(sunScore('2026-11-20', sessions(120)).score).toBe(50);
    expect(sunScore('2026-11-20', sessions(200)).score).toBe(0);
    expect(sunScore('2026-11-20', [])).toMatchObject({ score: null, reason: 'no_sun_sessions' });
  });
});

describe('sun_advice_read', () => {
  it('answers the advice over MCP and REST for a place and date', async () => {
    const u = await seedUser(app);
    const pat = await seedPersonalToken(app, u.user.id, ['health:summary:read']);
    const args = { latitude: 40.4, longitude: -3.7, date: '2026-07-01', skin_type: 2 };
    const res = await callTool(await mcpClient(app, pat), 'sun_advice_read', args);
    expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
    const advice = res.structuredContent as any;
    expect(advice).toMatchObject({ date: '2026-07-01', skin_type: 2, uv_category: 'extreme' });
    expect(advice.advised_minutes).toBeGreaterThan(0);
    const viaRest = await rest(
      app,
      'GET',
      '/api/v1/health/sun/advice?latitude=40.4&longitude=-3.7&date=2026-07-01&skin_type=2',
      { token: pat },
    );
    expect(viaRest.status).toBe(200);
    expect(viaRest.body.peak_uv_index).toBe(advice.peak_uv_index);
  });

  it('refuses out-of-range arguments (422) and a token without health:summary:read (403)', async () => {
    const u = await seedUser(app);
    for (const q of [
      'latitude=91&longitude=0',
      'latitude=0&longitude=-181',
      'latitude=0&longitude=0&skin_type=7',
      'latitude=0&longitude=0&date=2026-02-30',
      'latitude=0&longitude=0&date=3000-01-01',
      'longitude=0',
    ]) {
      const res = await rest(app, 'GET', `/api/v1/health/sun/advice?${q}`, { token: u.token });
      expect(res.status, q).toBe(422);
    }
    const pat = await seedPersonalToken(app, u.user.id, ['health:metrics:read']);
    const res = await rest(app, 'GET', '/api/v1/health/sun/advice?latitude=0&longitude=0', {
      token: pat,
    });
    expect(res.status).toBe(403);
  });
});

describe('bp_trends_read and sun_today_read', () => {
  it("reads today's blood-pressure score from the day's readings, with both scopes", async () => {
    const u = await seedUser(app);
    const writer = await mcpClient(
      app,
      await seedPersonalToken(app, u.user.id, ['health:logs:write']),
    );
    for (const [systolic, diastolic] of [
      [130, 80],
      [150, 100],
    ])
      await callTool(writer, 'bp_reading_log', { systolic, diastolic, idempotency_key: key() });
    const both = await seedPersonalToken(app, u.user.id, [
      'health:metrics:read',
      'health:summary:read',
    ]);
    const res = await callTool(await mcpClient(app, both), 'bp_trends_read', { days: 2 });
    expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
    const [today, yesterday] = (res.structuredContent as any).items ?? res.structuredContent;
    expect(today).toMatchObject({ kind: 'blood_pressure', score: 50 });
    expect(yesterday).toMatchObject({ score: null, reason: 'no_blood_pressure_data' });

    const summaryOnly = await seedPersonalToken(app, u.user.id, ['health:summary:read']);
    const viaRest = await rest(app, 'GET', '/api/v1/health/scores/blood_pressure', {
      token: summaryOnly,
    });
    expect(viaRest.status).toBe(403);
    const refused = await callTool(await mcpClient(app, summaryOnly), 'bp_trends_read', {});
    expect(refused.isError).toBe(true);
    const ok = await rest(app, 'GET', '/api/v1/health/scores/blood_pressure?days=1', {
      token: both,
    });
    expect(ok.body[0]).toMatchObject({ score: 50 });
  });

  it("reads today's sun score from the saved sun sessions", async () => {
    const u = await seedUser(app);
    const writer = await mcpClient(
      app,
      await seedPersonalToken(app, u.user.id, ['health:logs:write']),
    );
    await callTool(writer, 'sun_session_save', { duration_minutes: 5, idempotency_key: key() });
    const reader = await seedPersonalToken(app, u.user.id, ['health:summary:read']);
    const res = await callTool(await mcpClient(app, reader), 'sun_today_read', {});
    expect(res.isError, JSON.stringify(res.structuredContent)).toBeFalsy();
    const scores = (res.structuredContent as any).items ?? res.structuredContent;
    expect(scores).toHaveLength(1);
    expect(scores[0]).toMatchObject({ kind: 'sun', score: 33 });
    expect(scores[0].components[0]).toMatchObject({ name: 'sun_minutes', value: 5, reference: 15 });
    const viaRest = await rest(app, 'GET', '/api/v1/health/scores/sun?days=1', { token: reader });
    expect(viaRest.body[0]).toMatchObject({ score: 33 });
    const noScope = await seedPersonalToken(app, u.user.id, ['health:logs:write']);
    expect((await rest(app, 'GET', '/api/v1/health/scores/sun', { token: noScope })).status).toBe(
      403,
    );
  });
});
