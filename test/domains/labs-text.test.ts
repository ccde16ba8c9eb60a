/**
 * Issue 36, the pure core of reading lab reports: the curated vocabulary (validation, name
 * matching), units (recognition per marker, UCUM conversions, HbA1c's master equation) and the
 * text parser (table rows, "Name: value unit (range)", two columns, several pages, European
 * decimals, ranges, flags, dates, the lab's name, OCR confirmation and decimal-point repair,
 * headers, dates and phone numbers never read as values, hostile input). No app, no database.
 */
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/base/paths.ts';
import {
  detectDecimalStyle,
  MAX_LINE_CHARS,
  MAX_LINES,
  parseLabText,
  readNumber,
  sanitiseLine,
} from '../../src/domains/labs/labs.text.ts';
import type {
  DraftMarker,
  ParsedLabText,
  TextLine,
  TextSource,
} from '../../src/domains/labs/labs.types.ts';
import {
  convertToOther,
  convertValue,
  isPlausible,
  isValidUcum,
  normaliseUnitText,
  unitOf,
} from '../../src/domains/labs/labs.units.ts';
import {
  allMarkers,
  buildVocabulary,
  findMarker,
  labVocabulary,
  loincCheckDigitOk,
  markerById,
  normaliseName,
  VocabularyError,
} from '../../src/domains/labs/labs.vocabulary.ts';

const shippedJson = (): { markers: Record<string, unknown>[]; notMarkers: string[] } =>
  JSON.parse(readFileSync(fromRoot('data', 'labs', 'markers.json'), 'utf8'));

const def = (id: string) => {
  const d = markerById(id);
  if (!d) throw new Error(`no marker ${id}`);
  return d;
};

/** Lines of one page, as a PDF text layer gives them. */
const page = (text: string, pageNo = 1, confidence: number | null = null): TextLine[] =>
  text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => ({ text: l, page: pageNo, confidence }));

const parse = (text: string, source: TextSource = 'pdf_text'): ParsedLabText =>
  parseLabText(page(text, 1, source === 'ocr' ? 0.9 : null), { source });

const one = (parsed: ParsedLabText, id: string): DraftMarker => {
  const found = parsed.markers.filter((m) => m.markerId === id);
  expect(
    found,
    `one ${id} in ${JSON.stringify(parsed.markers.map((m) => m.markerId))}`,
  ).toHaveLength(1);
  return found[0];
};

const ids = (parsed: ParsedLabText): string[] => parsed.markers.map((m) => m.markerId);

describe('labs vocabulary', () => {
  it('ships about fifty valid markers with unique ids and LOINC codes', () => {
    const markers = allMarkers();
    expect(markers.length).toBeGreaterThanOrEqual(50);
    expect(new Set(markers.map((m) => m.id)).size).toBe(markers.length);
    expect(new Set(markers.map((m) => m.loinc)).size).toBe(markers.length);
    for (const m of markers) expect(loincCheckDigitOk(m.loinc), m.loinc).toBe(true);
    expect(def('glucose')).toMatchObject({ loinc: '2345-7', molecularWeight: 180.156 });
    expect(def('hba1c').loincName).toBe('Hemoglobin A1c/Hemoglobin.total in Blood');
  });

  it('checks LOINC check digits', () => {
    expect(loincCheckDigitOk('2345-7')).toBe(true);
    expect(loincCheckDigitOk('4548-4')).toBe(true);
    expect(loincCheckDigitOk('2345-8')).toBe(false);
    expect(loincCheckDigitOk('2345')).toBe(false);
  });

  it('uses only valid UCUM codes, and every second unit converts from the first', () => {
    // insulin: UCUM cannot relate international units to moles, so no conversion is offered
    const noConversion = new Set(['insulin']);
    for (const m of allMarkers()) {
      for (const u of m.units) expect(isValidUcum(u.ucum), `${m.id} ${u.ucum}`).toBe(true);
      if (m.units.length < 2 || noConversion.has(m.id)) continue;
      const mid = (m.plausible.min + m.plausible.max) / 2;
      const other = convertToOther(m, mid, m.units[0].ucum);
      expect(other, m.id).not.toBeNull();
      expect(other!.unit).toBe(m.units[1].ucum);
      for (const u of m.units.slice(1)) {
        expect(
          convertValue(m, mid, m.units[0].ucum, u.ucum),
          `${m.id} -> ${u.ucum}`,
        ).not.toBeNull();
      }
    }
  });

  it('gives fallback ranges only for the guideline markers, each with its source', () => {
    const withFallback = allMarkers()
      .filter((m) => m.fallbackRange)
      .map((m) => m.id)
      .sort();
    expect(withFallback).toEqual(
      [
        'egfr',
        'hba1c',
        'hdl_cholesterol',
        'ldl_cholesterol',
        'non_hdl_cholesterol',
        'total_cholesterol',
        'triglycerides',
      ].sort(),
    );
    // issue 47: the ADA glucose range is for fasting plasma glucose, so only the qualifier has it
    expect(def('glucose').fallbackRange).toBeNull();
    expect(def('glucose').qualifiers![0]).toMatchObject({
      id: 'fasting',
      fallbackRange: { low: 70, high: 99, source: expect.stringMatching(/ADA/) },
    });
    expect(def('hba1c').fallbackRange!.source).toMatch(/ADA/);
    expect(def('ldl_cholesterol').fallbackRange!.source).toMatch(/NCEP ATP III/);
    expect(def('egfr').fallbackRange!.source).toMatch(/KDIGO/);
  });

  it('finds a marker by its printed name, the longest synonym winning', () => {
    const cases: [string, string | null][] = [
      ['HDL Cholesterol', 'hdl_cholesterol'],
      ['Cholesterol, HDL', 'hdl_cholesterol'],
      ['Cholesterol', 'total_cholesterol'],
      ['Total Cholesterol', 'total_cholesterol'],
      ['Non-HDL Cholesterol', 'non_hdl_cholesterol'],
      ['non-hdl', 'non_hdl_cholesterol'],
      ['HDL', 'hdl_cholesterol'],
      ['LDL-C', 'ldl_cholesterol'],
      ['Free T4', 'free_t4'],
      ['FT4', 'free_t4'],
      ['T4', null],
      ['HbA1c', 'hba1c'],
      ['A1c', 'hba1c'],
      ['Glycated haemoglobin', 'hba1c'],
      ['Glycosylated Hemoglobin', 'hba1c'],
      ['HbAlc', 'hba1c'],
      ['Alc', 'hba1c'],
      ['Hämoglobin', 'hemoglobin'],
      ['HÆMOGLOBIN', null],
      ['GLUCOSE, FASTING', 'glucose'],
      ['γ-GT', 'ggt'],
      ['Vitamin D (25-OH)', 'vitamin_d'],
      ['Free PSA', null],
      ['Creatinine (urine)', null],
      ['Urine creatinine', null],
      ['Lipase', null],
    ];
    for (const [name, id] of cases) expect(findMarker(name)?.id ?? null, name).toBe(id);
  });

  it('compares names without case, accents or punctuation', () => {
    expect(normaliseName('Non-HDL  Cholésterol (calc.)')).toBe('non hdl cholesterol calc');
    expect(normaliseName('Gesamteiweiß')).toBe('gesamteiweiss');
  });

  it('refuses a synonym that names two markers', () => {
    const json = shippedJson();
    (json.markers[1].synonyms as string[]).push('HGB');
    expect(() => buildVocabulary(json)).toThrow(VocabularyError);
    try {
      buildVocabulary(json);
    } catch (err) {
      expect((err as VocabularyError).problems).toEqual([
        '"HGB" (hematocrit) is already a name of hemoglobin',
      ]);
    }
  });

  it('refuses a not-a-marker name that is also a synonym, a duplicate id and a bad LOINC code', () => {
    const json = shippedJson();
    json.notMarkers.push('hdl');
    json.markers[2].id = json.markers[0].id;
    json.markers[3].loinc = '6690-3';
    const problems = (() => {
      try {
        buildVocabulary(json);
        return [];
      } catch (err) {
        return (err as VocabularyError).problems;
      }
    })();
    expect(problems.join('\n')).toMatch(/markers\.3\.loinc: not a LOINC code/);
    json.markers[3].loinc = '6690-2';
    expect(() => buildVocabulary(json)).toThrow(/duplicate marker id hemoglobin/);
    json.markers[2].id = 'rbc';
    expect(() => buildVocabulary(json)).toThrow(
      /"hdl" \(notMarkers\) is already a name of hdl_cholesterol/,
    );
  });

  it('refuses a unit variant pointing at a marker without that unit, and a spelling of two units', () => {
    const json = shippedJson();
    const neutrophils = json.markers.find((m) => m.id === 'neutrophils')!;
    neutrophils.unitVariants = { '%': 'lymphocytes' };
    expect(() => buildVocabulary(json)).toThrow(
      /unit variant % -> lymphocytes, which has no such unit/,
    );
    neutrophils.unitVariants = { '%': 'neutrophils_pct' };
    const glucose = json.markers.find((m) => m.id === 'glucose')!;
    (glucose.units as { printed: string[] }[])[1].printed.push('MG/DL');
    expect(() => buildVocabulary(json)).toThrow(
      /glucose: "MG\/DL" is a spelling of both mg\/dL and mmol\/L/,
    );
  });

  it('issue 47: refuses a qualifier that leaves a unit uncoded, codes another unit or reuses a code', () => {
    const problemsOf = (json: unknown): string[] => {
      try {
        buildVocabulary(json);
        return [];
      } catch (err) {
        return (err as VocabularyError).problems;
      }
    };
    const json = shippedJson();
    const ldl = json.markers.find((m) => m.id === 'ldl_cholesterol')!;
    const [calculated] = ldl.qualifiers as { codes: { ucum: string; loinc: string }[] }[];
    calculated.codes[1].ucum = 'umol/L';
    expect(problemsOf(json)).toEqual([
      'ldl_cholesterol: qualifier calculated codes mmol/L 0 times',
      'ldl_cholesterol: qualifier calculated codes umol/L, not a unit of the marker',
    ]);
    calculated.codes[1].ucum = 'mmol/L';
    calculated.codes[0].loinc = '1558-6';
    // the second marker holding the code is named (glucose comes after LDL in the file)
    expect(problemsOf(json)).toEqual(['glucose: LOINC 1558-6 is used twice']);
  });

  it('reads the shipped file once', () => {
    expect(labVocabulary()).toBe(labVocabulary());
  });
});

describe('labs units', () => {
  it('converts with molecular weights as the notes give', () => {
    expect(convertToOther(def('glucose'), 98, 'mg/dL')).toEqual({ value: 5.44, unit: 'mmol/L' });
    expect(convertToOther(def('glucose'), 5.44, 'mmol/L')).toEqual({ value: 98, unit: 'mg/dL' });
    expect(convertToOther(def('total_cholesterol'), 200, 'mg/dL')).toEqual({
      value: 5.17,
      unit: 'mmol/L',
    });
    expect(convertToOther(def('ldl_cholesterol'), 100, 'mg/dL')).toEqual({
      value: 2.59,
      unit: 'mmol/L',
    });
    expect(convertToOther(def('creatinine'), 1, 'mg/dL')).toEqual({ value: 88.4, unit: 'umol/L' });
    expect(convertToOther(def('triglycerides'), 150, 'mg/dL')).toEqual({
      value: 1.69,
      unit: 'mmol/L',
    });
    expect(convertToOther(def('bun'), 14, 'mg/dL')).toEqual({ value: 5, unit: 'mmol/L' });
    expect(convertToOther(def('vitamin_d'), 30, 'ng/mL')).toEqual({ value: 74.9, unit: 'nmol/L' });
    expect(convertToOther(def('hemoglobin'), 14.2, 'g/dL')).toEqual({ value: 142, unit: 'g/L' });
    expect(convertToOther(def('wbc'), 7.2, '10*9/L')).toEqual({ value: 7200, unit: '/uL' });
    // rounded to 3 significant digits, or more when the value was printed more precisely
    expect(convertToOther(def('ferritin'), 1234, 'ng/mL')).toEqual({ value: 1234, unit: 'ug/L' });
    expect(convertToOther(def('creatinine'), 0.95, 'mg/dL')).toEqual({ value: 84, unit: 'umol/L' });
  });

  it('converts HbA1c by the NGSP/IFCC master equation, not through UCUM', () => {
    expect(convertToOther(def('hba1c'), 6.5, '%')).toEqual({ value: 48, unit: 'mmol/mol' });
    expect(convertToOther(def('hba1c'), 48, 'mmol/mol')).toEqual({ value: 6.5, unit: '%' });
    expect(convertToOther(def('hba1c'), 5.7, '%')).toEqual({ value: 39, unit: 'mmol/mol' });
  });

  it('answers no conversion for eGFR, ratios and single-unit markers', () => {
    expect(convertToOther(def('egfr'), 75, 'mL/min/{1.73_m2}')).toBeNull();
    expect(convertToOther(def('cholesterol_hdl_ratio'), 3.5, '{ratio}')).toBeNull();
    expect(convertToOther(def('sodium'), 140, 'mmol/L')).toBeNull();
    expect(convertToOther(def('glucose'), 98, 'mg/L')).toBeNull();
  });

  it('reads printed units per marker', () => {
    const cases: [string, string, string | null][] = [
      ['wbc', 'G/L', '10*9/L'],
      ['wbc', 'x10^9/L', '10*9/L'],
      ['wbc', '×10⁹/l', '10*9/L'],
      ['wbc', '10^3/µL', '10*9/L'],
      ['wbc', 'K/uL', '10*9/L'],
      ['rbc', 'x10^12/L', '10*12/L'],
      ['hemoglobin', 'g/L', 'g/L'],
      ['hemoglobin', 'g/dl', 'g/dL'],
      ['creatinine', 'µmol/l', 'umol/L'],
      ['creatinine', 'umol/L', 'umol/L'],
      ['tsh', 'µIU/mL', 'm[IU]/L'],
      ['tsh', 'mIU/L', 'm[IU]/L'],
      ['alt', 'IU/L', 'U/L'],
      ['egfr', 'mL/min/1.73m²', 'mL/min/{1.73_m2}'],
      ['esr', 'mm/hr', 'mm/h'],
      ['hba1c', 'mmol/mol', 'mmol/mol'],
      ['ferritin', 'µg/L', 'ug/L'],
      ['glucose', 'g/L', null],
      ['hemoglobin', 'x10^9/L', null],
    ];
    for (const [id, printed, ucum] of cases)
      expect(unitOf(def(id), printed), `${id} ${printed}`).toBe(ucum);
    expect(normaliseUnitText('x 10⁹ / L')).toBe('10^9/l');
  });

  it('checks plausibility in the primary unit', () => {
    expect(isPlausible(def('glucose'), 5.4, 'mmol/L')).toBe(true);
    expect(isPlausible(def('glucose'), 54, 'mmol/L')).toBe(false);
    expect(isPlausible(def('glucose'), 98, 'mg/dL')).toBe(true);
    expect(isPlausible(def('glucose'), 9.8, 'mg/dL')).toBe(false);
    expect(isPlausible(def('insulin'), 60, 'pmol/L')).toBeNull();
  });
});

describe('parseLabText: layouts', () => {
  it('reads a table: name, value, unit, range and flag in columns', () => {
    const parsed = parse(`
Test                 Result    Units        Reference Range   Flag
Glucose, fasting     98        mg/dL        70-99
HbA1c                6.5       %            < 5.7             H
HDL Cholesterol      45        mg/dL        > 40
Triglycerides        180       mg/dL        up to 150         H
Creatinine\t1.0\tmg/dL\t0.6 - 1.2
TSH                  2.1       mIU/L        0.4 - 4.0
`);
    expect(ids(parsed)).toEqual([
      'glucose',
      'hba1c',
      'hdl_cholesterol',
      'triglycerides',
      'creatinine',
      'tsh',
    ]);
    expect(one(parsed, 'glucose')).toMatchObject({
      loinc: '1558-6',
      name: 'Glucose',
      qualifier: 'fasting',
      value: 98,
      unit: 'mg/dL',
      converted: { value: 5.44, unit: 'mmol/L' },
      referenceRange: { low: 70, high: 99, unit: 'mg/dL', text: '70-99' },
      flag: null,
      confidence: 0.97,
      needsConfirmation: false,
      source: { text: 'Glucose, fasting     98        mg/dL        70-99', page: 1 },
    });
    expect(one(parsed, 'hba1c')).toMatchObject({
      value: 6.5,
      unit: '%',
      converted: { value: 48, unit: 'mmol/mol' },
      referenceRange: { low: null, high: 5.7, text: '< 5.7' },
      flag: 'H',
    });
    expect(one(parsed, 'hdl_cholesterol').referenceRange).toMatchObject({
      low: 40,
      high: null,
      text: '> 40',
    });
    expect(one(parsed, 'triglycerides').referenceRange).toMatchObject({ low: null, high: 150 });
    expect(one(parsed, 'creatinine')).toMatchObject({
      value: 1,
      converted: { value: 88.4, unit: 'umol/L' },
      referenceRange: { low: 0.6, high: 1.2 },
    });
    expect(parsed.unrecognised).toEqual([]);
  });

  it('reads "Name: value unit (range)" lines', () => {
    const parsed = parse(`
Cholesterol, total: 200 mg/dL (< 200)
Sodium: 140 mmol/L (135-145); Potassium: 4.1 mmol/L (3.5-5.1)
Vitamin D (25-OH): 32 ng/mL (30-100)
`);
    expect(ids(parsed)).toEqual(['total_cholesterol', 'sodium', 'potassium', 'vitamin_d']);
    expect(one(parsed, 'total_cholesterol')).toMatchObject({
      value: 200,
      converted: { value: 5.17, unit: 'mmol/L' },
      referenceRange: { low: null, high: 200 },
    });
    expect(one(parsed, 'potassium')).toMatchObject({
      value: 4.1,
      referenceRange: { low: 3.5, high: 5.1 },
    });
    expect(one(parsed, 'vitamin_d')).toMatchObject({
      value: 32,
      converted: { value: 79.9, unit: 'nmol/L' },
    });
  });

  it('reads two results side by side on one line, and lists an unknown half', () => {
    const parsed = parse(`
WBC        7.2   x10^9/L   4.0-11.0        Platelets   250   x10^9/L   150-400
Lipase     35    U/L       13-60           Glucose     5.4   mmol/L    3.9-5.5
`);
    expect(ids(parsed)).toEqual(['wbc', 'platelets', 'glucose']);
    expect(one(parsed, 'wbc')).toMatchObject({
      value: 7.2,
      unit: '10*9/L',
      referenceRange: { low: 4, high: 11 },
    });
    expect(one(parsed, 'platelets')).toMatchObject({
      value: 250,
      referenceRange: { low: 150, high: 400 },
    });
    expect(one(parsed, 'glucose')).toMatchObject({
      value: 5.4,
      unit: 'mmol/L',
      converted: { value: 97.3, unit: 'mg/dL' },
    });
    expect(parsed.unrecognised).toEqual(['Lipase     35    U/L       13-60']);
  });

  it("never gives one column's value to the name in the column before it", () => {
    const parsed = parse(
      'Glucose   pending        Cholesterol   190 mg/dL\nHbA1c      see note      TSH   2.1 mIU/L',
    );
    expect(parsed.markers.map((m) => [m.markerId, m.value])).toEqual([
      ['total_cholesterol', 190],
      ['tsh', 2.1],
    ]);
  });

  it('reads several pages and keeps each value page', () => {
    const lines = [
      ...page('Acme Diagnostics\nCollected: 2026-03-14\nGlucose   98  mg/dL  70-99', 1),
      ...page(
        'Acme Diagnostics  Page 2 of 2\nALT   31  U/L  7-56\nFerritin  150  ng/mL  30-400',
        2,
      ),
    ];
    const parsed = parseLabText(lines, { source: 'pdf_text' });
    expect(parsed.markers.map((m) => [m.markerId, m.source.page])).toEqual([
      ['glucose', 1],
      ['alt', 2],
      ['ferritin', 2],
    ]);
    expect(parsed.lab).toBe('Acme Diagnostics');
    expect(parsed.drawnOn).toBe('2026-03-14');
  });

  it('reads the value in the unit a variant marker has: neutrophils in % are the percentage', () => {
    const parsed = parse(`
Neutrophils     55     %          40-75
Neutrophils     3.2    x10^9/L    2.0-7.5
Lymphocytes %   30                20-45
`);
    expect(parsed.markers.map((m) => [m.markerId, m.value, m.unit])).toEqual([
      ['neutrophils_pct', 55, '%'],
      ['neutrophils', 3.2, '10*9/L'],
      ['lymphocytes_pct', 30, '%'],
    ]);
  });

  it('reads censored values with their comparator', () => {
    const parsed = parse(`
CRP       <0.5    mg/L              < 5.0
eGFR      >90     mL/min/1.73m²     > 60
`);
    expect(one(parsed, 'crp')).toMatchObject({
      value: 0.5,
      comparator: '<',
      referenceRange: { high: 5 },
    });
    expect(one(parsed, 'egfr')).toMatchObject({
      value: 90,
      comparator: '>',
      unit: 'mL/min/{1.73_m2}',
      converted: null,
      referenceRange: { low: 60, high: null },
    });
  });

  it('reads a unit printed before the value, and never reads "mg" in it as magnesium', () => {
    const parsed = parse(`
Glucose (mg/dL)      98      70-99
Magnesium  2.0 mg/dL  1.7-2.2      Mg  0.85 mmol/L
`);
    expect(parsed.markers.map((m) => [m.markerId, m.value, m.unit])).toEqual([
      ['glucose', 98, 'mg/dL'],
      ['magnesium', 2, 'mg/dL'],
    ]);
  });
});

describe('parseLabText: numbers', () => {
  it('reads European decimal commas in values and ranges', () => {
    const parsed = parse(`
Glukose            5,4     mmol/l     3,9–5,5
Hämoglobin         14,2    g/dl       13,5 - 17,5
Leukozyten         7,2     G/l        4,0-10,0
`);
    expect(one(parsed, 'glucose')).toMatchObject({
      value: 5.4,
      referenceRange: { low: 3.9, high: 5.5, text: '3,9–5,5' },
    });
    expect(one(parsed, 'hemoglobin')).toMatchObject({
      value: 14.2,
      unit: 'g/dL',
      referenceRange: { low: 13.5, high: 17.5 },
    });
    expect(one(parsed, 'wbc')).toMatchObject({ value: 7.2, unit: '10*9/L' });
  });

  it('reads thousands separators both ways', () => {
    expect(readNumber('1.234,5', null)?.value).toBe(1234.5);
    expect(readNumber('1,234.5', null)?.value).toBe(1234.5);
    expect(readNumber('0,85', null)?.value).toBe(0.85);
    expect(readNumber('1.234.567', null)?.value).toBe(1234567);
    expect(readNumber('1.23.4', null)).toBeNull();
    const eu = parse('Ferritin   1.234,5   ng/ml\nGlucose 5,4 mmol/l');
    expect(one(eu, 'ferritin').value).toBe(1234.5);
    const us = parse('Ferritin   1,234.5   ng/mL\nGlucose 5.4 mmol/L');
    expect(one(us, 'ferritin').value).toBe(1234.5);
  });

  it('settles an ambiguous "1,234" by the document, then by plausibility', () => {
    expect(detectDecimalStyle(['Glucose 5,4 mmol/l', 'Collected 14.03.2026'])).toBe('comma');
    expect(detectDecimalStyle(['Glucose 5.4 mmol/L', 'eGFR 80 mL/min/1,73m2'])).toBe('dot');
    expect(detectDecimalStyle(['Platelets 250', 'Date 14.03.2026'])).toBeNull();
    // a comma document: "1.234" is thousands, "1,234" a decimal
    const eu = parse('Kreatinin  1,234 mg/dl\nFerritin  1.234 µg/l\nKalium 4,1 mmol/l');
    expect(one(eu, 'creatinine').value).toBe(1.234);
    expect(one(eu, 'ferritin').value).toBe(1234);
    // a point document: "1,234" is thousands
    const us = parse('Triglycerides  1,234 mg/dL\nPotassium 4.1 mmol/L');
    expect(one(us, 'triglycerides').value).toBe(1234);
    // no evidence: the plausible reading, marked for confirmation
    const unsure = parse('Creatinine   1,234   mg/dL');
    expect(one(unsure, 'creatinine')).toMatchObject({ value: 1.234, needsConfirmation: true });
    expect(one(unsure, 'creatinine').notes).toEqual([
      '"1,234" could be read two ways: read as 1.234',
    ]);
  });
});

describe('parseLabText: flags', () => {
  it('reads H, L, HH, LL, *, arrows and words, in a column or glued to the value', () => {
    const parsed = parse(`
Glucose         126    mg/dL    70-99     H
Sodium          128    mmol/L   135-145   L
Potassium       7.2H   mmol/L   3.5-5.1
Chloride        *115   mmol/L   98-107
Calcium         13.9   mg/dL    8.5-10.5  HH
Magnesium       0.9    mg/dL    1.7-2.2   LL
ALT             80 ↑   U/L      7-56
AST             5 ↓    U/L      10-40
GGT             90     U/L      8-61      High
Albumin         2.9    g/dL     3.5-5.0   Low
Ferritin        8      ng/mL    30-400    *
TSH             2.0    mIU/L    0.4-4.0   N
`);
    const flags = Object.fromEntries(parsed.markers.map((m) => [m.markerId, m.flag]));
    expect(flags).toEqual({
      glucose: 'H',
      sodium: 'L',
      potassium: 'H',
      chloride: 'A',
      calcium: 'HH',
      magnesium: 'LL',
      alt: 'H',
      ast: 'L',
      ggt: 'H',
      albumin: 'L',
      ferritin: 'A',
      tsh: null,
    });
    expect(one(parsed, 'potassium').value).toBe(7.2);
    expect(one(parsed, 'chloride').value).toBe(115);
  });
});

describe('parseLabText: German flags and US range words', () => {
  it('reads "+" as high, and a lone "-" as low only when the value is below the range', () => {
    const parsed = parse(`
Cholesterin gesamt       232   +    mg/dl      < 200
25-OH-Vitamin D          18,2  -    ng/ml      30 - 100
Ferritin                 150   -    ng/ml      30 - 400
Kalium                   4,1        mmol/l     3,5 - 5,1
`);
    expect(parsed.markers.map((m) => [m.markerId, m.value, m.flag])).toEqual([
      ['total_cholesterol', 232, 'H'],
      ['vitamin_d', 18.2, 'L'],
      ['ferritin', 150, null],
      ['potassium', 4.1, null],
    ]);
    // the "mg" of "mg/dl" after the flag is never read as magnesium
    expect(ids(parsed)).not.toContain('magnesium');
  });

  it('reads "> OR = 60" as a lower bound', () => {
    const parsed = parse('eGFR     92     > OR = 60 mL/min/1.73m2');
    expect(one(parsed, 'egfr')).toMatchObject({
      value: 92,
      unit: 'mL/min/{1.73_m2}',
      referenceRange: { low: 60, high: null },
      needsConfirmation: false,
    });
  });
});

describe('parseLabText: date drawn and lab', () => {
  const drawn = (text: string): string | null => parse(text).drawnOn;

  it('reads the labelled date in every common form', () => {
    expect(drawn('Collected: 2026-03-14')).toBe('2026-03-14');
    expect(drawn('Date drawn 14.03.2026')).toBe('2026-03-14');
    expect(drawn('Sample date: 14/03/2026')).toBe('2026-03-14');
    expect(drawn('Collected: March 14, 2026')).toBe('2026-03-14');
    expect(drawn('Entnahme: 14. März 2026')).toBe('2026-03-14');
    expect(drawn('Specimen collected 14-Mar-2026')).toBe('2026-03-14');
  });

  it('reads a numeric date day first unless that is impossible or the document is month first', () => {
    expect(drawn('Collected: 03/04/2026')).toBe('2026-04-03');
    expect(drawn('Collected: 03/14/2026')).toBe('2026-03-14');
    expect(drawn('Collected: 03/04/2026\nReported: 03/15/2026')).toBe('2026-03-04');
    expect(drawn('Collected: 31/02/2026')).toBeNull();
  });

  it('prefers the date collected over the date reported, and never takes a birth date', () => {
    expect(drawn('Reported: 2026-03-16\nDOB: 1980-02-01\nCollected: 2026-03-14')).toBe(
      '2026-03-14',
    );
    expect(drawn('Patient Jane Doe   Date of birth: 01.02.1980')).toBeNull();
    expect(drawn('Acme Lab\n14/03/2026')).toBe('2026-03-14');
  });

  it('reads the lab name near the top, not a heading', () => {
    expect(parse('Sunrise Medical Laboratory\nGlucose 98 mg/dL').lab).toBe(
      'Sunrise Medical Laboratory',
    );
    expect(
      parse('LABORATORY REPORT\nLab: Northfield Pathology Services\nGlucose 98 mg/dL').lab,
    ).toBe('Northfield Pathology Services');
    expect(parse('Laboratory Report\nGlucose 98 mg/dL').lab).toBeNull();
    const far =
      Array.from({ length: 20 }, (_, i) => `Line ${i}`).join('\n') + '\nAcme Laboratories';
    expect(parse(far).lab).toBeNull();
  });
});

describe('parseLabText: confidence, confirmation and OCR', () => {
  it('marks every OCR value for confirmation, with a lower confidence from the line', () => {
    const pdf = parse('Glucose  98  mg/dL  70-99');
    const ocr = parseLabText([{ text: 'Glucose  98  mg/dL  70-99', page: 1, confidence: 0.9 }], {
      source: 'ocr',
    });
    const poor = parseLabText([{ text: 'Glucose  98  mg/dL  70-99', page: 1, confidence: 0.5 }], {
      source: 'ocr',
    });
    expect(one(pdf, 'glucose').needsConfirmation).toBe(false);
    expect(one(ocr, 'glucose').needsConfirmation).toBe(true);
    expect(one(ocr, 'glucose').confidence).toBeLessThan(one(pdf, 'glucose').confidence);
    expect(one(poor, 'glucose').confidence).toBeLessThan(one(ocr, 'glucose').confidence);
  });

  it('restores a decimal point OCR lost only when that makes the value plausible', () => {
    const repaired = parse('Glucose   54   mmol/L   3.9-5.5', 'ocr');
    expect(one(repaired, 'glucose')).toMatchObject({
      value: 5.4,
      unit: 'mmol/L',
      needsConfirmation: true,
    });
    expect(one(repaired, 'glucose').notes).toEqual([
      'read "54", taken as 5.4: OCR often loses a decimal point',
    ]);
    expect(one(repaired, 'glucose').converted).toEqual({ value: 97.3, unit: 'mg/dL' });
    // plausible as read (a low glucose in mg/dL): left alone
    expect(one(parse('Glucose   54   mg/dL', 'ocr'), 'glucose').value).toBe(54);
    // text from a PDF is never repaired, only flagged
    const pdf = one(parse('Glucose   54   mmol/L'), 'glucose');
    expect(pdf).toMatchObject({ value: 54, needsConfirmation: true });
    expect(pdf.notes).toEqual(['54 mmol/L is not a plausible Glucose: check it']);
    expect(pdf.confidence).toBeLessThan(0.5);
    // a value with its decimal point printed is not repaired
    expect(one(parse('Glucose   5.4   mg/dL', 'ocr'), 'glucose')).toMatchObject({
      value: 5.4,
      notes: [expect.stringMatching(/not a plausible/)],
    });
  });

  it('puts right OCR letters read for digits inside numbers, and says so', () => {
    const parsed = parse('Platelets 2S0 x10^9/L (150 - 400)\nSodium 14O mmol/L\nSO2  98 %', 'ocr');
    expect(parsed.markers.map((m) => [m.markerId, m.value, m.notes])).toEqual([
      ['platelets', 250, ['OCR read "2S0": taken as 250']],
      ['sodium', 140, ['OCR read "14O": taken as 140']],
    ]);
    expect(one(parsed, 'platelets').source.text).toBe('Platelets 2S0 x10^9/L (150 - 400)');
    // text from a PDF is read as printed
    expect(parse('Sodium 14O mmol/L').markers).toEqual([]);
  });

  it('reads OCR confusions in names ("HbAlc", "Alc")', () => {
    const parsed = parse('HbAlc   6.5 %   4.0-5.6\nAlc 48 mmol/mol', 'ocr');
    expect(parsed.markers.map((m) => [m.markerId, m.value, m.unit])).toEqual([
      ['hba1c', 6.5, '%'],
      ['hba1c', 48, 'mmol/mol'],
    ]);
  });

  it('guesses a missing unit from plausibility and the document, and asks for confirmation', () => {
    const si = parse('Glucose   5.4\nCholesterol  5.2  mmol/L\nCreatinine  80  umol/L');
    expect(one(si, 'glucose')).toMatchObject({
      value: 5.4,
      unit: 'mmol/L',
      needsConfirmation: true,
    });
    expect(one(si, 'glucose').notes).toEqual(['no unit printed: read as mmol/L']);
    expect(one(si, 'glucose').confidence).toBeLessThan(one(si, 'total_cholesterol').confidence);
    expect(one(parse('Glucose   98'), 'glucose').unit).toBe('mg/dL');
    // both readings plausible: the document's usual units decide
    expect(one(parse('Urea  20\nCreatinine  1.0 mg/dL\nGlucose 98 mg/dL'), 'urea').unit).toBe(
      'mg/dL',
    );
    expect(one(parse('Urea  20\nCreatinine  80 umol/L\nGlucose 5.4 mmol/L'), 'urea').unit).toBe(
      'mmol/L',
    );
    // a unit the marker does not have
    const stray = one(parse('Glucose  98  mg/L'), 'glucose');
    expect(stray).toMatchObject({ unit: 'mg/dL', needsConfirmation: true });
    expect(stray.notes).toEqual(['"mg/L" is not a unit of Glucose: read as mg/dL']);
  });

  it("puts only the report's own range in referenceRange, never a fallback", () => {
    const parsed = parse('Glucose  98  mg/dL\nLDL Cholesterol  130  mg/dL');
    expect(one(parsed, 'glucose').referenceRange).toBeNull();
    expect(one(parsed, 'ldl_cholesterol').referenceRange).toBeNull();
  });
});

describe('parseLabText: what the printed name says of the test (issue 47)', () => {
  it('codes a fasting glucose, a calculated LDL and an hs-CRP only when the name says so', () => {
    const parsed = parse(`
Glucose, fasting 92 mg/dL
LDL-C (calc.) 130 mg/dL
hs-CRP 1.2 mg/L
Glucose 140 mg/dL
Nüchtern-Glucose 5,1 mmol/l
LDL Cholesterol (Friedewald) 3.6 mmol/L
C-Reactive Protein (hs) 1.3 mg/L
Glucose (non-fasting) 141 mg/dL
Glucose   98 mg/dL   (glucose 70-99 when fasting)
Calcium 9.5 mg/dL   LDL 131 mg/dL
FPG 97 mg/dL
`);
    expect(parsed.markers.map((m) => [m.markerId, m.value, m.unit, m.qualifier, m.loinc])).toEqual([
      ['glucose', 92, 'mg/dL', 'fasting', '1558-6'],
      ['ldl_cholesterol', 130, 'mg/dL', 'calculated', '13457-7'],
      ['hs_crp', 1.2, 'mg/L', null, '30522-7'],
      ['glucose', 140, 'mg/dL', null, '2345-7'],
      ['glucose', 5.1, 'mmol/L', 'fasting', '14771-0'],
      ['ldl_cholesterol', 3.6, 'mmol/L', 'calculated', '39469-2'],
      ['hs_crp', 1.3, 'mg/L', null, '30522-7'],
      // "non-" negates; a range's note after the value says nothing of the sample
      ['glucose', 141, 'mg/dL', null, '2345-7'],
      ['glucose', 98, 'mg/dL', null, '2345-7'],
      // "calc" is a whole word: calcium beside an LDL does not make it calculated
      ['calcium', 9.5, 'mg/dL', null, '17861-6'],
      ['ldl_cholesterol', 131, 'mg/dL', null, '2089-1'],
      ['glucose', 97, 'mg/dL', 'fasting', '1558-6'],
    ]);
  });
});

describe('parseLabText: what is not a value', () => {
  it('reads nothing from a header line or a line of names', () => {
    const parsed = parse(`
Test    Result    Units    Reference range    Flag
Glucose    Cholesterol    HDL    LDL    Triglycerides
Lipid panel: Cholesterol, HDL, LDL, Triglycerides (fasting 12 h)
`);
    expect(parsed.markers).toEqual([]);
  });

  it('reads one value from a line that names a marker twice', () => {
    const parsed = parse(`
HbA1c (HbA1c)   6.5   %
Glucose   98 mg/dL   (glucose 70-99 when fasting)
Glucose 98 mg/dL     Glucose 5.4 mmol/L
`);
    expect(parsed.markers.map((m) => [m.markerId, m.value, m.unit])).toEqual([
      ['hba1c', 6.5, '%'],
      ['glucose', 98, 'mg/dL'],
    ]);
  });

  it('never reads a date, a time, a year or a phone number as a value', () => {
    const parsed = parse(`
Glucose   14.03.2026
Glucose   14/03/2026
Creatinine   1/3/26
Glucose   2026-03-14
Glucose   14 Mar 2026
Potassium  08:30
HbA1c   2026
HbA1c hotline 555 123 4567
Potassium  Tel +49 30 1234567
Sodium   0800 123 456
Free T4   (555) 123-4567 ext
`);
    expect(parsed.markers).toEqual([]);
  });

  it('does not read a name that is another test as the marker it contains', () => {
    const parsed = parse(`
Free PSA              0.5    ng/mL
Creatinine, urine     80     mg/dL
Urine creatinine      80     mg/dL
Ionised calcium       1.2    mmol/L
Bilirubin, direct     0.2    mg/dL
Free T4 index         2.1
PSA                   2.1    ng/mL
`);
    expect(ids(parsed)).toEqual(['psa']);
    expect(parsed.unrecognised).toEqual([
      'Free PSA              0.5    ng/mL',
      'Creatinine, urine     80     mg/dL',
      'Urine creatinine      80     mg/dL',
      'Ionised calcium       1.2    mmol/L',
      'Bilirubin, direct     0.2    mg/dL',
      'Free T4 index         2.1',
    ]);
  });

  it('lists result-like lines of unknown markers, not metadata', () => {
    const parsed = parse(`
Patient ID 12345
Page 1 of 2
Lipase   35   U/L
T4 total   8.0   ug/dL
Collected 2026-03-14
`);
    expect(parsed.unrecognised).toEqual(['Lipase   35   U/L', 'T4 total   8.0   ug/dL']);
  });
});

describe('parseLabText: hostile input', () => {
  it('never throws on NUL bytes, huge lines, odd Unicode or things that are not lines', () => {
    const lines = [
      'Glucose\u0000 98 mg/dL',
      'x'.repeat(100_000),
      `Glucose ${'9'.repeat(100_000)}`,
      '\u202EGlucose 98 mg/dL\u202C',
      'Glu\u200Bcose 98 mg/dL',
      '\uD800 Glucose \uDFFF 98',
      '🧪🩸 HbA1c 6.5 % 👍',
      'Ｇｌｕｃｏｓｅ　９８　ｍｇ／ｄＬ',
      'e\u0301'.repeat(5000),
      '<'.repeat(10_000) + '5',
      '1.'.repeat(10_000),
      'k '.repeat(50_000),
    ].map((text) => ({ text, page: 1, confidence: null }));
    const hostile = [
      ...lines,
      { text: 42, page: 1, confidence: null },
      { text: null, page: -3, confidence: Number.NaN },
      null,
    ] as unknown as TextLine[];
    const parsed = parseLabText(hostile, { source: 'pdf_text' });
    expect(parsed.markers.every((m) => Number.isFinite(m.value))).toBe(true);
    expect(parsed.markers.every((m) => m.source.text.length <= MAX_LINE_CHARS)).toBe(true);
    expect(ids(parsed)).toContain('glucose');
    expect(ids(parsed)).toContain('hba1c');
    expect(() =>
      parseLabText('not lines' as unknown as TextLine[], { source: 'ocr' }),
    ).not.toThrow();
  });

  it('caps a line at MAX_LINE_CHARS and a report at MAX_LINES lines', () => {
    expect(sanitiseLine('a'.repeat(MAX_LINE_CHARS * 3))).toHaveLength(MAX_LINE_CHARS);
    expect(sanitiseLine('Glu\u0000cose\u200B 9⁹')).toBe('Glu cose  9^9');
    const lines: TextLine[] = Array.from({ length: MAX_LINES + 10 }, (_, i) => ({
      text: i === MAX_LINES ? 'Glucose 98 mg/dL' : 'Patient note',
      page: 1,
      confidence: null,
    }));
    expect(parseLabText(lines, { source: 'pdf_text' }).markers).toEqual([]);
    lines[MAX_LINES - 1].text = 'Glucose 98 mg/dL';
    expect(ids(parseLabText(lines, { source: 'pdf_text' }))).toEqual(['glucose']);
  });

  it('reads a long report quickly', () => {
    const row =
      'Glucose  98  mg/dL  70-99      HbA1c  6.5 %  < 5.7  H      Sodium 140 mmol/L 135-145';
    const lines = Array.from({ length: MAX_LINES }, (_, i) => ({
      text: `${row} ${i}`,
      page: 1 + Math.floor(i / 50),
      confidence: null,
    }));
    const started = performance.now();
    parseLabText(lines, { source: 'pdf_text' });
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('keeps its promises on arbitrary text (property)', () => {
    const fragments = fc.constantFrom(
      'Glucose',
      'HbA1c',
      'Free PSA',
      'urine',
      'mg/dL',
      'mmol/L',
      '%',
      'x10^9/L',
      'H',
      'L',
      '*',
      '↑',
      '5,4',
      '5.4',
      '1.234,5',
      '54',
      '<',
      '> 60',
      '3.9 - 5.5',
      '2026-03-14',
      '14/03/2026',
      '08:30',
      '+49 30 1234567',
      '  ',
      '\t',
      ' ',
      '(',
      ')',
      ':',
      '\u0000',
      '\u202E',
      '🩸',
      'é',
      '10⁹',
    );
    const line = fc.oneof(
      fc.array(fragments, { maxLength: 12 }).map((parts) => parts.join(' ')),
      fc.string({ unit: 'binary', maxLength: 200 }),
    );
    fc.assert(
      fc.property(
        fc.array(line, { maxLength: 20 }),
        fc.constantFrom<TextSource>('pdf_text', 'ocr'),
        (texts, source) => {
          const parsed = parseLabText(
            texts.map((text) => ({ text, page: 1, confidence: 0.8 })),
            { source },
          );
          for (const m of parsed.markers) {
            expect(Number.isFinite(m.value)).toBe(true);
            expect(m.confidence).toBeGreaterThanOrEqual(0);
            expect(m.confidence).toBeLessThanOrEqual(1);
            if (source === 'ocr') expect(m.needsConfirmation).toBe(true);
            expect(markerById(m.markerId)?.units.some((u) => u.ucum === m.unit)).toBe(true);
          }
          expect(parsed.drawnOn === null || /^\d{4}-\d{2}-\d{2}$/.test(parsed.drawnOn)).toBe(true);
        },
      ),
      { numRuns: 300 },
    );
  });
});
