/**
 * Insights come to the person (issue 33): the background work that computes the rules for
 * everyone, without anyone reading them, and pushes the ones that warrant it through the
 * notifications domain (which honours the person's categories and quiet hours). Two parts:
 *
 * - the morning run (insights.morning.ts): each process checks every INSIGHTS_MORNING_CHECK_MS for
 *   people whose local time has passed INSIGHTS_MORNING_HOUR and who have not had today's run, and
 *   claims them in the database (one row per person and local day), so each person runs once a day
 *   whatever the number of processes;
 * - predicted lows (insights.alerts.ts): the glucose domain announces new readings
 *   (`onGlucoseStored`), which queues a job; the worker evaluates the predicted-low rule and pushes
 *   once per episode.
 *
 * What warrants a push (MORNING_PUSH_MAX_PRIORITY, docs/scores.md "Insights come to the person"):
 * in the morning, the cards and suggestions of priority 1-2 that are not alerts (the week-on-week
 * trend, review_lows, walk_after_meals, sleep_more, take_it_easy), as one push naming the most
 * urgent; a predicted low, once an episode, as it happens. Score cards and priority-3 suggestions
 * are only recorded.
 */
import type { BackgroundWork } from '../../platform/jobs.ts';
import { checkPredictedLow, PREDICTED_LOW_QUEUE } from './insights.alerts.ts';
import { runMorningCheck } from './insights.morning.ts';
import type { InsightsWorkDeps } from './insights.person.ts';

/** Registers the predicted-low worker and the periodic morning check (unless INSIGHTS_DELIVERY=off). */
function registerInsightsDelivery(deps: InsightsWorkDeps): void {
  if (deps.config.INSIGHTS_DELIVERY !== 'on') return;
  deps.jobs.work(PREDICTED_LOW_QUEUE, async (data) => {
    const userId = Number(data.userId);
    if (Number.isSafeInteger(userId)) await checkPredictedLow(deps, { userId });
  });
  deps.jobs.every(deps.config.INSIGHTS_MORNING_CHECK_MS, async () => {
    await runMorningCheck(deps, {});
  });
}

/** The morning run and the predicted-low worker (the app's registry, src/server/background.ts). */
export const INSIGHTS_DELIVERY_WORK: BackgroundWork<InsightsWorkDeps> = {
  name: 'insights delivery',
  register: registerInsightsDelivery,
  // a morning claim left by a process that died is taken again by the next check (stale claims);
  // a predicted-low job is only worth running while fresh, so nothing is queued again at start
  resume: () => Promise.resolve(),
};
