/**
 * How often a person may have a report read (issue 45): reading a PDF or OCR-ing a photo is the
 * heaviest thing the labs domain does, so each person may start LAB_PARSES_PER_HOUR reads an hour
 * on every door (GraphQL parseBloodReport, POST /api/v1/labs/parse, MCP blood_report_parse_inline).
 * Counted in the limits store (ctx.limits), so replicas share the count through Redis.
 *
 * It must never count anyone but the credential's own person.
 */
import type { AuthedContext } from '../../graphql/context.ts';
import { spendLimit } from '../../platform/limits.ts';
import type { LimitRule } from '../../platform/limits.ts';

/** The window of LAB_PARSES_PER_HOUR, in seconds. */
const HOUR = 3600;

/**
 * Counts one report read of the credential's person against LAB_PARSES_PER_HOUR; RATE_LIMITED
 * (429 with Retry-After) once the hour's reads are spent. Call it before the file is decoded.
 */
export async function chargeLabParse(ctx: AuthedContext): Promise<void> {
  const perHour = ctx.config.LAB_PARSES_PER_HOUR;
  const rule: LimitRule = { name: 'labs:parses', points: perHour, seconds: HOUR };
  await spendLimit(
    ctx.limits,
    rule,
    String(ctx.principal.userId),
    `At most ${perHour} reports are read an hour: try again later, or type the values with blood_report_create.`,
  );
}
