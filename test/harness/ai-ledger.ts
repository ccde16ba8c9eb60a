/**
 * The AI usage ledger of a test file's app, printed after the file (the closing note quotes
 * it): model calls per feature and outcome, cached rows, tokens and cost.
 */
import { afterAll } from 'vitest';
import type { TestApp } from './app.ts';

/** Prints `app`'s ledger, grouped by feature, outcome and cached, once the file's tests are done. */
export function printLedgerAfterAll(app: TestApp, label: string): void {
  afterAll(async () => {
    const groups = await app.db.prisma.aiUsage.groupBy({
      by: ['feature', 'outcome', 'cached'],
      _count: { _all: true },
      _sum: { tokensIn: true, tokensOut: true, costUsd: true },
      orderBy: [{ feature: 'asc' }, { outcome: 'asc' }, { cached: 'asc' }],
    });
    const rows = groups.map((g) => ({
      feature: g.feature,
      outcome: g.outcome,
      cached: g.cached,
      calls: g._count._all,
      tokens_in: g._sum.tokensIn ?? 0,
      tokens_out: g._sum.tokensOut ?? 0,
      cost_usd: Number(g._sum.costUsd ?? 0),
    }));
    console.log(`AI ledger (${label}): ${JSON.stringify(rows)}`);
  });
}
