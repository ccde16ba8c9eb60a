/**
 * The medicines and HLA reports (issue 34) through MCP and REST: started as background jobs and
 * read back; generated genomes with known calls give known phenotypes (CYP2C19 *2/*17, an ambiguous
 * TPMT, sites missing from an array), HLA likelihoods labelled "not an HLA type", a second start
 * answers the same report, a new upload deletes the reports, another person's report id answers
 * 404, the scopes hold, the report is sealed at rest, and a report orphaned by a crash is taken back.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/base/logger.ts';
import { storeGenome } from '../../src/domains/dna/dna.genome.ts';
import { decryptGenome, encryptGenome, genomeKey } from '../../src/domains/dna/dna.store.ts';
import { DNA_REPORT_JOBS } from '../../src/domains/dna/dna.worker.ts';
import type { DnaWorkerDeps } from '../../src/domains/dna/dna.worker.ts';
import { checkStaleJobs } from '../../src/platform/resumable-jobs.ts';
import { DEFAULT_CALLS, generateGenome } from '../fixtures/dna/generate.ts';
import type { GenerateOptions } from '../fixtures/dna/generate.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const db = app.db.prisma;

async function person(scopes = ['health:dna:read', 'health:dna:write']) {
  const u = await seedUser(app);
  const pat = await seedPersonalToken(app, u.user.id, scopes as any);
  return { id: u.user.id, token: u.token, pat, client: await mcpClient(app, pat) };
}
type Person = Awaited<ReturnType<typeof person>>;

const upload = (p: Person, options: Partial<GenerateOptions> = {}) =>
  storeGenome(
    { prisma: db, config: app.deps.config },
    {
      userId: p.id,
      input: Readable.from([generateGenome({ vendor: '23andme', markers: 2000, ...options })]),
    },
  );

const sc = (r: any): any => r.structuredContent;
let seq = 0;
/** Calls a start tool (a write: it takes an idempotency key). */
const start = (p: Person, tool: string) =>
  callTool(p.client, tool, { idempotency_key: `dna-report-${clock.ms()}-${++seq}` });
const errorOf = (r: any): any => (r.isError ? sc(r).error : undefined);

/** Reads a report until it is done or failed (the worker runs in this process). */
async function finished(p: Person, tool: string, reportId: string): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const detail = tool === 'dna_medicines_read' ? { detail: true } : {};
    const view = sc(await callTool(p.client, tool, { report_id: reportId, ...detail }));
    if (view.report.status === 'done' || view.report.status === 'failed') return view;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`report ${reportId} did not finish`);
}

const geneOf = (view: any, gene: string): any => view.genes.find((g: any) => g.gene === gene);

describe('the medicines report', () => {
  it('answers known phenotypes, an ambiguous TPMT, the sites missing, and never a dose', async () => {
    const p = await person();
    await upload(p);
    const started = sc(await start(p, 'dna_medicines_start'));
    expect(started).toMatchObject({ kind: 'medicines', status: 'queued' });
    const view = await finished(p, 'dna_medicines_read', started.id);
    expect(view.report.status).toBe('done');
    expect(view.genotypes_shown).toBe(true);

    // rs4244285 AG (*2) and rs12248560 CT (*17): CPIC's *2/*17 is an intermediate metabolizer
    const cyp2c19 = geneOf(view, 'CYP2C19');
    expect(cyp2c19.diplotypes.map((d: any) => d.diplotype)).toContain('*2/*17');
    expect(cyp2c19.phenotype).toBe('Intermediate Metabolizer');
    expect(cyp2c19.tested).toEqual(expect.arrayContaining(['rs4244285', 'rs12248560']));
    expect(cyp2c19.missing.length).toBeGreaterThan(0);
    expect(cyp2c19.drugs).toContain('clopidogrel');
    const site = cyp2c19.sites.find((s: any) => s.rsid === 'rs4244285');
    expect(site).toMatchObject({ status: 'tested', call: DEFAULT_CALLS.rs4244285 });

    // heterozygous at both TPMT *3A sites: *1/*3A or *3B/*3C, which cannot be told apart unphased
    const tpmt = geneOf(view, 'TPMT');
    expect(tpmt.diplotypes.map((d: any) => d.diplotype)).toEqual(
      expect.arrayContaining(['*1/*3A', '*3B/*3C']),
    );
    expect(tpmt.phenotypes.length).toBeGreaterThan(1);
    expect(tpmt.phenotype).toBeNull();

    expect(geneOf(view, 'CYP2C9').vkorc1).toMatchObject({ rsid: 'rs9923231', call: 'TT' });
    const cyp2d6 = geneOf(view, 'CYP2D6');
    expect(cyp2d6.determinable).toBe(false);
    expect(cyp2d6.reason).toMatch(/array/i);
    expect(JSON.stringify(view)).not.toMatch(/\b\d+(\.\d+)?\s?mg\b/i);

    // the newest is read without an id, and REST answers the same
    expect(sc(await callTool(p.client, 'dna_medicines_read', {})).report.id).toBe(started.id);
    const res = await rest(app, 'GET', '/api/v1/dna/medicines?detail=true', { token: p.token });
    expect(res.status).toBe(200);
    expect(geneOf(res.body, 'CYP2C19').phenotype).toBe('Intermediate Metabolizer');
  });

  it('answers a summary under 10,000 characters by default, narrowed by gene or drug', async () => {
    const p = await person();
    await upload(p);
    const started = sc(await start(p, 'dna_medicines_start'));
    await finished(p, 'dna_medicines_read', started.id);
    const summary = await callTool(p.client, 'dna_medicines_read', {});
    const text = JSON.stringify(sc(summary));
    expect(text.length).toBeLessThan(10_000);
    expect(sc(summary).genes).toBeNull();
    const lines = sc(summary).summary;
    expect(lines.map((g: any) => g.gene)).toEqual(
      expect.arrayContaining(['CYP2C19', 'DPYD', 'G6PD']),
    );
    const cyp2c19 = lines.find((g: any) => g.gene === 'CYP2C19');
    expect(cyp2c19).toMatchObject({ status: 'determined', phenotype: 'Intermediate Metabolizer' });
    expect(cyp2c19.finding).toMatch(/^CYP2C19 \*2\/\*17: Intermediate Metabolizer/);

    const dpyd = sc(await callTool(p.client, 'dna_medicines_read', { gene: 'dpyd', detail: true }));
    expect(dpyd.summary.map((g: any) => g.gene)).toEqual(['DPYD']);
    expect(dpyd.genes.map((g: any) => g.gene)).toEqual(['DPYD']);
    const warfarin = sc(await callTool(p.client, 'dna_medicines_read', { drug: 'Warfarin' }));
    expect(warfarin.summary.map((g: any) => g.gene)).toEqual(['CYP2C9']);
    const vkorc1 = sc(await callTool(p.client, 'dna_medicines_read', { gene: 'VKORC1' }));
    expect(vkorc1.summary.map((g: any) => g.gene)).toEqual(['CYP2C9']);

    const unknown = errorOf(await callTool(p.client, 'dna_medicines_read', { gene: 'ABC1' }));
    expect(unknown.message).toMatch(/gene: .*use one of CYP2C19, .*DPYD/);
    const drug = errorOf(await callTool(p.client, 'dna_medicines_read', { drug: 'aspirin' }));
    expect(drug.message).toMatch(/drug: no gene .* "aspirin".*drugs named: .*warfarin/);
    const rest422 = await rest(app, 'GET', '/api/v1/dna/medicines?gene=ABC1', { token: p.token });
    expect(rest422.status).toBe(422);
  });

  it('makes a report again when it was made by earlier rules, and does not show the old one', async () => {
    const p = await person();
    await upload(p);
    const first = sc(await start(p, 'dna_medicines_start'));
    await finished(p, 'dna_medicines_read', first.id);
    // a report as issue 34's rules stored it: no rules version
    const row = await db.dnaReport.findUniqueOrThrow({ where: { id: first.id } });
    const key = genomeKey(app.deps.config);
    const old = JSON.parse(decryptGenome(Buffer.from(row.sealed!), key).toString('utf8'));
    delete old.rules;
    const sealed = new Uint8Array(encryptGenome(Buffer.from(JSON.stringify(old)), key));
    await db.dnaReport.update({ where: { id: first.id }, data: { sealed } });

    const read = sc(await callTool(p.client, 'dna_medicines_read', {}));
    expect(read.summary).toBeNull();
    expect(read.next).toMatch(/earlier rules: start it again with dna_medicines_start/);
    const again = sc(await start(p, 'dna_medicines_start'));
    expect(again.id).not.toBe(first.id);
    const view = await finished(p, 'dna_medicines_read', again.id);
    expect(view.summary.length).toBeGreaterThan(5);
  });

  it('answers the same report on a second start, and a new upload deletes it', async () => {
    const p = await person();
    await upload(p);
    const first = sc(await start(p, 'dna_medicines_start'));
    await finished(p, 'dna_medicines_read', first.id);
    const again = sc(await start(p, 'dna_medicines_start'));
    expect(again.id).toBe(first.id);
    expect(await db.dnaReport.count({ where: { userId: p.id } })).toBe(1);

    await upload(p, { calls: { ...DEFAULT_CALLS, rs4244285: 'GG', rs12248560: 'TT' } });
    expect(await db.dnaReport.count({ where: { userId: p.id } })).toBe(0);
    const none = sc(await callTool(p.client, 'dna_medicines_read', {}));
    expect(none.report).toBeNull();
    expect(none.next).toMatch(/dna_medicines_start/);
    const old = await callTool(p.client, 'dna_medicines_read', { report_id: first.id });
    expect(errorOf(old)?.code).toBe('NOT_FOUND');

    const fresh = sc(await start(p, 'dna_medicines_start'));
    expect(fresh.id).not.toBe(first.id);
    const view = await finished(p, 'dna_medicines_read', fresh.id);
    // *17/*17 now: an ultrarapid metabolizer
    expect(geneOf(view, 'CYP2C19').phenotype).toBe('Ultrarapid Metabolizer');
  });

  it('stores the report sealed: no rsID or call in the clear', async () => {
    const p = await person();
    await upload(p);
    const started = sc(await start(p, 'dna_medicines_start'));
    await finished(p, 'dna_medicines_read', started.id);
    const row = await db.dnaReport.findUniqueOrThrow({ where: { id: started.id } });
    const sealed = Buffer.from(row.sealed!);
    expect(sealed.includes(Buffer.from('rs4244285'))).toBe(false);
    expect(sealed.includes(Buffer.from('CYP2C19'))).toBe(false);
  });

  it('needs a genome to start, and another person’s report id answers 404', async () => {
    const p = await person();
    const noGenome = await start(p, 'dna_medicines_start');
    expect(errorOf(noGenome)?.code).toBe('NOT_FOUND');
    expect(errorOf(noGenome)?.message).toMatch(/upload/i);

    const other = await person();
    await upload(other);
    const theirs = sc(await start(other, 'dna_medicines_start'));
    const foreign = await callTool(p.client, 'dna_medicines_read', { report_id: theirs.id });
    expect(errorOf(foreign)?.code).toBe('NOT_FOUND');
    const res = await rest(app, 'GET', `/api/v1/dna/medicines?report_id=${theirs.id}`, {
      token: p.token,
    });
    expect(res.status).toBe(404);
  });

  it('binds the tools to health:dna:read and REST to a credential', async () => {
    const none = await person(['profile:read']);
    const names = (await none.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('dna_medicines_start');
    expect(names).not.toContain('dna_hla_read');
    const reader = await person(['health:dna:read']);
    const listed = (await reader.client.listTools()).tools.map((t) => t.name);
    expect(listed).toEqual(
      expect.arrayContaining([
        'dna_medicines_start',
        'dna_medicines_read',
        'dna_hla_start',
        'dna_hla_read',
      ]),
    );
    expect((await rest(app, 'GET', '/api/v1/dna/medicines')).status).toBe(401);
    expect((await rest(app, 'POST', '/api/v1/dna/hla')).status).toBe(401);
  });
});

describe('the medicines report from every vendor format', () => {
  const formats: Partial<GenerateOptions>[] = [
    { vendor: '23andme', compression: 'gzip' },
    { vendor: 'ancestrydna', compression: 'zip' },
    { vendor: 'myheritage' },
    { vendor: 'ftdna', crlf: true },
    { vendor: 'livingdna' },
    { vendor: 'vcf', build: 'GRCh37' },
    { vendor: 'vcf', build: 'GRCh38', compression: 'gzip' },
  ];
  it.each(formats)('reads the same phenotypes from %o uploaded through REST', async (format) => {
    const p = await person();
    const form = new FormData();
    const bytes = generateGenome({ vendor: '23andme', markers: 2000, ...format });
    form.append('file', new Blob([new Uint8Array(bytes)]), 'genome.txt');
    const res = await app.fetch('/api/v1/dna/upload', {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${p.token}` },
    });
    expect(res.status).toBe(200);
    const started = await rest(app, 'POST', '/api/v1/dna/medicines', { token: p.token });
    expect(started.status).toBe(200);
    const view = await finished(p, 'dna_medicines_read', started.body.id);
    expect(geneOf(view, 'CYP2C19').phenotype).toBe('Intermediate Metabolizer');
    expect(geneOf(view, 'CYP2C9').vkorc1.call).toBe('TT');
    expect(geneOf(view, 'SLCO1B1').tested).toContain('rs4149056');
    expect(geneOf(view, 'TPMT').phenotypes.length).toBeGreaterThan(1);
    expect(geneOf(view, 'DPYD').missing.length).toBeGreaterThan(0);
  });
});

describe('the HLA tag report', () => {
  it('answers likelihoods labelled "not an HLA type" with the ancestry each was validated in', async () => {
    const p = await person();
    await upload(p);
    const started = await rest(app, 'POST', '/api/v1/dna/hla', { token: p.token });
    expect(started.status).toBe(200);
    expect(started.body).toMatchObject({ kind: 'hla' });
    const view = await finished(p, 'dna_hla_read', started.body.id);
    expect(view.tags).toHaveLength(5);
    for (const tag of view.tags) {
      expect(tag.label).toBe('not an HLA type');
      expect(tag.validated_in.length).toBeGreaterThan(0);
      expect(['carrier likely', 'carrier unlikely', 'unknown']).toContain(tag.likelihood);
    }
    // rs2395029 TG carries the tag's G: B*57:01 likely
    expect(view.tags.find((t: any) => t.rsid === 'rs2395029').likelihood).toBe('carrier likely');
    // rs2187668 is a no-call in the file: unknown
    expect(view.tags.find((t: any) => t.rsid === 'rs2187668').likelihood).toBe('unknown');
  });
});

describe('reports interrupted by a crash', () => {
  it('are queued again, or failed after three starts with what to do', async () => {
    const p = await person();
    await upload(p);
    const deps: DnaWorkerDeps = { ...app.deps, log: createLogger('silent'), singleProcess: false };
    const running = (attempts: number, minutesAgo: number) => ({
      userId: p.id,
      kind: 'medicines',
      status: 'running',
      attempts,
      heartbeatAt: new Date(clock.ms() - minutesAgo * 60_000),
    });
    const orphan = await db.dnaReport.create({ data: running(1, 10) });
    const givenUp = await db.dnaReport.create({ data: running(3, 10) });
    const live = await db.dnaReport.create({ data: running(1, 0.5) });
    expect(await checkStaleJobs(deps, DNA_REPORT_JOBS, clock.now())).toBe(1);
    const failed = await db.dnaReport.findUniqueOrThrow({ where: { id: givenUp.id } });
    expect(failed.status).toBe('failed');
    const read = sc(await callTool(p.client, 'dna_medicines_read', { report_id: givenUp.id }));
    expect(read.next).toMatch(/dna_medicines_start/);
    expect((await db.dnaReport.findUniqueOrThrow({ where: { id: live.id } })).status).toBe(
      'running',
    );
    expect((await finished(p, 'dna_medicines_read', orphan.id)).report.status).toBe('done');
  });
});
