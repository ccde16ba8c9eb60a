/** What other domains may use of the profile domain (the person's time zone and country). */
export {
  peopleCards,
  peopleZonesSql,
  personLocale,
  personZone,
  personZoneOf,
  storedZones,
} from './profile.service.ts';
export type { PersonCardView, PersonLocaleView } from './profile.service.ts';
