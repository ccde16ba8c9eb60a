/** What other domains may use of the snoring domain (home's morning review, account deletion), and the app its sweep. */
export {
  registerSnoreClipSweep,
  snoreAudioKeys,
  sweepAllDeletedNightClips,
} from './snoring.audio.ts';
export { latestSnoreNight } from './snoring.nights.ts';
export type { SnoreNightView } from './snoring.nights.ts';
export { SnoreNight } from './snoring.schema.ts';
