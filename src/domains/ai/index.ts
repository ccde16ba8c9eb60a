/** What other domains may use of the ai domain: guarded model calls and their cost reservation. */
export { guardedCall, worstCaseUsd, IMAGE_TOKENS_RESERVED } from './ai.call.ts';
export type { CallResult, GuardedCallOptions, ModelUsage } from './ai.call.ts';
export { availableModel } from './ai.guard.ts';
export { AI_FEATURES } from './ai.features.ts';
