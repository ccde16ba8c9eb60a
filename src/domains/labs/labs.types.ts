/**
 * The shapes the labs parts share (issue 36): a line of a report's text as read from a PDF or by
 * OCR, a curated marker of the vocabulary, and a draft marker as parsed (nothing saved).
 */

/** One line of a report's text, in reading order. */
export interface TextLine {
  /** the line as read (cells of a table row joined by two or more spaces or a tab) */
  text: string;
  /** 1-based page */
  page: number;
  /** OCR's confidence in the line, 0..1 (null for text read from a PDF) */
  confidence: number | null;
}

/** How a report's text was read. */
export type TextSource = 'pdf_text' | 'ocr';

/** A unit a marker is reported in: how it is printed and its UCUM code. */
export interface MarkerUnit {
  /** UCUM code, e.g. "mg/dL", "mmol/L", "%", "10*9/L" */
  ucum: string;
  /** spellings seen on reports, lower-case ("mg/dl", "mmol/l", "x10^9/l", "g/l") */
  printed: string[];
  /** decimals a converted value is rounded to (HbA1c: 1 in %, 0 in mmol/mol); else 3 significant digits */
  decimals?: number;
  /** the LOINC code of a value in this unit when not the marker's (molar units: "14749-6") */
  loinc?: string;
  /** that code's LOINC long common name */
  loincName?: string;
}

/** A typical adult range a guideline gives, in the marker's primary unit, with its source. */
export interface FallbackRange {
  low: number | null;
  high: number | null;
  source: string;
}

/** A LOINC code with its long common name (LOINC content, unchanged). */
export interface LoincCoding {
  loinc: string;
  loincName: string;
}

/**
 * What a report says of how a marker was measured, when that is another LOINC code of the same
 * marker (issue 47): "fasting" for glucose (1558-6), "calculated" for LDL cholesterol (13457-7).
 * The value stays the marker's (one history); the code is stored in the value's `loinc`.
 */
export interface MarkerQualifier {
  /** stable id, lower case ("fasting", "calculated") */
  id: string;
  /**
   * words that say it when printed in the result's name (normalised as names are: "nuchtern",
   * "a jeun"); a word after "non", "not", "nicht" or "no" does not count ("non-fasting")
   */
  words: string[];
  /** the code of a value in each unit of the marker ({ ucum: "mg/dL", loinc: "1558-6", ... }) */
  codes: (LoincCoding & { ucum: string })[];
  /** the fallback range that holds only for a value so qualified (glucose: the fasting range) */
  fallbackRange?: FallbackRange | null;
}

/** A range with its origin. */
export interface ReferenceRange {
  low: number | null;
  high: number | null;
  /** in this UCUM unit */
  unit: string;
  /** the text as printed ("3.9 - 5.5", "< 5.7"), or the fallback's label */
  text: string;
}

/** A marker of the curated vocabulary (data/labs/markers.json). */
export interface LabMarkerDef {
  /** stable id, snake_case ("glucose", "hba1c", "ldl_cholesterol") */
  id: string;
  /** LOINC code of the serum/plasma test in the primary unit ("2345-7") */
  loinc: string;
  /** LOINC's long common name, unchanged */
  loincName: string;
  /** the name shown ("Glucose") */
  name: string;
  /** names and abbreviations seen on reports, lower-case ("fasting glucose", "glu", "blood sugar") */
  synonyms: string[];
  /** the primary unit first, then the other common one(s) */
  units: MarkerUnit[];
  /** g/mol, for mass <-> substance conversions (glucose 180.156), or null */
  molecularWeight: number | null;
  /** a plausible value range in the primary unit: a value outside it is a misread (OCR "54" for "5.4") */
  plausible: { min: number; max: number };
  /**
   * a typical adult range in the primary unit, used only when the report prints none, with its
   * source; a qualifier's own range replaces it for a value so qualified (glucose has only the
   * fasting qualifier's)
   */
  fallbackRange: FallbackRange | null;
  /** blood count, lipids, metabolic, liver, kidney, thyroid, iron, vitamins, inflammation, diabetes, hormones */
  category: string;
  /**
   * A value printed in one of these UCUM units is another marker's result: { "%": "neutrophils_pct" }
   * on the neutrophil count, so "Neutrophils 55 %" is read as the percentage.
   */
  unitVariants?: Record<string, string>;
  /**
   * How a value goes to the other unit: through UCUM (the default, with molecularWeight for mass <->
   * substance), HbA1c's NGSP <-> IFCC master equation, or not at all (eGFR, ratios).
   */
  conversion?: 'ucum' | 'hba1c' | 'none';
  /** what a report may say of how it was measured, each with its own LOINC codes (issue 47) */
  qualifiers?: MarkerQualifier[];
}

/** A value in one unit. */
export interface UnitValue {
  value: number;
  /** UCUM */
  unit: string;
}

/** One marker read from a report: a draft until the person saves it. */
export interface DraftMarker {
  /** LabMarkerDef.id */
  markerId: string;
  /** the LOINC code of the value as printed: its unit's and qualifier's (1558-6 fasting glucose) */
  loinc: string;
  name: string;
  /** what the printed name says of the test ("fasting", "calculated": MarkerQualifier.id), or null */
  qualifier: string | null;
  /** as printed (decimal comma read), in the printed unit */
  value: number;
  /** UCUM code of the printed unit */
  unit: string;
  /** the same value in the marker's other common unit (mg/dL <-> mmol/L; HbA1c % <-> mmol/mol), or null */
  converted: UnitValue | null;
  /** the report's own range as printed (in the printed unit), or null when it prints none */
  referenceRange: ReferenceRange | null;
  /** the report's flag: H, L, HH, LL or A (a "*" or "abnormal"), or null */
  flag: 'H' | 'L' | 'HH' | 'LL' | 'A' | null;
  /** a censored value as printed ("< 0.5" for CRP, "> 90" for eGFR): value is the bound */
  comparator?: '<' | '<=' | '>' | '>=';
  /** what the reading assumed or repaired, in plain words ("no unit printed: read as mmol/L") */
  notes?: string[];
  /** how sure the reading is, 0..1 (name match, unit found, plausibility, OCR confidence) */
  confidence: number;
  /** true for every OCR value, and for anything implausible or unit-less */
  needsConfirmation: boolean;
  /** the line it came from */
  source: { text: string; page: number };
}

/** What parsing a report's lines answers. */
export interface ParsedLabText {
  markers: DraftMarker[];
  /** the date the sample was drawn or reported, YYYY-MM-DD, when printed */
  drawnOn: string | null;
  /** the laboratory's name, when found near the top */
  lab: string | null;
  /** lines that looked like a result (a number after a name) but matched no marker */
  unrecognised: string[];
}
