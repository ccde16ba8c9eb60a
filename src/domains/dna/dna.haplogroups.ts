/**
 * Deep-time haplogroups (issue 35), pure: the maternal line from PhyloTree Build 17 scored the way
 * Haplogrep scores it, and the paternal line from a small curated backbone of major Y clades, with
 * YFull's ages. Nothing here reads the database or a person's stored genome: the caller passes the
 * MT observations (`mtObservations` turns `GenomeIndex.markers('MT')` into them) and a CallLookup.
 *
 * mtDNA: every node's expected variants are its differences from the rCRS; a node is scored by the
 * Kulczynski measure of Haplogrep 2 (Weissensteiner et al. 2016) over phylogenetic weights: half
 * the weight of expected variants found among those expected, half among the variants the file
 * shows. Only positions the file tested take part, so a position an array never read counts
 * neither for nor against a branch; heteroplasmic calls and no-calls are not read at all. A branch
 * whose defining positions were all untested cannot be told from its parent and is not offered.
 *
 * Y: the deepest backbone clade with a derived call, taking the path from the root that the calls
 * support best; ancestral calls on that path and derived calls off it are answered as conflicts.
 *
 * Support (issue 46): the best fit is only named when the file corroborates it. The path from the
 * root to it is read level by level (an mtDNA branch, a Y backbone clade with an SNP); a level is
 * confirmed when most of its tested positions read derived, contradicted when they do not, and
 * untested when none was read. A node is supported when its level is confirmed and, counting it,
 * at least `required` levels (MT 3, Y 2) are confirmed in one run above it, no two of them more
 * than two untested levels apart and no contradicted level between them. The answer is "called"
 * when the best fit itself is supported (MT: and its quality is above 0.8, Haplogrep's "low"),
 * "partial" when only a node above it is (that node is the answer), else "not_determined", each
 * with the levels that were confirmed, untested and contradicted.
 *
 * It must never present a haplogroup as ethnicity or as a health finding, never name a branch
 * deeper than the tested positions support, and never answer a Y line for a woman.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { fromRoot } from '../../base/paths.ts';
import type { CallLookup } from './dna.types.ts';
import type { GenomeMarker } from './dna.store.ts';

// ---------------------------------------------------------------------------------------------
// shapes answered

/** One MT reading: an rCRS position and the call there ("A", "AA"; "AG" and "--" are not read). */
export interface MtObservation {
  position: number;
  allele: string;
}

/** A haplogroup scored against the observations. */
export interface MtCandidate {
  haplogroup: string;
  /** Haplogrep's Kulczynski measure, 0..1 (1: every expected variant found, nothing unexplained) */
  quality: number;
  /** the haplogroup's variants (differences from the rCRS) at positions the file tested */
  expectedTested: number;
  /** of those, found in the file */
  found: number;
  /** expected at a tested position but not found ("3010A"; at most 50 listed) */
  missing: string[];
  /**
   * variants PhyloTree knows that the file shows and this haplogroup does not expect ("16519C";
   * at most 50 listed; variants the tree does not know weigh nothing and are not listed)
   */
  extra: string[];
  /** the haplogroup's variants at positions the file did not test (they count for nothing) */
  untestedExpected: number;
}

/** One branch on the way from the mitochondrial root to the best haplogroup. */
export interface MtPathStep {
  haplogroup: string;
  /** the mutations on the branch above it ("A769G"; "-315.1C" an insertion, "C8281d" a deletion) */
  mutations: string[];
  /**
   * of those, the readings that count for support: at positions the file tested, leaving out
   * PhyloTree's hotspots (positions whose variant recurs 60 or more times in the tree, Haplogrep
   * weight below 3: 146, 150, 152, 195, 16129, 16189, 16311, 16362) and mutations at a position
   * the path mutates again further down (read at that later branch)
   */
  tested: number;
  /** tested and carried */
  present: number;
  /** tested and not carried */
  absent: number;
}

/**
 * How far the file supports a line: the levels on the path from the root to the best fit (an
 * mtDNA branch, or a Y backbone clade with an SNP the arrays read) and what the file read there.
 */
export interface LineSupport {
  /** confirmed levels in the run that supports the answer (0 when nothing is supported) */
  levels: number;
  /** confirmed levels a node needs in one run, counting its own (MT 3, Y 2) */
  required: number;
  /** levels on the path from the root to the best fit */
  pathLevels: number;
  /** readings at those levels' defining positions (MT) or SNPs (Y) */
  testedPositions: number;
  /**
   * levels whose readings are mostly derived (Y: "BT" when the other side of the root split, B or
   * CT, reads ancestral; for A, B and CT both reading ancestral)
   */
  confirmedLevels: string[];
  /** levels with no reading */
  missingLevels: string[];
  /** levels whose readings are mostly not derived */
  contradictedLevels: string[];
}

/** The maternal line. */
export interface MtHaplogroupResult {
  /**
   * called: the best fit is supported; partial: only `deepestSupported`, above it, is;
   * not_determined: no node is (see reason); no_mt_data: no readable MT call
   */
  status: 'called' | 'partial' | 'not_determined' | 'no_mt_data';
  /** the best-scoring haplogroup (ties: the more general one); the answer only when called */
  best: MtCandidate | null;
  /** the answer: the deepest node on the best fit's path that the file supports, or null */
  deepestSupported: string | null;
  support: LineSupport;
  /** why the best fit is not called (null when called) */
  reason: string | null;
  path: MtPathStep[];
  /** the next best haplogroups */
  runnersUp: MtCandidate[];
  /** MT positions with a readable call */
  positionsTested: number;
  /** of those, where the call differs from the rCRS */
  variantsSeen: number;
  /** heteroplasmic, no-call, unreadable or conflicting readings left out */
  callsIgnored: number;
  tree: string;
  notes: string[];
}

/** An age with its 95% interval, years before present. */
export interface AgeEstimate {
  years: number;
  low: number;
  high: number;
}

/** YFull's ages of a clade. */
export interface YCladeAge {
  /** YFull's node */
  yfull: string;
  /** when the clade split from its parent's other lines */
  formed: AgeEstimate | null;
  /** the common ancestor of today's men of the clade */
  tmrca: AgeEstimate | null;
  source: string;
}

/** One backbone SNP as read in the file. */
export interface YSnpReading {
  clade: string;
  snp: string;
  rsid: string;
  call: string;
  state: 'derived' | 'ancestral' | 'unclear';
}

/** The paternal line. */
export interface YHaplogroupResult {
  /**
   * called: the best fit is supported; partial: only `clade`, above it, is; not_determined: no
   * clade is (see reason); no_y_data: a woman, or no call at the backbone SNPs
   */
  status: 'called' | 'partial' | 'no_y_data' | 'not_determined';
  /** the answer: the deepest backbone clade the calls support, or null */
  clade: string | null;
  /** the clade the derived calls point to (deeper than `clade` when partial), or null */
  bestFit: string | null;
  support: LineSupport;
  /** why the best fit is not called (null when called or without Y data) */
  reason: string | null;
  /** backbone clades from the root to it */
  path: string[];
  /** derived calls on that path */
  derivedSupport: number;
  /** ancestral calls on that path (conflicts) */
  ancestralOnPath: number;
  /** backbone SNPs with a call in the file */
  snpsTested: number;
  /** child clades the calls rule out (their SNPs read ancestral) */
  notIn: string[];
  /** readings that disagree with the answer: ancestral on the path, derived off it, unclear */
  conflicts: YSnpReading[];
  age: YCladeAge | null;
  notes: string[];
}

/** Both lines, with what they mean. */
export interface DeepTimeReport {
  maternal: MtHaplogroupResult;
  paternal: YHaplogroupResult;
  notes: string[];
  /** attribution of the shipped data */
  sources: string[];
}

/** What deepTimeReport reads. */
export interface DeepTimeInput {
  /** MT readings by rCRS position (mtObservations of the stored genome) */
  mt: MtObservation[];
  /** calls by rsID (the Y backbone) */
  calls: CallLookup;
  /** the sex told from the file (GenomeSummary.sex) */
  sex: 'female' | 'male' | null;
}

// ---------------------------------------------------------------------------------------------
// the shipped mtDNA tree

/** A mutation on a branch: rCRS position (null for an insertion), ancestral and derived base. */
interface MtMutation {
  position: number | null;
  from: string;
  to: string;
  text: string;
}

interface MtTree {
  rcrs: string;
  /** positions with a variant of Haplogrep weight below MIN_SUPPORT_WEIGHT: no support there */
  hotspots: Set<number>;
  names: string[];
  parent: Int32Array;
  depth: Int32Array;
  edges: MtMutation[][];
  rootState: MtMutation[];
  weights: Map<string, number>;
  byName: Map<string, number>;
}

const MT_PATH = fromRoot('data', 'dna', 'mtdna', 'phylotree17.json');
const MUTATION = /^([ACGTd-]+?)(\d+)(\.(?:\d+|X))?([ACGTd-]+)$/;
/** Runners-up answered. */
const RUNNERS_UP = 5;
/** Most missing or extra variants listed per haplogroup. */
const MAX_LISTED = 50;
/** Scores closer than this are ties. */
const EPSILON = 1e-9;
/**
 * Haplogrep weight below which a variant neither confirms nor contradicts a branch: it recurs 60
 * or more times in PhyloTree 17 (152C, 16311C, 146C, 195C, 16189C, 16362C, 16129A, 150T), so a
 * reading there says little about which branch a person is on (it still counts in the score).
 */
const MIN_SUPPORT_WEIGHT = 3;

/** A mutation as written by scripts/dna-mtdna-data.ts ("G3010A", "C8281d", "-315.1C"). */
function parseMutation(text: string): MtMutation {
  const m = MUTATION.exec(text);
  if (!m) throw new Error(`phylotree17.json: unreadable mutation ${text}`);
  return { position: m[3] ? null : Number(m[2]), from: m[1], to: m[4], text };
}

const MtFileSchema = z.object({
  format: z.literal(1),
  rcrs: z.string().length(16569),
  root: z.string(),
  rootState: z.array(z.string()),
  nodes: z.array(z.tuple([z.string(), z.number().int(), z.string()])).min(1),
  weights: z.record(z.string(), z.number()),
});

let mtTree: MtTree | undefined;

/** The tree, read once (throws when the shipped file does not validate). */
function loadMtTree(): MtTree {
  if (mtTree) return mtTree;
  const file = MtFileSchema.parse(JSON.parse(readFileSync(MT_PATH, 'utf8')));
  const n = file.nodes.length;
  const parent = new Int32Array(n);
  const depth = new Int32Array(n);
  const edges: MtMutation[][] = [];
  file.nodes.forEach(([, p, muts], i) => {
    if (p >= i || (p < 0 && i !== 0)) throw new Error('phylotree17.json: nodes out of order');
    parent[i] = p;
    depth[i] = p < 0 ? 0 : depth[p] + 1;
    edges.push(muts ? muts.split(' ').map(parseMutation) : []);
  });
  const hotspots = Object.entries(file.weights)
    .filter(([, w]) => w < MIN_SUPPORT_WEIGHT)
    .map(([variant]) => Number.parseInt(variant, 10));
  mtTree = {
    rcrs: file.rcrs,
    hotspots: new Set(hotspots),
    names: file.nodes.map(([name]) => name),
    parent,
    depth,
    edges,
    rootState: file.rootState.map(parseMutation),
    weights: new Map(Object.entries(file.weights)),
    byName: new Map(file.nodes.map(([name], i) => [name, i])),
  };
  return mtTree;
}

/** The base of the rCRS at a position (1-based). */
const rcrsBase = (tree: MtTree, position: number): string => tree.rcrs[position - 1] ?? 'N';

/** Haplogrep's weight of a variant ("3010A"); 0 for one PhyloTree does not list. */
const weightOf = (tree: MtTree, position: number, allele: string): number =>
  tree.weights.get(`${position}${allele}`) ?? 0;

// ---------------------------------------------------------------------------------------------
// support along a path (issue 46)

/** Confirmed branches an mtDNA haplogroup needs in one run, counting its own. */
const MT_REQUIRED = 3;
/** Confirmed backbone clades a Y clade needs in one run, counting its own. */
const Y_REQUIRED = 2;
/** Untested levels a run of confirmed levels may bridge between two of them. */
const MAX_GAP = 2;
/** Haplogrep marks a fit of quality 0.8 or below as low (red): such a fit is not called. */
const MIN_QUALITY = 0.8;

/** One level on a path from the root: its readings, and how many agree with the path. */
interface SupportLevel {
  name: string;
  tested: number;
  agree: number;
}

type LevelState = 'confirmed' | 'contradicted' | 'untested';

/** Confirmed when most readings agree, contradicted when most (or half) do not. */
const levelState = (l: SupportLevel): LevelState =>
  l.tested === 0 ? 'untested' : l.agree > l.tested - l.agree ? 'confirmed' : 'contradicted';

/**
 * The deepest supported level (its index, or -1) and the confirmed levels of its run. A run starts
 * at a confirmed level and goes on through confirmed levels at most MAX_GAP untested levels
 * apart; a contradicted level or a longer gap ends it, and the next confirmed level starts anew.
 */
function walkSupport(levels: SupportLevel[], required: number): { deepest: number; run: number } {
  let run = 0;
  let gap = 0;
  let deepest = -1;
  let deepestRun = 0;
  levels.forEach((level, k) => {
    const state = levelState(level);
    if (state === 'contradicted') {
      run = 0;
    } else if (state === 'untested') {
      gap++;
    } else {
      run = run > 0 && gap <= MAX_GAP ? run + 1 : 1;
      gap = 0;
      if (run >= required) [deepest, deepestRun] = [k, run];
    }
  });
  return { deepest, run: deepestRun };
}

/** The support of the answer over the levels of the best fit's path. */
function supportOf(levels: SupportLevel[], walk: { run: number }, required: number): LineSupport {
  const named = (state: LevelState): string[] =>
    levels.filter((l) => levelState(l) === state).map((l) => l.name);
  return {
    levels: walk.run,
    required,
    pathLevels: levels.length,
    testedPositions: levels.reduce((n, l) => n + l.tested, 0),
    confirmedLevels: named('confirmed'),
    missingLevels: named('untested'),
    contradictedLevels: named('contradicted'),
  };
}

/** A list in words: "A, B and C". */
function listed(names: string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * Why a best fit is not called, in words: what a named node needs, and what was confirmed,
 * untested and contradicted on the best fit's path.
 */
function supportReason(o: {
  best: string;
  answer: string | null;
  support: LineSupport;
  /** what a level is: ["branch", "branches"] (MT) or ["backbone clade", "backbone clades"] (Y) */
  level: [string, string];
  /** "50 mitochondrial positions" */
  tested: string;
  /** said when the best fit is supported but fits poorly */
  lowQuality?: string;
}): string {
  const { support: s } = o;
  const [one, many] = o.level;
  const count = (n: number): string => `${n} ${n === 1 ? one : many}`;
  const needs = `a named ${one} needs it and at least ${count(s.required - 1)} above it reading derived, at most ${MAX_GAP} untested ${many} apart, none reading against them in between`;
  const head =
    o.answer === null
      ? `Not determined: no ${one} on the path to ${o.best} has that support (${needs}).`
      : o.answer === o.best
        ? `${o.best} is supported, but ${o.lowQuality}`
        : `Supported down to ${o.answer}, not to ${o.best}: ${needs}.`;
  const confirmed = s.confirmedLevels.length;
  const facts = [
    `${count(confirmed)} of the ${s.pathLevels} from the root to ${o.best} read derived${confirmed > 0 ? ` (${listed(s.confirmedLevels)})` : ''}`,
  ];
  if (s.missingLevels.length > 0) {
    facts.push(`${s.missingLevels.length} had no tested position (${listed(s.missingLevels)})`);
  }
  if (s.contradictedLevels.length > 0) {
    facts.push(`${s.contradictedLevels.length} read against it (${listed(s.contradictedLevels)})`);
  }
  return `${head} ${listed(facts)}; the file tested ${o.tested}.`;
}

// ---------------------------------------------------------------------------------------------
// mtDNA: reading the observations

/** The file's MT readings, by position: one base (or "d", a deletion) per tested position. */
interface MtSample {
  alleles: Map<number, string>;
  /** summed weight of the readings that differ from the rCRS */
  weight: number;
  variants: number;
  ignored: number;
}

/** One reading's base: "A", "AA" or "D"; null for heteroplasmy, no-calls and anything else. */
function homoplasmicBase(call: string): string | null {
  const c = call.trim().toUpperCase();
  const one = c.length === 2 && c[0] === c[1] ? c[0] : c;
  if (one.length !== 1) return null;
  if ('ACGT'.includes(one)) return one;
  return one === 'D' ? 'd' : null;
}

/** The readings by position; a position read twice with different bases is left out. */
function readSample(tree: MtTree, observations: readonly MtObservation[]): MtSample {
  const alleles = new Map<number, string>();
  const conflicting = new Set<number>();
  let ignored = 0;
  for (const o of observations) {
    const base = homoplasmicBase(o.allele);
    const valid = Number.isInteger(o.position) && o.position >= 1 && o.position <= 16569;
    if (!base || !valid || rcrsBase(tree, o.position) === 'N') {
      ignored++;
      continue;
    }
    const seen = alleles.get(o.position);
    if (seen !== undefined && seen !== base) conflicting.add(o.position);
    alleles.set(o.position, base);
  }
  for (const p of conflicting) alleles.delete(p);
  ignored += conflicting.size;
  let weight = 0;
  let variants = 0;
  for (const [p, a] of alleles) {
    if (a === rcrsBase(tree, p)) continue;
    variants++;
    weight += weightOf(tree, p, a);
  }
  return { alleles, weight, variants, ignored };
}

/** MT observations from a stored genome's markers (`index.markers('MT')`), calls as they are. */
export function mtObservations(markers: Iterable<GenomeMarker>): MtObservation[] {
  const out: MtObservation[] = [];
  for (const m of markers) {
    if (m.chromosome === 'MT') out.push({ position: m.position, allele: m.call });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// mtDNA: scoring every node

/**
 * The differences from the rCRS along the current path, with the weights expected and found at
 * tested positions kept as positions change (Haplogrep's running sums).
 */
class PathState {
  readonly alleles = new Map<number, string>();
  expected = 0;
  found = 0;

  constructor(
    private readonly tree: MtTree,
    private readonly sample: MtSample,
  ) {}

  /** Sets a position's base; returns the base it had, for undo. */
  set(position: number, allele: string): string {
    const ref = rcrsBase(this.tree, position);
    const old = this.alleles.get(position) ?? ref;
    this.count(position, old, -1);
    if (allele === ref) this.alleles.delete(position);
    else this.alleles.set(position, allele);
    this.count(position, allele, 1);
    return old;
  }

  private count(position: number, allele: string, sign: 1 | -1): void {
    if (allele === rcrsBase(this.tree, position)) return;
    const seen = this.sample.alleles.get(position);
    if (seen === undefined) return;
    const w = weightOf(this.tree, position, allele);
    this.expected += sign * w;
    if (seen === allele) this.found += sign * w;
  }

  /** Kulczynski: half found/expected, half found/shown; an empty side counts as fully matched. */
  quality(): number {
    const ofExpected = this.expected > EPSILON ? this.found / this.expected : 1;
    const ofSample = this.sample.weight > EPSILON ? this.found / this.sample.weight : 1;
    return Math.max(0, Math.min(1, 0.5 * ofExpected + 0.5 * ofSample));
  }
}

/** Applies a branch's mutations; returns the undo list. */
function descend(state: PathState, edge: MtMutation[]): [number, string][] {
  const undo: [number, string][] = [];
  for (const m of edge) {
    if (m.position !== null) undo.push([m.position, state.set(m.position, m.to)]);
  }
  return undo;
}

/** Whether a branch has a mutation at a tested position (else its node equals its parent here). */
const isTested = (edge: MtMutation[], sample: MtSample): boolean =>
  edge.some((m) => m.position !== null && sample.alleles.has(m.position));

/** Every node's quality, or NaN where the node cannot be told from its parent. */
function scoreNodes(tree: MtTree, sample: MtSample): Float64Array {
  const state = new PathState(tree, sample);
  for (const m of tree.rootState) if (m.position !== null) state.set(m.position, m.to);
  const scores = new Float64Array(tree.names.length).fill(Number.NaN);
  scores[0] = state.quality();
  const frames: { node: number; undo: [number, string][] }[] = [{ node: 0, undo: [] }];
  for (let i = 1; i < tree.names.length; i++) {
    // nodes are in depth-first order: leave the branches that are not this node's ancestors
    while (frames.at(-1)!.node !== tree.parent[i]) {
      const frame = frames.pop()!;
      for (let u = frame.undo.length - 1; u >= 0; u--) state.set(...frame.undo[u]);
    }
    frames.push({ node: i, undo: descend(state, tree.edges[i]) });
    if (isTested(tree.edges[i], sample)) scores[i] = state.quality();
  }
  return scores;
}

/** Node indexes from the root to a node. */
function pathTo(tree: MtTree, node: number): number[] {
  const out: number[] = [];
  for (let at = node; at >= 0; at = tree.parent[at]) out.push(at);
  return out.reverse();
}

/** A node's differences from the rCRS (position to base). */
function stateOf(tree: MtTree, node: number): Map<number, string> {
  const state = new Map<number, string>();
  const edges = [tree.rootState, ...pathTo(tree, node).map((i) => tree.edges[i])];
  for (const edge of edges) {
    for (const m of edge) {
      if (m.position === null) continue;
      if (m.to === rcrsBase(tree, m.position)) state.delete(m.position);
      else state.set(m.position, m.to);
    }
  }
  return state;
}

/** The answer's counts for one node. */
function candidate(tree: MtTree, sample: MtSample, node: number, quality: number): MtCandidate {
  const expected = stateOf(tree, node);
  const missing: string[] = [];
  let tested = 0;
  for (const [p, a] of expected) {
    const seen = sample.alleles.get(p);
    if (seen === undefined) continue;
    tested++;
    if (seen !== a) missing.push(`${p}${a}`);
  }
  const extra: string[] = [];
  for (const [p, a] of sample.alleles) {
    const unexpected = a !== rcrsBase(tree, p) && expected.get(p) !== a;
    if (unexpected && weightOf(tree, p, a) > 0) extra.push(`${p}${a}`);
  }
  return {
    haplogroup: tree.names[node],
    quality: Math.round(quality * 1000) / 1000,
    expectedTested: tested,
    found: tested - missing.length,
    missing: missing.slice(0, MAX_LISTED),
    extra: extra.slice(0, MAX_LISTED),
    untestedExpected: expected.size - tested,
  };
}

/**
 * The evidence on each branch from the root to a node, and the branches that are levels (they
 * have a mutation that counts for support, whether or not the file tested it). A mutation at a
 * position the path mutates again further down is read at the later branch only: the tree's own
 * back-mutations neither confirm nor contradict the branch above. Hotspots do not count.
 */
function pathEvidence(
  tree: MtTree,
  sample: MtSample,
  node: number,
): { steps: MtPathStep[]; levels: SupportLevel[] } {
  const nodes = pathTo(tree, node).slice(1);
  const lastAt = new Map<number, number>();
  nodes.forEach((i, k) => {
    for (const m of tree.edges[i]) if (m.position !== null) lastAt.set(m.position, k);
  });
  const steps: MtPathStep[] = [];
  const levels: SupportLevel[] = [];
  nodes.forEach((i, k) => {
    let kept = 0;
    let tested = 0;
    let present = 0;
    for (const m of tree.edges[i]) {
      if (m.position === null || lastAt.get(m.position) !== k) continue;
      if (tree.hotspots.has(m.position)) continue;
      kept++;
      const seen = sample.alleles.get(m.position);
      if (seen === undefined) continue;
      tested++;
      if (seen === m.to) present++;
    }
    const haplogroup = tree.names[i];
    const mutations = tree.edges[i].map((m) => m.text);
    steps.push({ haplogroup, mutations, tested, present, absent: tested - present });
    if (kept > 0) levels.push({ name: haplogroup, tested, agree: present });
  });
  return { steps, levels };
}

/** Scored nodes, best first: higher quality, then the more general (shallower) node, then name. */
function ranked(tree: MtTree, scores: Float64Array): number[] {
  const nodes: number[] = [];
  scores.forEach((s, i) => {
    if (!Number.isNaN(s)) nodes.push(i);
  });
  return nodes.sort(
    (a, b) =>
      (Math.abs(scores[a] - scores[b]) > EPSILON ? scores[b] - scores[a] : 0) ||
      tree.depth[a] - tree.depth[b] ||
      tree.names[a].localeCompare(tree.names[b]),
  );
}

/** One branch of a haplogroup's lineage: its name and the mutations on the branch above it. */
export interface MtLineageStep {
  haplogroup: string;
  mutations: string[];
}

/** A PhyloTree 17 haplogroup's lineage from mt-MRCA down to it (a "marker path"), or null. */
export function mtLineage(haplogroup: string): MtLineageStep[] | null {
  const tree = loadMtTree();
  const node = tree.byName.get(haplogroup);
  if (node === undefined) return null;
  return pathTo(tree, node).map((i) => ({
    haplogroup: tree.names[i],
    mutations: tree.edges[i].map((m) => m.text),
  }));
}

/** The expected variants of a PhyloTree 17 haplogroup (differences from the rCRS), or null. */
export function mtExpectedVariants(haplogroup: string): MtObservation[] | null {
  const tree = loadMtTree();
  const node = tree.byName.get(haplogroup);
  if (node === undefined) return null;
  return [...stateOf(tree, node)]
    .map(([position, allele]) => ({ position, allele: allele === 'd' ? 'D' : allele }))
    .sort((a, b) => a.position - b.position);
}

/**
 * The maternal haplogroup of a file's MT readings, scored over PhyloTree Build 17, and named only
 * as deep as the readings support its path from the root (issue 46: see the header).
 */
export function mtHaplogroup(observations: readonly MtObservation[]): MtHaplogroupResult {
  const tree = loadMtTree();
  const sample = readSample(tree, observations);
  const base = {
    positionsTested: sample.alleles.size,
    variantsSeen: sample.variants,
    callsIgnored: sample.ignored,
    tree: 'PhyloTree Build 17 (van Oven & Kayser 2009), weights of Haplogrep 2',
  };
  if (sample.alleles.size === 0) {
    return {
      ...base,
      status: 'no_mt_data',
      best: null,
      deepestSupported: null,
      support: supportOf([], { run: 0 }, MT_REQUIRED),
      reason: null,
      path: [],
      runnersUp: [],
      notes: [MT_NOTES.noData],
    };
  }
  const scores = scoreNodes(tree, sample);
  const order = ranked(tree, scores);
  const best = candidate(tree, sample, order[0], scores[order[0]]);
  const { steps: path, levels } = pathEvidence(tree, sample, order[0]);
  const walk = walkSupport(levels, MT_REQUIRED);
  const support = supportOf(levels, walk, MT_REQUIRED);
  const deepestSupported = walk.deepest < 0 ? null : levels[walk.deepest].name;
  const lowQuality = best.quality <= MIN_QUALITY;
  const status =
    deepestSupported === null
      ? 'not_determined'
      : deepestSupported === best.haplogroup && !lowQuality
        ? 'called'
        : 'partial';
  const positions = `${sample.alleles.size} mitochondrial position${sample.alleles.size === 1 ? '' : 's'}`;
  const reason =
    status === 'called'
      ? null
      : supportReason({
          best: best.haplogroup,
          answer: deepestSupported,
          support,
          level: ['branch', 'branches'],
          tested: positions,
          lowQuality: `its quality ${best.quality} is ${MIN_QUALITY} or below, which Haplogrep marks as low.`,
        });
  const runnersUp = order
    .slice(1, 1 + RUNNERS_UP)
    .map((i) => candidate(tree, sample, i, scores[i]));
  const ties = order.filter((i) => Math.abs(scores[i] - scores[order[0]]) <= EPSILON).length - 1;
  const notes = mtNotes({ best, deepestSupported, reason, tested: sample.alleles.size, ties });
  return {
    ...base,
    status,
    best,
    deepestSupported,
    support,
    reason,
    path,
    runnersUp,
    notes,
  };
}

const MT_NOTES = {
  noData:
    'The file has no readable mitochondrial (MT) calls, so no maternal haplogroup can be given.',
  arrays:
    'A full mitochondrial sequence reads all 16,569 positions; a genotyping array tests a few hundred to a few thousand of them. Branches whose defining positions were not tested cannot be seen, so an array often supports only a major branch.',
  untested:
    'Positions the file did not test count neither for nor against a branch: only tested positions are compared.',
  lowQuality:
    'The quality is low: the calls fit no branch well. Causes include an array probe that misreads a site, a file whose MT positions are not rCRS positions (the old hg19 chrM), or a rare lineage.',
  noAges: 'PhyloTree gives no ages, so none are given for the maternal line.',
};

/** Plain words for the maternal answer: the first says what is named and why. */
function mtNotes(o: {
  best: MtCandidate;
  deepestSupported: string | null;
  reason: string | null;
  tested: number;
  ties: number;
}): string[] {
  const { best, ties } = o;
  const fit = `The file tested ${o.tested} of the 16,569 mitochondrial positions. The best fit is ${best.haplogroup} (quality ${best.quality.toFixed(2)} of 1)`;
  const first =
    o.reason === null
      ? `${fit}, and its tested positions confirm the branches down to it.`
      : o.deepestSupported === null
        ? `${fit}, but the tested positions do not place the maternal line. ${o.reason}`
        : o.deepestSupported === best.haplogroup
          ? `${fit}, a poor fit. ${o.reason}`
          : `${fit}, but the tested positions support only ${o.deepestSupported}. ${o.reason}`;
  const notes = [first, MT_NOTES.arrays, MT_NOTES.untested];
  if (ties > 0) {
    notes.push(
      `${ties} other branch${ties === 1 ? '' : 'es'} fit${ties === 1 ? 's' : ''} the tested positions just as well (the same mutation arose more than once in the tree); the more general one is named.`,
    );
  }
  if (best.quality <= MIN_QUALITY) notes.push(MT_NOTES.lowQuality);
  notes.push(MT_NOTES.noAges);
  return notes;
}

// ---------------------------------------------------------------------------------------------
// Y: the backbone and its ages

const YSnpSchema = z.object({
  name: z.string(),
  rsid: z
    .string()
    .regex(/^rs\d+$/)
    .nullable(),
  grch37: z.number().int().positive().nullable(),
  kind: z.enum(['snp', 'insertion', 'deletion']),
  ancestral: z
    .string()
    .regex(/^[ACGTDI]$/)
    .nullable(),
  derived: z
    .string()
    .regex(/^[ACGTDI]$/)
    .nullable(),
  confidence: z.enum(['checked', 'corroborated', 'none']),
  sources: z.array(z.string()).min(1),
  evidence: z.string().min(10),
});

const BackboneSchema = z.object({
  format: z.literal(1),
  checked: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
  clades: z.array(
    z.object({
      name: z.string(),
      parent: z.string().nullable(),
      yfull: z.string().nullable(),
      paragroup: z.boolean().optional(),
      snps: z.array(YSnpSchema),
      note: z.string().optional(),
    }),
  ),
});

const AgeSchema = z.object({ years: z.number(), low: z.number(), high: z.number() }).nullable();

const AgesSchema = z.object({
  format: z.literal(1),
  source: z.object({ name: z.string(), licence: z.string() }).passthrough(),
  ages: z.record(z.string(), z.object({ yfull: z.string(), formed: AgeSchema, tmrca: AgeSchema })),
});

type YClade = z.infer<typeof BackboneSchema>['clades'][number];
type YSnp = z.infer<typeof YSnpSchema>;

interface YBackbone {
  clades: Map<string, YClade>;
  children: Map<string, string[]>;
  ages: z.infer<typeof AgesSchema>;
}

let yBackbone: YBackbone | undefined;

/** The backbone and ages, read once; a clade whose parent is missing fails loudly. */
function loadY(): YBackbone {
  if (yBackbone) return yBackbone;
  const read = (file: string): unknown =>
    JSON.parse(readFileSync(fromRoot('data', 'dna', 'ytree', file), 'utf8'));
  const backbone = BackboneSchema.parse(read('backbone.json'));
  const ages = AgesSchema.parse(read('ages.json'));
  const clades = new Map(backbone.clades.map((c) => [c.name, c]));
  const children = new Map<string, string[]>();
  for (const c of backbone.clades) {
    if (c.parent === null) continue;
    if (!clades.has(c.parent))
      throw new Error(`backbone.json: ${c.name} has no parent ${c.parent}`);
    children.set(c.parent, [...(children.get(c.parent) ?? []), c.name]);
  }
  yBackbone = { clades, children, ages };
  return yBackbone;
}

/** Clade names from the root to a clade. */
function yPath(y: YBackbone, name: string): string[] {
  const out: string[] = [];
  for (let at: string | null = name; at !== null; at = y.clades.get(at)?.parent ?? null) {
    out.push(at);
  }
  return out.reverse();
}

/** A call read against one SNP: one allele (or a doubled one), else unclear. */
function readY(snp: YSnp, call: string): YSnpReading['state'] {
  const c = call.trim().toUpperCase();
  const allele = c.length === 2 && c[0] === c[1] ? c[0] : c;
  if (allele === snp.derived) return 'derived';
  if (allele === snp.ancestral) return 'ancestral';
  return 'unclear';
}

/** Every backbone SNP the file has a call for. */
function yReadings(y: YBackbone, calls: CallLookup): YSnpReading[] {
  const out: YSnpReading[] = [];
  for (const clade of y.clades.values()) {
    for (const snp of clade.snps) {
      if (!snp.rsid || !snp.derived || !snp.ancestral) continue;
      const call = calls.call(snp.rsid);
      if (call === null) continue;
      const state = readY(snp, call);
      out.push({ clade: clade.name, snp: snp.name, rsid: snp.rsid, call, state });
    }
  }
  return out;
}

/** Per clade: derived and ancestral readings. */
function tally(readings: YSnpReading[]): Map<string, { derived: number; ancestral: number }> {
  const out = new Map<string, { derived: number; ancestral: number }>();
  for (const r of readings) {
    const t = out.get(r.clade) ?? { derived: 0, ancestral: 0 };
    if (r.state === 'derived') t.derived++;
    if (r.state === 'ancestral') t.ancestral++;
    out.set(r.clade, t);
  }
  return out;
}

/** A candidate clade with the readings along its path from the root. */
interface YPathScore {
  clade: string;
  path: string[];
  derived: number;
  ancestral: number;
}

/** Best first: derived minus ancestral on the path, then the deeper clade, then most derived. */
const compareY = (a: YPathScore, b: YPathScore): number =>
  b.derived - b.ancestral - (a.derived - a.ancestral) ||
  b.path.length - a.path.length ||
  b.derived - a.derived ||
  a.clade.localeCompare(b.clade);

/** The clade with a derived reading whose root path the calls support best, or null. */
function bestClade(
  y: YBackbone,
  counts: Map<string, { derived: number; ancestral: number }>,
): YPathScore | null {
  const scored: YPathScore[] = [];
  for (const [clade, t] of counts) {
    if (t.derived === 0) continue;
    const path = yPath(y, clade);
    const sum = (k: 'derived' | 'ancestral'): number =>
      path.reduce((n, c) => n + (counts.get(c)?.[k] ?? 0), 0);
    scored.push({ clade, path, derived: sum('derived'), ancestral: sum('ancestral') });
  }
  return scored.sort(compareY)[0] ?? null;
}

/**
 * The levels of a backbone path: each clade with an SNP the arrays read (clades without one can
 * be neither tested nor missing), and BT when the other side of the root split (B for CT's men,
 * CT for B's) was read: there an ancestral reading agrees with the path.
 */
function yLevels(
  y: YBackbone,
  path: string[],
  counts: Map<string, { derived: number; ancestral: number }>,
): SupportLevel[] {
  const levels: SupportLevel[] = [];
  const readable = (c: string): boolean =>
    (y.clades.get(c)?.snps ?? []).some((snp) => snp.rsid && snp.derived && snp.ancestral);
  for (const [k, clade] of path.entries()) {
    if (clade === 'BT' && (path[k + 1] === 'B' || path[k + 1] === 'CT')) {
      const other = counts.get(path[k + 1] === 'B' ? 'CT' : 'B');
      const tested = other ? other.derived + other.ancestral : 0;
      if (other && tested > 0) levels.push({ name: 'BT', tested, agree: other.ancestral });
    } else if (readable(clade)) {
      const t = counts.get(clade) ?? { derived: 0, ancestral: 0 };
      levels.push({ name: clade, tested: t.derived + t.ancestral, agree: t.derived });
    }
  }
  return levels;
}

/** YFull's ages of a clade, with the source line. */
function yAge(y: YBackbone, clade: string): YCladeAge | null {
  const a = y.ages.ages[clade];
  if (!a) return null;
  return { ...a, source: yAgesSource() };
}

/** The ages' source line ("YFull YTree v14.02.0 (CC BY 4.0)"). */
function yAgesSource(): string {
  const { source } = loadY().ages;
  return `${source.name} (${source.licence})`;
}

/** An age in words: "about 22,800 years ago (95% interval 20,500-25,100)". */
function ageWords(a: AgeEstimate): string {
  const f = (n: number): string => n.toLocaleString('en-US');
  return `about ${f(a.years)} years ago (95% interval ${f(a.low)}-${f(a.high)})`;
}

const Y_NOTES = {
  female:
    'No Y data: a woman has no Y chromosome (any Y calls in her file are probe noise). Her paternal line can be read from a father, brother or paternal uncle.',
  noCalls:
    'No Y data: the file has no calls at the backbone Y SNPs (the file may carry no Y markers).',
  sexUnknown: "The file does not say whether it is a man's; the Y calls were read as they are.",
  outsideCT:
    'No backbone SNP reads derived and the CT marker (M168) reads ancestral: the line lies outside CT, in A or B, the oldest branches, which this backbone does not split further.',
  nothingDerived:
    'No backbone SNP reads derived, so no clade can be named: the Y SNPs this backbone uses were not called, or were called ancestral.',
  backbone:
    'The backbone reads about 30 major-clade SNPs (data/dna/ytree/backbone.json, from the primary literature); arrays can place a line in a major clade, not in the recent branches a Y sequencing test resolves. R1a, N1, O1, O2 and Q1 have no array SNP in this backbone yet.',
};

/** Plain words for the paternal answer. */
function yNotes(
  clade: string,
  support: number,
  conflicts: number,
  age: YCladeAge | null,
  reason: string | null,
): string[] {
  const notes = [
    `${support} backbone SNP${support === 1 ? '' : 's'} on the path to ${clade} read derived.`,
  ];
  if (reason) notes.push(reason);
  if (conflicts > 0) {
    notes.push(
      `${conflicts} reading${conflicts === 1 ? '' : 's'} disagree${conflicts === 1 ? 's' : ''} with this answer (listed under conflicts): array calls on the Y are occasionally wrong, and more disagreement means less confidence.`,
    );
  }
  if (age?.formed) notes.push(`${clade} formed ${ageWords(age.formed)} by ${age.source}.`);
  if (age?.tmrca) {
    notes.push(`Today's men of ${clade} share a paternal ancestor ${ageWords(age.tmrca)}.`);
  }
  notes.push(Y_NOTES.backbone);
  return notes;
}

/** A Y answer without a clade. */
function yNone(
  status: YHaplogroupResult['status'],
  notes: string[],
  readings: YSnpReading[] = [],
): YHaplogroupResult {
  return {
    status,
    clade: null,
    bestFit: null,
    support: supportOf([], { run: 0 }, Y_REQUIRED),
    reason: null,
    path: [],
    derivedSupport: 0,
    ancestralOnPath: 0,
    snpsTested: readings.length,
    notIn: [],
    conflicts: readings.filter((r) => r.state === 'unclear'),
    age: null,
    notes,
  };
}

/** Without any derived reading: outside CT (A or B), A itself, or nothing to say. */
function yWithoutDerived(y: YBackbone, readings: YSnpReading[]): YHaplogroupResult {
  const ancestralAt = (clade: string): boolean =>
    readings.some((r) => r.clade === clade && r.state === 'ancestral');
  if (!ancestralAt('CT')) return yNone('not_determined', [Y_NOTES.nothingDerived], readings);
  if (!ancestralAt('B')) {
    return yNone('not_determined', [Y_NOTES.outsideCT, Y_NOTES.backbone], readings);
  }
  const age = yAge(y, 'A');
  // both sides of the root split read ancestral: two levels, as many as a clade needs
  const counts = tally(readings);
  const levels = ['B', 'CT'].map((name) => {
    const t = counts.get(name) ?? { derived: 0, ancestral: 0 };
    return { name, tested: t.derived + t.ancestral, agree: t.ancestral };
  });
  return {
    ...yNone('called', [Y_NOTES.outsideCT, Y_NOTES.backbone], readings),
    clade: 'A',
    bestFit: 'A',
    support: supportOf(levels, { run: levels.length }, Y_REQUIRED),
    path: ['A'],
    notIn: ['B', 'CT'],
    age,
  };
}

/**
 * The paternal major clade from the backbone SNPs, named only as deep as the calls support its
 * path (issue 46); "no Y data" for a woman or without Y calls.
 */
export function yHaplogroup(calls: CallLookup, sex: 'female' | 'male' | null): YHaplogroupResult {
  if (sex === 'female') return yNone('no_y_data', [Y_NOTES.female]);
  const y = loadY();
  const readings = yReadings(y, calls);
  if (readings.length === 0) return yNone('no_y_data', [Y_NOTES.noCalls]);
  const counts = tally(readings);
  const best = bestClade(y, counts);
  if (!best) return yWithoutDerived(y, readings);
  const onPath = new Set(best.path);
  const conflicts = readings.filter(
    (r) =>
      r.state === 'unclear' ||
      (onPath.has(r.clade) && r.state === 'ancestral') ||
      (!onPath.has(r.clade) && r.state === 'derived'),
  );
  const levels = yLevels(y, best.path, counts);
  const walk = walkSupport(levels, Y_REQUIRED);
  const support = supportOf(levels, walk, Y_REQUIRED);
  const clade = walk.deepest < 0 ? null : levels[walk.deepest].name;
  const status = clade === null ? 'not_determined' : clade === best.clade ? 'called' : 'partial';
  const reason =
    status === 'called'
      ? null
      : supportReason({
          best: best.clade,
          answer: clade,
          support,
          level: ['backbone clade', 'backbone clades'],
          tested: `${readings.length} backbone SNP${readings.length === 1 ? '' : 's'}`,
        });
  if (clade === null) {
    const notes = [reason!, Y_NOTES.backbone];
    if (sex === null) notes.unshift(Y_NOTES.sexUnknown);
    return { ...yNone(status, notes, readings), bestFit: best.clade, support, reason, conflicts };
  }
  const path = yPath(y, clade);
  const sum = (k: 'derived' | 'ancestral'): number =>
    path.reduce((n, c) => n + (counts.get(c)?.[k] ?? 0), 0);
  const notIn = (y.children.get(clade) ?? []).filter((c) => {
    const t = counts.get(c);
    return t !== undefined && t.ancestral > 0 && t.derived === 0;
  });
  const age = yAge(y, clade);
  const notes = yNotes(clade, sum('derived'), conflicts.length, age, reason);
  if (sex === null) notes.unshift(Y_NOTES.sexUnknown);
  return {
    status,
    clade,
    bestFit: best.clade,
    support,
    reason,
    path,
    derivedSupport: sum('derived'),
    ancestralOnPath: sum('ancestral'),
    snpsTested: readings.length,
    notIn,
    conflicts,
    age,
    notes,
  };
}

// ---------------------------------------------------------------------------------------------
// both lines

const REPORT_NOTES = [
  'A haplogroup is a branch of the human family tree traced through one line only: the maternal haplogroup follows mother to mother (mitochondrial DNA), the paternal one father to father (the Y chromosome, men only).',
  'Each is one line of ancestry among thousands: ten generations back a person has about a thousand ancestors, and these two lines follow just two of them. A haplogroup says where those two lines branched, often tens of thousands of years ago; it is not ethnicity, not overall ancestry and says nothing about health.',
];

/** Where the ages come from, in words. */
const agesNote = (source: string): string =>
  `Ages are estimates with 95% intervals, from ${source} for the paternal line; the maternal tree (PhyloTree) gives no ages.`;

const REPORT_SOURCES = [
  "mtDNA tree: PhyloTree Build 17 (van Oven M, Kayser M. Hum Mutat 2009;30:E386-E394; Build 17, 2016), as distributed by Haplogrep (genepi/haplogrep-core, Apache-2.0), with Haplogrep's phylogenetic weights; scoring after Weissensteiner H et al. Nucleic Acids Res 2016;44:W58-W63.",
  "Y backbone: the project's own list from Karafet TM et al. Genome Res 2008;18:830-838 and Underhill PA et al. Eur J Hum Genet 2010;18:479-484, with dbSNP positions.",
  'Y ages: YFull YTree v14.02.0 (https://github.com/YFullTeam/YTree), CC BY 4.0.',
];

/** The deep-time report: both lines with what they can and cannot say. */
export function deepTimeReport(input: DeepTimeInput): DeepTimeReport {
  return {
    maternal: mtHaplogroup(input.mt),
    paternal: yHaplogroup(input.calls, input.sex),
    notes: [...REPORT_NOTES, agesNote(yAgesSource())],
    sources: REPORT_SOURCES,
  };
}
