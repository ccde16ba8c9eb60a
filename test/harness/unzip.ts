/**
 * Reads a zip held in memory with yauzl (the library the server reads uploads with): each file's
 * text, in archive order.
 */
import yauzl from 'yauzl';

export async function unzipText(zip: Buffer): Promise<Map<string, string>> {
  const archive = await yauzl.fromBufferPromise(zip, { lazyEntries: true });
  const files = new Map<string, string>();
  for await (const entry of archive.eachEntry()) {
    const stream = await archive.openReadStreamPromise(entry);
    const parts: Buffer[] = [];
    for await (const part of stream) parts.push(part as Buffer);
    files.set(entry.fileName, Buffer.concat(parts).toString('utf8'));
  }
  return files;
}
