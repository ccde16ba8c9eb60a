/**
 * Medicines (pharmacogenomics, issues 34 and 46): the named-allele diplotypes, phenotypes and CPIC
 * guideline drugs read from a person's array calls, using CPIC's allele definitions and phenotype
 * tables exactly as PharmCAT ships them (data/pharmcat/, unmodified, see its NOTICE; parsed in
 * dna.pgx.tables.ts). Genes: CYP2C19, CYP2C9 (with VKORC1 and CYP4F2 for warfarin), SLCO1B1, ABCG2,
 * TPMT, NUDT15, DPYD, CYP3A5, UGT1A1 and G6PD; CYP2D6 and HLA typing are answered as not
 * determinable from array data, with the reason.
 *
 * How a diplotype is inferred: the calls are unphased, so every pair of named alleles whose bases
 * could produce the two bases seen at every tested site is a candidate. A named allele that needs
 * a variant at a site not tested cannot be confirmed: it is listed in `untestedAlleles` and assumed
 * absent, and the answer says so, EXCEPT at the gene's key sites (`KEY_SITES`: the sites whose
 * absence changes the answer for a meaningful share of people). A key site that was not read (not
 * in the file, a no-call, a call that fits neither strand, or an A/T or C/G site whose strand the
 * file's vendor does not fix) is never taken as reference: its alleles stay possible, and when the
 * possible diplotypes differ in phenotype the phenotype is not determined and the answer names the
 * site. DPYD follows CPIC's rule as PharmCAT applies it (dna.pgx.rules.ts): the two lowest activity
 * values of the variants found. G6PD (X-linked) reads the deficiency variants an array can carry.
 *
 * Strand: vendors report GRCh37 forward-strand bases; the definitions are GRCh38 positions with
 * forward-strand ref/alt. Sites are matched by rsID and compared on the forward strand. A call whose
 * bases fit only the complement is read as reverse strand (noted). At A/T and C/G sites the
 * complement is indistinguishable: such a site is read only when the file's strand is known for its
 * vendor and build (dna.strand.ts), else it is not read.
 *
 * Never: a dose, a dosing recommendation or a diagnosis. The answer names the drugs that have a CPIC
 * guideline for the gene and says "talk to your prescriber".
 */
import type { CallLookup } from './dna.types.ts';
import { strandKnown } from './dna.strand.ts';
import {
  pairKey,
  PGX_GENES,
  pgxTables,
  type AlleleDef,
  type GeneTables,
  type PgxGene,
} from './dna.pgx.tables.ts';
import { describePair, readSites } from './dna.pgx.sites.ts';
import {
  dpydCall,
  g6pdReport,
  slco1b1BySite,
  warfarinSite,
  type GeneInference,
} from './dna.pgx.rules.ts';
import type {
  DiplotypeCandidate,
  GeneReport,
  WarfarinSite,
  GenomeFacts,
  KeySite,
  PgxSite,
  SiteStatus,
} from './dna.pgx.types.ts';

export { definitionRsids, PGX_GENES, pgxTables, type PgxGene } from './dna.pgx.tables.ts';
export type * from './dna.pgx.types.ts';

/** The rules' version, stored with each report: a report made by older rules is made again. */
export const PGX_RULES_VERSION = 2;

// Drugs with a CPIC guideline per gene, checked against the CPIC guideline annotations of
// PharmCAT's example report (docs/examples/pharmcat.example.report.json, commit in the NOTICE).
// Guidelines (CPIC, cpicpgx.org/guidelines), by title:
// - CYP2C19 and Clopidogrel Therapy: 2022 Update; CYP2C19 and Voriconazole Therapy; CYP2C19 and
//   Proton Pump Inhibitor Dosing; CYP2D6, CYP2C19, CYP2B6, SLC6A4, and HTR2A Genotypes and
//   Serotonin Reuptake Inhibitor Antidepressants; CYP2D6 and CYP2C19 Genotypes and Dosing of
//   Tricyclic Antidepressants: 2016 Update.
// - Pharmacogenetics-Guided Warfarin Dosing: 2017 Update (CYP2C9, VKORC1, CYP4F2); CYP2C9 and
//   Nonsteroidal Anti-Inflammatory Drugs; CYP2C9 and HLA-B Genotypes and Phenytoin Dosing: 2020
//   Update; SLCO1B1, ABCG2, and CYP2C9 Genotypes and Statin-Associated Musculoskeletal Symptoms
//   (2022: ABCG2 for rosuvastatin).
// - Thiopurine Dosing Based on TPMT and NUDT15 Genotypes: 2018 Update.
// - Fluoropyrimidines and DPYD Genotype (2017 Update, 2024 update); CYP3A5 Genotype and Tacrolimus;
//   UGT1A1 Genotype and Atazanavir Prescribing (2015).
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
  ABCG2: ['rosuvastatin'],
  TPMT: ['azathioprine', 'mercaptopurine', 'thioguanine'],
  NUDT15: ['azathioprine', 'mercaptopurine', 'thioguanine'],
  DPYD: ['capecitabine', 'fluorouracil'],
  CYP3A5: ['tacrolimus'],
  UGT1A1: ['atazanavir'],
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

/** The drugs with a CPIC guideline that this report names, per gene. */
export const PGX_DRUGS: Readonly<Record<string, readonly string[]>> = DRUGS;

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
    gene: 'HLA',
    reason:
      'Not determinable from array data: HLA-A and HLA-B types (abacavir, allopurinol, ' +
      'carbamazepine) need sequence-based HLA typing; the tag-SNP likelihoods in the HLA section ' +
      'are not an HLA type.',
  },
];

/**
 * Per gene, the sites whose absence changes the answer for a meaningful share of people (common
 * decreased- or no-function alleles, or a common allele that sets the phenotype, as CYP3A5*3 and
 * CYP2C19*17 do). UGT1A1's TA repeat (rs3064744) is an insertion no array reads.
 */
export const KEY_SITES: Record<PgxGene, string[]> = {
  CYP2C19: ['rs4244285', 'rs4986893', 'rs12248560'],
  CYP2C9: ['rs1799853', 'rs1057910'],
  SLCO1B1: ['rs4149056'],
  ABCG2: ['rs2231142'],
  TPMT: ['rs1800460', 'rs1142345'],
  NUDT15: ['rs116855232'],
  DPYD: ['rs3918290', 'rs67376798', 'rs55886062', 'rs75017182'],
  CYP3A5: ['rs776746'],
  UGT1A1: ['rs887829', 'rs3064744'],
};

// Assumption notes per gene and facts that arrays cannot settle.
const GENE_NOTES: Partial<Record<PgxGene, string>> = {
  DPYD:
    'Absence of rare DPYD variants cannot be concluded from an array: arrays test a few known ' +
    'variants, and DPYD deficiency can come from variants that were not tested.',
  TPMT:
    'The calls are unphased: heterozygous at both rs1800460 and rs1142345 fits *1/*3A ' +
    '(one allele with both variants) and *3B/*3C (one variant on each); an array cannot tell ' +
    'them apart, so both are answered.',
  UGT1A1:
    'The UGT1A1 TA repeat (rs3064744, which defines *28, *36 and *37) is an insertion that ' +
    'genotyping arrays do not read. rs887829 (*80) travels with *28 or *37 on most chromosomes ' +
    '(strong linkage), so each *80 copy makes a decreased-function repeat likely; only a ' +
    'UGT1A1 TA-repeat test settles it.',
};

const fits = (g: string, a: string, b: string): boolean =>
  (a.includes(g[0]) && b.includes(g[1])) || (a.includes(g[1]) && b.includes(g[0]));

/**
 * Pairs of alleles consistent with every tested site. An allele is considered when `allowed` says
 * its defining sites are tested (or may stay unknown); the default allele always is.
 */
function candidatePairs(
  t: GeneTables,
  typed: number[],
  genotypes: string[],
  allowed: (allele: AlleleDef) => boolean,
): [number, number][] {
  const testable = t.alleles
    .map((a, i) => i)
    .filter((i) => i === t.defaultIndex || allowed(t.alleles[i]))
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

function uniqueDiplotypes(t: GeneTables, pairs: [number, number][]): DiplotypeCandidate[] {
  const byName = new Map<string, DiplotypeCandidate>();
  for (const [i, j] of pairs) {
    const d = describePair(t, t.alleles[i].name, t.alleles[j].name);
    if (!byName.has(d.diplotype)) byName.set(d.diplotype, d);
  }
  return [...byName.values()];
}

/** Named alleles that need a variant at a site not tested, other than the answer's own. */
function untestedOf(t: GeneTables, genotypes: string[], own: Set<string>): string[] {
  const names = t.alleles
    .filter((a, i) => i !== t.defaultIndex && a.defining.some((s) => genotypes[s] === ''))
    .map((a) => a.name)
    .filter((n) => !own.has(n));
  return [...new Set(names)];
}

/** The gene's key sites: where each is in the definition and which alleles it defines. */
function keySitesOf(t: GeneTables, sites: PgxSite[]): { index: number; site: KeySite }[] {
  const rsids = KEY_SITES[t.gene as PgxGene] ?? [];
  return rsids.flatMap((rsid) => {
    const index = t.sites.findIndex((s) => s.rsid === rsid);
    if (index < 0) return [];
    const names = t.alleles.filter((a) => a.defining.includes(index)).map((a) => a.name);
    const shown = [...new Set(names)].slice(0, 3).join(', ');
    return [{ index, site: { rsid, alleles: shown, status: sites[index].status } }];
  });
}

const STATUS_WORDS: Record<SiteStatus, string> = {
  tested: 'read',
  'no-call': 'a no-call in the file',
  absent: 'not in the file',
  'not-testable': 'not readable from array data',
  unexpected: 'a call that fits neither strand',
  'strand-unknown': "an A/T or C/G site on a strand this file's vendor does not fix",
};

/** "rs4244285 (*2): a no-call in the file" for each key site not read. */
const unreadWords = (keys: KeySite[]): string =>
  keys.map((k) => `${k.rsid} (${k.alleles}): ${STATUS_WORDS[k.status]}`).join('; ');

/**
 * The candidate diplotypes of a gene read with the pair tables (every gene but DPYD). As PharmCAT
 * matches, an allele is possible when it fits every site read and differs from the default at a
 * site read (or at a key site not read). A pair whose alleles need a variant at a site not read
 * (other than a key site) is listed but `assumed` absent: the phenotype is set by the other pairs,
 * unless only such pairs explain the calls.
 */
function inferPairs(
  t: GeneTables,
  genotypes: string[],
  typed: number[],
  unknownKeys: Set<number>,
): GeneInference {
  const notes: string[] = [];
  const seen = (s: number): boolean => genotypes[s] !== '';
  const pairs = candidatePairs(
    t,
    typed,
    genotypes,
    (a) =>
      a === t.alleles[t.referenceIndex] ||
      a.differing.length === 0 ||
      a.differing.some(seen) ||
      a.defining.some((s) => unknownKeys.has(s)),
  );
  // a key site not read outranks the allele's other unread sites: it stays possible, not assumed
  const notRead = (i: number): boolean =>
    t.alleles[i].defining.some((s) => !seen(s) && !unknownKeys.has(s)) &&
    !t.alleles[i].defining.some((s) => unknownKeys.has(s));
  // parsimony: the pairs needing the fewest alleles with a variant at a site not read decide;
  // the others are listed as assumed absent
  if (pairs.length === 0) return { diplotypes: [], notes, phaseAssumed: null };
  const cost = (p: [number, number]): number => Number(notRead(p[0])) + Number(notRead(p[1]));
  const least = Math.min(...pairs.map(cost));
  const primary = pairs.filter((p) => cost(p) === least);
  const assumed = pairs.filter((p) => cost(p) > least);
  const bySpecificity = (p: [number, number], q: [number, number]): number =>
    t.alleles[q[0]].score + t.alleles[q[1]].score - t.alleles[p[0]].score - t.alleles[p[1]].score;
  primary.sort(bySpecificity);
  assumed.sort(bySpecificity);
  const inPrimary = new Set(primary.flat());
  const names = (ps: [number, number][], skip = new Set<number>()): string =>
    [...new Set(ps.flatMap((p) => p.filter((i) => notRead(i) && !skip.has(i))))]
      .slice(0, 5)
      .map((i) => t.alleles[i].name)
      .join(', ');
  if (least > 0) {
    notes.push(
      `Only alleles with variants at sites not read explain these calls (${names(primary)}); ` +
        'those sites are treated as unknown.',
    );
  }
  if (assumed.length > 0) {
    notes.push(
      `${names(assumed, inPrimary) || 'Other pairs'} also fit the sites read but need more variants at sites not read: ` +
        'listed, and assumed absent like the other untested alleles.',
    );
  }
  const listed = [
    ...uniqueDiplotypes(t, primary),
    ...uniqueDiplotypes(t, assumed).map((d) => ({ ...d, assumed: true })),
  ];
  const byName = new Map<string, DiplotypeCandidate>();
  for (const d of listed) if (!byName.has(d.diplotype)) byName.set(d.diplotype, d);
  return { diplotypes: [...byName.values()], notes, phaseAssumed: null };
}

/** One gene's diplotypes, phenotypes, sites and notes. */
function geneReport(t: GeneTables, calls: CallLookup, strandOk: boolean): GeneReport {
  const notes: string[] = [];
  const sites = readSites(t, calls, strandOk, notes);
  const genotypes = sites.map((s) => s.genotype ?? '');
  const typed = genotypes.flatMap((g, i) => (g ? [i] : []));
  const keys = keySitesOf(t, sites);
  const unread = keys.filter((k) => k.site.status !== 'tested');
  const unknownKeys = new Set(unread.map((k) => k.index));
  let inferred =
    t.gene === 'DPYD'
      ? dpydCall(t, genotypes, unknownKeys)
      : inferPairs(t, genotypes, typed, unknownKeys);
  if (t.gene === 'SLCO1B1' && inferred.diplotypes.length === 0) {
    inferred = slco1b1BySite(t, genotypes) ?? inferred;
  }
  notes.push(...inferred.notes);
  const { diplotypes } = inferred;
  const deciding = diplotypes.filter((d) => !d.assumed);
  const phenotypes = [...new Set(deciding.map((d) => d.phenotype ?? 'Indeterminate'))];
  const own = new Set(diplotypes.flatMap((d) => d.alleles));
  const untestedAlleles = untestedOf(t, genotypes, own);
  const anyTested = typed.length > 0;
  const odd = sites.filter((s) => s.status === 'unexpected').map((s) => s.rsid ?? '');
  const determined = anyTested && phenotypes.length === 1 && odd.length === 0;
  const reason = !anyTested
    ? `Not determined: none of this gene's sites were tested in the file (${unreadWords(unread.map((k) => k.site))}).`
    : determined
      ? null
      : odd.length > 0
        ? `Not determined: ${odd.join(', ')} carries a base CPIC's definitions do not list ` +
          '(an undocumented variant, or an array error), so no named allele can be trusted here.'
        : notDeterminedReason(unread, diplotypes.length, phenotypes);
  addGeneNotes(t, { anyTested, diplotypes, phenotypes, untestedAlleles, unread, notes });
  const label = (s: PgxSite): string => s.rsid ?? `${s.chromosome}:${s.position}`;
  const report: GeneReport = {
    gene: t.gene,
    status: determined ? 'determined' : 'not-determined',
    determinable: anyTested,
    reason,
    finding: '',
    sites,
    tested: sites.filter((s) => s.status === 'tested').map(label),
    missing: sites.filter((s) => s.status !== 'tested').map(label),
    keySites: keys.map((k) => k.site),
    keySitesNotRead: unread.map((k) => k.site.rsid),
    diplotypes,
    phenotypes: anyTested || unread.length > 0 ? phenotypes : [],
    phenotype: determined ? phenotypes[0] : null,
    untestedAlleles,
    notes,
    drugs: DRUGS[t.gene] ?? [],
    advice: ADVICE,
  };
  report.finding = findingOf(report, inferred.phaseAssumed);
  return report;
}

/** Why a tested gene's phenotype is not determined, naming the key sites not read. */
function notDeterminedReason(
  unread: { site: KeySite }[],
  candidates: number,
  phenotypes: string[],
): string {
  if (candidates === 0) {
    return 'No pair of named alleles explains these calls; the phenotype is not determined.';
  }
  const fit = phenotypes.join(' or ');
  if (unread.length > 0) {
    return (
      `Not determined: ${unreadWords(unread.map((k) => k.site))}; the calls fit ${fit} ` +
      'depending on what is there.'
    );
  }
  return `Not determined: the calls are unphased and fit ${fit}.`;
}

function addGeneNotes(
  t: GeneTables,
  r: {
    anyTested: boolean;
    diplotypes: DiplotypeCandidate[];
    phenotypes: string[];
    untestedAlleles: string[];
    unread: { site: KeySite }[];
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
  if (r.anyTested && r.phenotypes.length === 1 && r.unread.length > 0) {
    notes.push(
      `Not read: ${unreadWords(r.unread.map((k) => k.site))}; whatever is there, it would not ` +
        'change this phenotype.',
    );
  }
  if (r.phenotypes.length > 1) {
    notes.push('The diplotypes consistent with these calls differ in phenotype.');
  }
  const gene = GENE_NOTES[t.gene as PgxGene];
  // the TPMT phase note only when both *3A sites are heterozygous (more than one candidate)
  if (gene && (t.gene !== 'TPMT' || r.diplotypes.some((d) => d.diplotype === '*3B/*3C'))) {
    notes.push(gene);
  }
}

/** The answer in one sentence: the phenotype and diplotype, or why it is not determined. */
function findingOf(r: GeneReport, phaseAssumed: string | null): string {
  if (!r.determinable) return `${r.gene}: ${r.reason}`;
  const names = r.diplotypes.filter((d) => !d.assumed).map((d) => d.diplotype);
  if (r.status === 'determined') {
    const score = r.diplotypes.find((d) => !d.assumed)?.activityScore;
    const extra = score ? ` (activity score ${score})` : '';
    const phase = phaseAssumed ? ` ${phaseAssumed}` : '';
    const shown =
      names.length > 2 ? `${names.slice(0, 2).join(' or ')} or others` : names.join(' or ');
    return `${r.gene} ${shown}: ${r.phenotype}${extra}.${phase}`;
  }
  const ugt = r.gene === 'UGT1A1' ? ugt1a1Likely(r) : '';
  return `${r.gene}: ${r.reason}${ugt}`;
}

/** What rs887829 (*80) suggests about UGT1A1's repeat, said as a likelihood with its test. */
function ugt1a1Likely(r: GeneReport): string {
  const site = r.sites.find((s) => s.rsid === 'rs887829');
  if (!site?.genotype) return '';
  const copies = [...site.genotype].filter((b) => b === 'T').length;
  const told = [
    ' No *80 copy: a decreased-function repeat (*28, *37) is less likely but not excluded.',
    ' One *80 copy: it usually travels with *28 or *37, so an Intermediate Metabolizer is likely.',
    ' Two *80 copies: they usually travel with *28 or *37, so a Poor Metabolizer is likely.',
  ][copies];
  return `${told} A UGT1A1 TA-repeat test settles it.`;
}

/**
 * The medicines report: one entry per gene (CYP2C19, CYP2C9 with VKORC1 and CYP4F2, SLCO1B1, ABCG2,
 * TPMT, NUDT15, DPYD, CYP3A5, UGT1A1, G6PD), then CYP2D6 and HLA as not determinable with the
 * reason. Never a dose.
 */
export function medicinesReport(calls: CallLookup, facts: GenomeFacts): GeneReport[] {
  const tables = pgxTables();
  const strandOk = strandKnown(facts.vendor, facts.build);
  const out = PGX_GENES.map((g) => geneReport(tables.get(g)!, calls, strandOk));
  const cyp2c9 = out.find((r) => r.gene === 'CYP2C9')!;
  cyp2c9.vkorc1 = warfarinSite(tables.get('VKORC1')!, 'rs9923231', calls, strandOk, vkorc1Label);
  cyp2c9.cyp4f2 = cyp4f2Site(tables.get('CYP4F2')!, calls, strandOk);
  out.push(g6pdReport(tables.get('G6PD')!, calls, facts, { drugs: DRUGS.G6PD, advice: ADVICE }));
  for (const n of NOT_DETERMINABLE) {
    out.push({
      gene: n.gene,
      status: 'not-determinable',
      determinable: false,
      reason: n.reason,
      finding: `${n.gene}: ${n.reason}`,
      sites: [],
      tested: [],
      missing: [],
      keySites: [],
      keySitesNotRead: [],
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

/** VKORC1 -1639: CPIC's label ("-1639 AG") for the pair of named alleles the bases are. */
function vkorc1Label(t: GeneTables, index: number, genotype: string): string | null {
  const names = [...genotype].map((b) => t.alleles.find((a) => a.bases[index] === b)?.name);
  if (!names[0] || !names[1]) return null;
  return t.phenotypes.get(pairKey(names[0], names[1]))?.phenotype ?? null;
}

/**
 * CYP4F2 for warfarin: the diplotypes the calls fit (PharmCAT's definitions; CPIC has no phenotype
 * table for it) and the copies of *3's variant (rs2108622), which CPIC's warfarin guideline reads.
 */
function cyp4f2Site(t: GeneTables, calls: CallLookup, strandOk: boolean): WarfarinSite {
  const sites = readSites(t, calls, strandOk, []);
  const index = t.sites.findIndex((s) => s.rsid === 'rs2108622');
  const site = sites[index];
  if (!site.genotype)
    return { rsid: 'rs2108622', call: site.call, genotype: null, phenotype: null };
  const genotypes = sites.map((s) => s.genotype ?? '');
  const typed = genotypes.flatMap((g, i) => (g ? [i] : []));
  const fit = inferPairs(t, genotypes, typed, new Set()).diplotypes;
  const names = fit.filter((d) => !d.assumed).map((d) => d.diplotype);
  const star3 = [...site.genotype].filter((b) => b !== t.sites[index].ref).length;
  const copies = ['no *3 variant', 'one copy of the *3 variant', 'two copies of the *3 variant'];
  return {
    rsid: 'rs2108622',
    call: site.call,
    genotype: site.genotype,
    phenotype: `${names.slice(0, 3).join(' or ') || 'no named pair'} (${copies[star3]})`,
  };
}
