/**
 * Predicted lows when new glucose arrives (issue 33). Every write of readings is announced by the
 * glucose domain (`onGlucoseStored`); the listener here only queues a job (PREDICTED_LOW_QUEUE),
 * so the write never waits for the rule, and readings too old to predict anything queue nothing.
 * The worker evaluates the predicted-low rule (insights.rules.ts `alertsFrom`, over the readings of
 * the last 30 minutes), records the alert as the day's insight (idempotent, insights.feed.ts) and
 * pushes it once per episode through notifyPerson (category `glucose`).
 *
 * An episode: firings of the rule less than EPISODE_GAP_MINUTES apart. One row per person and rule
 * (`insight_alert_episodes`) holds the episode's start and the latest firing; recording a firing
 * answers whether it started a new episode, one writer winning under the row's lock or its key, so
 * two workers (two processes) evaluating the same fall push once.
 */
import type { LocalDate } from '../../platform/local-dates.ts';
import { localDateOf } from '../../platform/local-dates.ts';
import { onGlucoseStored } from '../glucose/index.ts';
import { personZone } from '../profile/index.ts';
import type { InsightsWorkDeps } from './insights.person.ts';
import { personContext } from './insights.person.ts';
import { recordCards } from './insights.feed.ts';
import { alertCard, alertsFrom, PREDICTION_MAX_AGE_MINUTES } from './insights.rules.ts';
import { predictionReadings } from './insights.service.ts';
import { clock } from '../../base/clock.ts';

/** The pg-boss queue of predicted-low checks (one job per write of readings). */
export const PREDICTED_LOW_QUEUE = 'insights-predicted-low';
/** A predicted low this long after the previous one starts a new episode (a new push). */
export const EPISODE_GAP_MINUTES = 60;

export interface CheckPredictedLowOptions {
  /** the person whose readings arrived */
  userId: number;
  /** the instant to evaluate at (default now) */
  now?: Date;
}

export interface PredictedLowCheckView {
  /** whether the rule fired */
  fired: boolean;
  /** whether this firing started an episode (and so was pushed) */
  newEpisode: boolean;
  /** the push's status, when pushed */
  pushStatus: string | null;
  /** the local day the alert was recorded on, when it fired */
  date: LocalDate | null;
}

// NOTE: registered when this module loads (the background registry imports it through index.ts);
// the listener only queues, and only while the readings can still predict something
onGlucoseStored('insights predicted low', async (deps, arrival) => {
  if (deps.config.INSIGHTS_DELIVERY !== 'on') return;
  if (clock.ms() - arrival.latest.getTime() > PREDICTION_MAX_AGE_MINUTES * 60_000) return;
  await deps.jobs.send(PREDICTED_LOW_QUEUE, { userId: arrival.userId });
});

/**
 * Records a firing of `rule` at `at`; answers true when it starts a new episode (no earlier firing,
 * or the latest one EPISODE_GAP_MINUTES or more before). Each step is one statement whose WHERE or
 * key admits one writer: of two workers recording the same firing at once, the second sees the
 * first's row (the update re-checks its condition under the row lock; the insert conflicts).
 */
async function startsEpisode(
  deps: InsightsWorkDeps,
  userId: number,
  rule: string,
  at: Date,
): Promise<boolean> {
  const iso = at.toISOString();
  const gapBefore = new Date(at.getTime() - EPISODE_GAP_MINUTES * 60_000).toISOString();
  const restarted = await deps.prisma.$executeRaw`
    UPDATE insight_alert_episodes SET started_at = ${iso}::timestamptz, last_at = ${iso}::timestamptz
     WHERE user_id = ${userId}::int AND rule = ${rule} AND last_at <= ${gapBefore}::timestamptz`;
  if (restarted) return true;
  const first = await deps.prisma.$executeRaw`
    INSERT INTO insight_alert_episodes (user_id, rule, started_at, last_at)
    VALUES (${userId}::int, ${rule}, ${iso}::timestamptz, ${iso}::timestamptz)
    ON CONFLICT (user_id, rule) DO NOTHING`;
  if (first) return true;
  await deps.prisma.$executeRaw`
    UPDATE insight_alert_episodes SET last_at = greatest(last_at, ${iso}::timestamptz)
     WHERE user_id = ${userId}::int AND rule = ${rule}`;
  return false;
}

/**
 * Evaluates the predicted-low rule for a person now; when it fires, records the alert as today's
 * insight and, when it starts an episode, pushes it (category glucose, as preferences allow).
 */
export async function checkPredictedLow(
  deps: InsightsWorkDeps,
  options: CheckPredictedLowOptions,
): Promise<PredictedLowCheckView> {
  const { userId } = options;
  const now = options.now ?? clock.now();
  const ctx = personContext(deps, userId, 'predicted-low');
  const readings = await predictionReadings(ctx, now);
  const low = alertsFrom(readings, now).find((a) => a.kind === 'predicted_low');
  if (!low) return { fired: false, newEpisode: false, pushStatus: null, date: null };
  const timezone = await personZone(ctx);
  const today = localDateOf(now, timezone);
  const card = alertCard(low, today);
  const inputs = {
    timezone,
    now,
    glucose: readings,
    sleep: [],
    metrics: [],
    workouts: [],
    meals: [],
  };
  await recordCards(ctx, [card], { inputs, today });
  if (!(await startsEpisode(deps, userId, low.kind, now))) {
    return { fired: true, newEpisode: false, pushStatus: null, date: today };
  }
  const sent = await deps.notify(ctx, {
    userId,
    category: 'glucose',
    title: card.title,
    body: card.body,
    link: 'app://insights',
  });
  return { fired: true, newEpisode: true, pushStatus: sent.pushStatus, date: today };
}
