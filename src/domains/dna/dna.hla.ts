/**
 * HLA tag-SNP likelihoods (issue 34): for five HLA alleles or haplotypes that matter for medicines
 * or coeliac disease, whether a person is likely to carry one, read from a single SNP known to
 * travel with it. Each tag was validated in one ancestry; elsewhere the link can be weak or absent.
 *
 * Never an HLA type: every answer is labelled 'not an HLA type' and says a carrier status needs
 * sequence-based HLA typing before a medicine decision. Risk alleles are given on the forward
 * strand (GRCh37/GRCh38, as vendors report); a call at an A/T or C/G tag, or one whose bases do
 * not fit the tag, answers 'unknown' because its strand cannot be checked.
 */
import type { Call, CallLookup } from './dna.types.ts';

/** How likely the person carries the tagged HLA allele. */
export type HlaLikelihood = 'carrier likely' | 'carrier unlikely' | 'unknown';

/** One tag's answer. */
export interface HlaTagReport {
  /** the HLA allele or haplotype tagged ("HLA-B*57:01") */
  hla: string;
  /** why it matters (the medicine or condition) */
  relevance: string;
  rsid: string;
  /** the tag's two forward-strand bases */
  alleles: [string, string];
  /** the forward-strand base that travels with the HLA allele */
  riskAllele: string;
  /** primary study: authors, year, journal */
  source: string;
  /** the ancestry the tag was validated in */
  validatedIn: string;
  /** the person's call, or null (absent or no call) */
  call: Call | null;
  likelihood: HlaLikelihood;
  /** why the likelihood is what it is */
  explanation: string;
  caveat: string;
  label: 'not an HLA type';
}

interface HlaTag {
  hla: string;
  relevance: string;
  rsid: string;
  alleles: [string, string];
  riskAllele: string;
  source: string;
  validatedIn: string;
}

// Forward-strand bases of each tag with the base that travels with the HLA allele, from the
// primary papers (see `source`). rs1061235 is an A/T SNP: its strand cannot be checked from a
// call, so it always answers 'unknown' (the call is still shown).
const TAGS: HlaTag[] = [
  {
    hla: 'HLA-B*57:01',
    relevance: 'abacavir hypersensitivity',
    rsid: 'rs2395029',
    alleles: ['T', 'G'],
    riskAllele: 'G',
    source:
      'HCP5 rs2395029: de Bakker et al. 2006, Nature Genetics; Colombo et al. 2008, Journal of ' +
      'Infectious Diseases',
    validatedIn: 'European ancestry',
  },
  {
    hla: 'HLA-A*31:01',
    relevance: 'carbamazepine hypersensitivity',
    rsid: 'rs1061235',
    alleles: ['A', 'T'],
    riskAllele: 'A',
    source: 'McCormack et al. 2011, New England Journal of Medicine',
    validatedIn: 'European ancestry',
  },
  {
    hla: 'HLA-B*58:01',
    relevance: 'allopurinol severe skin reactions',
    rsid: 'rs9263726',
    alleles: ['G', 'A'],
    riskAllele: 'A',
    source: 'PSORS1C1 rs9263726: Tohkin et al. 2013, The Pharmacogenomics Journal',
    validatedIn: 'Japanese ancestry',
  },
  {
    hla: 'HLA-DQ2.5 (DQA1*05:01-DQB1*02:01)',
    relevance: 'coeliac disease genetic risk',
    rsid: 'rs2187668',
    alleles: ['C', 'T'],
    riskAllele: 'T',
    source: 'Monsuur et al. 2008, PLoS ONE',
    validatedIn: 'European ancestry',
  },
  {
    hla: 'HLA-DQ8 (DQA1*03-DQB1*03:02)',
    relevance: 'coeliac disease genetic risk',
    rsid: 'rs7454108',
    alleles: ['T', 'C'],
    riskAllele: 'C',
    source: 'Monsuur et al. 2008, PLoS ONE',
    validatedIn: 'European ancestry',
  },
];

const CAVEAT =
  'A tag SNP gives a likelihood, not an HLA type: it can miss carriers or flag non-carriers, ' +
  'most of all outside the ancestry it was validated in. A medicine decision needs HLA typing ' +
  'by a laboratory; talk to your prescriber.';

const COMPLEMENT: Record<string, string> = { A: 'T', T: 'A', C: 'G', G: 'C' };

/** The tag rsIDs read (for tests and the knowledge index). */
export const HLA_TAG_RSIDS: string[] = TAGS.map((t) => t.rsid);

function judge(tag: HlaTag, call: Call | null): { likelihood: HlaLikelihood; why: string } {
  if (call === null) return { likelihood: 'unknown', why: 'The file has no call for this tag.' };
  const [a, b] = tag.alleles;
  if (COMPLEMENT[a] === b) {
    return {
      likelihood: 'unknown',
      why: `An ${a}/${b} SNP reads the same on both strands, so the risk allele cannot be checked.`,
    };
  }
  const bases = call.toUpperCase();
  if (bases.length !== 2 || ![...bases].every((x) => x === a || x === b)) {
    return {
      likelihood: 'unknown',
      why: `The call ${call} does not fit this tag's bases (${a}/${b}).`,
    };
  }
  const risk = [...bases].filter((x) => x === tag.riskAllele).length;
  return risk > 0
    ? {
        likelihood: 'carrier likely',
        why: `${risk} cop${risk === 1 ? 'y' : 'ies'} of the tag allele ${tag.riskAllele}.`,
      }
    : { likelihood: 'carrier unlikely', why: `No copy of the tag allele ${tag.riskAllele}.` };
}

/** The five HLA tag-SNP likelihoods, each labelled 'not an HLA type'. */
export function hlaReport(calls: CallLookup): HlaTagReport[] {
  return TAGS.map((tag) => {
    const call = calls.call(tag.rsid);
    const { likelihood, why } = judge(tag, call);
    return {
      ...tag,
      call,
      likelihood,
      explanation: `${why} Validated in ${tag.validatedIn}.`,
      caveat: CAVEAT,
      label: 'not an HLA type' as const,
    };
  });
}
