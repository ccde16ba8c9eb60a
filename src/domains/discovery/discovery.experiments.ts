/**
 * Discovery's experiment proposals (issue 33), pure: a hypothesis ("a day with a later last meal is
 * associated with fasting glucose the next day 9 mg/dL higher") turned into the ready arguments of
 * `insights_experiment_start` (name, intervention, meal_type, baseline_days, intervention_days), in
 * words a person can follow, or null where no sensible experiment exists.
 *
 * What the experiment measures: the experiments domain (docs/nutrition.md, "Experiments") compares
 * the glucose responses (iAUC and rise) of the qualifying meals (of `meal_type`, or every meal) of
 * the baseline days before the start with those of the intervention days. So a proposal exists
 * only for a glucose outcome and a driver the person can change (meal timing, carbohydrates,
 * sugar, steps and activity, bedtime and sleep, water, daylight, a logged habit such as a sleep
 * factor or nicotine), and only in the direction the hypothesis says goes with better glucose. It
 * tests whether the change moves the meals' glucose responses, which is related to, not the same
 * as, the hypothesis's outcome (fasting glucose, time in range): the next discovery run shows that
 * outcome again. Never a dose, a medication or a diagnosis.
 */
import type { PairResult, SignalInfo } from './discovery.types.ts';

/**
 * insights_experiment_start's meal types (src/domains/experiments/experiments.service.ts
 * EXPERIMENT_MEAL_TYPES; that domain has no index.ts to import from, test/domains/discovery-stats
 * checks the two lists agree).
 */
export const PROPOSAL_MEAL_TYPES = ['breakfast', 'lunch', 'dinner', 'snack'] as const;
export type ProposalMealType = (typeof PROPOSAL_MEAL_TYPES)[number];

/** Bounds of a proposal, within insights_experiment_start's (name 1..120, intervention 1..1000). */
export const PROPOSAL_NAME_MAX = 80;
export const PROPOSAL_INTERVENTION_MAX = 200;
/** Each period is a week: every day of the week once, as the discovery test adjusts for it. */
export const PROPOSAL_PERIOD_DAYS = 7;

/** Ready arguments for insights_experiment_start (start_at left to the person: now). */
export interface ExperimentProposal {
  name: string;
  intervention: string;
  meal_type?: ProposalMealType;
  baseline_days: number;
  intervention_days: number;
}

type Change = 'less' | 'more';

interface Template {
  /** whether the driver is one this template speaks about */
  matches: (driver: SignalInfo) => boolean;
  /** the proposal when the driver should go down ("less") or up ("more"); absent: none */
  less?: (driver: SignalInfo) => Omit<ExperimentProposal, 'baseline_days' | 'intervention_days'>;
  more?: (driver: SignalInfo) => Omit<ExperimentProposal, 'baseline_days' | 'intervention_days'>;
}

const has = (info: SignalInfo, pattern: RegExp): boolean =>
  pattern.test(info.key) || pattern.test(info.label);

/** Drivers never proposed, whatever the direction: a medication is for the person's clinician. */
const NEVER = /medication|medicine|insulin|drug|dose/i;

const BEDTIME = {
  name: 'Earlier bedtime',
  intervention: 'Go to bed 30 minutes earlier than usual',
  meal_type: 'breakfast',
} as const;

/** First match wins; a driver no template matches gets no proposal. */
const TEMPLATES: Template[] = [
  {
    matches: (d) => d.domain === 'meals' && d.unit === 'hour of day',
    less: () => ({
      name: 'Earlier last meal',
      intervention: 'Finish the last meal of the day by 19:00',
      meal_type: 'dinner',
    }),
  },
  {
    matches: (d) => d.domain === 'meals' && has(d, /sugar/i),
    less: () => ({
      name: 'Less sugar',
      intervention: 'Leave out sweets, sweet drinks and desserts',
    }),
  },
  {
    matches: (d) => d.domain === 'meals' && has(d, /carb/i),
    less: () => ({
      name: 'Fewer carbohydrates',
      intervention:
        'Halve the bread, rice, pasta or potatoes on the plate and fill the space with vegetables',
    }),
  },
  {
    matches: (d) => d.domain === 'activity' && !d.binary,
    more: () => ({
      name: 'Walk after dinner',
      intervention: 'A 10-minute walk after dinner',
      meal_type: 'dinner',
    }),
  },
  {
    // a later bedtime, or less sleep, going with worse glucose: to bed earlier
    matches: (d) => d.domain === 'sleep' && d.unit === 'hour of day',
    less: () => BEDTIME,
  },
  {
    matches: (d) => d.domain === 'sleep' && d.unit === 'min',
    more: () => BEDTIME,
  },
  {
    matches: (d) => d.domain === 'logs' && has(d, /hydration|water/i),
    more: () => ({
      name: 'More water',
      intervention: 'Drink a large glass of water with each meal',
    }),
  },
  {
    matches: (d) => d.domain === 'logs' && has(d, /sun/i),
    more: () => ({
      name: 'Morning daylight',
      intervention: 'Spend 15 minutes outside in daylight each morning',
      meal_type: 'breakfast',
    }),
  },
  {
    // a habit the person logs (0/1 days, or counted like nicotine): a week without it
    matches: (d) => d.domain === 'logs' && (d.binary || has(d, /nicotine/i)),
    less: (d) => ({
      name: clip(`Days without ${lowerLabel(d)}`, PROPOSAL_NAME_MAX),
      intervention: clip(
        `Go without ${lowerLabel(d)} every day of the intervention week`,
        PROPOSAL_INTERVENTION_MAX,
      ),
    }),
  },
];

function lowerLabel(info: SignalInfo): string {
  return /^[A-Z][A-Z]/.test(info.label) ? info.label : info.label.toLowerCase();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/**
 * Whether a glucose outcome is better lower or higher: time in range is better higher, every
 * other glucose figure (mean, fasting, CV, peaks) lower. Null for any non-glucose outcome, which an
 * experiment on meal glucose responses cannot measure.
 */
export function betterDirection(outcome: SignalInfo): 'higher' | 'lower' | null {
  if (outcome.domain !== 'glucose') return null;
  return has(outcome, /tir|in[ _-]range/i) ? 'higher' : 'lower';
}

/**
 * The experiment that tests a hypothesis, or null: no effect, a non-glucose outcome, a driver the
 * person cannot change, or a change that would not be sensible (eating later, fewer steps). The
 * driver should move against the outcome's bad direction: when a higher driver goes with a higher
 * outcome that is better lower, the proposal is less of the driver.
 */
export function proposeExperiment(
  result: PairResult,
  driverInfo: SignalInfo,
  outcomeInfo: SignalInfo,
): ExperimentProposal | null {
  const better = betterDirection(outcomeInfo);
  if (result.effect === null || result.direction === null || better === null) return null;
  const change: Change = result.direction === better ? 'more' : 'less';
  if (has(driverInfo, NEVER)) return null;
  const template = TEMPLATES.find((t) => t.matches(driverInfo));
  const make = template?.[change];
  if (!make) return null;
  return {
    ...make(driverInfo),
    baseline_days: PROPOSAL_PERIOD_DAYS,
    intervention_days: PROPOSAL_PERIOD_DAYS,
  };
}
