/**
 * A person's stored genome (issue 34): an upload is parsed (dna.parse.ts), encoded and sealed
 * (dna.store.ts) and kept as one row per person (a new upload replaces the old one in one
 * statement, so a failed upload leaves the earlier genome as it was); the readers open it
 * (unseal, decode) and deleting it removes every genotype. The key is genomeKey(config).
 *
 * NOTE: the caller decides whose genome: these functions take the person's id and check nothing;
 * the services that serve them (the upload, the reads) pass the credential's own person.
 */
import type { Db } from '../../db/client.ts';
import type { DnaGenome } from '../../generated/prisma/client.ts';
import { parseGenome } from './dna.parse.ts';
import type { ParseGenomeOptions } from './dna.parse.ts';
import {
  decodeGenome,
  decryptGenome,
  encodeGenome,
  encryptGenome,
  genomeKey,
} from './dna.store.ts';
import type { GenomeIndex, GenomeKeyConfig } from './dna.store.ts';
import type { GenomeSummary } from './dna.types.ts';

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

/** Counts the bytes that pass, for the file's size as uploaded. */
async function* counted(
  input: AsyncIterable<Buffer> | NodeJS.ReadableStream,
  total: { bytes: number },
): AsyncIterable<Buffer> {
  for await (const chunk of input as AsyncIterable<Buffer>) {
    total.bytes += chunk.length;
    yield chunk;
  }
}

/**
 * Reads an upload and stores it as the person's genome, replacing any earlier one and deleting the
 * reports made from it (dna_reports) and the comparisons with relatives. Throws GenomeFormatError (the caller's 422) for a file that
 * is not a genome this reads.
 */
export async function storeGenome(
  deps: GenomeDeps,
  options: {
    userId: number;
    input: AsyncIterable<Buffer> | NodeJS.ReadableStream;
    limits?: ParseGenomeOptions;
  },
): Promise<GenomeView> {
  const size = { bytes: 0 };
  const parsed = await parseGenome(counted(options.input, size), options.limits);
  const sealed = encryptGenome(encodeGenome(parsed), genomeKey(deps.config));
  const { summary } = parsed;
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
    fileBytes: size.bytes,
    uploadedAt: new Date(),
  };
  // the reports read the earlier file: they go with it (a running one then stores nothing).
  // NOTE: the sealed bytes go as base64 text decoded in SQL: Prisma's bytea parameter costs about
  // 150 times the bytes in JS heap on the embedded database (400 MB for a 2.5 MB genome)
  const [, , row] = await deps.prisma.$transaction([
    deps.prisma.dnaReport.deleteMany({ where: { userId: options.userId } }),
    // so are the comparisons with relatives (made again on their next read)
    deps.prisma.dnaRelative.updateMany({
      where: { OR: [{ inviterId: options.userId }, { inviteeId: options.userId }] },
      data: { comparison: null, comparedFor: null },
    }),
    deps.prisma.dnaGenome.upsert({
      where: { userId: options.userId },
      create: { userId: options.userId, ...data, sealed: new Uint8Array(0) },
      update: data,
      omit: { sealed: true },
    }),
    deps.prisma
      .$executeRaw`UPDATE dna_genomes SET sealed = decode(${sealed.toString('base64')}, 'base64')
      WHERE user_id = ${options.userId}`,
  ]);
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

/** The person's genome opened for reading (unsealed and decoded), or null when none is stored. */
export async function openGenome(
  deps: GenomeDeps,
  userId: number,
): Promise<{ view: GenomeView; calls: GenomeIndex } | null> {
  const row = await deps.prisma.dnaGenome.findUnique({ where: { userId } });
  if (!row) return null;
  const plain = decryptGenome(Buffer.from(row.sealed), genomeKey(deps.config));
  return { view: viewOf(row), calls: decodeGenome(plain) };
}

/** Deletes the person's genome (every genotype); answers whether there was one. */
export async function deleteGenome(deps: GenomeDeps, userId: number): Promise<boolean> {
  const { count } = await deps.prisma.dnaGenome.deleteMany({ where: { userId } });
  return count > 0;
}
