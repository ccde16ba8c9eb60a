/**
 * Barcode normalisation: every GTIN form (GTIN-8/EAN-8, UPC-A/GTIN-12, EAN-13, GTIN-14) becomes the
 * same 14-digit key, at import and at lookup, so a product is found however it was scanned or typed.
 * The GS1 check digit (mod 10, weights 3,1,3,... from the right, check digit excluded) must be valid.
 */

/** Lengths a scanned or typed barcode may have. */
export const GTIN_LENGTHS = [8, 12, 13, 14] as const;

/** True when the last digit of `digits` is the GS1 check digit of the others. */
export function hasValidCheckDigit(digits: string): boolean {
  if (!/^\d{2,}$/.test(digits)) return false;
  let sum = 0;
  for (let i = digits.length - 2, w = 3; i >= 0; i--, w = w === 3 ? 1 : 3)
    sum += Number(digits[i]) * w;
  return (10 - (sum % 10)) % 10 === Number(digits[digits.length - 1]);
}

/**
 * The GTIN-14 of a barcode as a person scans or types it (spaces and dashes ignored), or null when
 * it is not a GTIN: not 8, 12, 13 or 14 digits, or a wrong check digit.
 */
export function normaliseGtin(code: string): string | null {
  const digits = code.replace(/[\s-]/g, '');
  if (!/^\d+$/.test(digits) || !(GTIN_LENGTHS as readonly number[]).includes(digits.length))
    return null;
  return hasValidCheckDigit(digits) ? digits.padStart(14, '0') : null;
}

/**
 * The GTIN-14 of a catalogue barcode. Source files may have lost leading zeros (FDC Branded's
 * `gtin_upc` went through a spreadsheet: 11-digit UPC-As), so any 1..14 digits are left-padded
 * before the check digit is verified; Open Food Facts codes keep theirs, and longer codes (internal
 * store codes) are not GTINs unless the extra digits are leading zeros.
 */
export function catalogueGtin(code: string | undefined): string | null {
  let digits = (code ?? '').trim();
  // Open Food Facts writes some codes with extra leading zeros (e.g. 20 digits for an EAN-8)
  if (digits.length > 14 && /^0+$/.test(digits.slice(0, digits.length - 14)))
    digits = digits.slice(-14);
  if (!/^\d{6,14}$/.test(digits)) return null;
  const padded = digits.padStart(14, '0');
  return hasValidCheckDigit(padded) ? padded : null;
}
