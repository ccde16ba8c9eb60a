/**
 * The context the background insights work (issue 33: insights.morning.ts, insights.alerts.ts)
 * acts in for one person, and what that work is given.
 *
 * NOTE: the work runs as the person: a principal of the person with no scopes, built here and
 * nowhere else (no door builds it), used only to call the insights and notifications services for
 * that person's own data; it never reaches a resolver, so no scope check is bypassed.
 */
import type { Logger } from '../../base/logger.ts';
import type { AuthedContext, ContextDeps } from '../../graphql/context.ts';
import { createContextAs } from '../../graphql/context.ts';

/** A push to one person: an inbox item, pushed as the person's preferences allow. */
export interface InsightPush {
  /** the person */
  userId: number;
  /** the notification category: insights (the morning run) or glucose (a predicted low) */
  category: 'insights' | 'glucose';
  title: string;
  body: string;
  /** where opening it leads in the app */
  link: string;
}

/**
 * Sends a push through the notifications domain (its `notifyPerson`), answering the push's status.
 * Passed in by the server's registry (src/server/background.ts): notifications sits above
 * insights (it audits through admin, which triggers insights), so insights does not import it.
 */
export type InsightNotifier = (
  ctx: AuthedContext,
  push: InsightPush,
) => Promise<{ pushStatus: string }>;

/** What the background work is given (the server's WorkDeps satisfy it). */
export type InsightsWorkDeps = ContextDeps & { log: Logger; notify: InsightNotifier };

/** A context acting as `userId` for the background job named `job` (its request id names both). */
export function personContext(deps: InsightsWorkDeps, userId: number, job: string): AuthedContext {
  return createContextAs(
    deps,
    { ip: null, userAgent: null, requestId: `${job}:${userId}`, log: deps.log, via: 'graphql' },
    {
      kind: 'session',
      userId,
      sessionId: `background:${job}`,
      sessionKind: 'native',
      isAdmin: false,
      scopes: new Set(),
      viewAs: null,
    },
  );
}
