/**
 * The medicines report as an assistant first reads it (issue 46): one short line per gene (its
 * status, phenotype, the key sites not read, the drugs), under 10,000 characters for the whole
 * report, and the gene and drug filters that narrow both the summary and the full answers.
 */
import { validationError } from '../../base/errors.ts';
import type { GeneReport, GeneStatus } from './dna.pgx.types.ts';

/** One gene in the summary. */
export interface GeneSummary {
  gene: string;
  status: GeneStatus;
  phenotype: string | null;
  /** the diplotype when exactly one sets the phenotype, else null */
  diplotype: string | null;
  /** the answer in one sentence */
  finding: string;
  keySitesNotRead: string[];
  drugs: string[];
}

/** The filters a read takes: a gene ("CYP2C19"; VKORC1 and CYP4F2 find CYP2C9) and a drug. */
export interface GeneFilter {
  gene?: string | null;
  drug?: string | null;
}

/** Genes answered inside another gene's entry. */
const READ_WITH: Record<string, string> = { VKORC1: 'CYP2C9', CYP4F2: 'CYP2C9' };

/** The genes passing the filters; a gene or drug the report does not name is a 422 that lists them. */
export function filterGenes(genes: GeneReport[], filter: GeneFilter): GeneReport[] {
  let out = genes;
  const gene = filter.gene?.trim().toUpperCase();
  if (gene) {
    const name = READ_WITH[gene] ?? gene;
    out = out.filter((g) => g.gene === name);
    if (out.length === 0) {
      const known = [...genes.map((g) => g.gene), ...Object.keys(READ_WITH)].join(', ');
      const msg = `the medicines report has no gene "${filter.gene}": use one of ${known}, or omit gene`;
      throw validationError([{ loc: ['gene'], msg, type: 'value_error' }]);
    }
  }
  const drug = filter.drug?.trim().toLowerCase();
  if (drug) {
    out = out.filter((g) => g.drugs.includes(drug));
    if (out.length === 0) {
      const known = [...new Set(genes.flatMap((g) => g.drugs))].sort().join(', ');
      const msg =
        `no gene in this report has a CPIC guideline for "${filter.drug}" (with the gene filter ` +
        `applied); drugs named: ${known}`;
      throw validationError([{ loc: ['drug'], msg, type: 'value_error' }]);
    }
  }
  return out;
}

/** The candidates that set the phenotype (not those assumed absent). */
const deciding = (g: GeneReport): GeneReport['diplotypes'] =>
  g.diplotypes.filter((d) => !d.assumed);

/** One line per gene: what an assistant needs before asking for a gene's sites and candidates. */
export const summarise = (genes: GeneReport[]): GeneSummary[] =>
  genes.map((g) => ({
    gene: g.gene,
    status: g.status,
    phenotype: g.phenotype,
    diplotype: deciding(g).length === 1 ? deciding(g)[0].diplotype : null,
    finding: g.finding,
    keySitesNotRead: g.keySitesNotRead,
    drugs: g.drugs,
  }));
