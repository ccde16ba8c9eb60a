/**
 * Generated files against their sources: schema.graphql, the operations manifest and
 * docs/interface.md equal what scripts/generate.ts would write now, the names agree (operation =
 * root field = service function), every operation file carries its description comment and is
 * named after its operation, and the Prisma schema equals what the migration history builds (the
 * drift check, in process).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  generatedFiles,
  INTERFACE_FILE,
  interfaceProblems,
  MANIFEST_FILE,
  SCHEMA_FILE,
} from '../../scripts/generate.ts';
import { checkMigrationDrift } from '../../src/db/drift.ts';
import { readSchemaFiles } from '../../src/db/schema-engine.ts';

const DOMAINS = path.resolve(import.meta.dirname, '../../src/domains');

/** Every .graphql file under src/domains/<domain>/operations/. */
function operationFiles(): string[] {
  const files: string[] = [];
  for (const domain of readdirSync(DOMAINS)) {
    const dir = path.join(DOMAINS, domain, 'operations');
    let names: string[] = [];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    files.push(...names.filter((n) => n.endsWith('.graphql')).map((n) => path.join(dir, n)));
  }
  return files;
}

describe('generated files', () => {
  it('schema.graphql, src/generated/operations.json and docs/interface.md are up to date (npm run gen)', () => {
    const expected = generatedFiles();
    expect(Object.keys(expected).sort()).toEqual(
      [INTERFACE_FILE, MANIFEST_FILE, SCHEMA_FILE].sort(),
    );
    for (const [file, content] of Object.entries(expected)) {
      expect(
        readFileSync(file, 'utf8'),
        `${path.basename(file)} is out of date: run npm run gen`,
      ).toBe(content);
    }
  });

  it('names every operation after its root field, and every service function after its field', () => {
    expect(interfaceProblems()).toEqual([]);
  });

  it('names every operation file after the operation it holds', () => {
    const mismatched = operationFiles()
      .filter((f) => !f.endsWith('.fragment.graphql'))
      .filter((f) => {
        const name = /^(?:query|mutation)\s+(\w+)/m.exec(readFileSync(f, 'utf8'))?.[1];
        return name !== path.basename(f, '.graphql');
      });
    expect(mismatched.map((f) => path.relative(DOMAINS, f))).toEqual([]);
  });

  it('every operation and fragment file starts with its # description', () => {
    const files = operationFiles();
    expect(files.length).toBeGreaterThan(0);
    const missing = files.filter((f) => !/^#\s*\S/.test(readFileSync(f, 'utf8')));
    expect(missing.map((f) => path.relative(DOMAINS, f))).toEqual([]);
  });
});

describe('migrations', () => {
  it('build exactly the Prisma schema (no drift)', async () => {
    const r = await checkMigrationDrift();
    expect(
      r.script,
      'schema changes without a migration: run npm run db:create <name>',
    ).not.toMatch(/CREATE|ALTER|DROP/);
    expect(r.exitCode).toBe(0);
  }, 120_000);

  it('report drift for a model that has no migration', async () => {
    const files = await readSchemaFiles();
    const probe = {
      path: files[0].path,
      content: `${files[0].content}\nmodel DriftProbe {\n  id Int @id\n}\n`,
    };
    const r = await checkMigrationDrift({ schemaFiles: [probe, ...files.slice(1)] });
    expect(r.exitCode).not.toBe(0);
    expect(r.script).toContain('"DriftProbe"');
  }, 120_000);
});
