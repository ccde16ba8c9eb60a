/**
 * The morning run (issue 33): once each local day, from INSIGHTS_MORNING_HOUR in the person's zone,
 * the person's cards and suggestions are computed and recorded (insights.service.ts `dayInsights`,
 * the same rules and idempotent recording as a read), and the ones that warrant it are pushed as
 * one notification (category `insights`, through notifyPerson: categories and quiet hours hold).
 *
 * The claim. Every process runs the check (on PostgreSQL, WEB_CONCURRENCY processes, each with its
 * own timer), so "once a day" lives in the database: the row (user, local day) of
 * `insight_mornings`, written by `INSERT ... ON CONFLICT DO NOTHING RETURNING`, is the claim. Of two
 * checks inserting the same row, the second waits for the first's commit and gets nothing back, so
 * each person and day is handed to exactly one check. A check claims CLAIM_BATCH due people at a
 * time (in random order, so two checks seldom reach for the same people), runs them, and claims
 * again until nobody is due. A claim carries its time: one not done within CLAIM_STALE_MS (its
 * process died mid-batch) is taken again, row by row under `FOR UPDATE SKIP LOCKED`, by the next
 * check anywhere. Rows older than KEEP_DAYS are deleted.
 *
 * NOTE: what happens twice after a crash: a person whose run had pushed but not yet been marked
 * done when the process died is pushed again when the claim is taken back (recording stays once:
 * the insights' natural key). Marking done right after the push keeps that window to one person's
 * push per crashed batch slot.
 */
import { isTimeZone } from '../../platform/time-zones.ts';
import { peopleZonesSql, storedZones } from '../profile/index.ts';
import type { InsightsWorkDeps } from './insights.person.ts';
import { personContext } from './insights.person.ts';
import type { InsightCard, Suggestion } from './insights.rules.ts';
import { dayInsights } from './insights.service.ts';
import { clock } from '../../base/clock.ts';

/** Cards and suggestions of this priority or more urgent (1) warrant the morning push, alerts aside. */
export const MORNING_PUSH_MAX_PRIORITY = 2;
/** People claimed by one statement. */
export const CLAIM_BATCH = 100;
/** People of a claimed batch run at once (each run is a handful of queries). */
export const RUN_CONCURRENCY = 4;
/** A claim not done after this long belongs to a process that died: it is taken again. */
export const CLAIM_STALE_MS = 10 * 60_000;
/** Claims older than this many days are deleted. */
const KEEP_DAYS = 8;
const DAY_MS = 86_400_000;

export interface MorningCheckOptions {
  /** the instant to check at (default now) */
  now?: Date;
  /** people claimed per statement (default CLAIM_BATCH) */
  batch?: number;
}

export interface MorningCheckView {
  /** people this check claimed and ran */
  claimed: number;
  /** of them, people a push went out to (a notification item was written) */
  notified: number;
}

interface Claim {
  userId: number;
  day: string;
  claimedAt: Date;
}

/** What one person's run did. */
interface MorningRun {
  recorded: number;
  pushStatus: string | null;
}

/**
 * Claims up to `batch` people whose morning has come and who have no row for their local today
 * (`zones`: the zones both the database and the runtime know; any other counts as UTC).
 */
async function claimDue(
  deps: InsightsWorkDeps,
  now: Date,
  batch: number,
  zones: readonly string[],
): Promise<Claim[]> {
  const at = now.toISOString();
  const hour = deps.config.INSIGHTS_MORNING_HOUR;
  return deps.prisma.$queryRaw<Claim[]>`
    WITH people AS (${peopleZonesSql(zones)}),
    due AS (
      SELECT p.user_id, to_char(${at}::timestamptz AT TIME ZONE p.zone, 'YYYY-MM-DD') AS day
        FROM people p
       WHERE extract(hour FROM ${at}::timestamptz AT TIME ZONE p.zone) >= ${hour}::int
    )
    INSERT INTO insight_mornings (user_id, day, claimed_at)
    SELECT d.user_id, d.day, ${at}::timestamptz
      FROM due d
     WHERE NOT EXISTS (SELECT 1 FROM insight_mornings m WHERE m.user_id = d.user_id AND m.day = d.day)
     ORDER BY random()
     LIMIT ${batch}::int
    ON CONFLICT DO NOTHING
    RETURNING user_id AS "userId", day, claimed_at AS "claimedAt"`;
}

/** Takes back up to `batch` claims of the last day that went stale (their process died). */
async function claimStale(deps: InsightsWorkDeps, now: Date, batch: number): Promise<Claim[]> {
  const at = now.toISOString();
  const stale = new Date(now.getTime() - CLAIM_STALE_MS).toISOString();
  const oldest = new Date(now.getTime() - DAY_MS).toISOString();
  return deps.prisma.$queryRaw<Claim[]>`
    UPDATE insight_mornings m SET claimed_at = ${at}::timestamptz
      FROM (SELECT user_id, day FROM insight_mornings
             WHERE done_at IS NULL AND claimed_at < ${stale}::timestamptz
               AND claimed_at > ${oldest}::timestamptz
             ORDER BY claimed_at LIMIT ${batch}::int
             FOR UPDATE SKIP LOCKED) s
     WHERE m.user_id = s.user_id AND m.day = s.day
    RETURNING m.user_id AS "userId", m.day, m.claimed_at AS "claimedAt"`;
}

/** The morning push: the most urgent card or suggestion that warrants one, and how many more. */
export function morningPush(
  cards: readonly InsightCard[],
  suggestions: readonly Suggestion[],
  dismissed: ReadonlySet<string>,
): { title: string; body: string } | null {
  const items = [
    ...cards
      .filter((c) => c.kind !== 'alert' && c.priority <= MORNING_PUSH_MAX_PRIORITY)
      .map((c) => ({
        rule: c.id.split(':')[1],
        priority: c.priority,
        title: c.title,
        body: c.body,
      })),
    ...suggestions
      .filter((s) => s.priority <= MORNING_PUSH_MAX_PRIORITY)
      .map((s) => ({ rule: s.code, priority: s.priority, title: s.title, body: s.message })),
  ]
    .filter((i) => !dismissed.has(i.rule))
    .sort((a, b) => a.priority - b.priority);
  if (!items.length) return null;
  const [first] = items;
  const more = items.length - 1;
  const tail = more ? ` And ${more} more in your insights.` : '';
  return { title: first.title, body: `${first.body}${tail}` };
}

/** Runs one claimed person's morning: records today's insights, pushes what warrants it. */
async function runOne(deps: InsightsWorkDeps, claim: Claim): Promise<MorningRun> {
  const ctx = personContext(deps, claim.userId, 'insights-morning');
  const day = await dayInsights(ctx);
  // the claim's day is the person's today but for a run that straddles local midnight
  if (day.date !== claim.day) return { recorded: day.recorded, pushStatus: null };
  const dismissed = await ctx.prisma.insight.findMany({
    where: { userId: claim.userId, subject: day.date, status: 'dismissed' },
    select: { rule: true },
  });
  const rules = new Set(dismissed.map((d) => d.rule.replace(/_trend$/, '')));
  const push = morningPush(day.cards, day.suggestions, rules);
  if (!push) return { recorded: day.recorded, pushStatus: null };
  const sent = await deps.notify(ctx, {
    userId: claim.userId,
    category: 'insights',
    ...push,
    link: 'app://insights',
  });
  return { recorded: day.recorded, pushStatus: sent.pushStatus };
}

/** Runs the claimed people, RUN_CONCURRENCY at a time; a failed run stays claimed (taken back later). */
async function runClaims(deps: InsightsWorkDeps, claims: Claim[]): Promise<number> {
  let next = 0;
  let notified = 0;
  const lane = async (): Promise<void> => {
    while (next < claims.length) {
      const claim = claims[next++];
      try {
        const run = await runOne(deps, claim);
        if (run.pushStatus) notified++;
        await deps.prisma.insightMorning.updateMany({
          where: { userId: claim.userId, day: claim.day, claimedAt: claim.claimedAt },
          data: { doneAt: clock.now(), recorded: run.recorded, pushStatus: run.pushStatus },
        });
      } catch (err) {
        deps.log.error({ err, userId: claim.userId, day: claim.day }, 'morning insights failed');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(RUN_CONCURRENCY, claims.length) }, lane));
  return notified;
}

/**
 * One check: claims people whose morning has come (and stale claims), batch by batch, and runs
 * them, until nobody is left; answers how many this check ran. Safe to run in several processes
 * at once, and twice at once in one.
 */
export async function runMorningCheck(
  deps: InsightsWorkDeps,
  options: MorningCheckOptions,
): Promise<MorningCheckView> {
  const now = options.now ?? clock.now();
  const batch = options.batch ?? CLAIM_BATCH;
  await deps.prisma.$executeRaw`
    DELETE FROM insight_mornings
     WHERE claimed_at < ${new Date(now.getTime() - KEEP_DAYS * DAY_MS).toISOString()}::timestamptz`;
  // as the services count days (zoneOrUtc): a zone the runtime does not know is UTC
  const zones = (await storedZones(deps.prisma)).filter(isTimeZone);
  let claimed = 0;
  let notified = 0;
  for (;;) {
    const stale = await claimStale(deps, now, batch);
    const claims = stale.length ? stale : await claimDue(deps, now, batch, zones);
    if (!claims.length) break;
    claimed += claims.length;
    notified += await runClaims(deps, claims);
  }
  return { claimed, notified };
}
