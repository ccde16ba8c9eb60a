/**
 * The genes the pair tables alone do not answer (issue 46):
 * - DPYD, by CPIC's rule as PharmCAT applies it to unphased calls: the two lowest activity values
 *   among the variant copies found make the activity score (two different variants are presumed on
 *   different copies of the gene, and the answer says so); three or more variant copies never hide a
 *   warning. A key site not read is tried with 0, 1 and 2 copies of its variant: when that changes
 *   the phenotype, the phenotype is not determined and the site is named.
 * - G6PD (X-linked): the deficiency variants an array can carry (CPIC 2022 classes them deficient),
 *   read as hemizygous in a male file and with CPIC's female wording (one copy: "Variable"); only a
 *   deficiency found is a finding, a normal result cannot be concluded from an array.
 * - The single sites read with CYP2C9 for warfarin (VKORC1 -1639, CYP4F2*3).
 */
import type { CallLookup } from './dna.types.ts';
import type { GeneTables } from './dna.pgx.tables.ts';
import { describePair, readSites } from './dna.pgx.sites.ts';
import type {
  DiplotypeCandidate,
  GeneReport,
  GenomeFacts,
  PgxSite,
  WarfarinSite,
} from './dna.pgx.types.ts';

/**
 * A gene's inferred answer: its candidate diplotypes, notes, and the phase presumed (DPYD's rule of
 * the two lowest activity values, SLCO1B1's by its one site, the pair tables' for the others).
 */
export interface GeneInference {
  diplotypes: DiplotypeCandidate[];
  notes: string[];
  /** the phase presumption in words, when two or more different variants were found */
  phaseAssumed: string | null;
}

const DPYD_HAPB3_INTRON = 'rs75017182';
const DPYD_HAPB3_EXON = 'rs56038477';

interface VariantCopy {
  name: string;
  activity: number;
}

/** DPYD's variant copies at the read sites (HapB3 named when both of its sites carry it). */
function dpydCopies(t: GeneTables, copiesAt: number[]): VariantCopy[] {
  const out: VariantCopy[] = [];
  const exon = t.sites.findIndex((s) => s.rsid === DPYD_HAPB3_EXON);
  copiesAt.forEach((k, s) => {
    if (k === 0 || t.sites[s].rsid === DPYD_HAPB3_EXON) return;
    const single = t.alleles.find((a) => a.defining.length === 1 && a.defining[0] === s);
    if (!single) return;
    const hapB3 =
      t.sites[s].rsid === DPYD_HAPB3_INTRON
        ? t.alleles.find((a) => a.defining.length === 2 && a.defining.includes(s))
        : undefined;
    for (let c = 0; c < k; c++) {
      const name = hapB3 && c < (copiesAt[exon] ?? 0) ? hapB3.name : single.name;
      out.push({ name, activity: t.activities.get(name) ?? 1 });
    }
  });
  return out;
}

/** The diplotype of the two lowest activity values among the copies (Reference fills in). */
function lowestTwo(t: GeneTables, copies: VariantCopy[]): DiplotypeCandidate {
  const reference = t.alleles[t.defaultIndex].name;
  const sorted = [...copies].sort(
    (a, b) => a.activity - b.activity || a.name.localeCompare(b.name),
  );
  const [a, b] = [sorted[0]?.name ?? reference, sorted[1]?.name ?? reference];
  return b === reference ? describePair(t, reference, a) : describePair(t, a, b);
}

/** DPYD by CPIC's rule (see the file's comment); `unknownKeys` are key sites not read. */
export function dpydCall(
  t: GeneTables,
  genotypes: string[],
  unknownKeys: Set<number>,
): GeneInference {
  const copiesAt = genotypes.map((g, s) =>
    g ? [...g].filter((b) => b !== t.sites[s].ref).length : 0,
  );
  const notes: string[] = [];
  const unknown = new Set(unknownKeys);
  // HapB3's intronic site not read but its exonic c.1236G>A read: the exonic site stands for it,
  // as PharmCAT reads it (the two travel together on HapB3)
  const intron = t.sites.findIndex((s) => s.rsid === DPYD_HAPB3_INTRON);
  const exon = t.sites.findIndex((s) => s.rsid === DPYD_HAPB3_EXON);
  if (unknown.has(intron) && genotypes[exon]) {
    unknown.delete(intron);
    copiesAt[intron] = copiesAt[exon];
    notes.push(
      `${DPYD_HAPB3_INTRON} (HapB3) was not read; HapB3 is read from ${DPYD_HAPB3_EXON} ` +
        '(c.1236G>A), which travels with it.',
    );
  }
  const copies = dpydCopies(t, copiesAt);
  const found = lowestTwo(t, copies);
  const byName = new Map([[found.diplotype, found]]);
  // every completion of the key sites not read: 0, 1 or 2 copies of each one's variant
  let completions: number[][] = [copiesAt];
  for (const s of unknown) {
    completions = completions.flatMap((c) =>
      [0, 1, 2].map((k) => c.map((x, i) => (i === s ? k : x))),
    );
  }
  for (const c of completions) {
    const d = lowestTwo(t, dpydCopies(t, c));
    if (!byName.has(d.diplotype)) byName.set(d.diplotype, d);
  }
  const distinctSites = new Set(copies.map((c) => c.name)).size;
  const phaseAssumed =
    distinctSites >= 2
      ? `The calls are unphased: ${copies.length} variant copies were found ` +
        `(${copies.map((c) => c.name).join(', ')}); CPIC's DPYD rule takes the two lowest ` +
        'activity values, presuming different variants sit on different copies of the gene.'
      : null;
  if (phaseAssumed) notes.push(phaseAssumed);
  return { diplotypes: [...byName.values()], notes, phaseAssumed };
}

/**
 * SLCO1B1 when no pair of named alleles explains the calls: CPIC's guideline reads rs4149056
 * (c.521T>C, the variant of *5 and *15) alone then, as PharmCAT does: *1/*1, *1/*5 or *5/*5.
 */
export function slco1b1BySite(t: GeneTables, genotypes: string[]): GeneInference | null {
  const index = t.sites.findIndex((s) => s.rsid === 'rs4149056');
  const g = genotypes[index];
  if (!g) return null;
  const copies = [...g].filter((b) => b !== t.sites[index].ref).length;
  const pair = [
    describePair(t, '*1', '*1'),
    describePair(t, '*1', '*5'),
    describePair(t, '*5', '*5'),
  ];
  return {
    diplotypes: [pair[copies]],
    notes: [
      'No pair of named SLCO1B1 alleles explains all the calls, so rs4149056 (c.521T>C) is read ' +
        "alone, as CPIC's guideline allows.",
    ],
    phaseAssumed: null,
  };
}

/** G6PD deficiency variants arrays carry; CPIC 2022 classes each as deficient (WHO II/III). */
const G6PD_DEFICIENCY_SITES = [
  'rs1050828', // A- (202A; with 376G at rs1050829), Asahi without it
  'rs5030868', // Mediterranean
  'rs72554665', // Canton (Cosenza with the other base)
  'rs72554664', // Kaiping
  'rs137852314', // Mahidol
  'rs5030869', // Chatham
];

interface G6pdSite {
  site: PgxSite;
  /** the bases read (one on a hemizygous X), forward strand */
  bases: string[];
  variantCopies: number;
  /** the named allele of the variant seen */
  allele: string | null;
}

/** The named allele of a variant base at site `index` (A- needs rs1050829's 376G too). */
function g6pdAllele(
  t: GeneTables,
  index: number,
  base: string,
  others: Map<string, number>,
): string {
  const named = t.alleles.filter(
    (a) => a.defining.includes(index) && a.bases[index].includes(base),
  );
  const fits = named.filter((a) =>
    a.defining.every((d) => d === index || (others.get(t.sites[d].rsid ?? '') ?? 0) > 0),
  );
  const best = [...fits].sort((a, b) => b.defining.length - a.defining.length)[0] ?? named[0];
  return best?.name ?? `${t.sites[index].rsid} ${base}`;
}

/** The G6PD answer (see the file's comment). */
export function g6pdReport(
  t: GeneTables,
  calls: CallLookup,
  facts: GenomeFacts,
  text: { drugs: string[]; advice: string },
): GeneReport {
  const notes: string[] = [];
  const sites = readSites(t, calls, true, [], true);
  const variantCount = new Map<string, number>();
  const read: G6pdSite[] = [];
  for (const rsid of G6PD_DEFICIENCY_SITES) {
    const index = t.sites.findIndex((s) => s.rsid === rsid);
    const site = sites[index];
    const bases = site?.genotype ? [...site.genotype] : null;
    if (!bases) continue;
    const ref = t.sites[index].ref;
    const variantCopies = bases.filter((b) => b !== ref).length;
    variantCount.set(rsid, variantCopies);
    read.push({ site, bases, variantCopies, allele: null });
  }
  // rs1050829 (376G) names A- with rs1050828; it is not a deficiency variant on its own
  const a376 = sites.find((s) => s.rsid === 'rs1050829');
  if (a376?.call) variantCount.set('rs1050829', [...a376.call].filter((b) => b === 'C').length);
  for (const r of read) {
    const index = t.sites.findIndex((s) => s.rsid === r.site.rsid);
    const variant = r.bases.find((b) => b !== t.sites[index].ref);
    if (variant) r.allele = g6pdAllele(t, index, variant, variantCount);
  }
  const label = (s: PgxSite): string => s.rsid ?? `${s.chromosome}:${s.position}`;
  const answer = g6pdAnswer(read, facts, notes);
  return {
    gene: 'G6PD',
    status: answer.phenotype ? 'determined' : 'not-determined',
    determinable: read.length > 0,
    reason: answer.reason,
    finding: answer.finding,
    sites: sites.filter((s) => G6PD_DEFICIENCY_SITES.includes(s.rsid ?? '')),
    tested: read.map((r) => label(r.site)),
    missing: G6PD_DEFICIENCY_SITES.filter((r) => !read.some((x) => x.site.rsid === r)),
    keySites: [],
    keySitesNotRead: [],
    diplotypes: answer.diplotypes,
    phenotypes: answer.phenotypes,
    phenotype: answer.phenotype,
    untestedAlleles: [],
    notes,
    drugs: text.drugs,
    advice: text.advice,
  };
}

interface G6pdAnswer {
  phenotype: string | null;
  phenotypes: string[];
  diplotypes: DiplotypeCandidate[];
  reason: string | null;
  finding: string;
}

const G6PD_REFERENCE = 'B (reference)';
const G6PD_TEST = 'a G6PD enzyme activity test answers it';
const NORMAL_NOT_CONCLUDED =
  'A normal G6PD result cannot be concluded from an array: deficiency comes from many variants, ' +
  'most of them not on arrays, and in women also from which X is active; ' +
  `${G6PD_TEST}.`;

const ONE_X = 'none (one X)';
const g6pdDiplotype = (
  diplotype: string,
  alleles: [string, string],
  phenotype: string | null,
): DiplotypeCandidate => ({
  diplotype,
  alleles,
  functions: [
    alleles[0] === G6PD_REFERENCE ? 'Normal' : 'Deficient',
    alleles[1] === ONE_X ? null : alleles[1] === G6PD_REFERENCE ? 'Normal' : 'Deficient',
  ],
  phenotype,
  activityScore: null,
});

/** CPIC's G6PD phenotype from the deficiency variants read, by the file's sex. */
function g6pdAnswer(read: G6pdSite[], facts: GenomeFacts, notes: string[]): G6pdAnswer {
  const none = (reason: string): G6pdAnswer => ({
    phenotype: null,
    phenotypes: [],
    diplotypes: [],
    reason,
    finding: `G6PD: ${reason}`,
  });
  if (read.length === 0) {
    return none(
      `None of the G6PD deficiency variants arrays carry was read. ${NORMAL_NOT_CONCLUDED}`,
    );
  }
  const carriers = read.filter((r) => r.variantCopies > 0);
  if (carriers.length === 0) {
    const answer = none(
      `No deficiency variant was found at the ${read.length} sites read ` +
        `(${read.map((r) => r.site.rsid).join(', ')}). ${NORMAL_NOT_CONCLUDED}`,
    );
    // the reference at the sites read, which is not a normal G6PD (so no phenotype)
    const oneX = read.some((r) => r.bases.length === 1) || facts.sex === 'male';
    const ref = oneX
      ? g6pdDiplotype(`${G6PD_REFERENCE} (hemizygous)`, [G6PD_REFERENCE, ONE_X], null)
      : g6pdDiplotype(
          `${G6PD_REFERENCE}/${G6PD_REFERENCE}`,
          [G6PD_REFERENCE, G6PD_REFERENCE],
          null,
        );
    return { ...answer, diplotypes: [ref] };
  }
  const names = carriers.map((c) => c.allele ?? 'a deficiency variant').join(' and ');
  const haploid = carriers.some((c) => c.bases.length === 1);
  const het = carriers.filter((c) => c.bases.length === 2 && c.variantCopies === 1);
  if (facts.sex === 'male' && het.length > 0) {
    notes.push('A heterozygous call on the X chromosome of a male file does not fit; not used.');
    return none(
      `The file reads as male but ${het.map((c) => c.site.rsid).join(', ')} is heterozygous, ` +
        `which one X cannot be; the call may be an array error. ${G6PD_TEST}.`,
    );
  }
  const say = (phenotype: string, how: string): string =>
    `G6PD: ${names} ${how}: CPIC phenotype ${phenotype}, as called from the array; ` +
    `${G6PD_TEST}, before any of the listed medicines.`;
  const allele = carriers[0].allele ?? 'variant';
  if (haploid || facts.sex === 'male') {
    const d = g6pdDiplotype(`${allele} (hemizygous)`, [allele, ONE_X], 'Deficient');
    return answerOf('Deficient', [d], say('Deficient', 'on the only X (hemizygous)'));
  }
  if (het.length === 0) {
    const d = g6pdDiplotype(`${allele}/${allele}`, [allele, allele], 'Deficient');
    return answerOf('Deficient', [d], say('Deficient', 'on both X chromosomes'));
  }
  if (het.length === 1 && carriers.length === 1) {
    const d = g6pdDiplotype(`${G6PD_REFERENCE}/${allele}`, [G6PD_REFERENCE, allele], 'Variable');
    const how = 'on one X (heterozygous; activity can range from normal to deficient)';
    return answerOf('Variable', [d], say('Variable', how));
  }
  const second = carriers[1].allele ?? 'variant';
  const both = g6pdDiplotype(`${allele}/${second}`, [allele, second], 'Deficient');
  const cis = `${allele}+${second}`;
  const one = g6pdDiplotype(`${G6PD_REFERENCE}/${cis}`, [G6PD_REFERENCE, cis], 'Variable');
  return {
    phenotype: null,
    phenotypes: ['Deficient', 'Variable'],
    diplotypes: [both, one],
    reason:
      `Not determined: ${names} are each heterozygous; on different X chromosomes this is ` +
      `Deficient, on the same one Variable, and unphased calls cannot tell; ${G6PD_TEST}.`,
    finding:
      `G6PD: ${names} found, each on one copy: CPIC phenotype Deficient or Variable ` +
      `(phase unknown); ${G6PD_TEST}.`,
  };
}

const answerOf = (
  phenotype: string,
  diplotypes: DiplotypeCandidate[],
  finding: string,
): G6pdAnswer => ({ phenotype, phenotypes: [phenotype], diplotypes, reason: null, finding });

/** One warfarin site (VKORC1 -1639, CYP4F2*3) read with CYP2C9, labelled by `label`. */
export function warfarinSite(
  t: GeneTables,
  rsid: string,
  calls: CallLookup,
  strandOk: boolean,
  label: (t: GeneTables, index: number, genotype: string) => string | null,
): WarfarinSite {
  const index = t.sites.findIndex((s) => s.rsid === rsid);
  const site = readSites(t, calls, strandOk, [])[index];
  return {
    rsid,
    call: site.call,
    genotype: site.genotype,
    phenotype: site.genotype ? label(t, index, site.genotype) : null,
  };
}
