/**
 * Writes the generated, committed files: schema.graphql (from the Pothos schema),
 * src/generated/operations.json (the persisted-operation manifest) and docs/interface.md (each
 * route and tool to its operation and service function). With --check it writes nothing and exits
 * 1 when a file is out of date (CI and a test run this). Both modes exit 1 when a name drifts
 * (scripts/interface-map.ts): an operation not named after its root field, or a resolver that
 * calls no service function of its field's name.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, lexicographicSortSchema, printSchema, validate, parse } from 'graphql';
import { ROUTES } from '../rest-facade/routes.ts';
import { TOOLS } from '../mcp-facade/tools.ts';
import { buildManifest } from '../src/graphql/operation-files.ts';
import type { OperationManifest } from '../src/graphql/operation-files.ts';
import { schema } from '../src/schema/schema.ts';
import { interfaceDoc, namingProblems, rootFields } from './interface-map.ts';
import type { ManifestEntry } from './interface-map.ts';

const root = path.resolve(import.meta.dirname, '..');
export const SCHEMA_FILE = path.join(root, 'schema.graphql');
export const MANIFEST_FILE = path.join(root, 'src/generated/operations.json');
export const INTERFACE_FILE = path.join(root, 'docs/interface.md');

/** Each operation with its one root field. */
function entriesOf(manifest: OperationManifest): ManifestEntry[] {
  return manifest.operations.map((op) => {
    const definition = parse(op.body).definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION);
    const first = definition?.selectionSet.selections[0];
    return {
      name: op.name,
      domain: op.domain,
      field: first?.kind === Kind.FIELD ? first.name.value : '',
    };
  });
}

/** The problems namingProblems finds in the tree (empty when the names agree). */
export function interfaceProblems(): string[] {
  const fields = rootFields(root, ['src/domains', 'src/schema']);
  const schemaFields = [schema.getQueryType(), schema.getMutationType()].flatMap((t) =>
    t ? Object.keys(t.getFields()) : [],
  );
  return namingProblems(fields, entriesOf(buildManifest()), schemaFields);
}

export function generatedFiles(): Record<string, string> {
  const manifest = buildManifest();
  for (const op of manifest.operations) {
    const errors = validate(schema, parse(op.body));
    if (errors.length) throw new Error(`${op.name}: ${errors.map((e) => e.message).join('; ')}`);
  }
  const fields = rootFields(root, ['src/domains', 'src/schema']);
  const rest = ROUTES.map((r) => ({ door: `${r.method} ${r.path}`, operation: r.operation }));
  const mcp = TOOLS.map((t) => ({ door: t.name, operation: t.operation }));
  return {
    [SCHEMA_FILE]: printSchema(lexicographicSortSchema(schema)) + '\n',
    [MANIFEST_FILE]: JSON.stringify(manifest, null, 2) + '\n',
    [INTERFACE_FILE]: interfaceDoc(fields, entriesOf(manifest), rest, mcp),
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
  const problems = interfaceProblems();
  for (const p of problems) console.error(`name drift: ${p}`);
  process.exit(stale || problems.length ? 1 : 0);
}
