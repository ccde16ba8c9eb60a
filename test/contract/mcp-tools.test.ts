/**
 * The tool table against the documentation: every tool row is a line of docs/spec/mcp-tools.tsv
 * with the same family, the same set of scopes and the same kind. Prints the coverage. The list
 * sits beside the checkout (locally and in CI); when it is missing this test fails, never skips.
 *
 * And what tools/list tells an agent (issue 11): every tool has a title, no two tools share a title
 * or a description, and every argument has a description and its bounds.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildRegistry, CONFIRM_NOTE, firstClause } from '../../mcp-facade/registry.ts';
import { TOOL_KINDS } from '../../mcp-facade/tool.ts';
import { TOOL_FAMILIES, TOOLS } from '../../mcp-facade/tools.ts';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import { loadOperations } from '../../src/schema/operations.ts';
import { schema } from '../../src/schema/schema.ts';

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
  if (!existsSync(SPEC_TSV))
    throw new Error(`the tool list ${SPEC_TSV} is missing (docs/spec, a copy of ../shared/spec)`);
  const [header, ...lines] = readFileSync(SPEC_TSV, 'utf8')
    .split('\n')
    .filter((l) => l.trim());
  expect(header.split('\t')).toEqual(['family', 'tool', 'scopes', 'kind', 'note']);
  return lines.map((l) => {
    const [family, tool, scopes, kind] = l.split('\t').map((c) => c.trim());
    // an empty cell (or "none") means no scope is listed
    return {
      family,
      tool,
      kind,
      scopes: !scopes || scopes === 'none' ? [] : scopes.split(',').map((s) => s.trim()),
    };
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
    const rows = Object.entries(TOOL_FAMILIES).flatMap(([family, tools]) =>
      tools.map((t) => ({ family, ...t })),
    );
    for (const row of rows) {
      const documented = byName.get(row.name);
      expect(documented, `${row.name} is not in mcp-tools.tsv`).toBeDefined();
      expect(
        { family: row.family, scopes: [...row.scopes].sort(), kind: row.kind },
        row.name,
      ).toEqual({
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

const registry = buildRegistry(TOOLS, { schema, operations: loadOperations(schema) });

type Schema = Record<string, any>;

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/**
 * What is missing from one argument's schema (and its nested fields): a description; for numbers a
 * minimum and a maximum; for lists a maximum length; for text an enum, a format, a pattern or a
 * maximum length. Enums that allow null list null.
 */
function argumentIssues(raw: Schema, where: string): string[] {
  const s: Schema = raw.anyOf ? raw.anyOf[0] : raw;
  const issues: string[] = [];
  if (!(raw.description ?? s.description)) issues.push(`${where}: no description`);
  const types = typesOf(s);
  if (types.includes('integer') || types.includes('number')) {
    if (s.minimum === undefined && s.exclusiveMinimum === undefined)
      issues.push(`${where}: no minimum`);
    if (s.maximum === undefined && s.exclusiveMaximum === undefined)
      issues.push(`${where}: no maximum`);
  }
  if (types.includes('string') && !(s.enum || s.format || s.pattern || s.maxLength !== undefined)) {
    issues.push(`${where}: text without enum, format, pattern or maxLength`);
  }
  if (s.enum && types.includes('null') && !s.enum.includes(null))
    issues.push(`${where}: nullable enum without null`);
  if (s.enum && s.default !== undefined && !s.enum.includes(s.default))
    issues.push(`${where}: default outside the enum`);
  if (types.includes('array')) {
    if (s.maxItems === undefined) issues.push(`${where}: list without maxItems`);
    const items: Schema | undefined = s.items;
    if (items) issues.push(...argumentIssues({ description: 'an item', ...items }, `${where}[]`));
  }
  if (types.includes('object')) {
    for (const [k, v] of Object.entries<Schema>(s.properties ?? {}))
      issues.push(...argumentIssues(v, `${where}.${k}`));
  }
  return issues;
}

describe('what tools/list tells an agent (issue 11)', () => {
  it('gives every tool a title, and no two tools the same title', () => {
    const titles = registry.tools.map((t) => t.definition.title);
    for (const t of registry.tools) {
      expect(t.definition.title, t.row.name).toMatch(/^\S.{2,60}$/);
      // the title once (issue 30 item 7): MCP 2025-06-18 clients read the tool's own title first
      expect(t.definition.annotations?.title, t.row.name).toBeUndefined();
    }
    expect(new Set(titles).size).toBe(titles.length);
  });

  it('gives no two tools the same description', () => {
    const descriptions = registry.tools.map((t) => t.definition.description);
    expect(new Set(descriptions).size).toBe(descriptions.length);
  });

  it('names the score each derived-score tool reads', () => {
    const kinds: Record<string, string> = {
      activity_score_read: 'activity score',
      sleep_score_read: 'sleep score',
      glucose_score_read: 'glucose score',
      recovery_score_read: 'recovery score',
      daily_nutrition_score_read: 'nutrition score',
    };
    for (const [name, score] of Object.entries(kinds)) {
      const description = registry.byName.get(name)!.definition.description!;
      expect(description, name).toMatch(new RegExp(`^Reads the ${score} of each day`));
      for (const other of Object.values(kinds).filter((k) => k !== score))
        expect(description, name).not.toContain(other);
    }
  });

  it('says, for every two tools running the same operation, how the two differ', () => {
    const byOperation = new Map<string, string[]>();
    for (const t of registry.tools)
      byOperation.set(t.row.operation, [...(byOperation.get(t.row.operation) ?? []), t.row.name]);
    const twins = [...byOperation.values()].filter((names) => names.length > 1);
    expect(twins.length).toBeGreaterThanOrEqual(4);
    for (const names of twins) {
      for (const name of names) {
        const tool = registry.byName.get(name)!;
        const description = tool.definition.description!;
        const fixedKind = (tool.fixed as Record<string, string | undefined>).kind;
        // the derived-score tools differ by the score they read; every other pair names its twin
        if (fixedKind) expect(description, name).toContain(`${fixedKind} score`);
        else
          for (const twin of names.filter((n) => n !== name))
            expect(description, name).toContain(twin);
      }
    }
  });

  it('points agents who want glucose over weeks to the summary tool', () => {
    for (const name of ['get_glucose_readings', 'glucose_readings_read']) {
      expect(registry.byName.get(name)!.definition.description, name).toContain(
        'glucose_score_read',
      );
    }
  });

  it('describes every argument and states its bounds (minimum, maximum, enum, lengths)', () => {
    const issues: string[] = [];
    let checked = 0;
    for (const t of registry.tools) {
      for (const [name, arg] of Object.entries<Schema>(t.definition.inputSchema.properties ?? {})) {
        checked++;
        for (const issue of argumentIssues(arg, name)) issues.push(`${t.row.name} ${issue}`);
      }
    }
    expect(checked).toBeGreaterThan(60);
    expect(issues).toEqual([]);
  });

  it("derives the bounds from the fields' zod validators", () => {
    const props = (name: string) =>
      registry.byName.get(name)!.definition.inputSchema.properties as Record<string, Schema>;
    expect(props('get_glucose_readings').since_hours).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 43_800,
      default: 24,
    });
    expect(props('get_glucose_readings').sort).toMatchObject({
      enum: ['asc', 'desc'],
      default: 'desc',
    });
    expect(props('get_scores_days').days).toMatchObject({ minimum: 1, maximum: 90 });
    expect(props('get_scores_days').order).toMatchObject({ enum: ['asc', 'desc'] });
    expect(props('update_profile').glucose_unit).toMatchObject({
      type: ['string', 'null'],
      enum: ['mg/dL', 'mmol/L', null],
    });
    expect(props('nutrition_meal_log').items).toMatchObject({ minItems: 1, maxItems: 100 });
    expect(props('nutrition_meal_log').items.items.properties.grams).toMatchObject({
      exclusiveMinimum: 0,
      maximum: 5000,
    });
    expect(props('food_catalogue_search').q).toMatchObject({ minLength: 2, maxLength: 200 });
    expect(props('list_records').table.enum).toContain('glucose_readings');
    expect(props('list_changes').exclude.items.enum).toContain('journal_entries');
    expect(props('list_changes').cursor).toMatchObject({ maxLength: 4096 });
  });

  it('writes the refusal of each confirm tool from what that tool does, and lists only the short note', () => {
    const confirmTools = registry.tools.filter((t) => t.needsConfirm);
    expect(confirmTools.length).toBeGreaterThanOrEqual(8);
    for (const t of confirmTools) {
      const description = t.definition.description!;
      const does = firstClause(description);
      const restated = `It ${does.charAt(0).toLowerCase()}${does.slice(1)}.`;
      expect(t.confirmNote, t.row.name).toContain(restated);
      // issue 30 item 6: the description says what the tool does once, then the note
      expect(description, t.row.name).not.toContain(restated);
      expect(description.endsWith(` ${CONFIRM_NOTE}`), t.row.name).toBe(true);
    }
    for (const name of [
      'sessions_all_revoke',
      'sessions_one_revoke',
      'account_ai_consent_revoke',
    ]) {
      expect(registry.byName.get(name)!.definition.description, name).not.toMatch(/deletes data/);
    }
  });
});
