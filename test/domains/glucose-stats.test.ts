import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  PROCESSING_VERSION,
  processRaw,
  processSample,
} from '../../src/domains/glucose/glucose.processing.ts';
import {
  gmi,
  mean,
  percentile,
  rangeIndex,
  standardDeviation,
  trendStats,
} from '../../src/domains/glucose/glucose.stats.ts';

const at = (iso: string): Date => new Date(iso);

describe('glucose statistics (pure)', () => {
  it('computes percentiles by linear interpolation between closest ranks', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([1, 2, 3, 4], 50)).toBe(2.5);
    expect(percentile([10, 20, 30, 40, 50], 25)).toBe(20);
    expect(percentile([10, 20, 30, 40, 50], 95)).toBe(48);
  });

  it('computes mean, sample SD and GMI', () => {
    expect(mean([])).toBeNull();
    expect(mean([100, 200])).toBe(150);
    expect(standardDeviation([100])).toBeNull();
    expect(standardDeviation([2, 4, 4, 4, 5, 5, 7, 9])).toBeCloseTo(2.138, 3);
    expect(gmi(154)).toBeCloseTo(6.99, 2);
  });

  it('puts values into the consensus ranges at their edges', () => {
    expect([53.9, 54, 69.9, 70, 180, 180.1, 250, 250.1].map(rangeIndex)).toEqual([
      0, 1, 1, 2, 2, 3, 3, 4,
    ]);
  });

  it('answers zero figures and nulls for an empty window', () => {
    const s = trendStats([], at('2026-01-01T00:00:00Z'), at('2026-01-01T06:00:00Z'));
    expect(s).toMatchObject({
      count: 0,
      coveragePct: 0,
      mean: null,
      sd: null,
      cv: null,
      gmi: null,
      timeInRangePct: 0,
    });
    expect(s.hourly).toHaveLength(24);
  });

  it("groups the AGP's hours by the person's local hour (issue 47)", () => {
    // 07:30 in Los Angeles (PST, UTC-8) is 15:30Z: hour 7, not 15; Kolkata's +05:30 moves the hour too
    const breakfast = { timestamp: at('2026-01-15T15:30:00Z'), valueMgDl: 180 };
    const window = [at('2026-01-15T00:00:00Z'), at('2026-01-16T00:00:00Z')] as const;
    const la = trendStats([breakfast], ...window, 'America/Los_Angeles');
    expect(la.hourly[7].count).toBe(1);
    expect(la.hourly[15].count).toBe(0);
    expect(trendStats([breakfast], ...window, 'Asia/Kolkata').hourly[21].count).toBe(1);
  });

  it('measures coverage against 5-minute readings and groups hours in UTC', () => {
    const start = at('2026-01-01T00:00:00Z');
    const points = Array.from({ length: 6 }, (_, i) => ({
      timestamp: new Date(start.getTime() + i * 300_000),
      valueMgDl: 100 + i,
    }));
    const s = trendStats(points, start, at('2026-01-01T01:00:00Z'));
    expect(s.coveragePct).toBe(50);
    expect(s.hourly[0]).toEqual({
      hour: 0,
      count: 6,
      p5: 100.3,
      p25: 101.3,
      p50: 102.5,
      p75: 103.8,
      p95: 104.8,
    });
    expect(s.hourly[1].count).toBe(0);
  });

  it('reproduces independently computed figures on a real Dexcom G4 trace (Hall 2018, CC BY 4.0)', () => {
    const lines = readFileSync(
      new URL('../fixtures/cgm/hall2018-one-subject.csv', import.meta.url),
      'utf8',
    )
      .trim()
      .split('\n')
      .slice(1);
    const points = lines.map((l) => {
      const [, time, gl] = l.split(',');
      return { timestamp: new Date(`${time.replace(' ', 'T')}Z`), valueMgDl: Number(gl) };
    });
    const first = points[0].timestamp;
    const s = trendStats(points, first, new Date(first.getTime() + 7 * 86_400_000));
    // reference values computed with Python's statistics module from the same file
    expect(s).toMatchObject({
      count: 1846,
      mean: 108.2,
      sd: 27.3,
      cv: 25.23,
      gmi: 5.9,
      timeVeryLowPct: 0,
      timeLowPct: 0.54,
      timeInRangePct: 96.91,
      timeHighPct: 2.55,
      timeVeryHighPct: 0,
    });
    expect(s.hourly[3]).toMatchObject({ hour: 3, count: 74, p50: 97 });
  });
});

describe('raw sensor processing (pure, versioned)', () => {
  it('calibrates, compensates temperature, clamps to the sensor range and rounds to 0.1 mg/dL', () => {
    const cal = { slope: 0.5, intercept: 10 };
    expect(
      processSample(
        { timestamp: at('2026-01-01T00:00:00Z'), rawValue: 200, temperatureC: null },
        cal,
      ),
    ).toBe(110);
    expect(
      processSample(
        { timestamp: at('2026-01-01T00:00:00Z'), rawValue: 200, temperatureC: 43 },
        cal,
      ),
    ).toBe(100.9);
    expect(
      processSample(
        { timestamp: at('2026-01-01T00:00:00Z'), rawValue: 0, temperatureC: null },
        cal,
      ),
    ).toBe(40);
    expect(
      processSample(
        { timestamp: at('2026-01-01T00:00:00Z'), rawValue: 5000, temperatureC: null },
        cal,
      ),
    ).toBe(400);
    expect(PROCESSING_VERSION).toBe(1);
  });

  it('answers one reading per sample in time order', () => {
    const out = processRaw(
      [
        { timestamp: at('2026-01-01T00:05:00Z'), rawValue: 120, temperatureC: null },
        { timestamp: at('2026-01-01T00:00:00Z'), rawValue: 100, temperatureC: null },
      ],
      { slope: 1, intercept: 0 },
    );
    expect(out.map((r) => r.valueMgDl)).toEqual([100, 120]);
  });
});
