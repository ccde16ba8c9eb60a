import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.ts';
import { pendingMigrations } from '../../src/db/migrate.ts';
import { readMigrationsList } from '../../src/db/schema-engine.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'hdp-db-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('embedded database', () => {
  it('is created and migrated on first open, and reopened without migrating', async () => {
    const all = (await readMigrationsList()).migrationDirectories.map((d) => d.path);
    const first = await openDatabase({ dataDir: dir });
    expect(first.applied).toEqual(all);
    await first.prisma.user.create({ data: { email: 'keep@example.com' } });
    await first.close();

    const second = await openDatabase({ dataDir: dir });
    expect(second.applied).toEqual([]);
    expect(await second.prisma.user.count()).toBe(1);
    await second.close();
  });

  it('sees a migration as pending when its file no longer matches the recorded checksum', async () => {
    const list = (await readMigrationsList()).migrationDirectories;
    const { createHash } = await import('node:crypto');
    const rows = list.map((d) => ({
      migration_name: d.path,
      checksum: createHash('sha256').update(d.migrationFile.content.value).digest('hex'),
    }));
    expect(await pendingMigrations(() => Promise.resolve(rows))).toEqual([]);
    rows[0].checksum = 'edited';
    expect(await pendingMigrations(() => Promise.resolve(rows))).toEqual([list[0].path]);
    const noTable = (): Promise<never> => {
      return Promise.reject(new Error('relation "_prisma_migrations" does not exist'));
    };
    expect(await pendingMigrations(noTable)).toEqual(list.map((d) => d.path));
  });
});
