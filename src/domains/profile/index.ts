/** What other domains may use of the profile domain (the person's time zone and country). */
export { personLocale, personZone } from './profile.service.ts';
export type { PersonLocaleView } from './profile.service.ts';
