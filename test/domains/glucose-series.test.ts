/**
 * glucoseSeries (the glucose domain's read of many short windows as bare numbers, issue 17): the
 * text the database writes is read back exactly, overlapping windows give each reading once, the
 * answer is sorted, deleted and other people's readings are absent.
 */
import { describe, expect, it } from 'vitest';
import { glucoseSeries, parseSeries } from '../../src/domains/glucose/glucose.service.ts';
import type { AuthedContext } from '../../src/graphql/context.ts';
import { seedUser } from '../factories/users.ts';
import { seedGlucose } from '../factories/insights.ts';
import { startTestApp } from '../harness/app.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const MIN = 60_000;
const T0 = Math.floor((clock.ms() - 86_400_000) / MIN) * MIN;

/** The service's context as far as glucoseSeries reads it: the database and whose data. */
const ctxOf = (userId: number) =>
  ({ prisma: app.db.prisma, principal: { userId } }) as unknown as AuthedContext;

describe('parseSeries', () => {
  it('reads integer pairs, negative ones included, as milliseconds and mg/dL', () => {
    expect(parseSeries('1700000000123 10450,-5000 -125,0 0')).toEqual([
      { t: 1700000000123, v: 104.5 },
      { t: -5000, v: -1.25 },
      { t: 0, v: 0 },
    ]);
  });
});

describe('glucoseSeries', () => {
  it('answers the readings of overlapping windows once each, sorted, to 0.01 mg/dL', async () => {
    const me = await seedUser(app);
    const other = await seedUser(app);
    const points = Array.from({ length: 24 }, (_, i) => ({
      timestamp: new Date(T0 + i * 5 * MIN),
      valueMgDl: 90 + i + 0.25,
    }));
    await seedGlucose(app, me.token, points);
    await seedGlucose(
      app,
      other.token,
      points.map((p) => ({ ...p, valueMgDl: 300 })),
    );
    await app.db.prisma.glucoseReading.updateMany({
      where: { userId: me.user.id, timestamp: new Date(T0 + 50 * MIN) },
      data: { deletedAt: clock.now() },
    });
    const series = await glucoseSeries(ctxOf(me.user.id), [
      { start: new Date(T0 + 60 * MIN), end: new Date(T0 + 200 * MIN) },
      { start: new Date(T0), end: new Date(T0 + 30 * MIN) },
      { start: new Date(T0 + 20 * MIN), end: new Date(T0 + 70 * MIN) }, // overlaps both
      { start: new Date(T0 + 90 * MIN), end: new Date(T0 + 90 * MIN) }, // empty
    ]);
    const expected = points
      .filter((p) => p.timestamp.getTime() !== T0 + 50 * MIN)
      .map((p) => ({ t: p.timestamp.getTime(), v: p.valueMgDl }));
    expect(series).toEqual(expected);
    expect(await glucoseSeries(ctxOf(me.user.id), [])).toEqual([]);
  });
});
