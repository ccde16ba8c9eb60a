import { describe, expect, it } from 'vitest';
import { annotationsFor, buildRegistry, isCreatingTool } from '../../mcp-facade/registry.ts';
import type { McpTool } from '../../mcp-facade/tool.ts';
import { TOOLS } from '../../mcp-facade/tools.ts';
import { loadOperations } from '../../src/schema/operations.ts';
import { schema } from '../../src/schema/schema.ts';

const operations = loadOperations(schema);
const build = (rows: readonly McpTool[]): ReturnType<typeof buildRegistry> =>
  buildRegistry(rows, { schema, operations });
const op = (name: string) => operations.byName.get(name)!;

describe('buildRegistry', () => {
  it('builds the shipped tools in name order', () => {
    const registry = build(TOOLS);
    const names = registry.tools.map((t) => t.row.name);
    expect(names).toEqual([...names].sort());
    const basics = [
      'get_profile',
      'sessions_list_read',
      'update_profile',
      'update_profile_onboarding',
    ];
    expect(names).toEqual(expect.arrayContaining(basics));
    expect(
      basics
        .map((n) => registry.byName.get(n)!)
        .every((t) => !t.creates && !t.needsConfirm && !t.healthData),
    ).toBe(true);
    expect(registry.byName.get('update_profile')).toMatchObject({
      flattened: 'input',
      resultField: 'updateProfile',
    });
    expect(registry.byName.get('sessions_list_read')).toMatchObject({
      flattened: null,
      resultField: 'sessions',
    });
  });

  it('refuses, at start, rows it cannot serve', () => {
    const row: McpTool = {
      name: 'x_read',
      operation: 'me',
      scopes: ['profile:read'],
      kind: 'read',
    };
    expect(() => build([{ ...row, operation: 'NoSuchOperation' }])).toThrow(
      'MCP tool x_read: unknown operation NoSuchOperation',
    );
    expect(() => build([row, row])).toThrow('defined twice');
    expect(() => build([{ ...row, name: 'bad name' }])).toThrow('invalid tool name');
    expect(() => build([{ ...row, scopes: ['profile:everything' as never] }])).toThrow(
      'unknown scope',
    );
    expect(() => build([{ ...row, kind: 'reads' as never }])).toThrow('unknown kind');
    expect(() => build([{ ...row, kind: 'deletes' }])).toThrow('needs a mutation');
    expect(() => build([{ ...row, result: 'nothing' }])).toThrow('no root field nothing');
    expect(() => build([{ ...row, creates: true }])).toThrow('a read tool cannot create');
    expect(() =>
      build([{ ...row, operation: 'revokePersonalToken', kind: 'deletes', creates: true }]),
    ).toThrow('a deletes tool cannot create');
  });

  it('filters by held scopes, needing every scope of a row', () => {
    const registry = build([
      ...TOOLS,
      {
        name: 'both_read',
        operation: 'me',
        scopes: ['profile:read', 'account:read'],
        kind: 'read',
      },
    ]);
    const names = (scopes: string[]) =>
      registry
        .visibleTo(new Set(scopes))
        .map((t) => t.row.name)
        .filter((n) => TOOLS.some((t) => t.name === n && t.scopes.length) || n === 'both_read');
    expect(names(['profile:read'])).toEqual(['get_profile']);
    expect(names(['profile:read', 'account:read'])).toEqual([
      'both_read',
      'feedback_report_list',
      'get_profile',
      'sessions_list_read',
    ]);
    expect(names([])).toEqual([]);
  });

  it('adds a required confirm and the ask-the-user note to deletes, shares and payment tools', () => {
    for (const kind of ['deletes', 'shares', 'takes a payment'] as const) {
      const tool = build([
        { name: 't', operation: 'revokePersonalToken', scopes: ['account:write'], kind },
      ]).tools[0];
      expect(tool.needsConfirm).toBe(true);
      expect(tool.definition.inputSchema.required).toContain('confirm');
      expect(tool.definition.description).toContain('Ask the person first');
    }
  });

  it('adds a required idempotency_key to creating tools, next to the flattened input', () => {
    const tool = build([
      {
        name: 'token_create',
        operation: 'createPersonalToken',
        scopes: ['account:write'],
        kind: 'write',
      },
    ]).tools[0];
    expect(tool.creates).toBe(true);
    expect(tool.definition.inputSchema).toMatchObject({
      type: 'object',
      required: ['name', 'scopes', 'idempotency_key'],
    });
    // issue 30 item 7: no additionalProperties in the listing (the call path refuses extras)
    expect(tool.definition.inputSchema).not.toHaveProperty('additionalProperties');
    expect(Object.keys(tool.definition.inputSchema.properties!).sort()).toEqual([
      'expires_at',
      'idempotency_key',
      'name',
      'scopes',
    ]);
    expect([...tool.argumentNames].sort()).toEqual(['expires_at', 'name', 'scopes']);
  });

  it('marks tools with a health scope as health data', () => {
    const tool = build([
      { name: 'h', operation: 'me', scopes: ['health:glucose:read'], kind: 'read' },
    ]).tools[0];
    expect(tool.healthData).toBe(true);
  });
});

describe('isCreatingTool', () => {
  const row = (kind: McpTool['kind'], creates?: boolean): McpTool => ({
    name: 't',
    operation: 'x',
    scopes: [],
    kind,
    creates,
  });

  it("derives creation from the mutation's root field, unless the row says otherwise", () => {
    expect(isCreatingTool(row('write'), op('createPersonalToken'))).toBe(true); // createPersonalToken
    expect(isCreatingTool(row('write'), op('updateProfile'))).toBe(false);
    expect(isCreatingTool(row('write'), op('register'))).toBe(false);
    expect(isCreatingTool(row('shares'), op('createPersonalToken'))).toBe(true);
    expect(isCreatingTool(row('write', false), op('createPersonalToken'))).toBe(false);
    expect(isCreatingTool(row('write', true), op('updateProfile'))).toBe(true);
    expect(isCreatingTool(row('takes a payment'), op('updateProfile'))).toBe(true);
    expect(isCreatingTool(row('read'), op('me'))).toBe(false);
    expect(isCreatingTool(row('deletes'), op('createPersonalToken'))).toBe(false);
  });
});

describe('annotationsFor', () => {
  it('says readOnlyHint for reads, destructiveHint for the rest, and idempotentHint when true', () => {
    expect(annotationsFor('read', { creates: false })).toEqual({ readOnlyHint: true });
    expect(annotationsFor('write', { creates: false })).toEqual({ destructiveHint: false });
    expect(annotationsFor('write', { creates: true }).idempotentHint).toBe(true);
    expect(annotationsFor('write', { creates: false, idempotent: true }).idempotentHint).toBe(true);
    expect(annotationsFor('deletes', { creates: false })).toEqual({
      destructiveHint: true,
      idempotentHint: true,
    });
    // not idempotent: the spec's default, so unsaid
    expect(annotationsFor('shares', { creates: false })).toEqual({ destructiveHint: true });
    expect(annotationsFor('takes a payment', { creates: true })).toEqual({ destructiveHint: true });
    for (const kind of ['read', 'write', 'deletes', 'shares'] as const)
      expect(annotationsFor(kind, { creates: false }), kind).not.toHaveProperty('openWorldHint');
  });
});
