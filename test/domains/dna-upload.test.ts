/**
 * Issue 34: the phone uploads a raw genome file (POST /api/v1/dna/upload, login session only,
 * multipart `file`, streamed to the field). Generated genomes in every vendor format (23andMe v3,
 * v4 and v5, AncestryDNA, MyHeritage, FTDNA, LivingDNA, VCF on GRCh37 and GRCh38; plain, gzip and
 * zip) answer their vendor, build, markers and sex, and a known genotype at a pharmacogene reads
 * back through dna_variants_lookup over MCP. A file that is no genome answers 422 naming the
 * formats read, one over 50 MB 413; a new upload replaces the old; authentication comes before the
 * body; personal tokens neither upload nor, without health:dna:read, see the DNA tools.
 */
import { describe, expect, it } from 'vitest';
import { FORMATS_READ } from '../../src/domains/dna/dna.parse.ts';
import { DNA_UPLOAD_MAX_BYTES } from '../../src/domains/dna/dna.upload.ts';
import type { GenomeBuild, GenomeVendor } from '../../src/domains/dna/dna.types.ts';
import {
  DEFAULT_CALLS,
  generateGenome,
  generateMarkers,
  genomeText,
  zipFiles,
} from '../fixtures/dna/generate.ts';
import type { GenerateOptions } from '../fixtures/dna/generate.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';

const app = await startTestApp();
const UPLOAD = '/api/v1/dna/upload';
/** The tools health:dna:read opens (the report starts are kind write with the read scope, as specified). */
const DNA_READ_TOOLS = [
  'dna_ancestry_read',
  'dna_calculator_run',
  'dna_deep_time_read',
  'dna_family_insights',
  'dna_family_list',
  'dna_family_parents_related',
  'dna_family_read',
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

/** POSTs a multipart form with `bytes` as its `file` part. */
async function upload(bytes: Buffer, token?: string, fileName = 'genome.txt') {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), fileName);
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  const res = await app.fetch(UPLOAD, { method: 'POST', body: form, headers });
  return { status: res.status, body: await res.json() };
}

/** A 23andMe file whose header names its chip version (as the parser reads it: v3, v4, v5). */
function twentyThreeAndMe(version: 'v3' | 'v4' | 'v5', options: Partial<GenerateOptions>): Buffer {
  const lines = genomeText({ vendor: '23andme', ...options }).split('\n');
  lines.splice(1, 0, `# Genotyped on the 23andMe ${version} chip.`);
  return Buffer.from(lines.join('\n'), 'latin1');
}

interface Case {
  name: string;
  vendor: GenomeVendor;
  version: string | null;
  build: GenomeBuild;
  sex: 'female' | 'male';
  compression: 'none' | 'gzip' | 'zip';
  bytes: () => Buffer;
}

const gen = (o: GenerateOptions) => () => generateGenome(o);
const CASES: Case[] = [
  ...(['v3', 'v4', 'v5'] as const).map(
    (version, k): Case => ({
      name: `23andMe ${version}`,
      vendor: '23andme',
      version,
      build: 'GRCh37',
      sex: k === 1 ? 'male' : 'female',
      compression: 'none',
      bytes: () => twentyThreeAndMe(version, { sex: k === 1 ? 'male' : 'female', seed: 40 + k }),
    }),
  ),
  {
    name: 'AncestryDNA',
    vendor: 'ancestrydna',
    version: 'V2.0',
    build: 'GRCh37',
    sex: 'male',
    compression: 'gzip',
    bytes: gen({ vendor: 'ancestrydna', sex: 'male', compression: 'gzip' }),
  },
  {
    name: 'MyHeritage',
    vendor: 'myheritage',
    version: null,
    build: 'GRCh37',
    sex: 'female',
    compression: 'zip',
    bytes: gen({ vendor: 'myheritage', sex: 'female', compression: 'zip' }),
  },
  {
    name: 'FTDNA',
    vendor: 'ftdna',
    version: null,
    build: 'GRCh37',
    sex: 'male',
    compression: 'none',
    bytes: gen({ vendor: 'ftdna', sex: 'male', crlf: true }),
  },
  {
    name: 'LivingDNA',
    vendor: 'livingdna',
    version: '1.0.1',
    build: 'GRCh37',
    sex: 'female',
    compression: 'gzip',
    bytes: gen({ vendor: 'livingdna', sex: 'female', compression: 'gzip' }),
  },
  {
    name: 'VCF GRCh37',
    vendor: 'vcf',
    version: 'VCFv4.2',
    build: 'GRCh37',
    sex: 'male',
    compression: 'zip',
    bytes: gen({ vendor: 'vcf', build: 'GRCh37', sex: 'male', compression: 'zip' }),
  },
  {
    name: 'VCF GRCh38',
    vendor: 'vcf',
    version: 'VCFv4.2',
    build: 'GRCh38',
    sex: 'female',
    compression: 'gzip',
    bytes: gen({ vendor: 'vcf', build: 'GRCh38', sex: 'female', compression: 'gzip' }),
  },
];

describe('POST /api/v1/dna/upload', () => {
  it.each(CASES)(
    'reads $name ($compression): vendor, build, markers and sex; a pharmacogene genotype reads back over MCP',
    async (c) => {
      const me = await seedUser(app);
      const bytes = c.bytes();
      const res = await upload(bytes, me.token);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const seed = c.vendor === '23andme' ? 40 + ['v3', 'v4', 'v5'].indexOf(c.version!) : 34;
      const markers = generateMarkers({ vendor: c.vendor, sex: c.sex, build: c.build, seed });
      expect(res.body).toMatchObject({
        vendor: c.vendor,
        version: c.version,
        build: c.build,
        markers: markers.length,
        called: markers.filter((m) => m.call !== '--').length,
        sex: c.sex,
        file_bytes: bytes.length,
      });
      expect(res.body.call_rate).toBeGreaterThan(0.9);

      // CYP2C19*2 (rs4244285 AG) and VKORC1 (rs9923231 TT) as generated, read by an agent
      const pat = await seedPersonalToken(app, me.user.id, ['health:dna:read']);
      const client = await mcpClient(app, pat);
      const read = await callTool(client, 'dna_variants_lookup', {
        rsids: ['rs4244285', 'rs9923231'],
      });
      expect(read.isError, JSON.stringify(read.structuredContent)).toBeFalsy();
      const lookups = (read.structuredContent as any).lookups;
      expect(lookups.map((l: any) => [l.rsid, l.status, l.call])).toEqual([
        ['rs4244285', 'called', 'AG'],
        ['rs9923231', 'called', 'TT'],
      ]);
      expect(lookups[0].interpretation).toMatch(/intermediate metabolizer/);
      expect(lookups[0].card).toMatchObject({ gene: 'CYP2C19', category: 'medicine' });
    },
  );

  it('replaces the earlier genome with a new upload (one per person)', async () => {
    const me = await seedUser(app);
    const first = await upload(generateGenome({ vendor: 'ancestrydna' }), me.token);
    expect(first.body.vendor).toBe('ancestrydna');
    const second = await upload(
      generateGenome({ vendor: '23andme', calls: { ...DEFAULT_CALLS, rs4244285: 'AA' } }),
      me.token,
    );
    expect(second.status).toBe(200);
    expect(second.body.vendor).toBe('23andme');
    expect(await app.db.prisma.dnaGenome.count({ where: { userId: me.user.id } })).toBe(1);
    const read = await rest(app, 'GET', '/api/v1/dna/variants?rsids=rs4244285', {
      token: me.token,
    });
    expect(read.body.lookups[0].call).toBe('AA');
    const report = await rest(app, 'GET', '/api/v1/dna/report', { token: me.token });
    expect(report.body.genome.vendor).toBe('23andme');
  });

  it('answers 422 naming the formats read for a file that is no genome, keeping the earlier one', async () => {
    const me = await seedUser(app);
    await upload(generateGenome({ vendor: 'livingdna' }), me.token);
    for (const bytes of [
      Buffer.from('name,calories\nsoup,120\nbread,250\n'),
      Buffer.alloc(0),
      zipFiles({ 'a.txt': Buffer.from('x'), 'b.txt': Buffer.from('y') }),
    ]) {
      const res = await upload(bytes, me.token);
      expect(res.status).toBe(422);
      expect(res.body.detail).toHaveLength(1);
      expect(res.body.detail[0]).toMatchObject({ loc: ['body', 'file'], type: 'value_error' });
      expect(res.body.detail[0].msg).toContain(FORMATS_READ);
    }
    const report = await rest(app, 'GET', '/api/v1/dna/report', { token: me.token });
    expect(report.body.genome.vendor).toBe('livingdna');
  });

  it('answers 413 beyond 50 MB, and takes a file of exactly 50 MB to the parser', async () => {
    const me = await seedUser(app);
    // a zip's signature then zeros: the parser holds a zip whole, so only the size stops it
    const zipOf = (size: number) => {
      const bytes = Buffer.alloc(size);
      bytes.writeUInt32LE(0x04034b50, 0);
      return bytes;
    };
    const big = await upload(zipOf(DNA_UPLOAD_MAX_BYTES + 1), me.token, 'genome.zip');
    expect(big.status).toBe(413);
    expect(big.body.detail).toMatch(/^The file is larger than 50 MB/);
    const atLimit = await upload(zipOf(DNA_UPLOAD_MAX_BYTES), me.token, 'genome.zip');
    expect(atLimit.status).toBe(422);
    expect(atLimit.body.detail[0].msg).toMatch(/^The zip file is damaged/);
    expect(await app.db.prisma.dnaGenome.count({ where: { userId: me.user.id } })).toBe(0);
  });

  it('checks the credential before the body: 401 without one, 403 for a personal token', async () => {
    const me = await seedUser(app);
    const anonymous = await upload(Buffer.from('not even a genome'));
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Not authenticated' });
    const pat = await seedPersonalToken(app, me.user.id, ['health:dna:read', 'health:dna:write']);
    const byToken = await upload(generateGenome({ vendor: '23andme' }), pat);
    expect(byToken.status).toBe(403);
    expect(byToken.body).toEqual({ detail: 'Not allowed for this kind of credential' });
    expect(await app.db.prisma.dnaGenome.count({ where: { userId: me.user.id } })).toBe(0);
  });

  it('takes the file as a GraphQL multipart upload too', async () => {
    const me = await seedUser(app);
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query: 'mutation ($file: File!) { uploadGenome(file: $file) { vendor build sex markers } }',
        variables: { file: null },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append(
      '0',
      new Blob([new Uint8Array(generateGenome({ vendor: 'vcf', build: 'GRCh38' }))]),
      'genome.vcf',
    );
    const res = await app.fetch('/graphql', {
      method: 'POST',
      body: form,
      headers: { authorization: `Bearer ${me.token}` },
    });
    const body = await res.json();
    expect(body.errors).toBeUndefined();
    expect(body.data.uploadGenome).toMatchObject({ vendor: 'vcf', build: 'GRCh38', sex: 'female' });
    // and the schema says who may: a login session only
    const byGql = await gql(app, '{ dnaReport { genome { vendor } } }', { token: me.token });
    expect(byGql.body.data.dnaReport.genome.vendor).toBe('vcf');
  });

  it('lists and runs no DNA read tool for a personal token without health:dna:read', async () => {
    const me = await seedUser(app);
    await upload(generateGenome({ vendor: '23andme' }), me.token);
    const pat = await seedPersonalToken(app, me.user.id, ['profile:read', 'health:dna:write']);
    const client = await mcpClient(app, pat);
    const listed = (await client.listTools()).tools.map((t) => t.name);
    for (const name of DNA_READ_TOOLS) expect(listed).not.toContain(name);
    expect(listed).toContain('dna_data_delete');
    const refused = await callTool(client, 'dna_variants_lookup', { rsids: ['rs4244285'] });
    expect(refused.isError).toBe(true);
    expect((refused.structuredContent as any).error).toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      detail: { code: 'insufficient_scope', scope: 'health:dna:read' },
    });
    const byRest = await rest(app, 'GET', '/api/v1/dna/report', { token: pat });
    expect(byRest.status).toBe(403);

    const reader = await seedPersonalToken(app, me.user.id, ['health:dna:read']);
    const allowed = (await (await mcpClient(app, reader)).listTools()).tools.map((t) => t.name);
    expect(allowed.filter((n) => n.startsWith('dna_')).sort()).toEqual(DNA_READ_TOOLS);
  });
});
