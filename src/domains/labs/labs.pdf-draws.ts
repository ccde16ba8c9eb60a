/**
 * What pdf.js would interpret to read a PDF's text (issue 45), measured from the decoded streams
 * before pdf.js sees the file: the form XObjects drawn and the bytes of content read. Each page's
 * content streams (and each Type 3 font's glyph procedures) are read once; each `/Name Do` in them
 * draws the XObject the name resolves to in the drawer's resources, and a form drawn is its own
 * content read again, with its own draws (pdf.js caches, for text, only forms that drew nothing).
 * A form that draws the next form ten times, eight forms deep, is 10^8 draws in 2.6 KB and held
 * pdf.js for hours; 48 MiB of `(x) Tj` compressed into 0.3 MB is 7 million operators.
 *
 * A lab report draws a few forms a page (a logo, a header) and holds some 50-200 KB of content a
 * page: the bounds (labs.pdf-scan.ts: 10,000 form draws and 16 MB of content in the document)
 * are far above it, and the largest content within them is read in seconds.
 *
 * Over-approximated where it cannot be exact, never under: a name is resolved against the
 * drawer's own resources (a form's /Resources, a page's, inherited from its parents), else
 * against every XObject resource dictionary of the file, the worst target counting; a cycle or
 * forms nested deeper than `MAX_NESTING` count as unbounded. `Do` is counted in every stream (a
 * stream's dictionary cannot say it is not content: a page may name any stream as its contents).
 *
 * It must never recurse deeper than `MAX_NESTING` and never keep a stream's bytes.
 */
import { PdfRef, nameOf } from './labs.pdf-objects.ts';
import type { PdfDict, PdfObjects, PdfValue } from './labs.pdf-objects.ts';

/** Forms nested deeper than this count as unbounded. */
const MAX_NESTING = 32;

/** `/Name Do` in content: the name's characters up to white space, then the operator. */
const DO = /\/([^\0\t\n\f\r ()<>[\]{}/%]*)[\0\t\n\f\r ]+Do(?=[\0\t\n\f\r ()<>[\]{}/%]|$)/g;

/** A stream's `Do` operators, counted by XObject name (#xx escapes decoded). */
export function countDraws(content: Uint8Array): Map<string, number> {
  const counts = new Map<string, number>();
  const text = Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString(
    'latin1',
  );
  if (!text.includes('Do')) return counts;
  for (const m of text.matchAll(DO)) {
    const name = m[1].replace(/#([0-9a-fA-F]{2})/g, (_, h: string) =>
      String.fromCharCode(parseInt(h, 16)),
    );
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/** What reading the text costs: form draws and content bytes (Infinity when unbounded). */
export interface DrawCost {
  formDraws: number;
  contentBytes: number;
}

/** A stream as recorded: its decoded size and its draws by name (largest over its readings). */
interface Recorded {
  size: number;
  counts: Map<string, number>;
  /** its own XObject resources when it is a form with /Resources, else null */
  own: Map<string, number> | null;
}

const NONE: DrawCost = { formDraws: 0, contentBytes: 0 };

function add(a: DrawCost, b: DrawCost, times = 1): DrawCost {
  return {
    formDraws: a.formDraws + times * b.formDraws,
    contentBytes: a.contentBytes + times * b.contentBytes,
  };
}

/** The drawing of one file: streams recorded as they are decoded, then `measure()`. */
export class Drawing {
  private readonly streams = new Map<number, Recorded>();
  private readonly forms = new Set<number>();
  private readonly memo = new Map<number, DrawCost>();
  /** every XObject resource name of the file and the objects it names (filled by measure) */
  private readonly named = new Map<string, Set<number>>();

  constructor(private readonly objects: PdfObjects) {}

  /** Records one reading of stream `num` (its decoded content, or its size alone for an image). */
  record(num: number, dict: PdfDict, size: number, content: Uint8Array | null): void {
    const counts = content ? countDraws(content) : new Map<string, number>();
    const known = this.streams.get(num);
    if (this.nameIn(dict, 'Subtype') === 'Form') this.forms.add(num);
    if (!known) {
      const own = this.xobjects(this.objects.resolve(dict.get('Resources')));
      this.streams.set(num, { size, counts, own });
      return;
    }
    known.size = Math.max(known.size, size);
    for (const [name, n] of counts)
      known.counts.set(name, Math.max(n, known.counts.get(name) ?? 0));
  }

  /** A dictionary's entry as a name, a reference to one resolved. */
  private nameIn(dict: PdfDict, key: string): string | null {
    return nameOf(this.objects.resolve(dict.get(key)));
  }

  /** A resource dictionary's /XObject entries as name to object number, or null. */
  private xobjects(resources: PdfValue | undefined): Map<string, number> | null {
    const xobject =
      resources instanceof Map ? this.objects.resolve(resources.get('XObject')) : null;
    if (!(xobject instanceof Map)) return null;
    const out = new Map<string, number>();
    for (const [name, ref] of xobject) if (ref instanceof PdfRef) out.set(name, ref.num);
    return out;
  }

  /** The resources a page draws with: its own, or its nearest parent's. */
  private pageResources(page: PdfDict): Map<string, number> | null {
    let node: PdfValue | undefined = page;
    for (let i = 0; i < MAX_NESTING && node instanceof Map; i++) {
      const own = this.xobjects(this.objects.resolve(node.get('Resources')));
      if (own) return own;
      node = this.objects.resolve(node.get('Parent'));
    }
    return null;
  }

  /** The object numbers a value names: a reference, or an array of them. */
  private refsIn(v: PdfValue | undefined): number[] {
    if (v instanceof PdfRef) return [v.num];
    const list = this.objects.resolve(v);
    return Array.isArray(list) ? list.filter((x) => x instanceof PdfRef).map((x) => x.num) : [];
  }

  /** The streams read once each, with the resources they draw with: pages' contents, Type 3 glyphs. */
  private roots(): { num: number; resources: Map<string, number> | null }[] {
    const roots: { num: number; resources: Map<string, number> | null }[] = [];
    for (const header of this.objects.all()) {
      const v = this.objects.valueAt(header);
      if (!(v instanceof Map)) continue;
      for (const map of [
        this.xobjects(this.objects.resolve(v.get('Resources'))),
        this.xobjects(v),
      ]) {
        for (const [name, num] of map ?? []) {
          this.named.set(name, (this.named.get(name) ?? new Set<number>()).add(num));
        }
      }
      if (this.nameIn(v, 'Type') === 'Page') {
        const resources = this.pageResources(v);
        for (const num of this.refsIn(v.get('Contents'))) roots.push({ num, resources });
      }
      const type3 = this.nameIn(v, 'Subtype') === 'Type3';
      const procs = type3 ? this.objects.resolve(v.get('CharProcs')) : null;
      if (procs instanceof Map) {
        const resources = this.xobjects(this.objects.resolve(v.get('Resources')));
        for (const ref of procs.values())
          for (const num of this.refsIn(ref)) roots.push({ num, resources });
      }
    }
    return roots;
  }

  /** Drawing form `num` once: its content and everything it draws. */
  private formCost(num: number, depth: number): DrawCost {
    if (!this.forms.has(num)) return NONE;
    const known = this.memo.get(num);
    if (known) return known;
    const unbounded = { formDraws: Infinity, contentBytes: Infinity };
    if (depth > MAX_NESTING) return unbounded;
    // a cycle reads as unbounded until this form is done
    this.memo.set(num, unbounded);
    const stream = this.streams.get(num);
    const self = { formDraws: 1, contentBytes: stream?.size ?? 0 };
    const cost = stream ? add(self, this.drawnBy(stream, stream.own, depth)) : self;
    this.memo.set(num, cost);
    return cost;
  }

  /** What a stream's `Do` operators draw, its names resolved in `resources` (else anywhere). */
  private drawnBy(
    stream: Recorded,
    resources: Map<string, number> | null,
    depth: number,
  ): DrawCost {
    let cost = NONE;
    for (const [name, n] of stream.counts) {
      const targets = resources ? [resources.get(name)] : [...(this.named.get(name) ?? [])];
      const worst = { ...NONE };
      for (const t of targets) {
        const c = t === undefined ? NONE : this.formCost(t, depth + 1);
        worst.formDraws = Math.max(worst.formDraws, c.formDraws);
        worst.contentBytes = Math.max(worst.contentBytes, c.contentBytes);
      }
      cost = add(cost, worst, n);
    }
    return cost;
  }

  /** The form draws and content bytes of reading the whole file's text. */
  measure(): DrawCost {
    let cost = NONE;
    for (const root of this.roots()) {
      const stream = this.streams.get(root.num);
      if (!stream) continue;
      cost = add(cost, { formDraws: 0, contentBytes: stream.size });
      cost = add(cost, this.drawnBy(stream, root.resources, 0));
    }
    return cost;
  }
}
