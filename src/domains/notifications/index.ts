/** What other domains use of notifications: the platform's own send to a person. */
export { notifyPerson } from './notifications.send.ts';
export type { NotifyPersonOptions, SendResultView } from './notifications.send.ts';
