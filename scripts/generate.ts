/**
 * Writes the generated, committed files: schema.graphql (from the Pothos schema) and
 * src/generated/operations.json (the persisted-operation manifest). With --check it writes
 * nothing and exits 1 when either file is out of date (CI and a test run this).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema, validate, parse } from 'graphql';
import { buildManifest } from '../src/graphql/operation-files.ts';
import { schema } from '../src/schema/schema.ts';

const root = path.resolve(import.meta.dirname, '..');
export const SCHEMA_FILE = path.join(root, 'schema.graphql');
export const MANIFEST_FILE = path.join(root, 'src/generated/operations.json');

export function generatedFiles(): Record<string, string> {
  const manifest = buildManifest();
  for (const op of manifest.operations) {
    const errors = validate(schema, parse(op.body));
    if (errors.length) throw new Error(`${op.name}: ${errors.map((e) => e.message).join('; ')}`);
  }
  return {
    [SCHEMA_FILE]: printSchema(lexicographicSortSchema(schema)) + '\n',
    [MANIFEST_FILE]: JSON.stringify(manifest, null, 2) + '\n',
  };
}

if (process.argv[1] === import.meta.filename) {
  const check = process.argv.includes('--check');
  let stale = 0;
  for (const [file, content] of Object.entries(generatedFiles())) {
    let current = '';
    try {
      current = readFileSync(file, 'utf8');
    } catch {
      // not written yet: it is stale
    }
    if (current === content) continue;
    if (check) {
      stale++;
      console.error(`out of date: ${path.relative(root, file)} (run npm run gen)`);
    } else {
      writeFileSync(file, content);
      console.log(`wrote ${path.relative(root, file)}`);
    }
  }
  process.exit(stale ? 1 : 0);
}
