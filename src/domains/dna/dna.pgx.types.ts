/**
 * The shapes of the medicines report (issues 34 and 46): one answer per gene, its sites as read,
 * its candidate diplotypes. Shared by dna.pgx.ts (the report), dna.pgx.sites.ts (reading calls
 * against a definition), dna.pgx.rules.ts (DPYD, G6PD, the warfarin sites) and the schema.
 */
import type { Call, GenomeSummary } from './dna.types.ts';

/** What the report needs to know about the file besides its calls. */
export type GenomeFacts = Pick<GenomeSummary, 'vendor' | 'build' | 'sex'>;

/** How one definition site fared in the person's file. */
export type SiteStatus =
  | 'tested'
  | 'no-call'
  | 'absent'
  | 'not-testable'
  | 'unexpected'
  | 'strand-unknown';

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
  /** an A/T or C/G site: the strand of the call cannot be checked from the bases */
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
  /**
   * true: one of its alleles needs a variant at a site not read (not a key site): listed because
   * the sites read fit it (as PharmCAT lists it), but assumed absent, so it does not set the phenotype
   */
  assumed?: boolean;
}

/** A single site read for warfarin with CYP2C9: VKORC1 -1639 (rs9923231), CYP4F2*3 (rs2108622). */
export interface WarfarinSite {
  rsid: string;
  call: Call | null;
  /** the call as forward-strand bases, or null */
  genotype: string | null;
  /** CPIC's label ("-1639 AG"; "*1/*3"), or null when not read */
  phenotype: string | null;
}
/** The VKORC1 -1639 site reported with CYP2C9 (warfarin). */
export type Vkorc1Report = WarfarinSite;

/** A key site of a gene (one whose absence changes the answer for many people) and its state. */
export interface KeySite {
  rsid: string;
  /** the named allele(s) it defines ("*2") */
  alleles: string;
  status: SiteStatus;
}

/** Whether a gene's phenotype was determined. */
export type GeneStatus = 'determined' | 'not-determined' | 'not-determinable';

/** One gene's medicines answer. */
export interface GeneReport {
  gene: string;
  /** determined, not-determined (the reason in `reason`) or not-determinable (CYP2D6, HLA) */
  status: GeneStatus;
  /** false for genes an array cannot type (CYP2D6, HLA) or with no site tested; see `reason` */
  determinable: boolean;
  /** why the phenotype is not determined, naming the sites; or null */
  reason: string | null;
  /** the answer in one plain sentence (what the summary shows) */
  finding: string;
  sites: PgxSite[];
  /** rsIDs of sites tested */
  tested: string[];
  /** rsIDs (or chr:position) of sites not tested */
  missing: string[];
  /** the gene's key sites and how each fared */
  keySites: KeySite[];
  /** rsIDs of key sites not read: each can change the phenotype */
  keySitesNotRead: string[];
  /** diplotypes consistent with the tested sites, most specific first */
  diplotypes: DiplotypeCandidate[];
  /** the distinct phenotypes of the candidates (more than one: they cannot be told apart) */
  phenotypes: string[];
  /** the phenotype when determined, else null */
  phenotype: string | null;
  /** named alleles that need a variant at a site not tested (assumed absent) */
  untestedAlleles: string[];
  notes: string[];
  /** drugs with a CPIC guideline for this gene */
  drugs: string[];
  advice: string;
  /** CYP2C9 only: the VKORC1 site for warfarin */
  vkorc1?: Vkorc1Report;
  /** CYP2C9 only: the CYP4F2*3 site for warfarin */
  cyp4f2?: WarfarinSite;
}
