/**
 * The signals read (issue 33, discovery_signals_read): which daily series the person's data
 * supports over a window of local days, with each one's coverage, and which signals of the
 * catalogue have no day at all. Reads use readerUserId (a grantee viewing as reads the owner's).
 */
import { readerUserId } from '../../auth/principal.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { addDays, localDateOf } from '../../platform/local-dates.ts';
import type { LocalDate } from '../../platform/local-dates.ts';
import { personZone } from '../profile/index.ts';
import { loadSignals, SIGNAL_CATALOGUE, signalCoverage, signalInfo } from './discovery.signals.ts';
import { RUN_DAYS_DEFAULT } from './discovery.types.ts';
import type { SignalInfo } from './discovery.types.ts';
import { clock } from '../../base/clock.ts';

/** Whether `key` names a signal of the catalogue or of the per-name kinds. */
export function isSignalKey(key: string): boolean {
  return signalInfo(key) !== null && key.length <= 120;
}

export interface SignalCoverageView extends SignalInfo {
  days: number;
  firstDate: LocalDate | null;
  lastDate: LocalDate | null;
  coveragePct: number;
}

export interface SignalsView {
  timeZone: string;
  from: LocalDate;
  to: LocalDate;
  signals: SignalCoverageView[];
  missing: string[];
}

/** The person's signals over `days` local days ending yesterday. */
export async function discoverySignals(
  ctx: AuthedContext,
  options: { days?: number | null },
): Promise<SignalsView> {
  const zone = await personZone(ctx);
  const to = addDays(localDateOf(clock.now(), zone), -1);
  const from = addDays(to, -((options.days ?? RUN_DAYS_DEFAULT) - 1));
  const series = await loadSignals(ctx.prisma, { userId: readerUserId(ctx), zone, from, to });
  const present = new Set(series.map((s) => s.key));
  return {
    timeZone: zone,
    from,
    to,
    signals: signalCoverage(series, from, to).map((c, i) => {
      const { values: _values, ...info } = series[i];
      return {
        ...info,
        days: c.days,
        firstDate: c.first,
        lastDate: c.last,
        coveragePct: c.coveragePct,
      };
    }),
    missing: SIGNAL_CATALOGUE.filter((s) => !present.has(s.key)).map((s) => s.key),
  };
}
