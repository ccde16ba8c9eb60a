/**
 * Issue 34, part 1: raw genome files read honestly. Generated genomes in every vendor layout
 * (plain, gzip, zip, CRLF, VCF on GRCh37 and GRCh38) parse to the vendor, build, counts, call rate
 * and sex they were made with, and the chosen calls survive encode -> encrypt -> decrypt ->
 * decode exactly; unknown, hostile and over-size files are refused with a message naming the
 * formats read; altered ciphertext is refused.
 */
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import {
  FORMATS_READ,
  GENOME_LIMITS,
  GenomeFormatError,
  parseGenome,
  type ParsedGenome,
} from '../../src/domains/dna/dna.parse.ts';
import {
  decodeGenome,
  decryptGenome,
  encodeGenome,
  encryptGenome,
  genomeKey,
} from '../../src/domains/dna/dna.store.ts';
import type { GenomeVendor } from '../../src/domains/dna/dna.types.ts';
import {
  DEFAULT_CALLS,
  generateGenome,
  generateMarkers,
  genomeText,
  type GenerateOptions,
  zipFiles,
} from '../fixtures/dna/generate.ts';

const KEY = Buffer.alloc(32, 7);
const VENDORS: GenomeVendor[] = [
  '23andme',
  'ancestrydna',
  'myheritage',
  'ftdna',
  'livingdna',
  'vcf',
];

/** Parses bytes as a stream of small chunks (lines split across chunks). */
const parse = (buf: Buffer, options?: Parameters<typeof parseGenome>[1]): Promise<ParsedGenome> => {
  const chunks: Buffer[] = [];
  for (let i = 0; i < buf.length; i += 4093) chunks.push(buf.subarray(i, i + 4093));
  return parseGenome(Readable.from(chunks), options);
};

/** What a refusal says, or a failure when the file was read. */
async function refusal(buf: Buffer, options?: Parameters<typeof parseGenome>[1]): Promise<string> {
  const error: unknown = await parse(buf, options).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GenomeFormatError);
  const message = (error as Error).message;
  expect(message).toContain(FORMATS_READ);
  expect(message).toContain('23andMe');
  return message;
}

/** The expected figures of a generated genome. */
function truth(options: GenerateOptions): { markers: number; called: number } {
  const markers = generateMarkers(options);
  return { markers: markers.length, called: markers.filter((m) => m.call !== '--').length };
}

describe('parseGenome', () => {
  const cases = VENDORS.flatMap((vendor) =>
    (['female', 'male'] as const).map((sex, k) => ({
      vendor,
      sex,
      compression: (['none', 'gzip', 'zip'] as const)[(VENDORS.indexOf(vendor) + k) % 3],
      crlf: k === 1,
      build: vendor === 'vcf' && sex === 'male' ? ('GRCh38' as const) : ('GRCh37' as const),
    })),
  );

  it.each(cases)(
    'reads $vendor ($sex, $compression, crlf $crlf, $build) and keeps every call through the store',
    async (options) => {
      const parsed = await parse(generateGenome(options));
      const { markers, called } = truth(options);
      expect(parsed.summary).toMatchObject({
        vendor: options.vendor,
        build: options.build,
        markers,
        called,
        sex: options.sex,
      });
      expect(parsed.summary.callRate).toBeCloseTo(called / markers, 10);
      expect(parsed.malformed).toBe(0);
      const sealed = encryptGenome(encodeGenome(parsed), KEY);
      const index = decodeGenome(decryptGenome(sealed, KEY));
      expect(index.build).toBe(options.build);
      for (const [rsid, call] of Object.entries(DEFAULT_CALLS)) {
        expect(index.has(rsid)).toBe(true);
        expect(index.call(rsid), rsid).toBe(call === '--' ? null : call);
      }
      expect(index.has('rs1')).toBe(false);
      expect(index.call('rs1')).toBeNull();
    },
  );

  it('keeps every generated marker exactly, haploid X/Y/MT calls as one letter', async () => {
    const options: GenerateOptions = { vendor: '23andme', sex: 'male', markers: 3000, seed: 9 };
    const index = decodeGenome(encodeGenome(await parse(generateGenome(options))));
    const expected = generateMarkers(options);
    expect(index.count).toBe(expected.length);
    for (const m of expected) {
      expect(index.call(m.id), m.id).toBe(m.call === '--' ? null : m.call);
    }
    const x = [...index.markers('X')];
    expect(x.length).toBe(
      expected.filter((m) => m.chromosome === 'X' || m.chromosome === 'PAR').length,
    );
    // outside the pseudo-autosomal region (generated below 3 Mb) a male's X is haploid
    const haploid = x.filter((m) => m.call !== '--' && m.position >= 3_000_000);
    expect(haploid.length).toBeGreaterThan(50);
    expect(haploid.every((m) => m.call.length === 1)).toBe(true);
    expect(
      [...index.markers('MT')].filter((m) => m.call !== '--').every((m) => m.call.length === 1),
    ).toBe(true);
    expect(x.some((m) => m.position < 3_000_000 && m.call.length === 2)).toBe(true);
    expect(x.map((m) => m.position)).toEqual([...x.map((m) => m.position)].sort((a, b) => a - b));
    expect(expected.some((m) => m.id.startsWith('i'))).toBe(true);
    expect(expected.some((m) => m.call === 'DI' || m.call === 'DD' || m.call === 'II')).toBe(true);
  });

  it('leaves the pseudo-autosomal X out of the heterozygosity (a male with PAR hets stays male)', async () => {
    const options: GenerateOptions = { vendor: 'ancestrydna', sex: 'male', markers: 20_000 };
    const parsed = await parse(generateGenome(options));
    const par = generateMarkers(options).filter((m) => m.chromosome === 'PAR');
    expect(par.some((m) => m.call[0] !== m.call[1] && m.call !== '--')).toBe(true);
    expect(parsed.summary.xHeterozygosity).toBe(0);
    expect(parsed.summary.sex).toBe('male');
  });

  it('answers sex null with the reason when too few X markers are called', async () => {
    const parsed = await parse(generateGenome({ vendor: '23andme', markers: 500 }));
    expect(parsed.summary.sex).toBeNull();
    expect(parsed.summary.sexNote).toMatch(/too few called X markers/);
  });

  it('answers sex null when a female X comes with a male Y (XXY or a mixed sample)', async () => {
    const female = generateGenome({ vendor: '23andme', sex: 'female' }).toString('latin1');
    const male = generateGenome({ vendor: '23andme', sex: 'male' }).toString('latin1');
    const yRows = male.split('\n').filter((l) => l.split('\t')[1] === 'Y');
    const mixed = female
      .split('\n')
      .filter((l) => l.split('\t')[1] !== 'Y')
      .concat(yRows)
      .join('\n');
    const parsed = await parse(Buffer.from(mixed, 'latin1'));
    expect(parsed.summary.sex).toBeNull();
    expect(parsed.summary.sexNote).toMatch(/X and Y disagree/);
  });

  it('tells a VCF build from a known marker position when the header does not say it', async () => {
    for (const build of ['GRCh37', 'GRCh38'] as const) {
      const parsed = await parse(generateGenome({ vendor: 'vcf', build, vcfWithoutBuild: true }));
      expect([parsed.summary.build, parsed.buildSource]).toEqual([build, 'marker positions']);
    }
  });

  it('reads MyHeritage rows with doubled quotes', async () => {
    const parsed = await parse(generateGenome({ vendor: 'myheritage', extraQuotes: true }));
    expect(parsed.summary.vendor).toBe('myheritage');
    expect(parsed.malformed).toBe(0);
    expect(decodeGenome(encodeGenome(parsed)).call('rs4244285')).toBe('AG');
  });

  it('reads PharmCAT example VCF (GRCh38, multi-allelic indels kept without a call)', async () => {
    const file = readFileSync(
      path.join(import.meta.dirname, '../fixtures/dna/pharmcat.example.vcf'),
    );
    const parsed = await parse(file);
    expect(parsed.summary).toMatchObject({ vendor: 'vcf', build: 'GRCh38', markers: 1202 });
    const index = decodeGenome(encodeGenome(parsed));
    expect(index.call('rs3918290')).toBe('CC');
    expect(index.call('rs72549303')).toBe('II'); // TG>T deletion site, homozygous reference
    expect(index.has('rs3064744')).toBe(true); // CAT > C, CATAT, CATATAT: neither D nor I
    expect(index.call('rs3064744')).toBeNull();
    expect(parsed.uncallable).toBeGreaterThan(0);
  });

  it('skips malformed lines, counting them, and refuses a file with too many', async () => {
    const lines = generateGenome({ vendor: '23andme' }).toString('latin1').split('\n');
    const some = [...lines];
    some.splice(
      20,
      0,
      'rs1\t1\tnot-a-position\tAG',
      'rs2\t1\t99999999999999999999\tAG',
      'rs3\t1\t5',
    );
    const parsed = await parse(Buffer.from(some.join('\n'), 'latin1'));
    expect(parsed.malformed).toBe(3);
    const many = lines.map((l, i) => (i > 10 && i % 5 === 0 ? `${l}\tjunk` : l));
    expect(await refusal(Buffer.from(many.join('\n'), 'latin1'))).toMatch(
      /rows of the 23andme file are unreadable/,
    );
  });
});

describe('parseGenome refusals', () => {
  it('refuses unknown text', async () => {
    expect(await refusal(Buffer.from('Dear diary,\nToday I had my DNA tested.\n'))).toMatch(
      /not a raw genome file/,
    );
  });

  it("refuses an image's bytes", async () => {
    const png = Buffer.concat([
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
      Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 131) % 256)),
    ]);
    await refusal(png);
  });

  it('refuses an empty file', async () => {
    expect(await refusal(Buffer.alloc(0))).toMatch(/empty/);
  });

  it('refuses a zip holding two files, and one holding none', async () => {
    const a = generateGenome({ vendor: '23andme' });
    expect(await refusal(zipFiles({ 'a.txt': a, 'b.txt': a }))).toMatch(
      /holds 2 files \(a\.txt, b\.txt\)/,
    );
    expect(await refusal(zipFiles({ '__MACOSX/._a.txt': a }))).toMatch(/holds no file/);
  });

  it('refuses a truncated gzip', async () => {
    const gz = generateGenome({ vendor: '23andme', compression: 'gzip' });
    expect(await refusal(gz.subarray(0, gz.length - 500))).toMatch(/gzip file is truncated/);
  });

  it('refuses a file over the size limit, and a zip bomb over the decompressed limit', async () => {
    const plain = generateGenome({ vendor: '23andme' });
    expect(await refusal(plain, { maxBytes: 10_000 })).toMatch(/larger than 10000 bytes/);
    const rows = Array.from({ length: 300_000 }, (_, i) => `rs${i + 1}\t1\t${i + 1}\tAA\n`);
    const bomb = gzipSync(Buffer.from(`# 23andMe\n${rows.join('')}`), { level: 1 });
    expect(
      await refusal(bomb, { maxDecompressedBytes: 5 * 1024 * 1024, maxInflation: 1000 }),
    ).toMatch(/decompressed text is larger than 5 MB/);
  });

  it('refuses a gzip or zip that inflates past 20 times the bytes sent, as it inflates (issue 45)', async () => {
    // distinct, readable VCF rows with a long INFO field: about 500 times smaller gzipped
    const text = Buffer.from(
      [
        '##fileformat=VCFv4.2',
        '##reference=GRCh37',
        '#CHROM\tPOS\tID\tREF\tALT\tQUAL\tFILTER\tINFO\tFORMAT\tSAMPLE',
        ...Array.from(
          { length: 3000 },
          (_, i) =>
            `1\t${1000 + i * 10}\trs${i + 1}\tA\tG\t.\tPASS\t${'AC=1;'.repeat(400)}\tGT\t0/1`,
        ),
      ].join('\n'),
    );
    const gz = gzipSync(text);
    expect(text.length / gz.length).toBeGreaterThan(GENOME_LIMITS.maxInflation);
    expect(await refusal(gz)).toMatch(/The gzip file inflates to more than 20 times the/);
    // the zip's declared size refuses it before it inflates; a gzip inside the zip at its own door
    expect(await refusal(zipFiles({ 'genome.vcf': text }))).toMatch(
      /The zip file inflates to more than 20 times/,
    );
    expect(await refusal(zipFiles({ 'genome.vcf.gz': gz }))).toMatch(
      /The gzip file inflates to more than 20 times/,
    );
    // the rows themselves are readable: only the ratio refused them
    expect((await parse(gz, { maxInflation: 1000 })).summary.markers).toBe(3000);
  });

  it('reads every generated vendor file within the inflation bound (they compress 2.7-5 times)', async () => {
    for (const vendor of VENDORS) {
      const text = generateGenome({ vendor, markers: 20_000 });
      for (const packed of [gzipSync(text, { level: 9 }), zipFiles({ 'genome.txt': text })]) {
        expect(text.length / packed.length).toBeLessThan(GENOME_LIMITS.maxInflation / 3);
        expect((await parse(packed)).summary.vendor).toBe(vendor);
      }
    }
  });

  it('refuses NUL bytes, a 10 MB single line and a file of comments only', async () => {
    expect(await refusal(Buffer.from('# 23andMe\0\0\0\nrs1\t1\t5\tAA\n'))).toMatch(/not text/);
    expect(await refusal(Buffer.alloc(10 * 1024 * 1024, 0x41))).toMatch(/longer than 1 MB/);
    expect(await refusal(Buffer.from('# 23andMe\n#\n'))).toMatch(/no markers/);
  });

  it('refuses a build 36 file and a VCF that does not say its build', async () => {
    const b36 = generateGenome({ vendor: '23andme' })
      .toString('latin1')
      .replace('build 37', 'build 36');
    expect(
      await refusal(Buffer.from(b36.replace(/rs3094315\t1\t752566/, 'rs3094315\t1\t742429'))),
    ).toMatch(/build 36/);
    const vcf = generateGenome({ vendor: 'vcf', vcfWithoutBuild: true })
      .toString('latin1')
      .replace(/\nrs3094315[^\n]*|\n1\t752566\trs3094315[^\n]*/, '');
    expect(await refusal(Buffer.from(vcf))).toMatch(/does not say its build/);
  });
});

describe('bounds that describe real files (issue 45)', () => {
  /** A stream of `text` that never ends: a refusal proves the parser did not wait for the end. */
  async function* endless(text: string): AsyncGenerator<Buffer> {
    yield Buffer.from(text, 'latin1');
    await new Promise(() => {});
  }
  const rowsOf = (text: string): string[] => text.split('\n');

  it('keeps one call per rsID and per position, the first, counting each repeat', async () => {
    const lines = rowsOf(genomeText({ vendor: '23andme' }));
    const at = (rsid: string): string[] =>
      lines.find((l) => l.startsWith(`${rsid}\t`))!.split('\t');
    const [, chrom, pos] = at('rs9923231');
    const adjacent = lines.findIndex((l) => l.startsWith('rs4149056\t'));
    lines.splice(adjacent, 0, lines[adjacent]); // the same line twice, in position order
    lines.push(
      'rs4244285\t10\t999\tGG', // a repeated rsID elsewhere: the first call stays
      `rs123\t${chrom}\t${pos}\tCC`, // a repeated position under another rsID
      'i5000001\t2\t999\tAG', // an internal id ...
      'rs777\t2\t999\tAA', // ... whose position an rsID then takes (the readers ask by rsID)
      '',
    );
    const parsed = await parse(Buffer.from(lines.join('\n'), 'latin1'));
    const unique = generateMarkers({ vendor: '23andme' }).length;
    expect([parsed.summary.markers, parsed.repeated, parsed.malformed]).toEqual([unique + 1, 4, 0]);
    const index = decodeGenome(encodeGenome(parsed));
    expect(index.call('rs4244285')).toBe('AG');
    expect(index.call('rs4149056')).toBe(DEFAULT_CALLS.rs4149056);
    expect(index.has('rs123')).toBe(false);
    expect(index.call('rs777')).toBe('AA');
    expect(index.has('i5000001')).toBe(false);
    expect([...index.markers('2')].filter((m) => m.position === 999)).toHaveLength(1);
  });

  it('refuses a file whose repeats pass 2% of its rows, and one made of one line early', async () => {
    const lines = rowsOf(genomeText({ vendor: 'ancestrydna' }));
    const doubled = lines.flatMap((l, i) => (i > 10 && i % 30 === 0 ? [l, l] : [l]));
    expect(await refusal(Buffer.from(doubled.join('\n'), 'latin1'))).toMatch(
      /^1\d\d of 5\d{3} rows of the ancestrydna file repeat an rsID or a position read before/,
    );
    const line = 'rs4244285\t10\t96541616\tAG\n';
    const error: unknown = await parseGenome(endless(`# 23andMe\n${line.repeat(20_000)}`)).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GenomeFormatError);
    expect((error as Error).message).toMatch(
      /^Most rows of the 23andme file repeat a marker read before \(10000 so far\)/,
    );
  });

  it('refuses rows past the maximum as soon as the count passes, without reading on', async () => {
    const array = genomeText({ vendor: 'livingdna' });
    const vcf = genomeText({ vendor: 'vcf' });
    for (const [text, options, message] of [
      [
        array,
        { maxArrayRows: 1000 },
        /^The livingdna file holds more than 1,000 rows, more than a consumer array file/,
      ],
      [
        vcf,
        { maxVcfRows: 1000 },
        /^The VCF holds more than 1,000 rows, more than a single-sample VCF/,
      ],
    ] as const) {
      const error: unknown = await parseGenome(endless(text), options).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(GenomeFormatError);
      expect((error as Error).message).toMatch(message);
    }
    expect(GENOME_LIMITS).toMatchObject({ maxArrayRows: 2_000_000, maxVcfRows: 6_000_000 });
  });

  it('refuses fewer than 100 markers, and reads the targeted PharmCAT VCF (1,202)', async () => {
    expect(await refusal(generateGenome({ vendor: '23andme', markers: 20 }))).toMatch(
      /^The 23andme file holds \d\d markers, fewer than the 100 a genome file holds at the least/,
    );
    const pharmcat = readFileSync(
      path.join(import.meta.dirname, '../fixtures/dna/pharmcat.example.vcf'),
    );
    expect((await parse(pharmcat)).summary.markers).toBe(1202);
    expect(GENOME_LIMITS.minMarkers).toBe(100);
  });
});

describe('genome store', () => {
  it('refuses altered ciphertext, an altered tag and a wrong key', async () => {
    const parsed = await parse(generateGenome({ vendor: '23andme', markers: 500 }));
    const sealed = encryptGenome(encodeGenome(parsed), KEY);
    for (const at of [0, 5, 20, sealed.length - 1]) {
      const altered = Buffer.from(sealed);
      altered[at] ^= 1;
      expect(() => decryptGenome(altered, KEY)).toThrow(/not in a known layout|cannot be opened/);
    }
    expect(() => decryptGenome(sealed, Buffer.alloc(32, 8))).toThrow(/wrong key or altered bytes/);
    expect(encryptGenome(Buffer.from('x'), KEY).equals(encryptGenome(Buffer.from('x'), KEY))).toBe(
      false,
    );
  });

  it('takes the key from DNA_ENCRYPTION_KEY (hex or base64), else from one file under DATA_DIR', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dna-key-'));
    const hex = 'ab'.repeat(32);
    expect(genomeKey({ DATA_DIR: dir, DNA_ENCRYPTION_KEY: hex }).toString('hex')).toBe(hex);
    const b64 = Buffer.alloc(32, 3).toString('base64');
    expect(genomeKey({ DATA_DIR: dir, DNA_ENCRYPTION_KEY: b64 })).toEqual(Buffer.alloc(32, 3));
    expect(() => genomeKey({ DATA_DIR: dir, DNA_ENCRYPTION_KEY: 'short' })).toThrow(/32 bytes/);
    const first = genomeKey({ DATA_DIR: dir });
    expect(first.length).toBe(32);
    expect(genomeKey({ DATA_DIR: dir })).toEqual(first);
    expect(statSync(path.join(dir, 'secrets', 'dna.key')).mode & 0o777).toBe(0o600);
  });
});
