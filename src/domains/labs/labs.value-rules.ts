/**
 * The rules a stored lab value obeys, whoever writes it: blood_report_create and _update
 * (labs.reports.ts) and a phone's sync push (labs.synced.ts, issue 47). Pure: no I/O.
 */
import type { LabMarkerDef } from './labs.types.ts';
import { toPrimary } from './labs.units.ts';

/** What to say of `unit` when the marker is not reported in it (unitOf found no UCUM code). */
export const unknownUnit = (def: LabMarkerDef, unit: string): string =>
  `${def.name} is not reported in "${unit}": use ${def.units.map((u) => u.ucum).join(' or ')}.`;

/** Why `value` (in the marker's unit `ucum`) is not a plausible value of the marker, or null. */
export function plausibilityIssue(def: LabMarkerDef, value: number, ucum: string): string | null {
  // NOTE: a unit that cannot be converted (insulin in pmol/L) is not judged, as before
  const primary = toPrimary(def, value, ucum);
  return primary !== null && (primary < def.plausible.min || primary > def.plausible.max)
    ? `${value} ${ucum} is not a plausible ${def.name} (${def.plausible.min}-${def.plausible.max} ${def.units[0].ucum}): check the value and its unit.`
    : null;
}
