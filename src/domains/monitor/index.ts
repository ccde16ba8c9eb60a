/** What other domains use of the monitor domain (discovery's daily room signals). */
export { dailyRoomOf } from './monitor.daily.ts';
export type { DailyRoomView } from './monitor.daily.ts';
