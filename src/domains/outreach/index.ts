/** What other domains may use of outreach: a person's places on the product waitlists (orders). */
export { joinWaitlist, leaveWaitlist, listWaitlistPlaces } from './outreach.waitlist.ts';
export type {
  JoinWaitlistOptions,
  LeaveWaitlistOptions,
  WaitlistPlaceView,
  WaitlistPlacesOptions,
} from './outreach.waitlist.ts';
export { PRODUCT_KEYS } from './outreach.interests.ts';
export type { ProductKey } from './outreach.interests.ts';
export type { Ack } from './outreach.shared.ts';
