/**
 * Reads the persisted operations from src/domains/<domain>/operations/*.graphql: one named
 * operation per file, its leading `#` comment as description, fragments (`*.fragment.graphql`)
 * appended to each operation that uses them. The generator and its drift test read the files;
 * the server reads the committed manifest at MANIFEST_PATH.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind, OperationTypeNode, parse, visit } from 'graphql';
import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';
import { fromRoot } from '../base/paths.ts';

export interface ManifestOperation {
  id: string;
  name: string;
  type: 'query' | 'mutation';
  description: string;
  domain: string;
  body: string;
}

export interface OperationManifest {
  format: 'apollo-persisted-query-manifest';
  version: 1;
  operations: ManifestOperation[];
}

const DOMAINS_DIR = fromRoot('src', 'domains');

/** The committed manifest of every persisted operation (written by `npm run gen`). */
export const MANIFEST_PATH = fromRoot('src', 'generated', 'operations.json');

function leadingComment(text: string): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('#')) break;
    lines.push(line.replace(/^#\s?/, ''));
  }
  return lines.join(' ').trim();
}

function fragmentNames(
  doc: DocumentNode | FragmentDefinitionNode | OperationDefinitionNode,
): Set<string> {
  const names = new Set<string>();
  visit(doc, { FragmentSpread: (node) => void names.add(node.name.value) });
  return names;
}

/** Builds the manifest from the operation files (sorted by name; ids are sha256 of the body). */
export function buildManifest(domainsDir = DOMAINS_DIR): OperationManifest {
  const fragments = new Map<string, { def: FragmentDefinitionNode; text: string }>();
  const operations: { file: string; domain: string; text: string; def: OperationDefinitionNode }[] =
    [];
  for (const domain of readdirSync(domainsDir).sort()) {
    const dir = path.join(domainsDir, domain, 'operations');
    let files: string[] = [];
    try {
      files = readdirSync(dir)
        .filter((f) => f.endsWith('.graphql'))
        .sort();
    } catch {
      continue;
    }
    for (const file of files) {
      const text = readFileSync(path.join(dir, file), 'utf8');
      const doc = parse(text);
      if (file.endsWith('.fragment.graphql')) {
        for (const def of doc.definitions) {
          if (def.kind === Kind.FRAGMENT_DEFINITION)
            fragments.set(def.name.value, { def, text: text.trim() });
        }
        continue;
      }
      const defs = doc.definitions.filter(
        (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
      );
      if (defs.length !== 1 || !defs[0].name)
        throw new Error(`${file}: exactly one named operation per file`);
      if (`${defs[0].name.value}.graphql` !== file)
        throw new Error(`${file}: file must be named after its operation`);
      if (!leadingComment(text)) throw new Error(`${file}: start with a '# description' comment`);
      operations.push({ file, domain, text, def: defs[0] });
    }
  }
  const out: ManifestOperation[] = operations.map(({ domain, text, def }) => {
    // the operation plus every fragment it reaches, transitively
    const needed = new Set<string>();
    const queue = [...fragmentNames(def)];
    while (queue.length) {
      const n = queue.shift()!;
      if (needed.has(n)) continue;
      const f = fragments.get(n);
      if (!f) throw new Error(`${def.name!.value}: unknown fragment ${n}`);
      needed.add(n);
      queue.push(...fragmentNames(f.def));
    }
    const body =
      [text.trim(), ...[...needed].sort().map((n) => fragments.get(n)!.text)].join('\n\n') + '\n';
    return {
      id: createHash('sha256').update(body).digest('hex'),
      name: def.name!.value,
      type: def.operation === OperationTypeNode.MUTATION ? 'mutation' : 'query',
      description: leadingComment(text),
      domain,
      body,
    };
  });
  out.sort((a, b) => a.name.localeCompare(b.name));
  const seen = new Set<string>();
  for (const o of out) {
    if (seen.has(o.name)) throw new Error(`duplicate operation name ${o.name}`);
    seen.add(o.name);
  }
  return { format: 'apollo-persisted-query-manifest', version: 1, operations: out };
}
