/**
 * Medicines (pharmacogenomics, issue 34): the named-allele diplotypes, phenotypes and CPIC
 * guideline drugs of seven genes read from a person's array calls, using CPIC's allele definitions
 * and phenotype tables exactly as PharmCAT ships them (data/pharmcat/, unmodified, see its NOTICE).
 * The tables are parsed once per process (first use) and precomputed per gene, so one report is a
 * few thousand set comparisons.
 *
 * How a diplotype is inferred: the calls are unphased, so every pair of named alleles whose bases
 * could produce the two bases seen at every tested site is a candidate. Sites not tested (absent,
 * no call, insertions/deletions, sites without an rsID) constrain nothing. A named allele that
 * needs a base other than the gene's default allele's (*1, or CPIC's "Reference") at a site not
 * tested cannot be confirmed: it is listed in `untestedAlleles` and the answer assumes it is
 * absent, and says so (if no pair explains the calls under that assumption, such alleles are let in
 * with the untested sites as unknown). When candidates differ in phenotype, all are answered.
 *
 * Strand: vendors report GRCh37 forward-strand bases; the definitions are GRCh38 positions with
 * forward-strand ref/alt. Sites are matched by rsID and compared on the forward strand. A call whose
 * bases fit only the complement is read as reverse strand (noted). At A/T and C/G sites the
 * complement is indistinguishable, so the file's forward-strand report is trusted there and the
 * site is flagged `strandAmbiguous`.
 *
 * Never: a dose, a dosing recommendation or a diagnosis. The answer names the drugs that have a CPIC
 * guideline for the gene and says "talk to your prescriber". CYP2D6, G6PD and HLA typing are
 * answered as not determinable from array data, with the reason.
 */
import { readFileSync } from 'node:fs';
import { fromRoot } from '../../base/paths.ts';
import type { Call, CallLookup } from './dna.types.ts';

/** The genes read from the shipped tables (VKORC1 is reported with CYP2C9). */
export const PGX_GENES = [
  'CYP2C19',
  'CYP2C9',
  'SLCO1B1',
  'TPMT',
  'NUDT15',
  'DPYD',
  'CYP3A5',
] as const;
/** A gene read from the shipped tables. */
export type PgxGene = (typeof PGX_GENES)[number];

/** How one definition site fared in the person's file. */
export type SiteStatus = 'tested' | 'no-call' | 'absent' | 'not-testable' | 'unexpected';

/** One site of a gene's allele definition. */
export interface PgxSite {
  /** the rsID, or null when CPIC's definition has none (then it cannot be looked up) */
  rsid: string | null;
  /** GRCh38 position (chromosome in `chromosome`) */
  position: number;
  chromosome: string;
  /** forward-strand reference and alternative bases of the definition */
  ref: string;
  alts: string[];
  /** the person's call as read, or null */
  call: Call | null;
  /** the call as two forward-strand bases used for matching, or null */
  genotype: string | null;
  status: SiteStatus;
  /** an A/T or C/G site: the strand of the call cannot be checked */
  strandAmbiguous: boolean;
}

/** One diplotype consistent with the calls. */
export interface DiplotypeCandidate {
  /** "*1/*2" */
  diplotype: string;
  alleles: [string, string];
  /** each allele's CPIC function ("No function"), or null */
  functions: [string | null, string | null];
  /** CPIC phenotype ("Intermediate Metabolizer"), or null when the table has none */
  phenotype: string | null;
  /** CPIC activity score where the gene uses one ("1.5"), else null */
  activityScore: string | null;
}

/** The VKORC1 -1639 site reported with CYP2C9 (warfarin). */
export interface Vkorc1Report {
  rsid: 'rs9923231';
  call: Call | null;
  /** the call as forward-strand bases (C reference, T variant), or null */
  genotype: string | null;
  /** CPIC's label ("-1639 AG", gene-strand bases), or null when not tested */
  phenotype: string | null;
}

/** One gene's medicines answer. */
export interface GeneReport {
  gene: string;
  /** false for genes an array cannot type (CYP2D6, G6PD, HLA); see `reason` */
  determinable: boolean;
  /** why the gene cannot be determined from array data, or null */
  reason: string | null;
  sites: PgxSite[];
  /** rsIDs of sites tested */
  tested: string[];
  /** rsIDs (or chr:position) of sites not tested */
  missing: string[];
  /** diplotypes consistent with the tested sites, most specific first */
  diplotypes: DiplotypeCandidate[];
  /** the distinct phenotypes of the candidates (more than one: they cannot be told apart) */
  phenotypes: string[];
  /** the phenotype when exactly one, else null */
  phenotype: string | null;
  /** named alleles that need a variant at a site not tested (assumed absent) */
  untestedAlleles: string[];
  notes: string[];
  /** drugs with a CPIC guideline for this gene */
  drugs: string[];
  advice: string;
  /** CYP2C9 only: the VKORC1 site for warfarin */
  vkorc1?: Vkorc1Report;
}

// Drugs with a CPIC guideline per gene, checked against the CPIC guideline annotations of
// PharmCAT's example report (docs/examples/pharmcat.example.report.json, commit in the NOTICE).
// Guidelines (CPIC, cpicpgx.org/guidelines), by title:
// - CYP2C19 and Clopidogrel Therapy: 2022 Update; CYP2C19 and Voriconazole Therapy; CYP2C19 and
//   Proton Pump Inhibitor Dosing; CYP2D6, CYP2C19, CYP2B6, SLC6A4, and HTR2A Genotypes and
//   Serotonin Reuptake Inhibitor Antidepressants; CYP2D6 and CYP2C19 Genotypes and Dosing of
//   Tricyclic Antidepressants: 2016 Update.
// - Pharmacogenetics-Guided Warfarin Dosing: 2017 Update (CYP2C9, VKORC1, CYP4F2); CYP2C9 and
//   Nonsteroidal Anti-Inflammatory Drugs; CYP2C9 and HLA-B Genotypes and Phenytoin Dosing: 2020
//   Update; SLCO1B1, ABCG2, and CYP2C9 Genotypes and Statin-Associated Musculoskeletal Symptoms.
// - Thiopurine Dosing Based on TPMT and NUDT15 Genotypes: 2018 Update.
// - Fluoropyrimidines and DPYD Genotype (2017 Update, 2024 update); CYP3A5 Genotype and Tacrolimus.
// - CYP2D6: codeine/tramadol/hydrocodone (opioids), tamoxifen, ondansetron/tropisetron,
//   atomoxetine, metoprolol (beta-blockers), SSRIs/SNRIs, tricyclics. G6PD and Medication Use:
//   2022 Update. HLA-B abacavir, allopurinol; HLA-A/HLA-B carbamazepine and oxcarbazepine.
const DRUGS: Record<string, string[]> = {
  CYP2C19: [
    'clopidogrel',
    'voriconazole',
    'citalopram',
    'escitalopram',
    'sertraline',
    'omeprazole',
    'lansoprazole',
    'pantoprazole',
    'dexlansoprazole',
    'amitriptyline',
    'clomipramine',
    'doxepin',
    'imipramine',
    'trimipramine',
  ],
  CYP2C9: [
    'warfarin',
    'phenytoin',
    'fosphenytoin',
    'celecoxib',
    'flurbiprofen',
    'ibuprofen',
    'lornoxicam',
    'meloxicam',
    'piroxicam',
    'tenoxicam',
    'fluvastatin',
  ],
  SLCO1B1: [
    'atorvastatin',
    'fluvastatin',
    'lovastatin',
    'pitavastatin',
    'pravastatin',
    'rosuvastatin',
    'simvastatin',
  ],
  TPMT: ['azathioprine', 'mercaptopurine', 'thioguanine'],
  NUDT15: ['azathioprine', 'mercaptopurine', 'thioguanine'],
  DPYD: ['capecitabine', 'fluorouracil'],
  CYP3A5: ['tacrolimus'],
  CYP2D6: [
    'codeine',
    'tramadol',
    'hydrocodone',
    'tamoxifen',
    'ondansetron',
    'tropisetron',
    'atomoxetine',
    'metoprolol',
    'paroxetine',
    'fluvoxamine',
    'venlafaxine',
    'vortioxetine',
    'amitriptyline',
    'nortriptyline',
    'desipramine',
    'imipramine',
    'clomipramine',
    'doxepin',
    'trimipramine',
  ],
  G6PD: [
    'primaquine',
    'tafenoquine',
    'dapsone',
    'rasburicase',
    'pegloticase',
    'methylene blue',
    'toluidine blue',
    'nitrofurantoin',
  ],
  HLA: ['abacavir', 'allopurinol', 'carbamazepine', 'oxcarbazepine', 'phenytoin', 'fosphenytoin'],
};

const ADVICE =
  'These medicines have a CPIC guideline for this gene: talk to your prescriber or pharmacist ' +
  'before starting or changing one. This is not a diagnosis; do not change a medicine on your own.';

const NOT_DETERMINABLE: { gene: string; reason: string }[] = [
  {
    gene: 'CYP2D6',
    reason:
      'Not determinable from array data: CYP2D6 function depends on whole-gene deletions, ' +
      'duplications and CYP2D6/CYP2D7 hybrids, which genotyping arrays do not measure; the ' +
      'single-base calls alone can give a wrong phenotype.',
  },
  {
    gene: 'G6PD',
    reason:
      'Not determinable from array data: G6PD deficiency comes from many rare variants on the X ' +
      'chromosome (and in females from X-inactivation); an array tests few of them, so a normal ' +
      'result cannot be concluded. An enzyme activity test is the standard.',
  },
  {
    gene: 'HLA',
    reason:
      'Not determinable from array data: HLA-A and HLA-B types (abacavir, allopurinol, ' +
      'carbamazepine) need sequence-based HLA typing; the tag-SNP likelihoods in the HLA section ' +
      'are not an HLA type.',
  },
];

// Assumption notes per gene and facts that arrays cannot settle.
const GENE_NOTES: Partial<Record<PgxGene, string>> = {
  DPYD:
    'Absence of rare DPYD variants cannot be concluded from an array: arrays test a few known ' +
    'variants, and DPYD deficiency can come from variants that were not tested.',
  TPMT:
    'The calls are unphased: heterozygous at both rs1800460 and rs1142345 fits *1/*3A ' +
    '(one allele with both variants) and *3B/*3C (one variant on each); an array cannot tell ' +
    'them apart, so both are answered.',
};

/** IUPAC codes used by CPIC's definitions, as the bases they allow. */
const IUPAC: Record<string, string> = {
  A: 'A',
  C: 'C',
  G: 'G',
  T: 'T',
  R: 'AG',
  Y: 'CT',
  S: 'CG',
  W: 'AT',
  K: 'GT',
  M: 'AC',
  B: 'CGT',
  D: 'AGT',
  H: 'ACT',
  V: 'ACG',
  N: 'ACGT',
};
const COMPLEMENT: Record<string, string> = { A: 'T', T: 'A', C: 'G', G: 'C' };

interface TranslationJson {
  gene: string;
  chromosome: string;
  variants: { position: number; rsid: string | null; ref: string; alts: string[] }[];
  namedAlleles: { name: string; alleles: (string | null)[]; reference: boolean }[];
  /** sub-allele definitions to the name CPIC's phenotype table uses ("*45.001" -> "*45") */
  suballelesMap?: Record<string, string>;
}
interface PhenotypeJson {
  namedAlleles: { name: string; functionValue: string | null }[];
  diplotypes: {
    diplotypekey: Record<string, number>;
    phenotype: string | null;
    activityScore: string | null;
  }[];
}

/** One definition site as matched. */
export interface SiteDef {
  rsid: string | null;
  position: number;
  chromosome: string;
  ref: string;
  alts: string[];
  /** single-base site with an rsID: readable from array calls */
  snv: boolean;
  strandAmbiguous: boolean;
  /** allowed forward-strand bases (ref + alts) */
  allowed: string;
}
/** One named allele as matched. */
export interface AlleleDef {
  name: string;
  /** per site, the bases the allele allows ('#' + CPIC's code at a site arrays cannot read) */
  bases: string[];
  /** sites where the allele excludes the default allele's base */
  defining: number[];
  /** number of sites where it differs from the default (specificity, for ordering) */
  score: number;
}
/** One gene's parsed tables. */
export interface GeneTables {
  gene: string;
  sites: SiteDef[];
  alleles: AlleleDef[];
  defaultIndex: number;
  functions: Map<string, string | null>;
  phenotypes: Map<string, { phenotype: string | null; activityScore: string | null }>;
}

const readJson = <T>(...parts: string[]): T =>
  JSON.parse(readFileSync(fromRoot('data', 'pharmcat', ...parts), 'utf8')) as T;

const pairKey = (a: string, b: string): string => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

function siteDef(v: TranslationJson['variants'][number], chromosome: string): SiteDef {
  const snv = Boolean(v.rsid) && v.ref.length === 1 && v.alts.every((a) => a.length === 1);
  const allowed = snv ? [v.ref, ...v.alts].join('') : '';
  const strandAmbiguous =
    snv && [...allowed].every((b) => allowed.includes(COMPLEMENT[b] ?? '?')) && allowed.length > 1;
  return { ...v, chromosome, snv, strandAmbiguous, allowed };
}

/** Per site the bases an allele allows; at sites arrays cannot read, '#' and CPIC's code. */
function alleleBases(alleles: (string | null)[], sites: SiteDef[]): string[] {
  return sites.map((s, i) => {
    const code = alleles[i] ?? s.ref;
    return s.snv ? (IUPAC[code] ?? '') : `#${code}`;
  });
}

/** Whether an allele's bases at a site exclude the default allele's (a variant it needs). */
const needsVariant = (b: string, base: string): boolean =>
  b.startsWith('#') || base.startsWith('#') ? b !== base : ![...base].some((x) => b.includes(x));

/** Parses one gene's two tables into matching structures (once per process). */
function buildGene(gene: string): GeneTables {
  const t = readJson<TranslationJson>('definition', `${gene}_translation.json`);
  const p = readJson<PhenotypeJson>('phenotype', `${gene}.json`);
  const sites = t.variants.map((v) => siteDef(v, t.chromosome));
  const raw = t.namedAlleles.map((a) => ({
    name: t.suballelesMap?.[a.name] ?? a.name,
    bases: alleleBases(a.alleles, sites),
  }));
  // The default allele is CPIC's usual baseline: *1 where it exists, else the reference allele.
  let defaultIndex = raw.findIndex((a) => a.name === '*1');
  if (defaultIndex < 0) defaultIndex = t.namedAlleles.findIndex((a) => a.reference);
  const base = raw[defaultIndex].bases;
  const alleles = raw.map((a) => {
    const defining: number[] = [];
    let score = 0;
    a.bases.forEach((b, i) => {
      if (b !== base[i]) score++;
      if (needsVariant(b, base[i])) defining.push(i);
    });
    return { ...a, defining, score };
  });
  const phenotypes = new Map<string, { phenotype: string | null; activityScore: string | null }>();
  for (const d of p.diplotypes) {
    const names = Object.entries(d.diplotypekey).flatMap(([n, c]) => (c === 2 ? [n, n] : [n]));
    if (names.length === 2) {
      phenotypes.set(pairKey(names[0], names[1]), {
        phenotype: d.phenotype,
        activityScore: d.activityScore,
      });
    }
  }
  const functions = new Map(p.namedAlleles.map((a) => [a.name, a.functionValue]));
  return { gene, sites, alleles, defaultIndex, functions, phenotypes };
}

let cache: Map<string, GeneTables> | null = null;

/** The parsed tables of the seven genes and VKORC1, built on first use. */
export function pgxTables(): Map<string, GeneTables> {
  cache ??= new Map([...PGX_GENES, 'VKORC1'].map((g) => [g, buildGene(g)]));
  return cache;
}

/** Every rsID the shipped definitions name, per gene (tests check the code's rsIDs against it). */
export function definitionRsids(): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [g, t] of pgxTables()) {
    out.set(g, new Set(t.sites.flatMap((s) => (s.rsid ? [s.rsid] : []))));
  }
  return out;
}

/** The call as two forward-strand bases, and whether it was read as the complement. */
function readGenotype(
  site: SiteDef,
  call: Call | null,
): { genotype: string | null; status: SiteStatus; flipped: boolean } {
  if (call === null) return { genotype: null, status: 'no-call', flipped: false };
  const bases = call.toUpperCase();
  if (bases.length !== 2 || ![...bases].every((b) => b in COMPLEMENT)) {
    return { genotype: null, status: 'unexpected', flipped: false };
  }
  if ([...bases].every((b) => site.allowed.includes(b))) {
    return { genotype: bases, status: 'tested', flipped: false };
  }
  const comp = [...bases].map((b) => COMPLEMENT[b]).join('');
  if (!site.strandAmbiguous && [...comp].every((b) => site.allowed.includes(b))) {
    return { genotype: comp, status: 'tested', flipped: true };
  }
  return { genotype: null, status: 'unexpected', flipped: false };
}

function readSites(t: GeneTables, calls: CallLookup, notes: string[]): PgxSite[] {
  return t.sites.map((s) => {
    const base = {
      rsid: s.rsid,
      position: s.position,
      chromosome: s.chromosome,
      ref: s.ref,
      alts: s.alts,
      strandAmbiguous: s.strandAmbiguous,
      call: null,
      genotype: null,
    };
    if (!s.snv) return { ...base, status: 'not-testable' as const };
    if (!calls.has(s.rsid!)) return { ...base, status: 'absent' as const };
    const call = calls.call(s.rsid!);
    const g = readGenotype(s, call);
    if (g.flipped)
      notes.push(`${s.rsid}: call ${call} read on the reverse strand as ${g.genotype}.`);
    if (g.status === 'unexpected') {
      notes.push(`${s.rsid}: call ${call} does not fit the definition's bases; not used.`);
    }
    return { ...base, call, genotype: g.genotype, status: g.status };
  });
}

const fits = (g: string, a: string, b: string): boolean =>
  (a.includes(g[0]) && b.includes(g[1])) || (a.includes(g[1]) && b.includes(g[0]));

/**
 * Pairs of alleles consistent with every tested site. Strict: only alleles whose every defining
 * site was tested (the others are assumed absent); else any allele with one defining site tested.
 */
function candidatePairs(
  t: GeneTables,
  typed: number[],
  genotypes: string[],
  strict: boolean,
): [number, number][] {
  const seen = (s: number): boolean => genotypes[s] !== '';
  const testable = t.alleles
    .map((a, i) => i)
    .filter((i) => {
      const d = t.alleles[i].defining;
      return i === t.defaultIndex || (strict ? d.every(seen) : d.some(seen));
    })
    // an allele must fit each tested site on at least one of its two chromosomes
    .filter((i) =>
      typed.every((s) => [...genotypes[s]].some((b) => t.alleles[i].bases[s].includes(b))),
    );
  const out: [number, number][] = [];
  for (let x = 0; x < testable.length; x++) {
    const a = t.alleles[testable[x]].bases;
    for (let y = x; y < testable.length; y++) {
      const b = t.alleles[testable[y]].bases;
      if (typed.every((s) => fits(genotypes[s], a[s], b[s]))) out.push([testable[x], testable[y]]);
    }
  }
  return out;
}

function describePair(t: GeneTables, [i, j]: [number, number]): DiplotypeCandidate {
  const a = t.alleles[i].name;
  const b = t.alleles[j].name;
  const hit = t.phenotypes.get(pairKey(a, b));
  return {
    diplotype: `${a}/${b}`,
    alleles: [a, b],
    functions: [t.functions.get(a) ?? null, t.functions.get(b) ?? null],
    phenotype: hit?.phenotype ?? null,
    activityScore: hit?.activityScore ?? null,
  };
}

function untestedOf(t: GeneTables, genotypes: string[]): string[] {
  const names = t.alleles
    .filter((a, i) => i !== t.defaultIndex && a.defining.some((s) => genotypes[s] === ''))
    .map((a) => a.name);
  return [...new Set(names)];
}

function uniqueDiplotypes(t: GeneTables, pairs: [number, number][]): DiplotypeCandidate[] {
  const byName = new Map<string, DiplotypeCandidate>();
  for (const p of pairs) {
    const d = describePair(t, p);
    if (!byName.has(d.diplotype)) byName.set(d.diplotype, d);
  }
  return [...byName.values()];
}

/** One gene's diplotypes, phenotypes, sites and notes. */
function geneReport(t: GeneTables, calls: CallLookup): GeneReport {
  const notes: string[] = [];
  const sites = readSites(t, calls, notes);
  const genotypes = sites.map((s) => s.genotype ?? '');
  const typed = genotypes.flatMap((g, i) => (g ? [i] : []));
  let pairs = candidatePairs(t, typed, genotypes, true);
  if (pairs.length === 0 && typed.length > 0) {
    pairs = candidatePairs(t, typed, genotypes, false);
    if (pairs.length > 0) {
      notes.push(
        'Only alleles with variants at sites not tested explain these calls; those sites are ' +
          'treated as unknown.',
      );
    }
  }
  pairs.sort(
    (p, q) =>
      t.alleles[q[0]].score + t.alleles[q[1]].score - t.alleles[p[0]].score - t.alleles[p[1]].score,
  );
  const diplotypes = uniqueDiplotypes(t, pairs);
  const phenotypes = [...new Set(diplotypes.map((d) => d.phenotype ?? 'Indeterminate'))];
  const untestedAlleles = untestedOf(t, genotypes);
  addGeneNotes(t, { typed, diplotypes, phenotypes, untestedAlleles, notes });
  const label = (s: PgxSite): string => s.rsid ?? `${s.chromosome}:${s.position}`;
  return {
    gene: t.gene,
    determinable: typed.length > 0,
    reason: typed.length > 0 ? null : 'None of the sites of this gene were tested in the file.',
    sites,
    tested: sites.filter((s) => s.status === 'tested').map(label),
    missing: sites.filter((s) => s.status !== 'tested').map(label),
    diplotypes,
    phenotypes: typed.length > 0 ? phenotypes : [],
    phenotype: typed.length > 0 && phenotypes.length === 1 ? phenotypes[0] : null,
    untestedAlleles,
    notes,
    drugs: DRUGS[t.gene] ?? [],
    advice: ADVICE,
  };
}

function addGeneNotes(
  t: GeneTables,
  r: {
    typed: number[];
    diplotypes: DiplotypeCandidate[];
    phenotypes: string[];
    untestedAlleles: string[];
    notes: string[];
  },
): void {
  const { notes } = r;
  if (r.untestedAlleles.length > 0) {
    notes.push(
      `${r.untestedAlleles.length} named alleles need a variant at a site not tested; the file ` +
        'cannot show them, so the answer assumes they are absent (untested sites could change it).',
    );
  }
  if (r.typed.length > 0 && r.diplotypes.length === 0) {
    notes.push('No pair of named alleles explains these calls; the phenotype is not determined.');
  }
  if (r.phenotypes.length > 1) {
    notes.push('The diplotypes consistent with these unphased calls differ in phenotype.');
  }
  const gene = GENE_NOTES[t.gene as PgxGene];
  // the TPMT phase note only when both *3A sites are heterozygous (more than one candidate)
  if (gene && (t.gene !== 'TPMT' || r.diplotypes.some((d) => d.diplotype === '*3B/*3C'))) {
    notes.push(gene);
  }
}

function vkorc1Report(calls: CallLookup): Vkorc1Report {
  const t = pgxTables().get('VKORC1')!;
  const r = geneReport(t, calls);
  return {
    rsid: 'rs9923231',
    call: r.sites[0].call,
    genotype: r.sites[0].genotype,
    phenotype: r.sites[0].genotype ? r.phenotype : null,
  };
}

/**
 * The medicines report: one entry per gene (CYP2C19, CYP2C9 with VKORC1, SLCO1B1, TPMT, NUDT15,
 * DPYD, CYP3A5), then CYP2D6, G6PD and HLA as not determinable with the reason. Never a dose.
 */
export function medicinesReport(calls: CallLookup): GeneReport[] {
  const tables = pgxTables();
  const out = PGX_GENES.map((g) => geneReport(tables.get(g)!, calls));
  out.find((r) => r.gene === 'CYP2C9')!.vkorc1 = vkorc1Report(calls);
  for (const n of NOT_DETERMINABLE) {
    out.push({
      gene: n.gene,
      determinable: false,
      reason: n.reason,
      sites: [],
      tested: [],
      missing: [],
      diplotypes: [],
      phenotypes: [],
      phenotype: null,
      untestedAlleles: [],
      notes: [],
      drugs: DRUGS[n.gene] ?? [],
      advice: ADVICE,
    });
  }
  return out;
}
