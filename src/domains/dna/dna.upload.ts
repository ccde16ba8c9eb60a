/**
 * The person's upload of a raw genome file (issue 34): the phone app (a login session) sends the
 * file to POST /api/v1/dna/upload (multipart, field `file`, the `upload` responder, so the file is
 * read as it arrives) or to the `uploadGenome` mutation. The file's bytes are gathered as they
 * arrive and read, sealed and stored as the person's one genome (dna.genome.ts), replacing an
 * earlier one; the reading runs in a worker thread (issue 45), never on the request's thread.
 *
 * Hostile input costs no more than the bytes sent: beyond DNA_UPLOAD_MAX_BYTES the reading stops
 * (413); a file that is no genome this reads, that describes no real file (rows, repeats,
 * inflation: dna.parse.ts GENOME_LIMITS) or that passes the job's time or memory is refused with
 * the reason (422); a body cut short is a 422; too many files being read at once is a 503 with
 * Retry-After; each leaves the earlier genome as it was. It must never store a genome for anyone
 * but the credential's own person, nor answer a genotype.
 */
import { appError, validationError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { FileJobError } from '../../platform/file-workers.ts';
import { readableOf } from '../../platform/streamed-file.ts';
import type { StreamedFile } from '../../platform/streamed-file.ts';
import { chargeGenomeUpload, dnaOwnerOf } from './dna.access.ts';
import { storeGenome } from './dna.genome.ts';
import type { GenomeDeps, GenomeView } from './dna.genome.ts';
import { GenomeFormatError } from './dna.parse.ts';

/** The largest upload, in bytes as sent (compressed or not): 50 MB. */
export const DNA_UPLOAD_MAX_BYTES = 50 * 1024 * 1024;
/** Seconds a client is asked to wait when every genome reader is busy (503). */
export const DNA_UPLOAD_RETRY_AFTER_SECONDS = 30;

/** The genome store of a request's app. */
export const genomeDeps = (ctx: AuthedContext): GenomeDeps => ({
  prisma: ctx.prisma,
  config: ctx.config,
});

export interface UploadGenomeOptions {
  /** the raw data file: streamed over REST (a StreamedFile), in memory through /graphql */
  file: File | StreamedFile;
}

/** What happened to the bytes on their way to the parser. */
interface Meter {
  bytes: number;
  tooLarge: boolean;
  /** the upload itself failed (the client went away, the form ended before the file did) */
  cut: boolean;
}

/** The upload's bytes, stopped beyond DNA_UPLOAD_MAX_BYTES, its failures told apart. */
async function* metered(source: AsyncIterable<Buffer>, meter: Meter): AsyncIterable<Buffer> {
  const it = source[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Buffer>;
    try {
      next = await it.next();
    } catch (err) {
      meter.cut = true;
      throw err;
    }
    if (next.done) return;
    meter.bytes += next.value.length;
    if (meter.bytes > DNA_UPLOAD_MAX_BYTES) {
      meter.tooLarge = true;
      await it.return?.();
      throw new Error('upload over the limit');
    }
    yield next.value;
  }
}

const fileInvalid = (msg: string) => validationError([{ loc: ['file'], msg, type: 'value_error' }]);

/**
 * Reads the person's raw genome file and stores it as their genome, replacing an earlier one;
 * answers what the file was found to be (vendor, build, markers, call rate, sex), never a genotype.
 */
export async function uploadGenome(
  ctx: AuthedContext,
  options: UploadGenomeOptions,
): Promise<GenomeView> {
  await chargeGenomeUpload(ctx);
  const userId = dnaOwnerOf(ctx);
  const meter: Meter = { bytes: 0, tooLarge: false, cut: false };
  const input = metered(readableOf(options.file) as AsyncIterable<Buffer>, meter);
  try {
    // the parser's own bound sits beyond ours, so the 413 above is what a large file meets
    return await storeGenome(genomeDeps(ctx), {
      userId,
      input,
      limits: { maxBytes: DNA_UPLOAD_MAX_BYTES + 1 },
    });
  } catch (err) {
    if (meter.tooLarge) {
      throw appError(
        'PAYLOAD_TOO_LARGE',
        `The file is larger than ${DNA_UPLOAD_MAX_BYTES / (1024 * 1024)} MB, the most a genome ` +
          'upload may have: upload the raw data file as the vendor gave it (zip or gzip it if needed)',
      );
    }
    if (meter.cut) {
      throw fileInvalid('The upload ended before the whole file arrived: upload the file again');
    }
    if (err instanceof GenomeFormatError) throw fileInvalid(err.message);
    if (err instanceof FileJobError && err.code === 'busy') {
      throw appError(
        'UNAVAILABLE',
        'Too many genome files are being read right now: upload the file again in a moment',
        { retryAfter: DNA_UPLOAD_RETRY_AFTER_SECONDS },
      );
    }
    throw err;
  }
}
