/**
 * A parsed genome kept compactly and sealed (issue 34): `encodeGenome` packs the markers into
 * columns sorted by id (about 10 bytes a marker before gzip), `decodeGenome` answers a lookup by
 * rsID (binary search) and iteration by chromosome and position, `encryptGenome`/`decryptGenome`
 * seal the bytes with AES-256-GCM, and `genomeKey` finds the key (configured, or generated once
 * under DATA_DIR).
 *
 * Layout of an encoded genome (little-endian, then gzip):
 *   0  "DNAG"      magic
 *   4  u8          layout version (1)
 *   5  u8          build (37 or 38)
 *   6  u16         0
 *   8  u32         N markers
 *   12 u32 x 3     markers with an rsID, with a vendor's internal id (i123), with another id
 *   24 u32[N]      id numbers, sorted within each group, delta-coded (first absolute)
 *      u32[N]      positions
 *      u8[N]       chromosome codes (1..22, 23 X, 24 Y, 25 MT)
 *      u8[N]       call codes (dna.parse.ts: 0 no call, 1..6 one allele, a*7+b two alleles)
 * Sealed: u8 version (1), 12-byte random IV, 16-byte GCM tag, ciphertext; the version byte and a
 * context string are authenticated too.
 *
 * Where each side runs (issue 45): `encodeGenome` and `encryptGenome` run in the upload's worker
 * thread (dna.genome.job.ts), never on the thread that answers requests; `decryptGenome` and
 * `decodeGenome` run where a genome is read, bounded by the most markers a file may hold
 * (GENOME_LIMITS.maxVcfRows, 6 million: 60 MB decoded), so a damaged or forged row cannot inflate
 * further. It must never write a key it cannot read back, nor replace an existing key file (every
 * genome sealed with it would be lost).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  linkSync,
  mkdirSync,
  readFileSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { endianness } from 'node:os';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { Call, CallLookup, Chromosome, GenomeBuild } from './dna.types.ts';
import { CHROMOSOME_NAMES, GENOME_LIMITS, callCodeOf, decodeCall } from './dna.parse.ts';
import type { GenomeMarkers, ParsedGenome } from './dna.parse.ts';

const MAGIC = 'DNAG';
const LAYOUT = 1;
const HEAD = 24;
const SEAL_VERSION = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const AAD = Buffer.from('health-platform dna genome v1');
/**
 * Largest decoded genome: the most rows any file may have (a VCF's 6 million, dna.parse.ts) at 10
 * bytes a marker; a damaged buffer cannot inflate further.
 */
const MAX_PLAIN = GENOME_LIMITS.maxVcfRows * 10 + HEAD;

if (endianness() !== 'LE') throw new Error('dna.store.ts reads typed arrays little-endian');

/** One marker as iterated. */
export interface GenomeMarker {
  /** "rs123", "i3000001", or null for markers kept by position only */
  id: string | null;
  chromosome: Chromosome;
  position: number;
  call: Call;
}

/** A decoded genome: lookups by rsID and iteration in chromosome and position order. */
export interface GenomeIndex extends CallLookup {
  /** markers stored */
  count: number;
  /** the markers of one chromosome ("1".."22", "X", "Y", "MT") or all, by chromosome and position */
  markers(chromosome?: Chromosome): Iterable<GenomeMarker>;
  /**
   * Every marker as the parser's columns (GenomeMarkers, dna.parse.ts), copied from the stored
   * typed arrays in one pass, no object per marker. In stored order, not by position: rsIDs by
   * number (idKind 0), then internal ids by number (idKind 1, "i123"), then markers kept by
   * position only (idKind 2, idNum 0) by chromosome and position. Each call is fresh: changing the
   * arrays changes nothing here. Holds the same markers, ids, chromosomes, positions and calls as
   * markers(): a call or chromosome code the parser never writes (only in damaged bytes) reads as
   * 0, a no-call or unplaced, as markers() reads it ("--", "").
   */
  columns(): GenomeMarkers;
}

/** Packs a parsed genome (see the layout above); gzip at level 6. */
export function encodeGenome(parsed: Pick<ParsedGenome, 'markers' | 'summary'>): Buffer {
  const m = parsed.markers;
  const n = m.count;
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = i;
  // key: id kind, then number; ids kept by position only sort by chromosome and position
  const key = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    key[i] =
      m.idKind[i] * 2 ** 40 + (m.idKind[i] === 2 ? m.chrom[i] * 2 ** 28 + m.pos[i] : m.idNum[i]);
  }
  order.sort((a, b) => key[a] - key[b]);
  const buf = Buffer.alloc(HEAD + n * 10);
  buf.write(MAGIC, 0, 'latin1');
  buf[4] = LAYOUT;
  buf[5] = parsed.summary.build === 'GRCh38' ? 38 : 37;
  buf.writeUInt32LE(n, 8);
  const groups = [0, 0, 0];
  for (let i = 0; i < n; i++) groups[m.idKind[i]]++;
  groups.forEach((g, k) => buf.writeUInt32LE(g, 12 + 4 * k));
  const ids = new Uint32Array(n);
  const pos = new Uint32Array(n);
  const chrom = new Uint8Array(n);
  const call = new Uint8Array(n);
  let prev = 0;
  for (let j = 0; j < n; j++) {
    const i = order[j];
    const first = j === 0 || m.idKind[order[j - 1]] !== m.idKind[i];
    const id = m.idKind[i] === 2 ? 0 : m.idNum[i];
    ids[j] = first ? id : id - prev;
    prev = id;
    pos[j] = m.pos[i];
    chrom[j] = m.chrom[i];
    call[j] = m.call[i];
  }
  const at = [HEAD, HEAD + 4 * n, HEAD + 8 * n, HEAD + 9 * n];
  Buffer.from(ids.buffer).copy(buf, at[0]);
  Buffer.from(pos.buffer).copy(buf, at[1]);
  Buffer.from(chrom.buffer).copy(buf, at[2]);
  Buffer.from(call.buffer).copy(buf, at[3]);
  return gzipSync(buf, { level: 6 });
}

/** A Uint32Array copy of `n` values at `offset` (copied: the source may be unaligned). */
const u32 = (buf: Buffer, offset: number, n: number): Uint32Array =>
  new Uint32Array(buf.buffer.slice(buf.byteOffset + offset, buf.byteOffset + offset + 4 * n));

/** Reads an encoded genome back; throws on bytes that are not one. */
export function decodeGenome(encoded: Buffer): GenomeIndex {
  let buf: Buffer;
  try {
    buf = gunzipSync(encoded, { maxOutputLength: MAX_PLAIN });
  } catch {
    throw new Error('The stored genome is damaged (not gzip)');
  }
  if (buf.length < HEAD || buf.toString('latin1', 0, 4) !== MAGIC || buf[4] !== LAYOUT) {
    throw new Error('The stored genome is not in a known layout');
  }
  const n = buf.readUInt32LE(8);
  const groups = [0, 1, 2].map((k) => buf.readUInt32LE(12 + 4 * k));
  if (buf.length !== HEAD + 10 * n || groups[0] + groups[1] + groups[2] !== n) {
    throw new Error('The stored genome is damaged (its length does not match its count)');
  }
  const ids = u32(buf, HEAD, n);
  // undo the delta coding per group
  for (let g = 0, start = 0; g < 3; start += groups[g], g++) {
    for (let j = start + 1; j < start + groups[g]; j++) ids[j] += ids[j - 1];
  }
  return new Index({
    build: buf[5] === 38 ? 'GRCh38' : 'GRCh37',
    ids,
    pos: u32(buf, HEAD + 4 * n, n),
    chrom: Uint8Array.from(buf.subarray(HEAD + 8 * n, HEAD + 9 * n)),
    call: Uint8Array.from(buf.subarray(HEAD + 9 * n, HEAD + 10 * n)),
    groups,
  });
}

interface IndexColumns {
  build: GenomeBuild;
  ids: Uint32Array;
  pos: Uint32Array;
  chrom: Uint8Array;
  call: Uint8Array;
  groups: number[];
}

const ID_PATTERN = /^(rs|i)(\d{1,10})$/i;
/** Column indexes below this fit beside a position in one double (2^23: 8.4 million). */
const INDEX_SPAN = 2 ** 23;
/**
 * Stored call code -> the parser's call code. Both are dna.parse.ts's codes (encodeGenome copies
 * them), so this is the identity on every code the parser writes; any other byte reads as 0, as
 * decodeCall gives it ("--"). Built through decodeCall and callCodeOf, so it follows them.
 */
const CALL_CODE = Uint8Array.from({ length: 256 }, (_, code) =>
  Math.max(0, callCodeOf(decodeCall(code))),
);

class Index implements GenomeIndex {
  readonly build: GenomeBuild;
  readonly count: number;
  private byPosition: Uint32Array | null = null;

  constructor(private readonly c: IndexColumns) {
    this.build = c.build;
    this.count = c.ids.length;
  }

  /** The column index of the id ("rs123" or "i123"), preferring a called duplicate; -1 if absent. */
  private find(rsid: string): number {
    const m = ID_PATTERN.exec(rsid.trim());
    if (!m) return -1;
    const num = Number(m[2]);
    const internal = m[1].toLowerCase() === 'i';
    let lo = internal ? this.c.groups[0] : 0;
    const end = internal ? lo + this.c.groups[1] : this.c.groups[0];
    let hi = end - 1;
    const ids = this.c.ids;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      if (ids[mid] < num) lo = mid + 1;
      else hi = mid - 1;
    }
    if (lo >= end || ids[lo] !== num) return -1;
    for (let j = lo; j < end && ids[j] === num; j++) if (this.c.call[j] !== 0) return j;
    return lo;
  }

  call(rsid: string): Call | null {
    const i = this.find(rsid);
    return i < 0 || this.c.call[i] === 0 ? null : decodeCall(this.c.call[i]);
  }

  has(rsid: string): boolean {
    return this.find(rsid) >= 0;
  }

  *markers(chromosome?: Chromosome): Iterable<GenomeMarker> {
    const order = this.positionOrder();
    const want = chromosome === undefined ? -1 : CHROMOSOME_NAMES.indexOf(chromosome);
    if (chromosome !== undefined && want <= 0) return;
    const [rs, internal] = this.c.groups;
    for (const i of order) {
      if (want > 0 && this.c.chrom[i] !== want) continue;
      yield {
        id: i < rs ? `rs${this.c.ids[i]}` : i < rs + internal ? `i${this.c.ids[i]}` : null,
        chromosome: CHROMOSOME_NAMES[this.c.chrom[i]],
        position: this.c.pos[i],
        call: decodeCall(this.c.call[i]),
      };
    }
  }

  columns(): GenomeMarkers {
    const { ids, pos, chrom, call, groups } = this.c;
    const n = this.count;
    const kept = groups[0] + groups[1];
    const idKind = new Uint8Array(n);
    idKind.fill(1, groups[0], kept);
    idKind.fill(2, kept);
    const idNum = ids.slice();
    idNum.fill(0, kept);
    const chromCopy = new Uint8Array(n);
    const callCopy = new Uint8Array(n);
    for (let i = 0; i < n; i++) {
      chromCopy[i] = chrom[i] < CHROMOSOME_NAMES.length ? chrom[i] : 0;
      callCopy[i] = CALL_CODE[call[i]];
    }
    return { count: n, idKind, idNum, chrom: chromCopy, pos: pos.slice(), call: callCopy };
  }

  /**
   * Column indexes by chromosome and position (then column index), built on first use: the
   * columns counted out by chromosome, then each chromosome's keys (position * 2^23 + index, exact
   * in a double for up to 8.4 million markers) sorted natively, without a comparator: a
   * 6-million-marker genome in well under a second on the thread that reads it.
   */
  private positionOrder(): Uint32Array {
    if (this.byPosition) return this.byPosition;
    const { chrom, pos } = this.c;
    const n = this.count;
    const order = new Uint32Array(n);
    if (n >= INDEX_SPAN) {
      const key = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        order[i] = i;
        key[i] = chrom[i] * 2 ** 32 + pos[i];
      }
      order.sort((a, b) => key[a] - key[b] || a - b);
    } else {
      const start = new Uint32Array(257);
      for (let i = 0; i < n; i++) start[chrom[i] + 1]++;
      for (let c = 1; c <= 256; c++) start[c] += start[c - 1];
      const next = start.slice(0, 256);
      const keys = new Float64Array(n);
      for (let i = 0; i < n; i++) keys[next[chrom[i]]++] = pos[i] * INDEX_SPAN + i;
      for (let c = 0; c < 256; c++) {
        if (start[c + 1] - start[c] > 1) keys.subarray(start[c], start[c + 1]).sort();
      }
      for (let j = 0; j < n; j++) order[j] = keys[j] % INDEX_SPAN;
    }
    this.byPosition = order;
    return order;
  }
}

/** Seals bytes with AES-256-GCM under a 32-byte key (random IV; see the header for the layout). */
export function encryptGenome(plain: Buffer, key: Buffer): Buffer {
  if (key.length !== 32) throw new Error('The DNA key must be 32 bytes');
  const iv = randomBytes(IV_BYTES);
  const version = Buffer.from([SEAL_VERSION]);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.concat([version, AAD]));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([version, iv, cipher.getAuthTag(), body]);
}

/** Opens sealed bytes; throws when the key is wrong or any byte was changed. */
export function decryptGenome(sealed: Buffer, key: Buffer): Buffer {
  if (key.length !== 32) throw new Error('The DNA key must be 32 bytes');
  if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== SEAL_VERSION) {
    throw new Error('The sealed genome is not in a known layout');
  }
  const iv = sealed.subarray(1, 1 + IV_BYTES);
  const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(Buffer.concat([sealed.subarray(0, 1), AAD]));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([
      decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)),
      decipher.final(),
    ]);
  } catch {
    throw new Error('The sealed genome cannot be opened: wrong key or altered bytes');
  }
}

/** What genomeKey reads of the configuration. */
export interface GenomeKeyConfig {
  /** the data folder (the generated key lives in DATA_DIR/secrets/dna.key) */
  DATA_DIR: string;
  /** 32 bytes as 64 hex digits or base64 (url-safe too); unset: the generated key file */
  DNA_ENCRYPTION_KEY?: string;
}

/** 32 key bytes from hex or base64 text, or null. */
function keyBytes(text: string): Buffer | null {
  const t = text.trim();
  if (/^[0-9a-f]{64}$/i.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const b = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return b.length === 32 ? b : null;
  }
  return null;
}

/**
 * The AES-256 key for genomes: DNA_ENCRYPTION_KEY when set (hex or base64 of 32 bytes), else the
 * key in DATA_DIR/secrets/dna.key, created once (mode 0600) and reused.
 * NOTE: an unreadable key file throws; it is never replaced, or every sealed genome would be lost.
 */
export function genomeKey(config: GenomeKeyConfig): Buffer {
  if (config.DNA_ENCRYPTION_KEY) {
    const key = keyBytes(config.DNA_ENCRYPTION_KEY);
    if (!key) throw new Error('DNA_ENCRYPTION_KEY must be 32 bytes as 64 hex digits or base64');
    return key;
  }
  const dir = path.join(config.DATA_DIR, 'secrets');
  const file = path.join(dir, 'dna.key');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!existsSync(file)) {
    // written whole beside it, then linked: a link never replaces a file, so two processes
    // starting at once agree on one key and neither reads a half-written one
    const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(tmp, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
    chmodSync(tmp, 0o600);
    try {
      linkSync(tmp, file);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      unlinkSync(tmp);
    }
  }
  const key = keyBytes(readFileSync(file, 'utf8'));
  if (!key) throw new Error(`${file} does not hold a 32-byte key (base64); it is left as it is`);
  return key;
}
