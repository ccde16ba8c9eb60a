/**
 * The medicines report against PharmCAT's own test cases (issue 46): every case of
 * test/fixtures/pharmcat-cases.ts (the genotypes PharmCAT's tests build, as an array reports
 * them, and the answer each test asserts) is written as a 23andMe file and read by the report;
 * our answer for the case's gene must agree with PharmCAT's as the fixture's PharmcatExpect says.
 *
 * Two paths, to keep the file fast: every case goes through the path the report's worker takes
 * (the file parsed, packed and unpacked as stored: parseGenome, encodeGenome, decodeGenome, then
 * medicinesReport with the file's vendor, build and sex); and one case per gene goes the whole way
 * a person goes (REST upload, REST start, the background job, REST read with detail), each by a new
 * person (DNA_UPLOADS_PER_DAY).
 */
import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { fromRoot } from '../../src/base/paths.ts';
import { camelKeys } from '../../src/base/wire.ts';
import { parseGenome } from '../../src/domains/dna/dna.parse.ts';
import { medicinesReport } from '../../src/domains/dna/dna.pgx.ts';
import { decodeGenome, encodeGenome } from '../../src/domains/dna/dna.store.ts';
import { CASES, callsOf, EXCLUDED, SITES } from '../fixtures/pharmcat-cases.ts';
import type { PharmcatCase } from '../fixtures/pharmcat-cases.ts';
import { generateMarkers, genomeText } from '../fixtures/dna/generate.ts';
import type { GeneratedMarker } from '../fixtures/dna/generate.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';

const app = await startTestApp();

/** What the comparison reads of one gene's answer (a GeneReport, or its REST form). */
interface Answer {
  diplotypes: { diplotype: string; activityScore: string | null }[];
  phenotype: string | null;
  reason: string | null;
  /** 'determined' | 'not-determined' | ...; absent in the REST form (then told by phenotype) */
  status?: string;
  keySitesNotRead?: string[];
}

const ORDER = [...Array.from({ length: 22 }, (_, i) => String(i + 1)), 'PAR', 'X', 'Y', 'MT'];

/** The case as a 23andMe file: its gene's calls at their chromosomes, among 1,000 filler markers. */
function genomeFile(c: PharmcatCase): Buffer {
  const calls = callsOf(c);
  const sex = c.sex ?? 'female';
  const markers = generateMarkers({ vendor: '23andme', sex, markers: 1000, calls });
  const { chromosome } = SITES[c.gene];
  let k = 0;
  const placed: GeneratedMarker[] = markers.map((m) =>
    m.id in calls ? { ...m, chromosome, position: 60_000_000 + ++k * 101 } : m,
  );
  placed.sort(
    (a, b) => ORDER.indexOf(a.chromosome) - ORDER.indexOf(b.chromosome) || a.position - b.position,
  );
  return Buffer.from(genomeText({ vendor: '23andme', sex }, placed), 'latin1');
}

/** The report as the worker makes it from a stored genome. */
async function reportOf(c: PharmcatCase): Promise<unknown[]> {
  const parsed = await parseGenome(Readable.from([genomeFile(c)]));
  const { vendor, build, sex } = parsed.summary;
  return medicinesReport(decodeGenome(encodeGenome(parsed)), { vendor, build, sex });
}

// VKORC1 is answered beside CYP2C9 as one site: its two bases named as PharmCAT names the alleles
const vkorc1Alleles = (
  JSON.parse(
    readFileSync(fromRoot('data', 'pharmcat', 'definition', 'VKORC1_translation.json'), 'utf8'),
  ) as { namedAlleles: { name: string; alleles: (string | null)[] }[] }
).namedAlleles;
const vkorc1Name = (base: string): string =>
  vkorc1Alleles.find((a) => a.alleles[0] === base)?.name ?? base;

interface SiteAnswer {
  genotype: string | null;
  phenotype: string | null;
}

/** One gene's answer from the report's genes (VKORC1 and CYP4F2 may sit on CYP2C9). */
function answerOf(genes: unknown[], gene: string): Answer | null {
  const all = genes as (Answer & { gene: string; vkorc1?: SiteAnswer; cyp4f2?: SiteAnswer })[];
  const own = all.find((g) => g.gene === gene);
  if (own) return own;
  const site = all.find((g) => g.gene === 'CYP2C9')?.[gene === 'VKORC1' ? 'vkorc1' : 'cyp4f2'];
  if (!site || (gene !== 'VKORC1' && gene !== 'CYP4F2')) return null;
  // VKORC1: the bases as PharmCAT's allele names; CYP4F2: the label's diplotypes
  const diplotype =
    site.genotype === null
      ? null
      : gene === 'VKORC1'
        ? [...site.genotype].map(vkorc1Name).join('/')
        : (site.phenotype?.split(' (')[0] ?? null);
  // CYP4F2's label lists the diplotypes the calls fit: "*1/*4 or *2/*3 (one copy of ...)"
  const diplotypes = diplotype?.split(' or ') ?? [];
  return {
    diplotypes: diplotypes.map((d) => ({ diplotype: d, activityScore: null })),
    phenotype: site.phenotype,
    reason: site.genotype === null ? `${gene} site not read` : null,
  };
}

// the order of the two alleles does not matter, nor our "(hemizygous)" on a male's one X
const bare = (d: string): string => d.replace(/ \(hemizygous\)$/, '');
const sameDiplotype = (ours: string, theirs: string): boolean =>
  bare(ours) === theirs || bare(ours).split('/').reverse().join('/') === theirs;

const determined = (a: Answer): boolean =>
  a.status ? a.status === 'determined' : a.phenotype !== null;

/** The ways our answer differs from PharmCAT's, as the fixture's PharmcatExpect defines them. */
function differences(c: PharmcatCase, a: Answer | null): string[] {
  if (!a) return [`no answer for ${c.gene}`];
  const e = c.expect;
  const out: string[] = [];
  const ours = a.diplotypes.map((d) => d.diplotype);
  for (const d of e.diplotypes ?? []) {
    if (!ours.some((o) => sameDiplotype(o, d))) out.push(`${d} is not among our diplotypes`);
  }
  if (e.phenotype !== undefined && (a.phenotype !== e.phenotype || !determined(a))) {
    out.push(`phenotype ${a.phenotype ?? 'none'} is not ${e.phenotype}`);
  }
  if (e.activityScore !== undefined) {
    const first = a.diplotypes[0]?.activityScore ?? 'none';
    if (first !== e.activityScore) out.push(`activity score ${first} is not ${e.activityScore}`);
  }
  if (e.determined && !determined(a)) {
    out.push(`PharmCAT's call is certain, our phenotype is not determined`);
  }
  if (e.noCall && (determined(a) || a.phenotype !== null)) {
    out.push(`PharmCAT makes no call, we answer ${a.phenotype}`);
  }
  if (out.length > 0 && e.orNotDetermined) {
    const named = `${a.reason ?? ''} ${(a.keySitesNotRead ?? []).join(' ')}`;
    const notDetermined = !determined(a) && a.phenotype === null && a.reason !== null;
    const names = (rsid: string): boolean => new RegExp(`\\b${rsid}\\b`).test(named);
    if (notDetermined && e.orNotDetermined.some(names)) return [];
  }
  return out;
}

/** Our answer in one line, for a failure's message. */
const ourAnswer = (a: Answer | null): string =>
  a === null
    ? 'none'
    : `ours: [${a.diplotypes.map((d) => `${d.diplotype} (${d.activityScore ?? '-'})`).join(', ')}]` +
      ` phenotype ${a.phenotype ?? 'none'}; ${a.status ?? ''} ${a.reason ?? ''}`;

describe('PharmCAT test cases through the stored-genome path', () => {
  it.each(CASES.map((c) => [c.id, c] as const))('%s', async (_id, c) => {
    const answer = answerOf(await reportOf(c), c.gene);
    expect(differences(c, answer), ourAnswer(answer)).toEqual([]);
  });
});

// One case per gene, chosen to carry variants and, where the gene has one,
// PharmCAT's answer for a site arrays lack.
const WHOLE_PATH = [
  'cyp2c19-s1s17s1s4b-missing',
  'cyp2c9-s2s3',
  'vkorc1-ga',
  'slco1b1-s5s15',
  'tpmt-s3bs3c',
  'nudt15-toxic-s3',
  'dpyd-unphased-multi-trans',
  'cyp3a5-pipeline-v2',
  'ugt1a1-pipeline-s80-s28-missing',
  'g6pd-mediterranean-male',
  'cyp4f2-s1s4',
];

/** Uploads the case's file as a new person, starts the medicines report and reads it when done. */
async function throughRest(c: PharmcatCase): Promise<unknown[]> {
  const { token } = await seedUser(app);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(genomeFile(c))]), 'genome_v5_Full.txt');
  const upload = await app.fetch('/api/v1/dna/upload', {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${token}` },
  });
  expect(upload.status).toBe(200);
  const started = await rest(app, 'POST', '/api/v1/dna/medicines', { token });
  expect(started.status).toBe(200);
  for (let i = 0; i < 400; i++) {
    const path = `/api/v1/dna/medicines?report_id=${started.body.id}&detail=true`;
    const read = await rest(app, 'GET', path, { token });
    expect(read.status).toBe(200);
    // REST answers in snake_case; the comparison reads the report's own (camelCase) names
    if (read.body.report.status === 'done') return camelKeys(read.body.genes) as unknown[];
    expect(read.body.report.status).not.toBe('failed');
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`the medicines report of ${c.id} did not finish`);
}

describe('PharmCAT test cases through upload, report and REST read', () => {
  it('covers every gene with cases, and names only known cases', () => {
    const byId = new Map(CASES.map((c) => [c.id, c]));
    const genes = new Set(CASES.map((c) => c.gene));
    expect(new Set(WHOLE_PATH.map((id) => byId.get(id)?.gene))).toEqual(genes);
    // an excluded case is not also run, and every id is unique
    const ids = [...CASES, ...EXCLUDED].map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(WHOLE_PATH)('%s', async (id) => {
    const c = CASES.find((x) => x.id === id)!;
    const answer = answerOf(await throughRest(c), c.gene);
    expect(differences(c, answer), ourAnswer(answer)).toEqual([]);
  });
});
