/**
 * Units of the labs vocabulary (issue 36): a unit as printed on a report ("mg/dl", "x10^9/L",
 * "µmol/l", "mIU/L") read as the UCUM code of one of the marker's units, and a value converted to
 * the marker's other common unit. Conversions go through UCUM (`@lhncbc/ucum-lhc`, with the
 * marker's molecular weight for mass <-> substance, e.g. glucose 98 mg/dL -> 5.44 mmol/L), except
 * HbA1c, whose NGSP % and IFCC mmol/mol are related by the master equation, and markers without a
 * conversion (eGFR, ratios).
 *
 * Pure (no database, no network); UCUM's tables load on the first conversion. It must never answer a
 * unit the marker does not list (a printed "g/l" is grams for haemoglobin but 10^9/L for white cells,
 * so a unit is only ever read for one marker), and never convert HbA1c % through UCUM (that would
 * read 6.5 % as 65 mmol/mol).
 */
import { createRequire } from 'node:module';
import type { LabMarkerDef, MarkerUnit, UnitValue } from './labs.types.ts';

/** The part of `@lhncbc/ucum-lhc` used here (the package ships no type declarations). */
interface UcumUtils {
  convertUnitTo(
    from: string,
    value: number,
    to: string,
    options?: { molecularWeight?: number },
  ): { status: 'succeeded' | 'failed' | 'error'; toVal: number | null; msg: string[] };
  validateUnitString(unit: string): { status: 'valid' | 'invalid' | 'error' };
}
interface UcumPackage {
  UcumLhcUtils: { getInstance(): UcumUtils };
}

let ucum: UcumUtils | null = null;

/** UCUM's utilities, loaded on first use (its unit tables take a moment to read). */
function ucumUtils(): UcumUtils {
  if (!ucum) {
    const require = createRequire(import.meta.url);
    ucum = (require('@lhncbc/ucum-lhc') as UcumPackage).UcumLhcUtils.getInstance();
  }
  return ucum;
}

/** True when UCUM reads the code as a valid unit (tests check every code of the vocabulary). */
export function isValidUcum(code: string): boolean {
  return ucumUtils().validateUnitString(code).status === 'valid';
}

/** Superscript characters as the plain ones they stand for (units such as 10⁹/L). */
export const SUPERSCRIPTS: Record<string, string> = {
  '⁰': '0',
  '¹': '1',
  '²': '2',
  '³': '3',
  '⁴': '4',
  '⁵': '5',
  '⁶': '6',
  '⁷': '7',
  '⁸': '8',
  '⁹': '9',
  '⁻': '-',
};

/**
 * A printed unit in one comparable form: lower case, micro as "u", no spaces or brackets, decimal
 * comma as a point, every way of writing a power of ten ("x10^9", "×10⁹", "10*9", "10E9") as "10^9",
 * and "mcg" as "ug". "x10^9/L", "10*9/l" and "×10⁹/L" all become "10^9/l".
 */
export function normaliseUnitText(text: string): string {
  return text
    .replace(/[⁰¹²³⁴⁵⁶⁷⁸⁹⁻]+/g, (m) => '^' + [...m].map((c) => SUPERSCRIPTS[c]).join(''))
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[µμ]/g, 'u')
    .replace(/[×✕]/g, 'x')
    .replace(/\s+/g, '')
    .replace(/[[\]{}]/g, '')
    .replace(/,/g, '.')
    .replace(/mc(?=g|mol)/g, 'u')
    .replace(/x?10(?:\^|\*\*?|e)(\d{1,2})/g, '10^$1')
    .replace(/(?<!10)\^/g, '');
}

/** Normalised forms of the pieces of text tried as units, kept for the next line (bounded). */
const normalisedCache = new Map<string, string>();

function normalisedUnit(text: string): string {
  let key = normalisedCache.get(text);
  if (key === undefined) {
    if (normalisedCache.size >= 20_000) normalisedCache.clear();
    key = normaliseUnitText(text);
    normalisedCache.set(text, key);
  }
  return key;
}

const spellings = new WeakMap<LabMarkerDef, Map<string, MarkerUnit>>();

/** The marker's spellings (its UCUM codes and printed forms, normalised), built once per marker. */
function spellingsOf(def: LabMarkerDef): Map<string, MarkerUnit> {
  let map = spellings.get(def);
  if (!map) {
    map = new Map();
    for (const unit of def.units) {
      for (const text of [unit.ucum, ...unit.printed]) {
        const key = normaliseUnitText(text);
        if (key && !map.has(key)) map.set(key, unit);
      }
    }
    spellings.set(def, map);
  }
  return map;
}

/** The longest printed unit spelling (normalised) of any marker, to bound how far a reader looks. */
export const MAX_UNIT_CHARS = 40;

/** The marker's unit printed as `printed` (a UCUM code or a spelling seen on reports), or null. */
export function markerUnitOf(def: LabMarkerDef, printed: string): MarkerUnit | null {
  if (printed.length > MAX_UNIT_CHARS * 2) return null;
  const key = normalisedUnit(printed);
  if (!key || key.length > MAX_UNIT_CHARS) return null;
  return spellingsOf(def).get(key) ?? null;
}

/** The UCUM code of the marker's unit printed as `printed`, or null when the marker has no such unit. */
export function unitOf(def: LabMarkerDef, printed: string): string | null {
  return markerUnitOf(def, printed)?.ucum ?? null;
}

/** HbA1c NGSP/DCCT % -> IFCC mmol/mol (master equation: IFCC = (NGSP - 2.152) / 0.09148). */
export function ngspToIfcc(percent: number): number {
  return (percent - 2.152) / 0.09148;
}

/** HbA1c IFCC mmol/mol -> NGSP/DCCT % (NGSP = 0.09148 * IFCC + 2.152). */
export function ifccToNgsp(mmolPerMol: number): number {
  return 0.09148 * mmolPerMol + 2.152;
}

function convertHba1c(value: number, from: string, to: string): number | null {
  if (from === '%' && to === 'mmol/mol') return ngspToIfcc(value);
  if (from === 'mmol/mol' && to === '%') return ifccToNgsp(value);
  return null;
}

function convertByUcum(def: LabMarkerDef, value: number, from: string, to: string): number | null {
  try {
    const options = def.molecularWeight ? { molecularWeight: def.molecularWeight } : {};
    const answer = ucumUtils().convertUnitTo(from, value, to, options);
    return answer.status === 'succeeded' && Number.isFinite(answer.toVal) ? answer.toVal : null;
  } catch {
    // the library throws on some malformed codes: no conversion rather than an error
    return null;
  }
}

/**
 * `value` in UCUM unit `from` expressed in UCUM unit `to` (both of the marker), unrounded; null when
 * no conversion exists (the marker converts nothing, UCUM cannot relate the units, or a unit is not
 * the marker's).
 */
export function convertValue(
  def: LabMarkerDef,
  value: number,
  from: string,
  to: string,
): number | null {
  if (!Number.isFinite(value)) return null;
  if (from === to) return value;
  const known = (code: string): boolean => def.units.some((u) => u.ucum === code);
  if (!known(from) || !known(to)) return null;
  const how = def.conversion ?? 'ucum';
  if (how === 'none') return null;
  if (how === 'hba1c') return convertHba1c(value, from, to);
  return convertByUcum(def, value, from, to);
}

/** Significant digits of a number as written: 98 has 2, 0.95 has 2, 1234 has 4, 200 has 3. */
export function significantDigits(value: number): number {
  const text = Math.abs(value).toString();
  if (text.includes('e')) return 3;
  return text.replace('.', '').replace(/^0+/, '').length;
}

/**
 * A value rounded for its unit: the unit's decimals when set, else `digits` significant digits
 * (3 unless the value it came from was printed more precisely, so 1234 ng/mL stays 1234 µg/L).
 */
export function roundForUnit(unit: MarkerUnit, value: number, digits = 3): number {
  if (value === 0 || !Number.isFinite(value)) return value;
  if (unit.decimals !== undefined) return Number(value.toFixed(unit.decimals));
  return Number(value.toPrecision(Math.min(6, Math.max(3, digits))));
}

/**
 * The same value in the marker's other common unit, rounded: from the primary unit to the second,
 * from any other unit to the primary. `unit` is a UCUM code of the marker (a printed spelling is
 * read too). Null when the marker has one unit or no conversion applies.
 */
export function convertToOther(def: LabMarkerDef, value: number, unit: string): UnitValue | null {
  const from = def.units.find((u) => u.ucum === unit) ?? markerUnitOf(def, unit);
  if (!from) return null;
  const target = from === def.units[0] ? def.units[1] : def.units[0];
  if (!target) return null;
  const converted = convertValue(def, value, from.ucum, target.ucum);
  if (converted === null) return null;
  return { value: roundForUnit(target, converted, significantDigits(value)), unit: target.ucum };
}

/** The value in the marker's primary unit, unrounded, or null when it cannot be converted. */
export function toPrimary(def: LabMarkerDef, value: number, unit: string): number | null {
  return convertValue(def, value, unit, def.units[0].ucum);
}

/**
 * Whether the value lies in the marker's plausible range (held in the primary unit): true or false,
 * or null when the unit cannot be brought to the primary unit (insulin in pmol/L).
 */
export function isPlausible(def: LabMarkerDef, value: number, unit: string): boolean | null {
  const primary = toPrimary(def, value, unit);
  if (primary === null) return null;
  return primary >= def.plausible.min && primary <= def.plausible.max;
}
