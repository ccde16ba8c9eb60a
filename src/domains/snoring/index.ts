/** What other domains may use of the snoring domain (home's morning review, account deletion, sync). */
export { snoreAudioKeys } from './snoring.audio.ts';
export { SNORING_SYNCED_TABLES } from './snoring.synced.ts';
export { latestSnoreNight } from './snoring.nights.ts';
export type { SnoreNightView } from './snoring.nights.ts';
export { SnoreNight } from './snoring.schema.ts';
