/**
 * Issue 34: the DNA reads and the deletion through MCP and REST. The report without a genome says
 * how to upload one and, with one, what was found (rare variants flagged for clinical confirmation,
 * APOE) and what is not determinable; a gene answers its card and the person's genotypes; an
 * unknown gene answers 404 naming the genes with a card; lookups take at most 50 rsIDs (a list in
 * the query, comma-separated or repeated); the knowledge needs no genome; deleting needs confirm
 * over MCP and removes the genome; DNA is never read through an access grant.
 */
import { describe, expect, it } from 'vitest';
import { DNA_NOT_SHARED } from '../../src/domains/dna/dna.access.ts';
import { NO_GENOME } from '../../src/domains/dna/dna.reads.ts';
import { DEFAULT_CALLS, generateGenome } from '../fixtures/dna/generate.ts';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();
const DNA = ['health:dna:read', 'health:dna:write'] as const;

/** A carried TPMT*2 (rare: needs clinical confirmation) and APOE e3/e4, else the default calls. */
const CALLS = { ...DEFAULT_CALLS, rs1800462: 'CG', rs429358: 'CT', rs7412: 'CC' };

async function uploadFor(me: SeededUser, calls: Record<string, string> = CALLS): Promise<void> {
  const form = new FormData();
  const bytes = generateGenome({ vendor: '23andme', calls, compression: 'gzip' });
  form.append('file', new Blob([new Uint8Array(bytes)]), 'genome.txt.gz');
  const res = await app.fetch('/api/v1/dna/upload', {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${me.token}` },
  });
  expect(res.status).toBe(200);
}

async function person(withGenome = true) {
  const me = await seedUser(app);
  if (withGenome) await uploadFor(me);
  const pat = await seedPersonalToken(app, me.user.id, [...DNA]);
  return { me, pat, client: await mcpClient(app, pat) };
}

const sc = (r: any): any => r.structuredContent;
const errorOf = (r: any): any => (r.isError ? sc(r).error : undefined);

describe('dna_report_read', () => {
  it('says how to upload while no genome is stored, and what arrays cannot tell', async () => {
    const { client, pat } = await person(false);
    const r = sc(await callTool(client, 'dna_report_read'));
    expect(r.genome).toBeNull();
    expect(r.overview).toBeNull();
    expect(r.note).toBe(NO_GENOME);
    expect(r.note).toContain('/api/v1/dna/upload');
    expect(r.not_determinable.map((n: any) => n.id)).toContain('cyp2d6_copy_number');
    const byRest = await rest(app, 'GET', '/api/v1/dna/report', { token: pat });
    expect(byRest.status).toBe(200);
    expect(byRest.body.genome).toBeNull();
  });

  it('answers the file, the findings (rare variants to confirm, APOE) and what is not determinable', async () => {
    const { client } = await person();
    const result = await callTool(client, 'dna_report_read');
    const r = sc(result);
    expect(r.genome).toMatchObject({ vendor: '23andme', build: 'GRCh37', sex: 'female' });
    expect(r.overview.needs_clinical_confirmation.map((l: any) => [l.rsid, l.call])).toEqual([
      ['rs1800462', 'CG'],
    ]);
    expect(r.overview.needs_clinical_confirmation[0].note).toMatch(/^needs clinical confirmation/);
    expect(r.overview.apoe).toMatchObject({
      combination: 'e3/e4',
      calls: [
        { rsid: 'rs429358', call: 'CT' },
        { rsid: 'rs7412', call: 'CC' },
      ],
    });
    const medicine = r.overview.categories.find((c: any) => c.category === 'medicine');
    expect(medicine.called).toBeGreaterThan(10);
    expect(r.not_determinable.length).toBeGreaterThan(3);
    expect(result.structuredContent).toHaveProperty('meta');
    expect(JSON.stringify(result.structuredContent).length).toBeLessThan(100_000);
  });
});

describe('dna_gene_read', () => {
  it("answers a gene's card with the person's genotypes at its curated sites", async () => {
    const { client, pat } = await person();
    const r = sc(await callTool(client, 'dna_gene_read', { symbol: 'cyp2c19' }));
    expect(r.gene.symbol).toBe('CYP2C19');
    expect(r.has_genome).toBe(true);
    const calls = Object.fromEntries(r.sites.map((s: any) => [s.rsid, s.call]));
    expect(calls).toMatchObject({ rs4244285: 'AG', rs4986893: 'GG', rs12248560: 'CT' });
    expect(r.more).toBe(0);
    expect(r.apoe).toBeNull();
    const apoe = await rest(app, 'GET', '/api/v1/dna/genes/APOE', { token: pat });
    expect(apoe.status).toBe(200);
    expect(apoe.body.apoe.combination).toBe('e3/e4');
    const cyp2d6 = sc(await callTool(client, 'dna_gene_read', { symbol: 'CYP2D6' }));
    expect(cyp2d6.not_determinable.map((n: any) => n.id)).toContain('cyp2d6_copy_number');
  });

  it('answers 404 naming the genes with a card for an unknown symbol', async () => {
    const { client, pat } = await person();
    const error = errorOf(await callTool(client, 'dna_gene_read', { symbol: 'NOPE1' }));
    expect(error.code).toBe('NOT_FOUND');
    expect(error.message).toMatch(/^No curated card for the gene "NOPE1"\. Genes with a card: /);
    expect(error.message).toContain('CYP2C19, CYP2C9');
    const byRest = await rest(app, 'GET', '/api/v1/dna/genes/NOPE1', { token: pat });
    expect(byRest.status).toBe(404);
    expect(byRest.body.detail).toContain('CYP2C19');
  });

  it('answers the cards alone, with how to upload, while no genome is stored', async () => {
    const { client } = await person(false);
    const r = sc(await callTool(client, 'dna_gene_read', { symbol: 'DPYD' }));
    expect(r.has_genome).toBe(false);
    expect(r.sites.length).toBeGreaterThan(2);
    expect(r.sites.every((s: any) => s.status === 'no_genome' && s.call === null)).toBe(true);
    expect(r.note).toBe(NO_GENOME);
  });
});

describe('dna_variants_lookup', () => {
  it('answers each rsID once with its status, call and reading; a carried rare one needs confirmation', async () => {
    const { client } = await person();
    const r = sc(
      await callTool(client, 'dna_variants_lookup', {
        rsids: ['rs1800462', 'RS4244285', 'rs2187668', 'rs1', 'rs4244285'],
      }),
    );
    expect(r.lookups.map((l: any) => [l.rsid, l.status, l.call])).toEqual([
      ['rs1800462', 'called', 'CG'],
      ['rs4244285', 'called', 'AG'],
      ['rs2187668', 'no_call', null],
      ['rs1', 'not_in_file', null],
    ]);
    expect(r.lookups[0]).toMatchObject({
      needs_clinical_confirmation: true,
      effect_allele_copies: 1,
      card: { gene: 'TPMT', rare: true },
    });
    expect(r.lookups[0].note).toMatch(/needs clinical confirmation/);
    expect(r.lookups[3].card).toBeNull();
    expect(r.lookups[3].note).toMatch(/no curated card/);
  });

  it('refuses 51 rsIDs (VALIDATION_FAILED) and malformed ones, on MCP and REST', async () => {
    const { client, pat } = await person();
    const many = Array.from({ length: 51 }, (_, i) => `rs${i + 1}`);
    const error = errorOf(await callTool(client, 'dna_variants_lookup', { rsids: many }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.detail[0].loc).toEqual(['rsids']);
    const listed = (await client.listTools()).tools.find((t) => t.name === 'dna_variants_lookup');
    expect(listed?.inputSchema.properties?.rsids).toMatchObject({ maxItems: 50, minItems: 1 });
    const byRest = await rest(app, 'GET', `/api/v1/dna/variants?rsids=${many.join(',')}`, {
      token: pat,
    });
    expect(byRest.status).toBe(422);
    expect(byRest.body.detail[0].loc).toEqual(['query', 'rsids']);
    const bad = await rest(app, 'GET', '/api/v1/dna/variants?rsids=rs1,chr1:12345', { token: pat });
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].msg).toContain('an rsID such as rs4244285');
  });

  it('takes rsids comma-separated or repeated over REST', async () => {
    const { pat } = await person();
    for (const query of ['rsids=rs4244285,rs9923231', 'rsids=rs4244285&rsids=rs9923231']) {
      const res = await rest(app, 'GET', `/api/v1/dna/variants?${query}`, { token: pat });
      expect(res.status, query).toBe(200);
      expect(res.body.lookups.map((l: any) => l.call)).toEqual(['AG', 'TT']);
    }
  });
});

describe('dna_knowledge_lookup', () => {
  it('searches the curated cards without a genome (MCP and REST ?q=)', async () => {
    const { client, pat } = await person(false);
    const r = sc(await callTool(client, 'dna_knowledge_lookup', { query: 'warfarin' }));
    expect(r.genes.map((g: any) => g.symbol)).toEqual(expect.arrayContaining(['VKORC1']));
    expect(r.variants.length).toBeGreaterThan(0);
    const apoe = await rest(app, 'GET', '/api/v1/dna/knowledge?q=rs429358', { token: pat });
    expect(apoe.status).toBe(200);
    expect(apoe.body.haplotypes[0]).toMatchObject({ id: 'APOE', rsids: ['rs429358', 'rs7412'] });
    expect(apoe.body.variants[0].genotypes.length).toBeGreaterThan(1);
  });
});

describe('dna_data_delete', () => {
  it('refuses without confirm, and with confirm removes the genome (the report then has none)', async () => {
    const { me, client } = await person();
    const refused = errorOf(await callTool(client, 'dna_data_delete'));
    expect(refused.code).toBe('CONFIRMATION_REQUIRED');
    expect(await app.db.prisma.dnaGenome.count({ where: { userId: me.user.id } })).toBe(1);
    const done = sc(await callTool(client, 'dna_data_delete', { confirm: true }));
    expect(done).toMatchObject({
      deleted: true,
      tables: [
        { table: 'dna_genomes', rows: 1 },
        { table: 'dna_reports', rows: 0 },
        { table: 'dna_relatives', rows: 0 },
      ],
    });
    expect(await app.db.prisma.dnaGenome.count({ where: { userId: me.user.id } })).toBe(0);
    expect(sc(await callTool(client, 'dna_report_read')).genome).toBeNull();
    const again = sc(await callTool(client, 'dna_data_delete', { confirm: true }));
    expect(again.deleted).toBe(false);
  });

  it('deletes over REST (DELETE /api/v1/dna) and needs health:dna:write', async () => {
    const { me } = await person();
    const reader = await seedPersonalToken(app, me.user.id, ['health:dna:read']);
    expect((await rest(app, 'DELETE', '/api/v1/dna', { token: reader })).status).toBe(403);
    const res = await rest(app, 'DELETE', '/api/v1/dna', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body.deleted).toBe(true);
    expect(await app.db.prisma.dnaGenome.count({ where: { userId: me.user.id } })).toBe(0);
  });
});

describe('DNA and access grants', () => {
  it("never reads the owner's DNA while viewing as, and reads the grantee's own after switching back", async () => {
    const { me: owner } = await person();
    const grantee = await seedUser(app);
    await uploadFor(grantee, { ...DEFAULT_CALLS, rs4244285: 'GG' });
    const grant = await seedActiveGrant(app, owner, grantee);
    await switchViewAs(app, grantee.token, grant);
    for (const path of [
      '/api/v1/dna/report',
      '/api/v1/dna/genes/CYP2C19',
      '/api/v1/dna/variants?rsids=rs4244285',
    ]) {
      const res = await rest(app, 'GET', path, { token: grantee.token });
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual({ detail: DNA_NOT_SHARED });
    }
    await switchViewAs(app, grantee.token, null);
    const own = await rest(app, 'GET', '/api/v1/dna/variants?rsids=rs4244285', {
      token: grantee.token,
    });
    expect(own.body.lookups[0].call).toBe('GG');
  });
});
