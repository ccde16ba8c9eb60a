/**
 * Issue 34, the OAuth rule (MCP document, Authentication 8: over OAuth, DNA tools return findings
 * and lookups, never the whole genome): every DNA tool called over the OAuth host's /mcp answers at
 * most 50 genotypes, and one connection reads at most 500 genotypes in a UTC day: the 501st
 * answers 429 saying when the count resets, and counts nothing. Another connection has its own
 * day; a personal token (the person's own door) is not counted.
 */
import { describe, expect, it } from 'vitest';
import {
  OAUTH_GENOTYPES_PER_ANSWER,
  OAUTH_GENOTYPES_PER_DAY,
} from '../../src/domains/dna/dna.access.ts';
import { nextUtcMidnight } from '../../src/platform/rate-limit.ts';
import { DEFAULT_CALLS, generateGenome } from '../fixtures/dna/generate.ts';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const oauthHost = { baseUrl: app.mcpUrl };
const DNA = ['health:dna:read', 'health:dna:write'] as const;
const DNA_TOOLS = [
  'dna_ancestry_read',
  'dna_ancestry_start',
  'dna_calculator_run',
  'dna_data_delete',
  'dna_deep_time_read',
  'dna_family_accept',
  'dna_family_insights',
  'dna_family_invite',
  'dna_family_list',
  'dna_family_parents_related',
  'dna_family_read',
  'dna_family_relative_ancestry',
  'dna_family_remove',
  'dna_family_update',
  'dna_gene_read',
  'dna_hla_read',
  'dna_hla_start',
  'dna_knowledge_lookup',
  'dna_medicines_read',
  'dna_medicines_start',
  'dna_painting_findings_read',
  'dna_painting_read',
  'dna_report_read',
  'dna_story_share',
  'dna_variants_lookup',
];

async function personWithGenome(
  calls: Record<string, string> = {
    ...DEFAULT_CALLS,
    rs1800462: 'CG',
    rs429358: 'CT',
    rs7412: 'CC',
  },
  vendor: 'ancestrydna' | '23andme' = 'ancestrydna',
): Promise<SeededUser> {
  const me = await seedUser(app);
  const form = new FormData();
  const bytes = generateGenome({ vendor, calls });
  const name = vendor === 'ancestrydna' ? 'AncestryDNA.txt' : 'genome_23andMe.txt';
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  const res = await app.fetch('/api/v1/dna/upload', {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${me.token}` },
  });
  expect(res.status).toBe(200);
  return me;
}

async function oauthClient(userId: number) {
  const { accessToken, connectionId } = await seedOAuthConnection(app, userId, [...DNA]);
  return { connectionId, client: await mcpClient(oauthHost, accessToken, { path: '/mcp' }) };
}

/** The person's genotypes an answer carries: every non-null `call` in it. */
function genotypesIn(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + genotypesIn(v), 0);
  if (!value || typeof value !== 'object') return 0;
  return Object.entries(value).reduce(
    (n, [k, v]) => n + (k === 'call' && typeof v === 'string' ? 1 : genotypesIn(v)),
    0,
  );
}

const sc = (r: any): any => r.structuredContent;

/** A report read over `client` once its job is done (the worker runs in this process). */
async function madeOver(
  client: Awaited<ReturnType<typeof mcpClient>>,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<any> {
  for (let i = 0; i < 300; i++) {
    const body = sc(await callTool(client, tool, args));
    if (body.report?.status === 'done') return body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${tool}: the report was not made`);
}
/** rsIDs `from`..`from + 49`: 50 distinct ones (in the file or not, each counts). */
const fifty = (from: number): string[] =>
  Array.from({ length: OAUTH_GENOTYPES_PER_ANSWER }, (_, i) => `rs${from + i}`);

describe('DNA tools over OAuth', () => {
  it('lists the 25 DNA tools and answers each with at most 50 genotypes, findings only', async () => {
    const me = await personWithGenome();
    const { client } = await oauthClient(me.user.id);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed.filter((n) => n.startsWith('dna_')).sort()).toEqual(DNA_TOOLS);

    const chosen = Object.keys(DEFAULT_CALLS);
    const answers: Record<string, any> = {};
    const calls: [string, Record<string, unknown>][] = [
      ['dna_report_read', {}],
      ['dna_gene_read', { symbol: 'DPYD' }],
      ['dna_gene_read', { symbol: 'APOE' }],
      ['dna_variants_lookup', { rsids: [...chosen, ...fifty(1000)].slice(0, 50) }],
      ['dna_knowledge_lookup', { query: 'metabolizer' }],
      ['dna_medicines_start', { idempotency_key: 'oauth-medicines-1' }],
      ['dna_hla_start', { idempotency_key: 'oauth-hla-0001' }],
      ['dna_ancestry_start', { idempotency_key: 'oauth-ancestry-1' }],
      ['dna_calculator_run', { calculator: 'continental-kidd' }],
      ['dna_deep_time_read', {}],
      ['dna_family_parents_related', {}],
      ['dna_painting_read', {}],
      ['dna_painting_findings_read', {}],
      ['dna_story_share', { include: ['maternal_line', 'paternal_line', 'parents_related'] }],
      ['dna_family_list', {}],
      ['dna_family_insights', {}],
    ];
    for (const [name, args] of calls) {
      const result = await callTool(client, name, args);
      expect(result.isError, `${name}: ${JSON.stringify(result.structuredContent)}`).toBeFalsy();
      const n = genotypesIn(sc(result));
      expect(n, name).toBeLessThanOrEqual(OAUTH_GENOTYPES_PER_ANSWER);
      expect(JSON.stringify(result.structuredContent).length, name).toBeLessThan(100_000);
      answers[`${name} ${JSON.stringify(args)}`] = { n, body: sc(result) };
    }
    // the reports, once made, carry findings: no call at any site
    for (const kind of ['medicines', 'hla']) {
      const body = await madeOver(client, `dna_${kind}_read`);
      expect(body.genotypes_shown).toBe(false);
      expect(genotypesIn(body), kind).toBe(0);
      expect(JSON.stringify(body).length, kind).toBeLessThan(100_000);
    }
    // ancestry and the haplogroups are findings: no call, and no variant of the person's own
    const ancestry = await madeOver(client, 'dna_ancestry_read');
    expect(ancestry.ancestry.status).toMatch(/^(estimated|refused)$/);
    expect(genotypesIn(ancestry)).toBe(0);
    const deep = answers['dna_deep_time_read {}'].body;
    expect(deep.genotypes_shown).toBe(false);
    expect(deep.report.maternal.best.missing).toEqual([]);
    expect(deep.report.maternal.best.extra).toEqual([]);
    expect(deep.report.paternal.conflicts.every((c: any) => c.call === null)).toBe(true);
    const medicines = await madeOver(client, 'dna_medicines_read', { detail: true });
    const cyp2c19 = medicines.genes.find((g: any) => g.gene === 'CYP2C19');
    expect(cyp2c19.phenotype).toBe('Intermediate Metabolizer');
    expect(cyp2c19.sites.every((site: any) => site.call === null && site.genotype === null)).toBe(
      true,
    );
    const deleted = await callTool(client, 'dna_data_delete', { confirm: true });
    expect(sc(deleted).deleted).toBe(true);
    expect(sc(deleted).tables.map((t: any) => t.table)).toEqual([
      'dna_genomes',
      'dna_reports',
      'dna_relatives',
    ]);

    const report = answers['dna_report_read {}'].body;
    // findings: the carried rare variant and APOE; the unreadable sites counted, never listed
    expect(report.overview.needs_clinical_confirmation.map((l: any) => l.rsid)).toEqual([
      'rs1800462',
    ]);
    expect(report.overview.apoe.combination).toBe('e3/e4');
    expect(report.overview.unreadable).toEqual([]);
    expect(report.note).toMatch(/findings only/);
    const lookup = answers[Object.keys(answers).find((k) => k.startsWith('dna_variants'))!];
    expect(lookup.n).toBe(chosen.length - 1); // rs2187668 is a no-call
    expect(answers['dna_knowledge_lookup {"query":"metabolizer"}'].n).toBe(0);
  });

  it('never names a call in the medicines notes over OAuth, a reverse-strand call included', async () => {
    // rs4244285 (CYP2C19*2, G>A) reported on the reverse strand: CT is the complement of GA
    const me = await personWithGenome({ ...DEFAULT_CALLS, rs4244285: 'CT' }, '23andme');
    const { client } = await oauthClient(me.user.id);
    await callTool(client, 'dna_medicines_start', { idempotency_key: 'oauth-reverse-01' });
    const body = await madeOver(client, 'dna_medicines_read', { detail: true });
    const cyp2c19 = body.genes.find((g: any) => g.gene === 'CYP2C19');
    // the reverse-strand call is read (the *2 copy found) and said, without its letters
    expect(cyp2c19.phenotype).toBe('Intermediate Metabolizer');
    expect(cyp2c19.notes).toContain('rs4244285: the call was read on the reverse strand.');
    expect(genotypesIn(body)).toBe(0);
    expect(JSON.stringify(body)).not.toMatch(/\b(call|as) [ACGT]{2}\b/);
  });

  it('answers 429 for the 501st genotype of a UTC day on one connection, saying when it resets', async () => {
    const me = await personWithGenome();
    const { client } = await oauthClient(me.user.id);
    const perCall = OAUTH_GENOTYPES_PER_ANSWER;
    for (let k = 0; k < OAUTH_GENOTYPES_PER_DAY / perCall; k++) {
      const ok = await callTool(client, 'dna_variants_lookup', { rsids: fifty(1000 + k * 100) });
      expect(ok.isError, `call ${k + 1}`).toBeFalsy();
      expect(sc(ok).lookups).toHaveLength(perCall);
    }
    const over = await callTool(client, 'dna_variants_lookup', { rsids: ['rs4244285'] });
    expect(over.isError).toBe(true);
    const error = sc(over).error;
    const resetAt = nextUtcMidnight(clock.now()).toISOString();
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      retryable: true,
      detail: { code: 'dna_genotypes_per_day', limit: 500, remaining: 0, reset_at: resetAt },
    });
    expect(error.retry_after).toBeGreaterThan(0);
    expect(error.message).toContain(`resets at ${resetAt}`);
    expect(error.message).toMatch(/Ask for fewer rsIDs, wait until then/);
    // a gene read is counted too; the knowledge needs no genotype and still answers
    const gene = await callTool(client, 'dna_gene_read', { symbol: 'CYP2C19' });
    expect(sc(gene).error.code).toBe('RATE_LIMITED');
    const cards = await callTool(client, 'dna_knowledge_lookup', { query: 'rs4244285' });
    expect(cards.isError).toBeFalsy();

    // another connection of the same person has a day of its own
    const other = await oauthClient(me.user.id);
    const fresh = await callTool(other.client, 'dna_variants_lookup', { rsids: ['rs4244285'] });
    expect(sc(fresh).lookups[0].call).toBe('AG');
  });

  it('refuses a request that does not fit what is left, and still answers one that does', async () => {
    const me = await personWithGenome();
    const { client } = await oauthClient(me.user.id);
    for (let k = 0; k < 9; k++) {
      const ok = await callTool(client, 'dna_variants_lookup', { rsids: fifty(k * 100 + 1) });
      expect(ok.isError, `call ${k + 1}`).toBeFalsy();
    }
    const partial = fifty(5000).slice(0, 30);
    expect((await callTool(client, 'dna_variants_lookup', { rsids: partial })).isError).toBeFalsy();
    // 470 counted: 50 do not fit, 20 do
    const tooMany = sc(await callTool(client, 'dna_variants_lookup', { rsids: fifty(6000) }));
    expect(tooMany.error.detail.remaining).toBe(20);
    const fits = await callTool(client, 'dna_variants_lookup', { rsids: fifty(7000).slice(0, 20) });
    expect(fits.isError).toBeFalsy();
  });

  it('does not count a personal token: the person’s own door', async () => {
    const me = await personWithGenome();
    const pat = await seedPersonalToken(app, me.user.id, [...DNA]);
    const client = await mcpClient(app, pat);
    for (let k = 0; k <= OAUTH_GENOTYPES_PER_DAY / OAUTH_GENOTYPES_PER_ANSWER; k++) {
      const res = await callTool(client, 'dna_variants_lookup', { rsids: fifty(1000 + k * 100) });
      expect(res.isError, `call ${k + 1}`).toBeFalsy();
    }
  });
});
