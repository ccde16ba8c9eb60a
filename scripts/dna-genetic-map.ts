/**
 * Thins the GRCh37 and GRCh38 genetic maps of Debian's `shapeit4-example` package (Expat) into
 * data/dna/genetic-map/ (issue 35): relatives' shared segments and runs of homozygosity are measured
 * in centimorgans (src/domains/dna/dna.genetic-map.ts reads the result).
 *
 *   cd /tmp && apt-get download shapeit4-example && dpkg-deb -x shapeit4-example_*.deb shapeit4
 *   npx tsx scripts/dna-genetic-map.ts [--from /tmp/shapeit4] [--tolerance 0.02] [--check]
 *
 * Reads usr/share/doc/shapeit4/examples/maps/genetic_maps.b{37,38}.tar.gz under --from (one
 * `chr<N>.b37.gmap.gz` per chromosome: position, chromosome, cM), keeps chromosomes 1-22 and X
 * (non-pseudo-autosomal), and keeps the fewest points such that linear interpolation between them
 * stays within --tolerance cM of every original point (a slope-cone sweep, one pass). Writes
 * `grch37.tsv.gz` and `grch38.tsv.gz` (`chromosome position cM`, cM to 4 decimals) and prints one
 * JSON line per build: points kept, largest and mean interpolation error over every original point
 * (rounding included), bytes. `--check` writes nothing and fails (exit 1) when a shipped file
 * differs from a fresh derivation. It never writes outside data/dna/genetic-map/.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { gunzipSync, gzipSync } from 'node:zlib';
import { fromRoot } from '../src/base/paths.ts';

/** Where the thinned maps go. */
const MAP_DIR = fromRoot('data', 'dna', 'genetic-map');
const TARBALLS = { grch37: 'genetic_maps.b37.tar.gz', grch38: 'genetic_maps.b38.tar.gz' };
const CHROMOSOMES = [...Array.from({ length: 22 }, (_, i) => String(i + 1)), 'X'];

/** One chromosome's map: positions (bp) and cM, ascending. */
interface MapColumns {
  pos: number[];
  cm: number[];
}

/** The files of a tar archive (ustar or GNU; regular files only) by base name. */
function untar(tar: Buffer): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  let longName: string | null = null;
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const field = (from: number, to: number): string =>
      header.toString('latin1', from, to).replace(/\0.*$/s, '');
    const size = parseInt(field(124, 136).trim() || '0', 8);
    const type = field(156, 157) || '0';
    const body = tar.subarray(at + 512, at + 512 + size);
    if (type === 'L') longName = body.toString('latin1').replace(/\0.*$/s, '');
    else if (type === '0') files.set(path.basename(longName ?? field(0, 100)), Buffer.from(body));
    if (type !== 'L') longName = null;
    at += 512 + Math.ceil(size / 512) * 512;
  }
  return files;
}

/** A `pos chr cM` table (header first) as columns, ascending and strictly increasing in position. */
function readGmap(text: string): MapColumns {
  const pos: number[] = [];
  const cm: number[] = [];
  for (const line of text.split('\n').slice(1)) {
    const [p, , c] = line.split('\t');
    if (!p || c === undefined) continue;
    const x = Number(p);
    const y = Number(c);
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw new Error(`bad map line: ${line}`);
    if (pos.length && x <= pos[pos.length - 1]) continue; // duplicates and disorder: keep the first
    pos.push(x);
    cm.push(Math.max(y, cm.length ? cm[cm.length - 1] : 0));
  }
  return { pos, cm };
}

/**
 * Indexes of the points to keep: from each kept point, the farthest next point such that the line
 * between them passes within `tolerance` cM of every point skipped (the cone of allowed slopes
 * narrows with each point; the first point outside it ends the stretch). First and last are kept.
 */
function thin(map: MapColumns, tolerance: number): number[] {
  const { pos, cm } = map;
  const keep = [0];
  let anchor = 0;
  let lo = -Infinity;
  let hi = Infinity;
  for (let j = anchor + 1; j < pos.length; j++) {
    const dx = pos[j] - pos[anchor];
    const slope = (cm[j] - cm[anchor]) / dx;
    if (slope < lo || slope > hi) {
      anchor = j - 1;
      keep.push(anchor);
      lo = -Infinity;
      hi = Infinity;
      j = anchor;
      continue;
    }
    lo = Math.max(lo, (cm[j] - tolerance - cm[anchor]) / dx);
    hi = Math.min(hi, (cm[j] + tolerance - cm[anchor]) / dx);
  }
  if (keep[keep.length - 1] !== pos.length - 1) keep.push(pos.length - 1);
  return keep;
}

/** cM at `x` by linear interpolation over ascending points (flat beyond the ends). */
function interpolate(pos: number[], cm: number[], x: number, from: number): [number, number] {
  let i = from;
  while (i + 1 < pos.length && pos[i + 1] < x) i++;
  if (x <= pos[0]) return [cm[0], 0];
  if (i + 1 >= pos.length) return [cm[cm.length - 1], i];
  const t = (x - pos[i]) / (pos[i + 1] - pos[i]);
  return [cm[i] + t * (cm[i + 1] - cm[i]), i];
}

/** Largest and summed absolute error of the thinned, rounded map over every original point. */
function errors(full: MapColumns, pos: number[], cm: number[]): { max: number; sum: number } {
  let max = 0;
  let sum = 0;
  let at = 0;
  for (let k = 0; k < full.pos.length; k++) {
    const [y, i] = interpolate(pos, cm, full.pos[k], at);
    at = i;
    const e = Math.abs(y - full.cm[k]);
    max = Math.max(max, e);
    sum += e;
  }
  return { max, sum };
}

/** One build's thinned table (gzip bytes) and its figures. */
function deriveBuild(
  tarball: Buffer,
  build: keyof typeof TARBALLS,
  tolerance: number,
): { bytes: Buffer; figures: Record<string, number | string> } {
  const files = untar(gunzipSync(tarball));
  const suffix = build === 'grch37' ? 'b37' : 'b38';
  const lines = ['chromosome\tposition\tcM'];
  let points = 0;
  let original = 0;
  let max = 0;
  let sum = 0;
  for (const chromosome of CHROMOSOMES) {
    const file = files.get(`chr${chromosome}.${suffix}.gmap.gz`);
    if (!file) throw new Error(`chr${chromosome}.${suffix}.gmap.gz is missing from the tarball`);
    const full = readGmap(gunzipSync(file).toString('utf8'));
    const keep = thin(full, tolerance);
    const pos = keep.map((i) => full.pos[i]);
    const cm = keep.map((i) => Math.round(full.cm[i] * 1e4) / 1e4);
    for (let k = 0; k < pos.length; k++)
      lines.push(`${chromosome}\t${pos[k]}\t${cm[k].toFixed(4)}`);
    const e = errors(full, pos, cm);
    max = Math.max(max, e.max);
    sum += e.sum;
    points += keep.length;
    original += full.pos.length;
  }
  // mtime 0 in the gzip header (zlib writes none): the same input gives the same bytes
  const bytes = gzipSync(`${lines.join('\n')}\n`, { level: 9 });
  return {
    bytes,
    figures: {
      build,
      tolerance,
      originalPoints: original,
      points,
      maxErrorCm: Number(max.toFixed(5)),
      meanErrorCm: Number((sum / original).toFixed(6)),
      bytes: bytes.length,
    },
  };
}

function main(): void {
  const { values } = parseArgs({
    options: {
      from: { type: 'string', default: '/tmp/shapeit4' },
      tolerance: { type: 'string', default: '0.02' },
      check: { type: 'boolean', default: false },
    },
  });
  const tolerance = Number(values.tolerance);
  const maps = path.join(values.from, 'usr/share/doc/shapeit4/examples/maps');
  let differs = false;
  for (const build of ['grch37', 'grch38'] as const) {
    const source = path.join(maps, TARBALLS[build]);
    if (!existsSync(source)) {
      console.error(`${source} not found: apt-get download shapeit4-example, then dpkg-deb -x`);
      process.exit(2);
    }
    const { bytes, figures } = deriveBuild(readFileSync(source), build, tolerance);
    const target = path.join(MAP_DIR, `${build}.tsv.gz`);
    if (values.check) {
      const same = existsSync(target) && readFileSync(target).equals(bytes);
      if (!same) console.error(`${target} differs from a fresh derivation`);
      differs ||= !same;
    } else {
      writeFileSync(target, bytes);
    }
    console.log(JSON.stringify(figures));
  }
  if (differs) process.exit(1);
}

main();
