/**
 * A person's stored genome (issue 34): an upload is parsed (dna.parse.ts), encoded and sealed
 * (dna.store.ts) and kept as one row per person (a new upload replaces the old one in one
 * transaction, so a failed upload leaves the earlier genome as it was); the readers open it
 * (unseal, decode) and deleting it removes every genotype. The key is genomeKey(config).
 *
 * Issue 45: the upload's bytes are gathered here into buffers of their own as they arrive (bounded
 * by the caller's limit) and moved to a worker thread (GENOME_JOB, dna.genome.job.ts) that parses,
 * encodes and seals them, within 60 s and a 128 MB heap; only the summary and the sealed bytes
 * come back, and this thread writes them. Opening a genome stays here: it is bounded by the most
 * markers a file may hold (6 million: 0.16-0.43 s; 640,000 markers: 18-47 ms). The sealed
 * bytes go to and from the database as base64 text (see the NOTEs), and never through a Prisma
 * batch, whose plan cache would keep them.
 *
 * NOTE: the caller decides whose genome: these functions take the person's id and check nothing;
 * the services that serve them (the upload, the reads) pass the credential's own person.
 */
import type { Db } from '../../db/client.ts';
import type { DnaGenome } from '../../generated/prisma/client.ts';
import {
  FileJobError,
  FileJobRefusal,
  fileJobModule,
  runFileJob,
} from '../../platform/file-workers.ts';
import type { FileJobKind } from '../../platform/file-workers.ts';
import type { ReadGenomeInput, ReadGenomeOutput } from './dna.genome.job.ts';
import { GenomeFormatError } from './dna.parse.ts';
import type { ParseGenomeOptions } from './dna.parse.ts';
import { decodeGenome, decryptGenome, genomeKey } from './dna.store.ts';
import type { GenomeIndex, GenomeKeyConfig } from './dna.store.ts';
import type { GenomeSummary } from './dna.types.ts';
import { clock } from '../../base/clock.ts';

/**
 * The upload's worker job (dna.genome.job.ts): parse, encode, seal. Its budget and heap limit
 * (measured, docs/decisions.md "Hostile files and heavy requests (issue 45)"): the largest file the
 * bounds admit, a 6,000,000-row VCF, took 13-29 s on a loaded two-core machine and ran in a 64 MB
 * heap (its markers live in typed arrays, outside the heap); a 640,000-marker file about 1-2 s.
 */
export const GENOME_JOB: FileJobKind = {
  name: 'dna-genome',
  module: fileJobModule(import.meta.url, './dna.genome.job'),
  timeoutMs: 60_000,
  maxHeapMb: 128,
};

export interface GenomeDeps {
  prisma: Db;
  config: GenomeKeyConfig;
}

/** A stored genome as the person sees it: what the file was, never a genotype. */
export interface GenomeView extends GenomeSummary {
  id: string;
  fileBytes: number;
  uploadedAt: Date;
}

const viewOf = (row: Omit<DnaGenome, 'sealed'>): GenomeView => ({
  id: row.id,
  vendor: row.vendor as GenomeView['vendor'],
  version: row.version,
  build: row.build as GenomeView['build'],
  markers: row.markers,
  called: row.called,
  callRate: row.callRate,
  sex: row.sex as GenomeView['sex'],
  sexNote: row.sexNote,
  xHeterozygosity: row.xHeterozygosity,
  fileBytes: row.fileBytes,
  uploadedAt: row.uploadedAt,
});

const MB = 1024 * 1024;
/** How long the genome's write may wait for the database, and take (the largest: 24 MB of text). */
const WRITE_WAIT_MS = 10_000;
const WRITE_TIMEOUT_MS = 60_000;

/** The size of the buffers an upload is gathered into. */
const SLAB_BYTES = MB;

/**
 * The upload's bytes, copied as they arrive into buffers of their own (1 MB each, so they can be
 * moved to the job, and no one copy of the whole file blocks this thread), refused beyond `max`.
 */
async function gathered(
  input: AsyncIterable<Buffer> | NodeJS.ReadableStream,
  max: number,
): Promise<{ parts: Uint8Array<ArrayBuffer>[]; bytes: number }> {
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let slab = new Uint8Array(0);
  let used = 0;
  let total = 0;
  for await (const chunk of input as AsyncIterable<Buffer | string>) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    total += buf.length;
    if (total > max) {
      throw new GenomeFormatError(`The file is larger than ${Math.round(max / MB)} MB`);
    }
    for (let at = 0; at < buf.length; ) {
      if (used === slab.length) {
        slab = new Uint8Array(SLAB_BYTES);
        used = 0;
        parts.push(slab);
      }
      const n = Math.min(buf.length - at, slab.length - used);
      slab.set(buf.subarray(at, at + n), used);
      used += n;
      at += n;
    }
  }
  if (parts.length > 0) parts[parts.length - 1] = slab.subarray(0, used);
  return { parts, bytes: total };
}

/**
 * A job's failure as the caller sees it: the file's own refusal, or a file over the job's time or
 * memory, is a GenomeFormatError (422, saying why); a full queue or a lost thread stays a
 * FileJobError (`busy`: 503), anything else is unchanged.
 */
function jobFailure(err: unknown): unknown {
  if (err instanceof FileJobRefusal && err.kind === 'GenomeFormatError') {
    return GenomeFormatError.fromMessage(err.message);
  }
  if (err instanceof FileJobError && err.code === 'timeout') {
    return new GenomeFormatError(
      `Reading the file took longer than ${GENOME_JOB.timeoutMs / 1000} s, the most one genome ` +
        'file may take',
    );
  }
  if (err instanceof FileJobError && err.code === 'memory') {
    return new GenomeFormatError(
      `Reading the file needed more than ${GENOME_JOB.maxHeapMb} MB of memory, the most one ` +
        'genome file may take',
    );
  }
  return err;
}

/** What storeGenome stores. */
export interface StoreGenomeOptions {
  /** whose genome (the credential's own person: see the NOTE above) */
  userId: number;
  /** the file's bytes as they arrive */
  input: AsyncIterable<Buffer> | NodeJS.ReadableStream;
  /** the parse's limits (dna.parse.ts GENOME_LIMITS by default; the file at most 50 MB) */
  limits?: ParseGenomeOptions;
}

/**
 * Reads an upload and stores it as the person's genome, replacing any earlier one and deleting the
 * reports made from it (dna_reports) and the comparisons with relatives. The file is parsed,
 * encoded and sealed in a worker thread (GENOME_JOB). Throws GenomeFormatError (the caller's 422)
 * for a file that is not a genome this reads or that passes the job's time or memory, and
 * FileJobError `busy` when too many files are being read (the caller's 503).
 */
export async function storeGenome(
  deps: GenomeDeps,
  options: StoreGenomeOptions,
): Promise<GenomeView> {
  const { parts, bytes: fileBytes } = await gathered(
    options.input,
    options.limits?.maxBytes ?? 50 * MB,
  );
  const input: ReadGenomeInput = {
    parts,
    // a buffer of its own: a pooled Buffer's whole pool would be copied to the thread with it
    key: new Uint8Array(genomeKey(deps.config)),
    limits: options.limits,
  };
  let read: ReadGenomeOutput;
  try {
    read = await runFileJob<ReadGenomeInput, ReadGenomeOutput>(
      GENOME_JOB,
      input,
      parts.map((part) => part.buffer),
    );
  } catch (err) {
    throw jobFailure(err);
  }
  const { summary } = read;
  const sealed = Buffer.from(read.sealed.buffer, read.sealed.byteOffset, read.sealed.byteLength);
  const data = {
    vendor: summary.vendor,
    version: summary.version,
    build: summary.build,
    markers: summary.markers,
    called: summary.called,
    callRate: summary.callRate,
    sex: summary.sex,
    sexNote: summary.sexNote,
    xHeterozygosity: summary.xHeterozygosity,
    fileBytes,
    uploadedAt: clock.now(),
  };
  // the reports read the earlier file: they go with it (a running one then stores nothing).
  // NOTE: the sealed bytes go as base64 text decoded in SQL: Prisma's bytea parameter costs about
  // 150 times the bytes in JS heap on the embedded database (400 MB for a 2.5 MB genome). And in
  // an interactive transaction, not a batch: Prisma keeps a batch's plan under its JSON, the raw
  // statement's text parameter included (1,000 of them), which held every upload's genome
  const row = await deps.prisma.$transaction(
    async (tx) => {
      await tx.dnaReport.deleteMany({ where: { userId: options.userId } });
      // so are the comparisons with relatives (made again on their next read)
      await tx.dnaRelative.updateMany({
        where: { OR: [{ inviterId: options.userId }, { inviteeId: options.userId }] },
        data: { comparison: null, comparedFor: null },
      });
      const stored = await tx.dnaGenome.upsert({
        where: { userId: options.userId },
        create: { userId: options.userId, ...data, sealed: new Uint8Array(0) },
        update: data,
        omit: { sealed: true },
      });
      await tx.$executeRaw`UPDATE dna_genomes
        SET sealed = decode(${sealed.toString('base64')}, 'base64')
        WHERE user_id = ${options.userId}`;
      return stored;
    },
    { maxWait: WRITE_WAIT_MS, timeout: WRITE_TIMEOUT_MS },
  );
  return viewOf(row);
}

/** The person's genome summary, or null when none is stored. */
export async function genomeSummaryOf(
  deps: GenomeDeps,
  userId: number,
): Promise<GenomeView | null> {
  const row = await deps.prisma.dnaGenome.findUnique({ where: { userId }, omit: { sealed: true } });
  return row ? viewOf(row) : null;
}

/**
 * The person's genome opened for reading (unsealed and decoded), or null when none is stored.
 * The summary and the sealed bytes are read in one snapshot (a new upload may land between them).
 */
export async function openGenome(
  deps: GenomeDeps,
  userId: number,
): Promise<{ view: GenomeView; calls: GenomeIndex } | null> {
  // NOTE: the sealed bytes come as base64 text encoded in SQL, as storeGenome writes them: the
  // embedded database's adapter reads a bytea digit pair by digit pair on this thread (0.35 s for
  // a 640,000-marker genome, seconds for the largest), where the text is decoded natively
  const [row, sealedRows] = await deps.prisma.$transaction(
    [
      deps.prisma.dnaGenome.findUnique({ where: { userId }, omit: { sealed: true } }),
      deps.prisma.$queryRaw<{ sealed: string }[]>`SELECT encode(sealed, 'base64') AS sealed
        FROM dna_genomes WHERE user_id = ${userId}`,
    ],
    { isolationLevel: 'RepeatableRead' },
  );
  if (!row || sealedRows.length === 0) return null;
  const sealed = Buffer.from(sealedRows[0].sealed, 'base64');
  const plain = decryptGenome(sealed, genomeKey(deps.config));
  return { view: viewOf(row), calls: decodeGenome(plain) };
}

/** Deletes the person's genome (every genotype); answers whether there was one. */
export async function deleteGenome(deps: GenomeDeps, userId: number): Promise<boolean> {
  const { count } = await deps.prisma.dnaGenome.deleteMany({ where: { userId } });
  return count > 0;
}
