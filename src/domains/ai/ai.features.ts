/**
 * The AI features and what each one is allowed: its model, its per-account daily cap (features
 * that share a documented cap share its counter), the most it may answer, and whether the
 * MEAL_VISION_ENABLED switch and the meal_photo consent govern it. Data only; ai.guard.ts applies it.
 */
import type { Config } from '../../base/config.ts';

export type AiFeature =
  | 'meal_analyze'
  | 'meal_suggest_name'
  | 'meal_insight'
  | 'meal_emojis'
  | 'workout_insight'
  | 'assistant';

export interface AiFeatureRule {
  /** the configured model's name */
  model(config: Config): string;
  /** the per-account daily counter this feature counts against (shared by name) */
  capName: 'meals_analyze' | 'meals_suggest_name' | 'meals_insight' | 'assistant';
  /** model calls per account per UTC day */
  cap(config: Config): number;
  /** the most output tokens one answer may use (also what the budget reserves) */
  maxOutputTokens: number;
}

export const AI_FEATURES: Readonly<Record<AiFeature, AiFeatureRule>> = {
  meal_analyze: {
    model: (c) => c.AI_MODEL_MEAL_ANALYZE,
    capName: 'meals_analyze',
    cap: (c) => c.MEALS_ANALYZE_DAILY_CAP,
    maxOutputTokens: 1500,
  },
  meal_suggest_name: {
    model: (c) => c.AI_MODEL_MEAL_TEXT,
    capName: 'meals_suggest_name',
    cap: (c) => c.MEALS_SUGGEST_NAME_DAILY_CAP,
    maxOutputTokens: 60,
  },
  meal_emojis: {
    model: (c) => c.AI_MODEL_MEAL_TEXT,
    capName: 'meals_suggest_name',
    cap: (c) => c.MEALS_SUGGEST_NAME_DAILY_CAP,
    maxOutputTokens: 1200,
  },
  meal_insight: {
    model: (c) => c.AI_MODEL_MEAL_TEXT,
    capName: 'meals_insight',
    cap: (c) => c.MEALS_INSIGHT_DAILY_CAP,
    maxOutputTokens: 700,
  },
  workout_insight: {
    model: (c) => c.AI_MODEL_MEAL_TEXT,
    capName: 'meals_insight',
    cap: (c) => c.MEALS_INSIGHT_DAILY_CAP,
    maxOutputTokens: 700,
  },
  assistant: {
    model: (c) => c.AI_MODEL_ASSISTANT,
    capName: 'assistant',
    cap: (c) => c.ASSISTANT_DAILY_CAP,
    maxOutputTokens: 1000,
  },
};
