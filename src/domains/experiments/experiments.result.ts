/**
 * The result of an n-of-1 experiment (issue 17), pure: no I/O. Formulas and thresholds:
 * docs/nutrition.md, "Experiments".
 *
 * - Each period's meals with a glucose response give a mean and a sample standard deviation of
 *   the iAUC (mg/dL x min) and of the rise (mg/dL).
 * - Difference: intervention mean minus control mean (negative: smaller responses while trying).
 * - Effect size: Hedges' g = J x (mean_I - mean_C) / s_pooled, with
 *   s_pooled = sqrt(((n_I - 1) s_I^2 + (n_C - 1) s_C^2) / (n_I + n_C - 2)) and the small-sample
 *   correction J = 1 - 3 / (4 (n_I + n_C) - 9).
 * - Not enough data: fewer than MIN_MEALS_PER_PERIOD meals with a response in either period, or
 *   no spread at all (s_pooled = 0): no difference, no effect size, and a message saying why.
 * - Verdict (on the iAUC's g): |g| < 0.2 no_clear_difference, else lower or higher; magnitude by
 *   Cohen's bands: < 0.2 negligible, < 0.5 small, < 0.8 medium, else large.
 */

/** The fewest meals with a response each period needs before the result is computed. */
export const MIN_MEALS_PER_PERIOD = 5;
/** Below this |g| the verdict is no_clear_difference. */
export const NEGLIGIBLE_EFFECT = 0.2;

/** The responses of one period's qualifying meals. */
export interface PeriodSample {
  /** qualifying meals in the period (with or without a response) */
  meals: number;
  /** iAUC of each meal with a response, mg/dL x min */
  iaucs: number[];
  /** rise of each meal with a response, mg/dL */
  rises: number[];
}

/** One period's figures. */
export interface PeriodFigures {
  meals: number;
  mealsWithResponse: number;
  meanIaucMgDlMin: number | null;
  sdIaucMgDlMin: number | null;
  meanRiseMgDl: number | null;
  sdRiseMgDl: number | null;
}

export type Verdict = 'not_enough_data' | 'lower' | 'higher' | 'no_clear_difference';
export type Magnitude = 'negligible' | 'small' | 'medium' | 'large';

/** The comparison of the two periods. */
export interface ComparisonFigures {
  verdict: Verdict;
  /** why, in a sentence an agent can repeat */
  message: string;
  control: PeriodFigures;
  intervention: PeriodFigures;
  iaucDifferenceMgDlMin: number | null;
  riseDifferenceMgDl: number | null;
  /** Hedges' g of the iAUC (negative: smaller responses in the intervention period) */
  effectSizeIauc: number | null;
  /** Hedges' g of the rise */
  effectSizeRise: number | null;
  magnitude: Magnitude | null;
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

/** The sample variance (n - 1), 0 for a single value. */
function variance(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
}

/**
 * Hedges' g of `treated` against `control` (formula in the header); null when either has fewer
 * than 2 values or the pooled standard deviation is 0.
 */
export function hedgesG(control: readonly number[], treated: readonly number[]): number | null {
  const nC = control.length;
  const nT = treated.length;
  if (nC < 2 || nT < 2) return null;
  const pooled = Math.sqrt(
    ((nT - 1) * variance(treated) + (nC - 1) * variance(control)) / (nT + nC - 2),
  );
  if (pooled === 0) return null;
  const j = 1 - 3 / (4 * (nT + nC) - 9);
  return (j * (mean(treated) - mean(control))) / pooled;
}

const round = (x: number, digits: number): number => {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
};

function figures(p: PeriodSample): PeriodFigures {
  const n = p.iaucs.length;
  return {
    meals: p.meals,
    mealsWithResponse: n,
    meanIaucMgDlMin: n ? Math.round(mean(p.iaucs)) : null,
    sdIaucMgDlMin: n ? Math.round(Math.sqrt(variance(p.iaucs))) : null,
    meanRiseMgDl: n ? round(mean(p.rises), 1) : null,
    sdRiseMgDl: n ? round(Math.sqrt(variance(p.rises)), 1) : null,
  };
}

/** Cohen's band of |g|. */
export function magnitudeOf(g: number): Magnitude {
  const a = Math.abs(g);
  return a < 0.2 ? 'negligible' : a < 0.5 ? 'small' : a < 0.8 ? 'medium' : 'large';
}

/** Compares the two periods (rules in the header). */
export function comparePeriods(
  control: PeriodSample,
  intervention: PeriodSample,
): ComparisonFigures {
  const c = figures(control);
  const i = figures(intervention);
  const empty = {
    control: c,
    intervention: i,
    iaucDifferenceMgDlMin: null,
    riseDifferenceMgDl: null,
    effectSizeIauc: null,
    effectSizeRise: null,
    magnitude: null,
  };
  if (c.mealsWithResponse < MIN_MEALS_PER_PERIOD || i.mealsWithResponse < MIN_MEALS_PER_PERIOD) {
    return {
      ...empty,
      verdict: 'not_enough_data',
      message: `Not enough data: each period needs at least ${MIN_MEALS_PER_PERIOD} qualifying meals with a glucose response (control ${c.mealsWithResponse}, intervention ${i.mealsWithResponse}). Log the meals and wear a sensor around them.`,
    };
  }
  const gIauc = hedgesG(control.iaucs, intervention.iaucs);
  if (gIauc === null) {
    return {
      ...empty,
      verdict: 'not_enough_data',
      message:
        'Not enough data: the responses do not vary at all, so no effect size can be computed.',
    };
  }
  const gRise = hedgesG(control.rises, intervention.rises);
  const verdict: Verdict =
    Math.abs(gIauc) < NEGLIGIBLE_EFFECT ? 'no_clear_difference' : gIauc < 0 ? 'lower' : 'higher';
  const diff = i.meanIaucMgDlMin! - c.meanIaucMgDlMin!;
  const message =
    verdict === 'no_clear_difference'
      ? `No clear difference: the mean iAUC changed by ${diff} mg/dL x min (Hedges' g ${round(gIauc, 2)}).`
      : `Glucose responses were ${verdict} during the intervention: mean iAUC ${diff > 0 ? '+' : ''}${diff} mg/dL x min (Hedges' g ${round(gIauc, 2)}, ${magnitudeOf(gIauc)}). One person's data: a hint, not proof.`;
  return {
    control: c,
    intervention: i,
    verdict,
    message,
    iaucDifferenceMgDlMin: diff,
    riseDifferenceMgDl: round(i.meanRiseMgDl! - c.meanRiseMgDl!, 1),
    effectSizeIauc: round(gIauc, 3),
    effectSizeRise: gRise === null ? null : round(gRise, 3),
    magnitude: magnitudeOf(gIauc),
  };
}
