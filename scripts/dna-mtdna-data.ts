/**
 * Builds data/dna/mtdna/phylotree17.json (issue 35) from PhyloTree Build 17 as Haplogrep ships it
 * (genepi/haplogrep-core: resources/phylotree17.xml, resources/weights17.txt and the rCRS,
 * test-data/fasta/rCRS.fasta):
 *   npx tsx scripts/dna-mtdna-data.ts --core <haplogrep-core checkout> [--commit <sha>]
 * The XML is rooted at the rCRS (H2a2a1) and lists each haplogroup's changes relative to its XML
 * parent, so the lineage from the rCRS up to the mitochondrial Eve is written backwards. This
 * script works out every node's full state (its differences from the rCRS), re-roots the tree at
 * mt-MRCA and writes, for each node in true phylogenetic order, its parent and the mutations on
 * the branch above it ("G3010A": rCRS-position, ancestral and derived base; "C8281d" a deletion,
 * "-315.1C" an insertion). It copies no code; the data is PhyloTree's, with Haplogrep's weights.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

/** A node as read from the XML: its name, XML parent and the changes listed under it. */
interface XmlNode {
  name: string;
  parent: number;
  polys: string[];
}

/** A node's differences from the rCRS: position key ("3010", "315.1") to base, "d" or insertion. */
type State = Map<string, string>;

const { values } = parseArgs({
  options: {
    core: { type: 'string' },
    commit: { type: 'string' },
    out: { type: 'string', default: path.join('data', 'dna', 'mtdna', 'phylotree17.json') },
  },
});
if (!values.core) {
  console.error(
    'usage: tsx scripts/dna-mtdna-data.ts --core <haplogrep-core checkout> [--commit sha]',
  );
  process.exit(2);
}
const core = values.core;

/** The haplogroup elements of the XML in document order, each with its XML parent and polys. */
function readXml(text: string): XmlNode[] {
  const nodes: XmlNode[] = [];
  const open: number[] = [];
  const token = /<haplogroup name="([^"]+)">|<\/haplogroup>|<poly>([^<]+)<\/poly>/g;
  for (let m = token.exec(text); m; m = token.exec(text)) {
    if (m[1] !== undefined) {
      nodes.push({ name: m[1], parent: open.at(-1) ?? -1, polys: [] });
      open.push(nodes.length - 1);
    } else if (m[2] !== undefined) {
      nodes[open.at(-1)!].polys.push(m[2].trim());
    } else {
      open.pop();
    }
  }
  if (open.length !== 0) throw new Error('unbalanced <haplogroup> elements');
  return nodes;
}

/** The rCRS sequence from a FASTA file (16,569 bases). */
function readFasta(text: string): string {
  const seq = text
    .split('\n')
    .filter((l) => !l.startsWith('>'))
    .join('')
    .replace(/\s/g, '')
    .toUpperCase();
  if (seq.length !== 16569) throw new Error(`the rCRS has 16569 bases, this file ${seq.length}`);
  return seq;
}

const POLY = /^(\d+)(?:\.(\d+|X))?([ACGT]+|d)(!*)$/;

/** Applies one PhyloTree change to a state; a "!" reverts the position to the rCRS. */
function applyPoly(state: State, poly: string, rcrs: string): void {
  const m = POLY.exec(poly);
  if (!m) throw new Error(`unreadable polymorphism ${poly}`);
  const key = m[2] === undefined ? m[1] : `${m[1]}.${m[2]}`;
  if (m[4]) {
    state.delete(key);
    return;
  }
  const isInsertion = m[2] !== undefined;
  if (!isInsertion && m[3] === rcrs[Number(m[1]) - 1]) state.delete(key);
  else state.set(key, m[3]);
}

/** Every node's state, parents before children (the XML lists parents first). */
function states(nodes: XmlNode[], rcrs: string): State[] {
  const out: State[] = [];
  nodes.forEach((n, i) => {
    const s: State = new Map<string, string>(n.parent < 0 ? [] : out[n.parent]);
    for (const p of n.polys) applyPoly(s, p, rcrs);
    out[i] = s;
  });
  return out;
}

/** True parents after re-rooting at `root`: the XML path from the rCRS to it is reversed. */
function trueParents(nodes: XmlNode[], root: number): number[] {
  const parents = nodes.map((n) => n.parent);
  let child = root;
  let at = nodes[root].parent;
  parents[root] = -1;
  while (at >= 0) {
    const next = nodes[at].parent;
    parents[at] = child;
    child = at;
    at = next;
  }
  return parents;
}

/** The base of the rCRS at a position key, or "-" where the key is an insertion. */
const rcrsAt = (key: string, rcrs: string): string =>
  key.includes('.') ? '-' : rcrs[Number(key) - 1];

/** The changes from one state to another, by position ("G3010A", "C8281d", "-315.1C"). */
function diff(from: State, to: State, rcrs: string): string[] {
  const keys = new Set([...from.keys(), ...to.keys()]);
  const out: { pos: number; text: string }[] = [];
  for (const key of keys) {
    const a = from.get(key) ?? rcrsAt(key, rcrs);
    const b = to.get(key) ?? rcrsAt(key, rcrs);
    if (a !== b) out.push({ pos: Number.parseFloat(key), text: `${a}${key}${b}` });
  }
  return out.sort((x, y) => x.pos - y.pos).map((x) => x.text);
}

/** Node indexes in depth-first order from the root, so that every parent precedes its children. */
function order(parents: number[], root: number): number[] {
  const children = parents.map((): number[] => []);
  parents.forEach((p, i) => {
    if (p >= 0) children[p].push(i);
  });
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const i = stack.pop()!;
    out.push(i);
    for (let c = children[i].length - 1; c >= 0; c--) stack.push(children[i][c]);
  }
  if (out.length !== parents.length) throw new Error('the re-rooted tree is not connected');
  return out;
}

/** Haplogrep's phylogenetic weights ("152C\t1.0\t..."), without the back-mutation rows. */
function readWeights(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split('\n')) {
    const [poly, weight] = line.split('\t');
    if (!poly || poly.endsWith('!')) continue;
    out[poly.trim()] = Number(weight);
  }
  return out;
}

const rcrs = readFasta(readFileSync(path.join(core, 'test-data', 'fasta', 'rCRS.fasta'), 'utf8'));
const nodes = readXml(readFileSync(path.join(core, 'resources', 'phylotree17.xml'), 'utf8'));
const weights = readWeights(readFileSync(path.join(core, 'resources', 'weights17.txt'), 'utf8'));
const nodeStates = states(nodes, rcrs);
const root = nodes.findIndex((n) => n.name === 'mt-MRCA');
if (root < 0) throw new Error('no mt-MRCA node');
const parents = trueParents(nodes, root);
const ids = order(parents, root);
const indexOf = new Map(ids.map((id, i) => [id, i]));

const out = {
  format: 1,
  source: {
    tree: 'PhyloTree Build 17 (van Oven & Kayser 2009; Build 17, 18 Feb 2016), as shipped by Haplogrep',
    repository: 'https://github.com/genepi/haplogrep-core',
    commit: values.commit ?? null,
    files: ['resources/phylotree17.xml', 'resources/weights17.txt', 'test-data/fasta/rCRS.fasta'],
    reference: 'rCRS, GenBank NC_012920.1 (Andrews et al. 1999)',
    notation:
      'mutations: ancestral base, rCRS position, derived base; d a deletion, "-" no base (insertions)',
  },
  rcrs,
  root: 'mt-MRCA',
  rootState: diff(new Map(), nodeStates[root], rcrs),
  nodes: ids.map((id) => [
    nodes[id].name,
    parents[id] < 0 ? -1 : indexOf.get(parents[id])!,
    parents[id] < 0 ? '' : diff(nodeStates[parents[id]], nodeStates[id], rcrs).join(' '),
  ]),
  weights,
};
writeFileSync(values.out, `${JSON.stringify(out)}\n`);
console.error(`${values.out}: ${ids.length} nodes, ${Object.keys(weights).length} weights`);
