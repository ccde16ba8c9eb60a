/**
 * The worker-thread side of a genome upload (issue 45): the file's bytes, moved here from the
 * request's thread in parts, are parsed (dna.parse.ts: gzip and zip inflated, lines read, markers
 * kept once each), encoded (sorted and gzipped) and sealed with the genome key (dna.store.ts), and
 * the summary and sealed bytes go back for dna.genome.ts to store. Loaded by the file-job pool
 * (src/platform/file-workers.ts), which bounds its time and heap; the parser bounds the bytes the
 * heap limit cannot see (the inflation ratio, the decompressed text, the rows).
 *
 * It must never run on the thread that answers requests, never touch the database, and never
 * answer a genotype in the clear: only the summary and the sealed bytes leave the thread.
 */
import { Readable } from 'node:stream';
import { parseGenome } from './dna.parse.ts';
import type { ParseGenomeOptions } from './dna.parse.ts';
import { encodeGenome, encryptGenome } from './dna.store.ts';
import type { GenomeSummary } from './dna.types.ts';

/** What the job is given. */
export interface ReadGenomeInput {
  /** the file as uploaded, in parts (their buffers moved here, unusable where they came from) */
  parts: Uint8Array[];
  /** the 32-byte genome key (genomeKey(config)), in a buffer of its own */
  key: Uint8Array;
  /** the parse's limits; GENOME_LIMITS by default */
  limits?: ParseGenomeOptions;
}

/** What the job answers: the file's summary and the sealed genome, never a genotype. */
export interface ReadGenomeOutput {
  summary: GenomeSummary;
  /** the encoded genome sealed with the key (dna.store.ts layout) */
  sealed: Uint8Array;
  /** rows skipped as unreadable */
  malformed: number;
  /** rows not kept: unplaced chromosomes, position 0 */
  skipped: number;
  /** rows repeating an rsID or a position read before (ParsedGenome.repeated) */
  repeated: number;
  /** markers kept without a call (VCF alleles that are no letters nor D/I) */
  uncallable: number;
}

/** Chunks handed to the parser: lines are read from small strings, never from the whole file. */
const CHUNK_BYTES = 64 * 1024;

function* chunksOf(parts: Uint8Array[]): Generator<Buffer> {
  for (const part of parts) {
    for (let at = 0; at < part.length; at += CHUNK_BYTES) {
      const end = Math.min(part.length, at + CHUNK_BYTES);
      yield Buffer.from(part.buffer, part.byteOffset + at, end - at);
    }
  }
}

/** Parses, encodes and seals one uploaded genome file; throws `GenomeFormatError` to refuse it. */
export default async function readGenome(input: ReadGenomeInput): Promise<ReadGenomeOutput> {
  const parsed = await parseGenome(Readable.from(chunksOf(input.parts)), input.limits);
  const key = Buffer.from(input.key.buffer, input.key.byteOffset, input.key.byteLength);
  const sealed = encryptGenome(encodeGenome(parsed), key);
  return {
    summary: parsed.summary,
    // a buffer of its own: a view's whole buffer would be copied back with it
    sealed: sealed.byteLength === sealed.buffer.byteLength ? sealed : new Uint8Array(sealed),
    malformed: parsed.malformed,
    skipped: parsed.skipped,
    repeated: parsed.repeated,
    uncallable: parsed.uncallable,
  };
}
