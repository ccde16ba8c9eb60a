/**
 * offsetMinutes remembers a zone's offset per UTC hour (src/platform/local-dates.ts): an hour that
 * holds a transition must still answer each instant's own offset, however often it is asked, and
 * whatever minute the transition falls on.
 */
import { describe, expect, it } from 'vitest';
import { offsetMinutes } from '../../src/platform/local-dates.ts';

const at = (iso: string): number => Date.parse(iso);

/** The offset as Intl's own longOffset names it, without any memo. */
function intlOffset(format: Intl.DateTimeFormat, instant: number): number {
  const name = format
    .formatToParts(new Date(instant))
    .find((p) => p.type === 'timeZoneName')!.value; // "GMT-03:30", "GMT" for zero
  const m = /GMT([+-])(\d{2}):(\d{2})/.exec(name);
  return m ? (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) : 0;
}

describe('zone offsets, remembered per hour', () => {
  it('answers both sides of a transition on the half hour (St Johns, 05:30 UTC), asked twice', () => {
    const zone = 'America/St_Johns';
    for (let round = 0; round < 2; round++) {
      expect(offsetMinutes(zone, at('2026-03-08T05:29:59Z'))).toBe(-210);
      expect(offsetMinutes(zone, at('2026-03-08T05:30:00Z'))).toBe(-150);
      expect(offsetMinutes(zone, at('2026-03-08T05:00:00Z'))).toBe(-210);
      expect(offsetMinutes(zone, at('2026-03-08T05:59:59Z'))).toBe(-150);
    }
  });

  it('answers both sides of a transition on the hour (Berlin, autumn) and the hours around it', () => {
    const zone = 'Europe/Berlin';
    expect(offsetMinutes(zone, at('2026-10-25T00:59:59Z'))).toBe(120);
    expect(offsetMinutes(zone, at('2026-10-25T01:00:00Z'))).toBe(60);
    expect(offsetMinutes(zone, at('2026-10-25T00:30:00Z'))).toBe(120);
    expect(offsetMinutes(zone, at('2026-10-25T01:30:00Z'))).toBe(60);
  });

  it('agrees with Intl every 17 minutes across a year of transitions in four zones', () => {
    const zones = ['America/St_Johns', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Europe/Berlin'];
    const start = at('2026-01-01T00:00:00Z');
    for (const zone of zones) {
      const format = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        timeZoneName: 'longOffset',
      });
      let wrong = 0;
      for (let t = start; t < start + 366 * 86_400_000; t += 17 * 60_000 + 13_000) {
        if (offsetMinutes(zone, t) !== intlOffset(format, t)) wrong++;
      }
      expect(wrong, zone).toBe(0);
    }
  });
});
