/**
 * Which strand a genome file's bases are on (issue 46): the one rule the DNA readers share before
 * they read an A/T or C/G site, whose two strands carry the same pair of letters, so the letters
 * alone cannot tell a forward-strand call from its complement.
 *
 * Known: 23andMe and AncestryDNA files on GRCh37 (both report forward, plus-strand bases on that
 * build), and VCF on either build (REF and ALT are written on the plus strand of the file's own
 * reference). Unknown: MyHeritage, FamilyTreeDNA and LivingDNA, whose exports do not document
 * their strand reliably (Illumina-array exports have been seen both forward and on the TOP or
 * design strand), and any array file on another build than its vendor's own (a converted file).
 *
 * It must stay pure (no I/O, no state) and must never answer "known" for a combination not listed
 * here: an unknown strand costs a reading, a wrong one turns a call into its complement.
 */
import type { GenomeBuild, GenomeVendor } from './dna.types.ts';

/** The vendors whose array files report forward-strand bases, with the build they report on. */
const FORWARD_STRAND_ARRAYS: Partial<Record<GenomeVendor, GenomeBuild>> = {
  '23andme': 'GRCh37',
  ancestrydna: 'GRCh37',
};

/** How each vendor is named in a sentence a person reads. */
export const VENDOR_NAMES: Record<GenomeVendor, string> = {
  '23andme': '23andMe',
  ancestrydna: 'AncestryDNA',
  myheritage: 'MyHeritage',
  ftdna: 'FamilyTreeDNA',
  livingdna: 'LivingDNA',
  vcf: 'VCF',
};

/**
 * Whether the strand of a file's calls is known for its vendor and build, so that an A/T or C/G
 * call can be read as forward-strand letters: true for 23andMe and AncestryDNA on GRCh37 and for
 * VCF on any build; false for MyHeritage, FamilyTreeDNA and LivingDNA, and for 23andMe or
 * AncestryDNA files on another build. When false, a reader gives no finding at such a site.
 */
export function strandKnown(vendor: GenomeVendor, build: GenomeBuild): boolean {
  if (vendor === 'vcf') return true;
  return FORWARD_STRAND_ARRAYS[vendor] === build;
}
