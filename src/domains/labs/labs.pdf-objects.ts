/**
 * A PDF's objects read from its raw bytes, as far as a bound on its streams needs them (issue 45):
 * the `N G obj` headers found anywhere in the file, the dictionaries and values after them (names,
 * numbers, strings, arrays, dictionaries, references), each stream's first data byte and last one
 * as pdf.js would take them, and the trailers (the `trailer` dictionaries and the cross-reference
 * streams' dictionaries).
 *
 * Why its own reader: the bound is checked before pdf.js sees the file (labs.pdf-scan.ts), and
 * pdf.js exposes no stream API. Every header in the file is indexed, including ones inside another
 * stream's data, so a stream the cross-reference table hides is still found (pdf.js rebuilds a
 * broken table by the same search); a false header inside binary data is simply not a stream.
 *
 * It must never throw on any input (a value it cannot read is `undefined`), never recurse deeper
 * than `MAX_DEPTH`, and never copy the file.
 */

/** A name object (`/FlateDecode`), its `#xx` escapes decoded. */
export class PdfName {
  constructor(readonly name: string) {}
}

/** An indirect reference (`12 0 R`). */
export class PdfRef {
  constructor(
    readonly num: number,
    readonly gen: number,
  ) {}
}

/** A keyword other than true, false and null (`stream`, `endobj`, `R` alone...). */
class PdfKeyword {
  constructor(readonly word: string) {}
}

/** A dictionary: keys without their slash. */
export type PdfDict = Map<string, PdfValue>;

/** A value as read: strings are their bytes. */
export type PdfValue =
  | number
  | boolean
  | null
  | PdfName
  | PdfRef
  | Uint8Array
  | PdfValue[]
  | PdfDict;

/** Nesting of arrays and dictionaries read; deeper is not a value. */
const MAX_DEPTH = 32;

const WHITE = new Uint8Array(256);
for (const c of [0, 9, 10, 12, 13, 32]) WHITE[c] = 1;
const DELIMITER = new Uint8Array(256);
for (const c of '()<>[]{}/%') DELIMITER[c.charCodeAt(0)] = 1;

/** `\n`, `\r`, `\t`, `\b`, `\f` in a literal string. */
const ESCAPES: Record<number, number> = { 110: 10, 114: 13, 116: 9, 98: 8, 102: 12 };

/** True when `c` is part of a token (not white space, not a delimiter, not the end). */
function regular(c: number | undefined): boolean {
  return c !== undefined && !WHITE[c] && !DELIMITER[c];
}

function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  if (c >= 65 && c <= 70) return c - 55;
  if (c >= 97 && c <= 102) return c - 87;
  return -1;
}

/** Reads values from `pos` on. */
class ValueReader {
  constructor(
    readonly b: Uint8Array,
    public pos: number,
  ) {}

  /** Skips white space and comments. */
  skip(): void {
    const b = this.b;
    while (this.pos < b.length) {
      const c = b[this.pos];
      if (WHITE[c]) this.pos++;
      else if (c === 37) {
        while (this.pos < b.length && b[this.pos] !== 10 && b[this.pos] !== 13) this.pos++;
      } else return;
    }
  }

  /** True when the next token is `word` (and not the start of a longer one). */
  at(word: string): boolean {
    this.skip();
    for (let i = 0; i < word.length; i++) {
      if (this.b[this.pos + i] !== word.charCodeAt(i)) return false;
    }
    return !regular(this.b[this.pos + word.length]);
  }

  /** The next value, or undefined at a closing bracket, the end, or too deep. */
  value(depth = 0): PdfValue | PdfKeyword | undefined {
    if (depth > MAX_DEPTH) return undefined;
    this.skip();
    const b = this.b;
    const c = b[this.pos];
    if (c === undefined) return undefined;
    if (c === 47) return this.name();
    if (c === 40) return this.literal();
    if (c === 60 && b[this.pos + 1] === 60) return this.dict(depth);
    if (c === 60) return this.hex();
    if (c === 91) return this.array(depth);
    if (c === 41 || c === 62 || c === 93 || c === 123 || c === 125) return undefined;
    return this.token();
  }

  private token(): PdfValue | PdfKeyword | undefined {
    const start = this.pos;
    while (regular(this.b[this.pos])) this.pos++;
    const word = Buffer.from(this.b.buffer, this.b.byteOffset + start, this.pos - start).toString(
      'latin1',
    );
    if (!word) {
      this.pos++;
      return undefined;
    }
    if (word === 'true') return true;
    if (word === 'false') return false;
    if (word === 'null') return null;
    if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(word)) return new PdfKeyword(word);
    const n = Number(word);
    return /^\d+$/.test(word) ? (this.reference(n) ?? n) : n;
  }

  /** `n g R` after the integer n, or null (the position left after n). */
  private reference(num: number): PdfRef | null {
    const after = this.pos;
    this.skip();
    const start = this.pos;
    while (this.b[this.pos] >= 48 && this.b[this.pos] <= 57) this.pos++;
    if (this.pos > start && this.at('R')) {
      const gen = Number(Buffer.from(this.b.subarray(start, this.pos)).toString('latin1'));
      this.pos += 1;
      return new PdfRef(num, gen);
    }
    this.pos = after;
    return null;
  }

  private name(): PdfName {
    const b = this.b;
    this.pos++;
    const bytes: number[] = [];
    while (regular(b[this.pos])) {
      const c = b[this.pos++];
      const hi = c === 35 ? hexDigit(b[this.pos]) : -1;
      const lo = hi >= 0 ? hexDigit(b[this.pos + 1]) : -1;
      if (lo >= 0) {
        bytes.push(hi * 16 + lo);
        this.pos += 2;
      } else bytes.push(c);
    }
    return new PdfName(Buffer.from(bytes).toString('latin1'));
  }

  private literal(): Uint8Array {
    const b = this.b;
    const out: number[] = [];
    let depth = 1;
    this.pos++;
    while (this.pos < b.length) {
      const c = b[this.pos++];
      if (c === 40) depth++;
      else if (c === 41 && --depth === 0) break;
      if (c !== 92) {
        out.push(c);
        continue;
      }
      this.escape(out);
    }
    return Uint8Array.from(out);
  }

  /** One escape after a backslash in a literal string. */
  private escape(out: number[]): void {
    const b = this.b;
    const e = b[this.pos++];
    if (e === undefined) return;
    if (ESCAPES[e] !== undefined) out.push(ESCAPES[e]);
    else if (e >= 48 && e <= 55) {
      let v = e - 48;
      for (let i = 0; i < 2 && b[this.pos] >= 48 && b[this.pos] <= 55; i++) {
        v = v * 8 + (b[this.pos++] - 48);
      }
      out.push(v & 255);
    } else if (e === 13) {
      if (b[this.pos] === 10) this.pos++;
    } else if (e !== 10) out.push(e);
  }

  private hex(): Uint8Array {
    const b = this.b;
    const out: number[] = [];
    let high = -1;
    this.pos++;
    while (this.pos < b.length && b[this.pos] !== 62) {
      const d = hexDigit(b[this.pos++]);
      if (d < 0) continue;
      if (high < 0) high = d;
      else {
        out.push(high * 16 + d);
        high = -1;
      }
    }
    this.pos++;
    if (high >= 0) out.push(high * 16);
    return Uint8Array.from(out);
  }

  private array(depth: number): PdfValue[] {
    const items: PdfValue[] = [];
    this.pos++;
    for (;;) {
      this.skip();
      if (this.b[this.pos] === 93) {
        this.pos++;
        return items;
      }
      const before = this.pos;
      const v = this.value(depth + 1);
      if (this.pos >= this.b.length || (v === undefined && this.pos === before)) return items;
      if (v !== undefined && !(v instanceof PdfKeyword)) items.push(v);
    }
  }

  private dict(depth: number): PdfDict {
    const map: PdfDict = new Map();
    this.pos += 2;
    for (;;) {
      this.skip();
      if (this.b[this.pos] === 62 && this.b[this.pos + 1] === 62) {
        this.pos += 2;
        return map;
      }
      const before = this.pos;
      const key = this.value(depth + 1);
      if (this.pos >= this.b.length || this.pos === before) return map;
      if (!(key instanceof PdfName)) continue;
      const v = this.value(depth + 1);
      map.set(key.name, v === undefined || v instanceof PdfKeyword ? null : v);
    }
  }
}

/** A stream as pdf.js would read it: its object, dictionary and data. */
export interface PdfStream {
  num: number;
  gen: number;
  dict: PdfDict;
  /** the first data byte (after `stream` and its end of line) */
  start: number;
  /**
   * one past the last data byte: by /Length where `endstream` follows it, else the next
   * `endstream`, else (a /Length that cannot be resolved here) the end of the file
   */
  end: number;
}

/** Where an object starts: in the file, or in an object stream's decoded bytes. */
export interface PdfHeader {
  num: number;
  gen: number;
  /** the bytes it is read from (the file, or a decoded object stream) */
  bytes: Uint8Array;
  /** just after `obj` (in the file), or the object's first byte (in an object stream) */
  at: number;
}

const HEADER = /(\d{1,10})[\0\t\n\f\r ]+(\d{1,5})[\0\t\n\f\r ]+obj(?=[\0\t\n\f\r ()<>[\]{}/%]|$)/g;

/** The objects of a file found by their headers, with references resolved among them. */
export class PdfObjects {
  readonly headers: PdfHeader[] = [];
  private readonly byNum = new Map<number, PdfHeader>();
  private readonly text: string;
  /** where each `endstream` keyword starts, ascending */
  private readonly endstreams: number[] = [];

  constructor(readonly bytes: Uint8Array) {
    this.text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
    for (
      let at = this.text.indexOf('endstream');
      at !== -1;
      at = this.text.indexOf('endstream', at + 9)
    ) {
      this.endstreams.push(at);
    }
    for (const m of this.text.matchAll(HEADER)) {
      const header = { num: Number(m[1]), gen: Number(m[2]), bytes, at: m.index + m[0].length };
      this.headers.push(header);
      // the last definition of a number wins, as an incremental update replaces an object
      this.byNum.set(header.num, header);
    }
  }

  /** Objects found in decoded object streams (never streams themselves). */
  readonly compressed: PdfHeader[] = [];

  /** The value after a header. */
  valueAt(header: PdfHeader): PdfValue | undefined {
    const v = new ValueReader(header.bytes, header.at).value();
    return v instanceof PdfKeyword ? undefined : v;
  }

  /**
   * Adds the objects of an object stream (`dict` its dictionary, `content` its decoded bytes), so
   * references into it resolve: its header is /N pairs of object number and offset from /First.
   */
  addObjectStream(dict: PdfDict, content: Uint8Array): void {
    const n = this.resolve(dict.get('N'));
    const first = this.resolve(dict.get('First'));
    if (typeof n !== 'number' || typeof first !== 'number' || first < 0) return;
    const reader = new ValueReader(content.subarray(0, first), 0);
    for (let i = 0; i < Math.min(n, 100_000); i++) {
      const num = reader.value();
      const offset = reader.value();
      if (typeof num !== 'number' || typeof offset !== 'number') return;
      const header = { num, gen: 0, bytes: content, at: first + offset };
      this.compressed.push(header);
      // an object in the file itself stays the one resolved (a later update rewrites it there)
      if (!this.byNum.has(num)) this.byNum.set(num, header);
    }
  }

  /** Every object's header: in the file, then in object streams. */
  all(): PdfHeader[] {
    return [...this.headers, ...this.compressed];
  }

  /** `v`, or the object it refers to (up to 8 references deep); undefined when not found here. */
  resolve(v: PdfValue | undefined): PdfValue | undefined {
    for (let hops = 0; v instanceof PdfRef && hops < 8; hops++) {
      const header = this.byNum.get(v.num);
      v = header ? this.valueAt(header) : undefined;
    }
    return v instanceof PdfRef ? undefined : v;
  }

  /** The stream whose header this is, or null when the object is not a stream. */
  streamAt(header: PdfHeader): PdfStream | null {
    if (header.bytes !== this.bytes) return null;
    const reader = new ValueReader(this.bytes, header.at);
    const dict = reader.value();
    if (!(dict instanceof Map) || !reader.at('stream')) return null;
    // pdf.js skips to the next line: past the first CR, LF or CR LF after the keyword
    let p = reader.pos + 6;
    const b = this.bytes;
    while (p < b.length && b[p] !== 10 && b[p] !== 13) p++;
    p += b[p] === 13 && b[p + 1] === 10 ? 2 : 1;
    const start = Math.min(p, b.length);
    return { num: header.num, gen: header.gen, dict, start, end: this.endOf(dict, start) };
  }

  private endOf(dict: PdfDict, start: number): number {
    const raw = dict.get('Length');
    const length = this.resolve(raw);
    if (typeof length === 'number' && Number.isInteger(length) && length >= 0) {
      const at = start + length;
      const r = new ValueReader(this.bytes, at);
      if (at <= this.bytes.length && r.at('endstream')) return at;
    } else if (raw instanceof PdfRef) {
      // stored where this reader cannot see (an object stream): assume the longest
      return this.bytes.length;
    }
    return this.nextEndstream(start);
  }

  /** The first `endstream` at or after `from`, else the end of the file. */
  private nextEndstream(from: number): number {
    const ends = this.endstreams;
    let lo = 0;
    let hi = ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ends[mid] < from) lo = mid + 1;
      else hi = mid;
    }
    return lo < ends.length ? ends[lo] : this.bytes.length;
  }

  /** The trailer dictionaries (`trailer <<...>>` and cross-reference streams), in file order. */
  trailers(): PdfDict[] {
    const found: { at: number; dict: PdfDict }[] = [];
    for (const m of this.text.matchAll(/trailer/g)) {
      const dict = new ValueReader(this.bytes, m.index + 7).value();
      if (dict instanceof Map) found.push({ at: m.index, dict });
    }
    for (const header of this.headers) {
      const dict = this.valueAt(header);
      const type = dict instanceof Map ? dict.get('Type') : undefined;
      if (dict instanceof Map && type instanceof PdfName && type.name === 'XRef') {
        found.push({ at: header.at, dict });
      }
    }
    return found.sort((x, y) => x.at - y.at).map((t) => t.dict);
  }
}

/** A dictionary's entry as a name, or null. */
export function nameOf(v: PdfValue | undefined): string | null {
  return v instanceof PdfName ? v.name : null;
}
