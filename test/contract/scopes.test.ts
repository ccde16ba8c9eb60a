import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SCOPES } from '../../src/auth/scopes.ts';

const spec = path.resolve(import.meta.dirname, '../../docs/spec');

describe('scope catalogue', () => {
  it('holds exactly the scopes named in the REST and MCP documents', () => {
    const tsv = readFileSync(path.join(spec, 'mcp-tools.tsv'), 'utf8').trim().split('\n').slice(1);
    const fromTools = tsv
      .flatMap((line) =>
        line
          .split('\t')[2]
          .split(',')
          .map((s) => s.trim()),
      )
      .filter((s) => s && s !== 'none');
    const restDoc = readFileSync(path.join(spec, 'rest-api.md'), 'utf8');
    const fromRest = [...restDoc.matchAll(/^\| (health:[a-z]+:read) \|$/gm)].map((m) => m[1]);
    expect(fromRest).toHaveLength(9);
    expect([...SCOPES].sort()).toEqual([...new Set([...fromTools, ...fromRest])].sort());
  });
});
