/**
 * The stored genome (issue 34, not served yet): an upload in each vendor format is read, sealed and
 * kept as one row per person; opening it answers the file's calls; a new upload replaces the old;
 * a refused file leaves the earlier genome as it was; the sealed bytes hold no genotype in the
 * clear; deleting it, or the account, removes it.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  deleteGenome,
  genomeSummaryOf,
  openGenome,
  storeGenome,
} from '../../src/domains/dna/dna.genome.ts';
import type { GenomeDeps } from '../../src/domains/dna/dna.genome.ts';
import { GenomeFormatError } from '../../src/domains/dna/dna.parse.ts';
import { DEFAULT_CALLS, generateGenome } from '../fixtures/dna/generate.ts';
import { seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';

const app = await startTestApp();
const deps: GenomeDeps = { prisma: app.db.prisma, config: app.deps.config };
const upload = (userId: number, bytes: Buffer) =>
  storeGenome(deps, { userId, input: Readable.from([bytes]) });

describe('the stored genome', () => {
  it('keeps every vendor format sealed, one per person, and opens it with the file’s calls', async () => {
    const { user } = await seedUser(app);
    const first = await upload(
      user.id,
      generateGenome({ vendor: '23andme', sex: 'female', compression: 'gzip' }),
    );
    expect(first).toMatchObject({ vendor: '23andme', build: 'GRCh37', sex: 'female' });
    expect(first.markers).toBeGreaterThan(5000);
    expect(first.callRate).toBeGreaterThan(0.9);
    const opened = await openGenome(deps, user.id);
    for (const [rsid, call] of Object.entries(DEFAULT_CALLS)) {
      if (call === '--') continue;
      expect(opened?.calls.call(rsid), rsid).toBe(call);
    }
    const row = await app.db.prisma.dnaGenome.findUniqueOrThrow({ where: { userId: user.id } });
    const sealed = Buffer.from(row.sealed);
    expect(sealed.includes(Buffer.from('rs4244285'))).toBe(false);
    expect(sealed.length).toBeLessThan(row.fileBytes);

    for (const vendor of ['ancestrydna', 'myheritage', 'livingdna', 'vcf'] as const) {
      const view = await upload(
        user.id,
        generateGenome({ vendor, sex: 'male', compression: 'zip' }),
      );
      expect(view).toMatchObject({ vendor, sex: 'male' });
      expect((await openGenome(deps, user.id))?.calls.call('rs9923231')).toBe(
        DEFAULT_CALLS.rs9923231,
      );
    }
    expect(await app.db.prisma.dnaGenome.count({ where: { userId: user.id } })).toBe(1);
  });

  it('refuses a file that is not a genome and keeps the earlier one', async () => {
    const { user } = await seedUser(app);
    const kept = await upload(user.id, generateGenome({ vendor: 'ancestrydna' }));
    await expect(upload(user.id, Buffer.from('name,calories\nsoup,120\n'))).rejects.toBeInstanceOf(
      GenomeFormatError,
    );
    expect((await genomeSummaryOf(deps, user.id))?.id).toBe(kept.id);
    expect((await genomeSummaryOf(deps, user.id))?.vendor).toBe('ancestrydna');
  });

  it('is gone after deleting it or the account, and another person never reads it', async () => {
    const { user } = await seedUser(app);
    const other = await seedUser(app);
    await upload(user.id, generateGenome({ vendor: 'vcf', build: 'GRCh38' }));
    expect(await openGenome(deps, other.user.id)).toBeNull();
    expect(await deleteGenome(deps, user.id)).toBe(true);
    expect(await openGenome(deps, user.id)).toBeNull();
    expect(await deleteGenome(deps, user.id)).toBe(false);
    await upload(user.id, generateGenome({ vendor: '23andme' }));
    await app.db.prisma.user.delete({ where: { id: user.id } });
    expect(await app.db.prisma.dnaGenome.count({ where: { userId: user.id } })).toBe(0);
  });
});
