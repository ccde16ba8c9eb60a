/**
 * IANA time zones. A person's zone is checked when it is stored (a real IANA name, or 422), and read
 * defensively: a zone stored before that check, or one a later runtime dropped, counts as UTC.
 */

const ZONE_NAME = /^[A-Za-z][\w+-]*(?:\/[\w+-]+)*$/;

/** Whether the runtime's IANA database knows `name` (e.g. Europe/Berlin; "Mars/Olympus" is not one). */
export function isTimeZone(name: string): boolean {
  // a name, never an offset: "+01:00" means different things to Intl and to PostgreSQL
  if (name.length > 64 || !ZONE_NAME.test(name)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The zone to compute with: `name` when the runtime knows it, else UTC. */
export function zoneOrUtc(name: string | null | undefined): string {
  return name && isTimeZone(name) ? name : 'UTC';
}
