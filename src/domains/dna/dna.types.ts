/**
 * The shapes the DNA domain's parts share (issue 34): a parsed genome (markers with their calls),
 * what a file was found to be, and the calls the pharmacogenomics and lookups read. Parsing
 * (dna.parse.ts), the compact encrypted store (dna.store.ts), medicines (dna.pgx.ts), HLA tags
 * (dna.hla.ts) and the curated knowledge (dna.knowledge.ts) meet only through these types.
 */

/** The vendors and formats read. */
export type GenomeVendor = '23andme' | 'ancestrydna' | 'myheritage' | 'ftdna' | 'livingdna' | 'vcf';
/** The reference build of the positions. */
export type GenomeBuild = 'GRCh37' | 'GRCh38';
/** Chromosomes as stored: 1..22, X, Y, MT (AncestryDNA's 23/24/25/26 map to X, Y, X (PAR), MT). */
export type Chromosome = string;

/**
 * One marker's call, forward strand of the file's build: two alleles ("AG"), one on haploid
 * X/Y/MT ("A"), "--" for no call; "D"/"I" for 23andMe's deletions and insertions.
 */
export type Call = string;

/** What a file was found to be, and its figures. */
export interface GenomeSummary {
  vendor: GenomeVendor;
  /** the vendor's format version where the file says it (23andMe v3..v5), else null */
  version: string | null;
  build: GenomeBuild;
  /** markers read (rows with a position), called or not */
  markers: number;
  /** markers with a call */
  called: number;
  /** called / markers, 0..1 */
  callRate: number;
  /**
   * sex inferred from X heterozygosity (and Y calls): female, male, or null with the reason in
   * sexNote when it cannot be told (too few X markers, an ambiguous rate)
   */
  sex: 'female' | 'male' | null;
  sexNote: string;
  /** heterozygous share of called non-PAR X markers, or null */
  xHeterozygosity: number | null;
}

/** Reads calls by rsID ("rs4244285"); null when the file has no such marker or no call. */
export interface CallLookup {
  /** the call, or null (absent from the file, or a no-call) */
  call(rsid: string): Call | null;
  /** whether the file holds the marker at all (called or not) */
  has(rsid: string): boolean;
  build: GenomeBuild;
}
