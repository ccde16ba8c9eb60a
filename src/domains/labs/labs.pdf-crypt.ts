/**
 * A PDF's stream data decrypted as pdf.js decrypts it when it opens a file without a password
 * (issue 45): the standard security handler (ISO 32000-1 7.6.3 and ISO 32000-2 7.6.4; RC4 of 40 to
 * 128 bits, AES-128 and AES-256, revisions 2 to 6) with the empty user password. A lab's PDF is
 * often encrypted that way (an owner password restricts printing or copying, anyone may open it),
 * and its streams are compressed under the encryption: the bound on what they decompress to
 * (labs.pdf-scan.ts) must see them decrypted, or an encrypted bomb would pass it.
 *
 * It mirrors pdf.js 5 (`CipherTransformFactory`): the same key lengths, the same defaults for a
 * missing /Length and /StmF, the user password tried empty and no owner password tried. A file it
 * cannot open that way is `password` (pdf.js asks for one: the read is refused anyway) or
 * `unsupported` (another security handler, an unknown version or method).
 *
 * It must never throw, never be used for anything but bounding (it checks no integrity), and never
 * log or keep a key.
 */
import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { PdfName, nameOf } from './labs.pdf-objects.ts';
import type { PdfDict, PdfObjects, PdfValue } from './labs.pdf-objects.ts';

/** Decrypts one stream's data, given its object number and generation. */
export type PdfDecrypt = (data: Uint8Array, num: number, gen: number) => Uint8Array;

/** The padding string of the standard security handler (Algorithm 2, step a). */
const PAD = Buffer.from('28bf4e5e4e758a4164004e56fffa01082e2e00b6d0683e802f0ca9fe6453697a', 'hex');

function md5(...parts: Uint8Array[]): Buffer {
  const h = createHash('md5');
  for (const p of parts) h.update(p);
  return h.digest();
}

/** RC4 (its own: OpenSSL 3 has it only in the legacy provider). */
function rc4(key: Uint8Array, data: Uint8Array): Uint8Array {
  const s = new Uint8Array(256);
  for (let i = 0; i < 256; i++) s[i] = i;
  for (let i = 0, j = 0; i < 256; i++) {
    j = (j + s[i] + key[i % key.length]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
  }
  const out = new Uint8Array(data.length);
  for (let k = 0, i = 0, j = 0; k < data.length; k++) {
    i = (i + 1) & 255;
    j = (j + s[i]) & 255;
    [s[i], s[j]] = [s[j], s[i]];
    out[k] = data[k] ^ s[(s[i] + s[j]) & 255];
  }
  return out;
}

/** AES-CBC with the IV in the first 16 bytes; an incomplete last block is dropped. */
function aesCbc(key: Uint8Array, data: Uint8Array): Uint8Array {
  if (data.length < 32) return new Uint8Array(0);
  const body = data.subarray(16, 16 + Math.floor((data.length - 16) / 16) * 16);
  const d = createDecipheriv(`aes-${key.length * 8}-cbc`, key, data.subarray(0, 16));
  d.setAutoPadding(false);
  return Buffer.concat([d.update(body), d.final()]);
}

/** Algorithm 1: the key of one object (RC4, or AES-128 with "sAlT"). */
function objectKey(key: Uint8Array, num: number, gen: number, aes: boolean): Buffer {
  const tail = [num & 255, (num >> 8) & 255, (num >> 16) & 255, gen & 255, (gen >> 8) & 255];
  const salt = aes ? [0x73, 0x41, 0x6c, 0x54] : [];
  return md5(key, Uint8Array.from([...tail, ...salt])).subarray(0, Math.min(key.length + 5, 16));
}

interface Security {
  v: number;
  r: number;
  /** key length in bits */
  bits: number;
  o: Uint8Array;
  u: Uint8Array;
  p: number;
  encryptMetadata: boolean;
}

/** Algorithms 2 and 4/5: the file key from the empty user password, or null when it is not. */
function legacyKey(sec: Security, id0: Uint8Array): Uint8Array | null {
  const p = Buffer.alloc(4);
  p.writeUInt32LE(sec.p >>> 0);
  const extra = sec.r >= 4 && !sec.encryptMetadata ? [Buffer.from([255, 255, 255, 255])] : [];
  let hash = md5(PAD, sec.o.subarray(0, 32), p, id0, ...extra);
  const n = sec.bits >> 3;
  if (sec.r >= 3) for (let i = 0; i < 50; i++) hash = md5(hash.subarray(0, n));
  const key = hash.subarray(0, n);
  let check: Uint8Array;
  if (sec.r >= 3) {
    check = rc4(key, md5(PAD, id0));
    for (let i = 1; i <= 19; i++)
      check = rc4(
        key.map((k) => k ^ i),
        check,
      );
  } else check = rc4(key, PAD);
  const u = sec.u.subarray(0, 32);
  return check.every((c, i) => u[i] === c) ? key : null;
}

/** Algorithm 2.B (revision 6) or plain SHA-256 (revision 5) of the empty password and a salt. */
function hash20(r: number, salt: Uint8Array): Buffer {
  let k = createHash('sha256').update(salt).digest();
  if (r !== 6) return k;
  let e: Buffer = Buffer.alloc(1);
  for (let i = 0; i < 64 || e[e.length - 1] > i - 32; i++) {
    const cipher = createCipheriv('aes-128-cbc', k.subarray(0, 16), k.subarray(16, 32));
    cipher.setAutoPadding(false);
    const k1 = Buffer.concat(Array.from({ length: 64 }, () => k));
    e = Buffer.concat([cipher.update(k1), cipher.final()]);
    let sum = 0;
    for (let j = 0; j < 16; j++) sum += e[j];
    k = createHash(['sha256', 'sha384', 'sha512'][sum % 3])
      .update(e)
      .digest();
  }
  return k.subarray(0, 32);
}

/** Revisions 5 and 6: the file key from the empty user password (U, UE), or null. */
function aes256Key(r: number, u: Uint8Array, ue: Uint8Array): Uint8Array | null {
  if (u.length < 48 || ue.length < 32) return null;
  const expected = u.subarray(0, 32);
  if (!hash20(r, u.subarray(32, 40)).equals(expected)) return null;
  const d = createDecipheriv('aes-256-cbc', hash20(r, u.subarray(40, 48)), Buffer.alloc(16));
  d.setAutoPadding(false);
  return Buffer.concat([d.update(ue.subarray(0, 32)), d.final()]);
}

function bytesOf(v: PdfValue | undefined): Uint8Array {
  return v instanceof Uint8Array ? v : new Uint8Array(0);
}

/** The key length in bits as pdf.js reads it (V4 without /Length: the crypt filter's, or 128). */
function keyBits(v: number, encrypt: PdfDict, objects: PdfObjects): number {
  const length = objects.resolve(encrypt.get('Length'));
  if (typeof length === 'number' && length) return length;
  if (v <= 3) return 40;
  const cf = objects.resolve(encrypt.get('CF'));
  const stmf = nameOf(objects.resolve(encrypt.get('StmF')));
  const handler = cf instanceof Map && stmf ? objects.resolve(cf.get(stmf)) : undefined;
  const bits = handler instanceof Map ? objects.resolve(handler.get('Length')) : undefined;
  const n = typeof bits === 'number' && bits ? bits : 128;
  return n < 40 ? n << 3 : n;
}

/** The stream method of V4/V5 (its /StmF crypt filter's /CFM): None, V2, AESV2 or AESV3. */
function streamMethod(encrypt: PdfDict, objects: PdfObjects): string {
  const stmf = nameOf(objects.resolve(encrypt.get('StmF'))) ?? 'Identity';
  if (stmf === 'Identity') return 'None';
  const cf = objects.resolve(encrypt.get('CF'));
  const handler = cf instanceof Map ? objects.resolve(cf.get(stmf)) : undefined;
  return (handler instanceof Map && nameOf(objects.resolve(handler.get('CFM')))) || 'None';
}

function readSecurity(encrypt: PdfDict, objects: PdfObjects): Security | null {
  const num = (key: string): number => {
    const v = objects.resolve(encrypt.get(key));
    return typeof v === 'number' ? v : NaN;
  };
  const v = num('V');
  if (![1, 2, 4, 5].includes(v)) return null;
  const bits = keyBits(v, encrypt, objects);
  if (!Number.isInteger(bits) || bits < 40 || bits % 8 !== 0) return null;
  return {
    v,
    r: num('R'),
    bits,
    o: bytesOf(objects.resolve(encrypt.get('O'))),
    u: bytesOf(objects.resolve(encrypt.get('U'))),
    p: num('P') | 0,
    encryptMetadata: objects.resolve(encrypt.get('EncryptMetadata')) !== false,
  };
}

/**
 * How a file encrypted by `encrypt` (with `id0`, the first entry of the trailer's /ID) decrypts
 * its streams without a password: a function, `password` when the empty user password does not
 * open it, `unsupported` for anything but the standard security handler as pdf.js reads it.
 */
export function openEncryption(
  encrypt: PdfDict,
  id0: Uint8Array,
  objects: PdfObjects,
): PdfDecrypt | 'password' | 'unsupported' {
  const filter = objects.resolve(encrypt.get('Filter'));
  if (!(filter instanceof PdfName) || filter.name !== 'Standard') return 'unsupported';
  const sec = readSecurity(encrypt, objects);
  if (!sec) return 'unsupported';
  if (sec.v === 5) {
    const key = aes256Key(sec.r, sec.u, bytesOf(objects.resolve(encrypt.get('UE'))));
    if (!key) return 'password';
    const method = streamMethod(encrypt, objects);
    return method === 'None' ? (data) => data : (data) => aesCbc(key, data);
  }
  let key = legacyKey(sec, id0);
  if (!key) return 'password';
  if (sec.v < 4) return (data, num, gen) => rc4(objectKey(key!, num, gen, false), data);
  if (key.length < 16) key = Buffer.concat([key, Buffer.alloc(16 - key.length)]);
  const k = key;
  switch (streamMethod(encrypt, objects)) {
    case 'None':
      return (data) => data;
    case 'V2':
      return (data, num, gen) => rc4(objectKey(k, num, gen, false), data);
    case 'AESV2':
      return (data, num, gen) => aesCbc(objectKey(k, num, gen, true), data);
    case 'AESV3':
      return (data) => aesCbc(k, data);
    default:
      return 'unsupported';
  }
}
