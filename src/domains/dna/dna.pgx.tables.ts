/**
 * The CPIC tables behind the medicines report (issue 34, extended in issue 46): PharmCAT's
 * unmodified allele definitions and phenotype tables (data/pharmcat/, see its NOTICE), parsed once
 * per process on first use into matching structures: per gene its sites (which an array can read:
 * single-base sites with an rsID), its named alleles as the bases they allow per site, each
 * allele's function and activity value, and the diplotype-to-phenotype table.
 */
import { readFileSync } from 'node:fs';
import { fromRoot } from '../../base/paths.ts';

/** The genes read with the diplotype tables, in report order (VKORC1 and CYP4F2 join CYP2C9). */
export const PGX_GENES = [
  'CYP2C19',
  'CYP2C9',
  'SLCO1B1',
  'ABCG2',
  'TPMT',
  'NUDT15',
  'DPYD',
  'CYP3A5',
  'UGT1A1',
] as const;
/** A gene read from the shipped tables. */
export type PgxGene = (typeof PGX_GENES)[number];

/** Genes whose definitions are shipped without a diplotype table of their own. */
const DEFINITION_ONLY = ['CYP4F2', 'G6PD'] as const;

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
/** The complementary base. */
export const COMPLEMENT: Record<string, string> = { A: 'T', T: 'A', C: 'G', G: 'C' };

interface TranslationJson {
  gene: string;
  chromosome: string;
  variants: { position: number; rsid: string | null; ref: string; alts: string[] }[];
  namedAlleles: { name: string; alleles: (string | null)[]; reference: boolean }[];
  /** sub-allele definitions to the name CPIC's phenotype table uses ("*45.001" -> "*45") */
  suballelesMap?: Record<string, string>;
}
interface PhenotypeJson {
  namedAlleles: { name: string; functionValue: string | null; activityValue?: string | null }[];
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
  /** sites where its bases differ from the default allele's at all (an IUPAC code included) */
  differing: number[];
  /** number of sites where it differs from the default (specificity, for ordering) */
  score: number;
}
/** One gene's parsed tables. */
export interface GeneTables {
  gene: string;
  sites: SiteDef[];
  alleles: AlleleDef[];
  defaultIndex: number;
  /** CPIC's reference allele (*38 for CYP2C19; the default where they are the same) */
  referenceIndex: number;
  functions: Map<string, string | null>;
  /** CPIC activity value per allele ("0.5"), where the gene uses them */
  activities: Map<string, number | null>;
  phenotypes: Map<string, { phenotype: string | null; activityScore: string | null }>;
}

const readJson = <T>(...parts: string[]): T =>
  JSON.parse(readFileSync(fromRoot('data', 'pharmcat', ...parts), 'utf8')) as T;

/** The key of an unordered pair of allele names. */
export const pairKey = (a: string, b: string): string =>
  a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`;

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
  const p: PhenotypeJson = (DEFINITION_ONLY as readonly string[]).includes(gene)
    ? { namedAlleles: [], diplotypes: [] }
    : readJson<PhenotypeJson>('phenotype', `${gene}.json`);
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
    const differing: number[] = [];
    a.bases.forEach((b, i) => {
      if (b !== base[i]) differing.push(i);
      if (needsVariant(b, base[i])) defining.push(i);
    });
    return { ...a, defining, differing, score: differing.length };
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
  const activities = new Map(
    p.namedAlleles.map((a) => [a.name, a.activityValue ? Number(a.activityValue) : null]),
  );
  const referenceIndex = Math.max(
    0,
    t.namedAlleles.findIndex((a) => a.reference),
  );
  return { gene, sites, alleles, defaultIndex, referenceIndex, functions, activities, phenotypes };
}

let cache: Map<string, GeneTables> | null = null;

/** The parsed tables of every shipped gene, built on first use. */
export function pgxTables(): Map<string, GeneTables> {
  cache ??= new Map([...PGX_GENES, 'VKORC1', ...DEFINITION_ONLY].map((g) => [g, buildGene(g)]));
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
