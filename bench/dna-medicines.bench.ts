/**
 * The medicines report over a whole array file (issue 34 goal: `dna_medicines_read` for all seven
 * genes <= 100 ms p50). Builds a call lookup over ~640,000 markers (sorted rsID numbers with a
 * binary search, as a compact store would hold them) with every pharmacogene site of the shipped
 * definitions set (reference calls, a few variants), loads the tables once (timed separately as
 * the process's one-off cost), then times RUNS runs (default 50) after a warm-up of: the baseline,
 * plain lookups of every definition site's call without interpretation, and `medicinesReport`
 * for all genes. Then the served read, the goal's own path: an app in this process (PGlite in a
 * temp dir, or BENCH_DATABASE_URL), a 640,000-marker 23andMe file uploaded through
 * POST /api/v1/dna/upload, the report made by its background job (POST /api/v1/dna/medicines), and
 * GET /api/v1/dna/medicines timed RUNS times (HTTP, credential, GraphQL, the sealed report read,
 * opened and shaped), against GET /api/v1/dna/knowledge (the same door and credential, no genome
 * read) in the same run.
 * Prints one JSON line with medians, p95 and whether the goal is met.
 * `npx tsx bench/dna-medicines.bench.ts`
 */
import { performance } from 'node:perf_hooks';
import { definitionRsids, medicinesReport, pgxTables } from '../src/domains/dna/dna.pgx.ts';
import type { CallLookup } from '../src/domains/dna/dna.types.ts';
import { genomeText } from '../test/fixtures/dna/generate.ts';
import { round, startInProcessApp, time } from './in-process.ts';
import { median, percentile } from './stats.ts';

/** A 23andMe file on GRCh37: strand known, sex not told. */
const FACTS = { vendor: '23andme', build: 'GRCh37', sex: null } as const;
const RUNS = Number(process.env.RUNS ?? 50);
const MARKERS = 640_000;
const GOAL_MS = 100;
const BASES = ['AA', 'AG', 'GG', 'CC', 'CT', 'TT', 'AC', 'GT'];
const VARIANTS: Record<string, string> = { rs4244285: 'AG', rs1057910: 'AC', rs1800460: 'CT' };

/** A sorted-array lookup: ids as numbers, calls as indexes into BASES (255 = no call). */
function buildLookup(sites: Map<string, string>): CallLookup {
  const ids = new Set<number>();
  for (let i = 0; ids.size < MARKERS - sites.size; i++) ids.add(1000 + ((i * 7919) % 90_000_000));
  for (const r of sites.keys()) ids.add(Number(r.slice(2)));
  const sorted = Float64Array.from(ids).sort();
  const calls = new Uint8Array(sorted.length);
  const table = [...BASES];
  sorted.forEach((id, i) => {
    const set = sites.get(`rs${id}`);
    if (set === undefined) calls[i] = i % 50 === 0 ? 255 : i % BASES.length;
    else {
      if (!table.includes(set)) table.push(set);
      calls[i] = table.indexOf(set);
    }
  });
  const find = (rsid: string): number => {
    const id = Number(rsid.slice(2));
    let lo = 0;
    let hi = sorted.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid] === id) return mid;
      if (sorted[mid] < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  };
  return {
    call: (rsid) => {
      const i = rsid.startsWith('rs') ? find(rsid) : -1;
      return i < 0 || calls[i] === 255 ? null : table[calls[i]];
    },
    has: (rsid) => rsid.startsWith('rs') && find(rsid) >= 0,
    build: 'GRCh37',
  };
}

const loadStart = performance.now();
const tables = pgxTables();
const loadMs = performance.now() - loadStart;
const sites = new Map<string, string>();
for (const t of tables.values()) {
  for (const s of t.sites) if (s.rsid && s.ref.length === 1) sites.set(s.rsid, s.ref + s.ref);
}
for (const [r, c] of Object.entries(VARIANTS)) sites.set(r, c);
const lookup = buildLookup(sites);
const rsids = [...definitionRsids().values()].flatMap((s) => [...s]);

const baseline = (): number => rsids.filter((r) => lookup.call(r) !== null).length;
const timeIt = (fn: () => unknown): number => {
  const t = performance.now();
  fn();
  return performance.now() - t;
};
for (let i = 0; i < 5; i++) {
  baseline();
  medicinesReport(lookup, FACTS);
}
const base: number[] = [];
const report: number[] = [];
for (let i = 0; i < RUNS; i++) {
  base.push(timeIt(baseline));
  report.push(timeIt(() => medicinesReport(lookup, FACTS)));
}

/** The served read: upload, the job, then GET /api/v1/dna/medicines against a same-door baseline. */
async function servedRead(): Promise<{ doorMs: number[]; readMs: number[]; bytes: number }> {
  const app = await startInProcessApp('dna-medicines');
  try {
    const user = await app.newUser();
    const auth = { authorization: user.headers.authorization };
    const form = new FormData();
    const text = genomeText({ vendor: '23andme', markers: MARKERS, calls: VARIANTS });
    form.append('file', new Blob([text]), 'genome_v5.txt');
    await app.json('/api/v1/dna/upload', { method: 'POST', headers: auth, body: form });
    await app.json('/api/v1/dna/medicines', { method: 'POST', headers: auth });
    let body = await app.json('/api/v1/dna/medicines', { headers: auth });
    for (let i = 0; body.report?.status !== 'done' && i < 600; i++) {
      await new Promise((r) => setTimeout(r, 50));
      body = await app.json('/api/v1/dna/medicines', { headers: auth });
    }
    if (body.report?.status !== 'done') throw new Error('the medicines report was not made');
    const door = () => app.json('/api/v1/dna/knowledge?q=CYP2C19', { headers: auth });
    const read = () => app.json('/api/v1/dna/medicines', { headers: auth });
    for (let i = 0; i < 5; i++) await Promise.all([door(), read()]);
    const doorMs: number[] = [];
    const readMs: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      doorMs.push(await time(door));
      readMs.push(await time(read));
    }
    return { doorMs, readMs, bytes: JSON.stringify(body).length };
  } finally {
    await app.close();
  }
}

const served = await servedRead();
const readP50 = median(served.readMs);
console.log(
  JSON.stringify({
    bench: 'dna-medicines',
    markers: MARKERS,
    sites: rsids.length,
    runs: RUNS,
    tablesLoadMs: round(loadMs, 1),
    baselineP50Ms: round(median(base), 3),
    reportP50Ms: round(median(report), 3),
    reportP95Ms: percentile(report, 95),
    servedDoorBaselineP50Ms: round(median(served.doorMs), 2),
    servedReadP50Ms: round(readP50, 2),
    servedReadP95Ms: round(percentile(served.readMs, 95), 2),
    servedReadRatioToDoor: round(readP50 / median(served.doorMs), 2),
    servedAnswerBytes: served.bytes,
    goalMs: GOAL_MS,
    met: readP50 <= GOAL_MS,
  }),
);
