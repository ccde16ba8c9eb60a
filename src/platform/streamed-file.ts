/**
 * An uploaded file handed to a GraphQL field while it is still arriving (issue 30: the phone's
 * Apple Health export.zip, up to gigabytes). The REST facade's `upload` responder builds one from
 * the multipart file part and the field reads it as a stream, once, deciding as it reads (its own
 * size limit, where the bytes go); nothing is held in memory and nothing reaches the disk unless
 * the field writes it. The field's auth runs before a byte of the body is read.
 *
 * It satisfies the `File` scalar (a Blob-like object) but must never be buffered: `arrayBuffer()`
 * and `text()` throw, and `size` is unknown until the stream has ended, so it is Infinity: a size
 * check written for in-memory files (`file.size > max`) refuses it rather than reading it whole.
 * `readableOf()` gives any uploaded file (this one or an in-memory File) as a node stream.
 */
import { PassThrough, Readable } from 'node:stream';

export class StreamedFile {
  /** unknown until read: Infinity, so that a size check meant for in-memory files refuses it */
  readonly size = Number.POSITIVE_INFINITY;
  private taken = false;
  private failure: Error | null = null;

  /**
   * @param source the file part's bytes as they arrive (busboy's file stream)
   * @param name the file name the client sent
   * @param type the content type the client sent
   */
  constructor(
    private readonly source: Readable,
    readonly name: string,
    readonly type: string,
  ) {
    source.on('error', (err) => (this.failure ??= err));
  }

  /**
   * The bytes as a node stream, once. Destroying it stops the reading of this file only: the
   * transport still reads (and discards) the rest of the request, so the answer can be sent.
   * An error of the source (the client went away, the form ended early) errors this stream.
   */
  readable(): Readable {
    if (this.taken) throw new Error('a streamed upload can be read once');
    this.taken = true;
    const out = new PassThrough({ highWaterMark: 256 * 1024 });
    // the form may have failed before the field started reading (a body cut short, a client gone)
    if (this.failure || this.source.destroyed) {
      out.destroy(this.failure ?? new Error('the upload ended before the file did'));
      return out;
    }
    this.source.on('error', (err) => out.destroy(err));
    this.source.pipe(out);
    return out;
  }

  stream(): ReadableStream<Uint8Array> {
    return Readable.toWeb(this.readable()) as ReadableStream<Uint8Array>;
  }

  /**
   * What JSON makes of it: its name and type, never its stream (issue 45: a request's variables
   * are stringified whole, src/platform/local-time.ts, and the stream's buffered chunks written
   * as JSON arrays of numbers held the event loop for 0.1-0.2 s on a 37 MB upload).
   */
  toJSON(): { name: string; type: string } {
    return { name: this.name, type: this.type };
  }

  arrayBuffer(): Promise<ArrayBuffer> {
    return Promise.reject(new Error('a streamed upload is read as a stream, never whole'));
  }

  text(): Promise<string> {
    return Promise.reject(new Error('a streamed upload is read as a stream, never whole'));
  }
}

/**
 * Any uploaded file as a node stream: a StreamedFile as it arrives; an in-memory File or Blob (of
 * any realm: yoga's multipart parser hands over its own) from its bytes, already held.
 */
export function readableOf(file: Blob | StreamedFile): Readable {
  if (file instanceof StreamedFile) return file.readable();
  return Readable.from(
    (async function* () {
      yield Buffer.from(await file.arrayBuffer());
    })(),
  );
}
