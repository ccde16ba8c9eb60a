/**
 * The tool table against the documentation: every tool row is a line of docs/spec/mcp-tools.tsv
 * with the same family, the same set of scopes and the same kind. Prints the coverage. The list
 * sits beside the checkout (locally and in CI); when it is missing this test fails, never skips.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TOOL_KINDS } from '../../mcp-facade/tool.ts';
import { TOOL_FAMILIES, TOOLS } from '../../mcp-facade/tools.ts';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SPEC_TSV = path.resolve(ROOT, 'docs/spec/mcp-tools.tsv');

interface SpecTool {
  family: string;
  tool: string;
  scopes: string[];
  kind: string;
}

/** The documented tools: `family<TAB>tool<TAB>scopes<TAB>kind<TAB>note` lines after the header (scopes comma separated). */
function specTools(): SpecTool[] {
  if (!existsSync(SPEC_TSV)) throw new Error(`the tool list ${SPEC_TSV} is missing (docs/spec, a copy of ../shared/spec)`);
  const [header, ...lines] = readFileSync(SPEC_TSV, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  expect(header.split('\t')).toEqual(['family', 'tool', 'scopes', 'kind', 'note']);
  return lines.map((l) => {
    const [family, tool, scopes, kind] = l.split('\t').map((c) => c.trim());
    // an empty cell (or "none") means no scope is listed
    return { family, tool, kind, scopes: !scopes || scopes === 'none' ? [] : scopes.split(',').map((s) => s.trim()) };
  });
}

const spec = specTools();
const byName = new Map(spec.map((t) => [t.tool, t]));

describe('the MCP tool table', () => {
  it('reads a complete spec list', () => {
    expect(spec.length).toBeGreaterThan(200);
    expect(byName.size).toBe(spec.length);
    for (const t of spec) {
      expect(TOOL_KINDS, t.tool).toContain(t.kind);
      for (const s of t.scopes) expect(ALL_SCOPES.has(s as never), `${t.tool}: ${s}`).toBe(true);
    }
  });

  it('names only documented tools, each with the documented family, scopes and kind', () => {
    const rows = Object.entries(TOOL_FAMILIES).flatMap(([family, tools]) => tools.map((t) => ({ family, ...t })));
    for (const row of rows) {
      const documented = byName.get(row.name);
      expect(documented, `${row.name} is not in mcp-tools.tsv`).toBeDefined();
      expect({ family: row.family, scopes: [...row.scopes].sort(), kind: row.kind }, row.name).toEqual({
        family: documented!.family,
        scopes: [...documented!.scopes].sort(),
        kind: documented!.kind,
      });
    }
  });

  it('has no tool twice', () => {
    const names = TOOLS.map((t) => t.name);
    expect(new Set(names).size).toBe(names.length);
  });

  it('prints the coverage', () => {
    const line = `MCP tools: ${TOOLS.length} of ${spec.length}`;
    console.log(line);
    expect(TOOLS.length).toBeGreaterThanOrEqual(4);
  });
});
