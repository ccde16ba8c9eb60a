/**
 * Reading a person's calls against a gene's definition sites (issues 34 and 46): each call as two
 * forward-strand bases (the complement read where it is unambiguous), or why it was not read; and a
 * pair of named alleles described with CPIC's functions, phenotype and activity score.
 */
import type { Call, CallLookup } from './dna.types.ts';
import { COMPLEMENT, pairKey, type GeneTables, type SiteDef } from './dna.pgx.tables.ts';
import type { DiplotypeCandidate, PgxSite, SiteStatus } from './dna.pgx.types.ts';

/**
 * The call as two forward-strand bases (or one, on a hemizygous X when `haploid`), and whether it
 * was read as the complement.
 */
export function readGenotype(
  site: SiteDef,
  call: Call | null,
  strandOk: boolean,
  haploid = false,
): { genotype: string | null; status: SiteStatus; flipped: boolean } {
  if (call === null) return { genotype: null, status: 'no-call', flipped: false };
  const bases = call.toUpperCase();
  const sizeOk = bases.length === 2 || (haploid && bases.length === 1);
  if (!sizeOk || ![...bases].every((b) => b in COMPLEMENT)) {
    return { genotype: null, status: 'unexpected', flipped: false };
  }
  if (site.strandAmbiguous && !strandOk) {
    return { genotype: null, status: 'strand-unknown', flipped: false };
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

/**
 * Each definition site as read from the file, with notes on strand and unexpected calls; a one-base
 * call is read only when `haploid` (G6PD's X sites).
 */
export function readSites(
  t: GeneTables,
  calls: CallLookup,
  strandOk: boolean,
  notes: string[],
  haploid = false,
): PgxSite[] {
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
    const g = readGenotype(s, call, strandOk, haploid);
    // NOTE: a note names the site, never the call's letters: over OAuth the notes are answered
    // while the calls are not (dna.access.ts), and a note must not carry a genotype around that.
    if (g.flipped) notes.push(`${s.rsid}: the call was read on the reverse strand.`);
    if (g.status === 'unexpected') {
      notes.push(`${s.rsid}: the call does not fit the definition's bases; not used.`);
    }
    if (g.status === 'strand-unknown') {
      notes.push(
        `${s.rsid} is an A/T or C/G site and this file's strand is not known for its vendor ` +
          'and build, so its call is not used.',
      );
    }
    return { ...base, call, genotype: g.genotype, status: g.status };
  });
}

/** One diplotype of two named alleles, with CPIC's function, phenotype and activity score. */
export function describePair(t: GeneTables, a: string, b: string): DiplotypeCandidate {
  const hit = t.phenotypes.get(pairKey(a, b));
  return {
    diplotype: `${a}/${b}`,
    alleles: [a, b],
    functions: [t.functions.get(a) ?? null, t.functions.get(b) ?? null],
    phenotype: hit?.phenotype ?? null,
    activityScore: hit?.activityScore ?? null,
  };
}
