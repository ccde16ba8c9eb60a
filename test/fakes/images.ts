/**
 * The smallest files whose magic bytes say what they are (file-type reads headers only), and one
 * real 1x1 PNG. Enough to test type checks without shipping images.
 */
const bytes = (...parts: (string | number[])[]): Uint8Array<ArrayBuffer> =>
  new Uint8Array(
    Buffer.concat(
      parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))),
    ),
  );

/** A real 1x1 PNG. */
export const PNG = new Uint8Array(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  ),
);

/** JPEG: SOI + JFIF APP0 + EOI. */
export const JPEG = bytes(
  [0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10],
  'JFIF',
  [0, 1, 1, 0, 0, 1, 0, 1, 0, 0],
  [0xff, 0xd9],
);

/** WebP: RIFF container with a VP8 chunk header. */
export const WEBP = bytes(
  'RIFF',
  [0x1a, 0, 0, 0],
  'WEBPVP8 ',
  [0x0e, 0, 0, 0],
  new Array(14).fill(0),
);

/** HEIC: an ftyp box with the heic brand (what iPhones write). */
export const HEIC = bytes(
  [0, 0, 0, 0x18],
  'ftypheic',
  [0, 0, 0, 0],
  'mif1heic',
  new Array(16).fill(0),
);

/** GIF: a real image type that is not accepted. */
export const GIF = bytes('GIF89a', [1, 0, 1, 0, 0, 0, 0], ';');

/** A JPEG header followed by zeros, `size` bytes in all. */
export function jpegOfSize(size: number): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(size);
  out.set(JPEG.subarray(0, 20));
  return out;
}
