/**
 * The route table against the documentation: every (method, path) is a documented route of
 * docs/spec/rest-routes.tsv, except the read API under /api/v1/ (the spec leaves its paths
 * open), whose rows must be exactly the ones rest-facade/README.md documents. Prints the coverage.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Kind } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../rest-facade/routes.ts';
import { loadOperations } from '../../src/schema/operations.ts';
import { schema } from '../../src/schema/schema.ts';
import { toCamel } from '../../src/base/wire.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SPEC_TSV = path.resolve(ROOT, 'docs/spec/rest-routes.tsv');
const README = path.join(ROOT, 'rest-facade/README.md');
const READ_API = '/api/v1/';

const key = (method: string, p: string): string => `${method} ${p}`;

/** The documented routes: `section<TAB>method<TAB>path` lines after the header. */
function specRoutes(): string[] {
  if (!existsSync(SPEC_TSV))
    throw new Error(`the route list ${SPEC_TSV} is missing (docs/spec, a copy of ../shared/spec)`);
  const [header, ...lines] = readFileSync(SPEC_TSV, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  expect(header.split('\t')).toEqual(['section', 'method', 'path']);
  return lines.map((l) => {
    const [, method, p] = l.split('\t');
    return key(method.trim(), p.trim());
  });
}

/** The /api/v1 rows of the README's "Read API routes" table. */
function documentedReadApi(): string[] {
  const text = readFileSync(README, 'utf8');
  const section = text.slice(text.indexOf('## Read API routes'));
  return [
    ...section.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| (\/api\/v1\/\S+) \| (\w+) \|/gm),
  ].map((m) => `${key(m[1], m[2])} ${m[3]}`);
}

const spec = specRoutes();
const operations = loadOperations(schema);

describe('the REST route table', () => {
  it('serves only documented routes outside the read API', () => {
    const documented = new Set(spec);
    const undocumented = ROUTES.filter(
      (r) => !r.path.startsWith(READ_API) && !documented.has(key(r.method, r.path)),
    );
    expect(undocumented.map((r) => key(r.method, r.path))).toEqual([]);
  });

  it('serves exactly the read-API routes that rest-facade/README.md documents', () => {
    const ours = ROUTES.filter((r) => r.path.startsWith(READ_API)).map(
      (r) => `${key(r.method, r.path)} ${r.operation}`,
    );
    const documented = documentedReadApi();
    expect(documented.length).toBeGreaterThan(0);
    expect([...ours].sort()).toEqual([...documented].sort());
  });

  it('has no route twice', () => {
    const keys = ROUTES.map((r) => key(r.method, r.path));
    expect(keys.filter((k, i) => keys.indexOf(k) !== i)).toEqual([]);
    expect(spec.filter((k, i) => spec.indexOf(k) !== i)).toEqual([]);
  });

  it('names operations that exist, with the variables the row refers to', () => {
    const problems: string[] = [];
    for (const r of ROUTES) {
      const op = operations.byName.get(r.operation);
      if (!op) {
        problems.push(`${key(r.method, r.path)}: unknown operation ${r.operation}`);
        continue;
      }
      const variables = new Set(op.variables.map((v) => v.variable.name.value));
      if (r.body && !variables.has(r.body))
        problems.push(`${key(r.method, r.path)}: ${r.operation} has no $${r.body}`);
      for (const [wire, variable] of Object.entries(r.rename ?? {})) {
        if (!variables.has(variable))
          problems.push(
            `${key(r.method, r.path)}: rename ${wire} -> $${variable} is not a variable`,
          );
      }
      for (const [, wire] of r.path.matchAll(/\{(\w+)\}/g)) {
        const variable = r.rename?.[wire] ?? toCamel(wire);
        if (!variables.has(variable))
          problems.push(`${key(r.method, r.path)}: {${wire}} fills no variable of ${r.operation}`);
      }
      if (
        r.result &&
        !op.definition.selectionSet.selections.some(
          (s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === r.result,
        )
      ) {
        problems.push(`${key(r.method, r.path)}: ${r.operation} has no root field ${r.result}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('reports how many documented routes are served', () => {
    const served = new Set(ROUTES.map((r) => key(r.method, r.path)));
    const covered = spec.filter((k) => served.has(k)).length;
    console.log(`REST routes: ${covered} of ${spec.length}`);
    expect(spec.length).toBe(97);
  });
});
