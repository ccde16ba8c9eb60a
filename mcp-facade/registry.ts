/**
 * The tool registry, built once at start from the tool rows and the persisted operations. For each
 * row it derives what tools/list shows (input JSON Schema from the operation's variables, annotations
 * and the ask-the-user note from the kind, the description from the operation's leading comment) and
 * what the call path needs (confirm, idempotency, flattened input, result field, health meta).
 *
 * Why once: rows and operations are fixed for the life of the process, so per-request work is a
 * scope filter over a ready list. It must never start with a row it cannot serve: an unknown
 * operation, a duplicate or malformed name, or an unknown scope throws here, at start.
 */
import { Kind } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { isHealthScope, isScope } from '../src/auth/scopes.ts';
import { variablesSchema } from '../src/graphql/json-schema.ts';
import type { JsonSchema } from '../src/graphql/json-schema.ts';
import type { OperationStore, PersistedOperation } from '../src/graphql/operations.ts';
import { TOOL_KINDS } from './tool.ts';
import type { McpTool, ToolKind } from './tool.ts';

/** The argument every deletes / shares / takes-a-payment tool needs set to true. */
export const CONFIRM_ARG = 'confirm';
/** The argument every creating tool needs: one key per new entry. */
export const IDEMPOTENCY_ARG = 'idempotency_key';
export const IDEMPOTENCY_KEY_LENGTH = { min: 8, max: 128 } as const;

/** The single input-object variable that MCP arguments flatten into (`UpdateProfile($input: ...)`). */
const FLATTEN_VARIABLE = 'input';
/** MCP tool names (2025-11-25): 1-128 of A-Z a-z 0-9 _ - . */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** Root mutation fields whose name says they create an entry. */
const CREATING_FIELD = /^(create|log|add|start)(?=[A-Z]|$)/;

const CONFIRM_KINDS: ReadonlySet<ToolKind> = new Set(['deletes', 'shares', 'takes a payment']);

const ASK_THE_USER: Partial<Record<ToolKind, string>> = {
  deletes: 'It deletes data that cannot be restored.',
  shares: "It shares the person's data with other people.",
  'takes a payment': 'It takes a payment from the person.',
};

export interface RegisteredTool {
  row: McpTool;
  /** the tools/list entry */
  definition: Tool;
  /** refuses to run without confirm: true */
  needsConfirm: boolean;
  /** confirm tools: what to tell the agent (in the description and the refusal) */
  confirmNote: string | null;
  /** takes a required idempotency_key */
  creates: boolean;
  /** the input-object variable whose fields are the top-level arguments, or null */
  flattened: string | null;
  /** wire argument names the caller may send (without confirm, idempotency_key and fixed ones) */
  argumentNames: ReadonlySet<string>;
  /** wire arguments the row fixes, merged into every call */
  fixed: Readonly<Record<string, unknown>>;
  /** response key of `data` that the tool answers */
  resultField: string;
  /** health data: structured results carry meta.phone_last_sync_at */
  healthData: boolean;
}

export interface ToolRegistry {
  /** every tool, in name order */
  tools: readonly RegisteredTool[];
  byName: ReadonlyMap<string, RegisteredTool>;
  /** the tools whose scopes are all held, in name order (what tools/list shows) */
  visibleTo(scopes: ReadonlySet<string>): RegisteredTool[];
}

export interface RegistryOptions {
  schema: GraphQLSchema;
  operations: Pick<OperationStore, 'byName'>;
}

function rootFieldName(op: PersistedOperation): string | null {
  const first = op.definition.selectionSet.selections[0];
  return first?.kind === Kind.FIELD ? first.name.value : null;
}

/**
 * Whether a tool creates entries (and so takes a required idempotency_key):
 * reads and deletes never; payments always; otherwise the row's `creates` flag when set, else a mutation whose
 * root field starts with create / log / add / start (createMeal, logWeight, addFavorite, startExport).
 */
export function isCreatingTool(row: McpTool, op: PersistedOperation): boolean {
  if (row.kind === 'read' || row.kind === 'deletes') return false;
  if (row.kind === 'takes a payment') return true;
  if (row.creates !== undefined) return row.creates;
  return op.definition.operation === 'mutation' && CREATING_FIELD.test(rootFieldName(op) ?? '');
}

/** MCP annotations from the kind (../shared/notes/mcp-oauth.md 1.3); all four set, as the defaults are pessimistic. */
export function annotationsFor(kind: ToolKind, options: { creates: boolean; idempotent?: boolean }): ToolAnnotations {
  switch (kind) {
    case 'read':
      return { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
    case 'write':
      return {
        readOnlyHint: false,
        destructiveHint: false,
        idempotentHint: options.creates || options.idempotent === true,
        openWorldHint: false,
      };
    case 'deletes':
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
    case 'shares':
    case 'takes a payment':
      // disclosure and payments cannot be undone, and both reach outside the account
      return { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };
  }
}

function confirmNoteFor(kind: ToolKind): string | null {
  const effect = ASK_THE_USER[kind];
  return effect ? `${effect} Ask the person first and call with confirm: true only after they agreed.` : null;
}

function inputSchemaFor(base: JsonSchema, needsConfirm: boolean, creates: boolean): Tool['inputSchema'] {
  const properties: Record<string, object> = { ...(base.properties as Record<string, object> | undefined) };
  const required = [...((base.required as string[] | undefined) ?? [])];
  if (needsConfirm) {
    properties[CONFIRM_ARG] = {
      type: 'boolean',
      description: 'Must be true: set it only after the person has agreed to this action.',
    };
    required.push(CONFIRM_ARG);
  }
  if (creates) {
    properties[IDEMPOTENCY_ARG] = {
      type: 'string',
      minLength: IDEMPOTENCY_KEY_LENGTH.min,
      maxLength: IDEMPOTENCY_KEY_LENGTH.max,
      description:
        'A new random key (e.g. a UUID) for each new entry; retrying with the same key and arguments ' +
        'answers the first result instead of creating a duplicate.',
    };
    required.push(IDEMPOTENCY_ARG);
  }
  return {
    ...base,
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  } as Tool['inputSchema'];
}

/** The input schema without the arguments the row fixes; a fixed name the operation lacks throws. */
function withoutFixed(base: JsonSchema, row: McpTool, where: string): JsonSchema {
  const fixed = Object.keys(row.fixed ?? {});
  if (!fixed.length) return base;
  const properties = { ...(base.properties as Record<string, JsonSchema> | undefined) };
  for (const name of fixed) {
    if (!(name in properties)) throw new Error(`${where}: ${row.operation} takes no argument ${name} to fix`);
    delete properties[name];
  }
  const required = ((base.required as string[] | undefined) ?? []).filter((n) => !fixed.includes(n));
  const { required: _required, ...rest } = base;
  return { ...rest, properties, ...(required.length ? { required } : {}) };
}

function register(row: McpTool, options: RegistryOptions): RegisteredTool {
  const where = `MCP tool ${row.name}`;
  if (!TOOL_NAME.test(row.name)) throw new Error(`${where}: invalid tool name`);
  if (!TOOL_KINDS.includes(row.kind)) throw new Error(`${where}: unknown kind ${row.kind}`);
  for (const s of row.scopes) if (!isScope(s)) throw new Error(`${where}: unknown scope ${s}`);
  const op = options.operations.byName.get(row.operation);
  if (!op) throw new Error(`${where}: unknown operation ${row.operation}`);
  if ((row.kind === 'read' || row.kind === 'deletes') && row.creates) {
    throw new Error(`${where}: a ${row.kind} tool cannot create`);
  }
  if (row.kind !== 'read' && op.definition.operation !== 'mutation') {
    throw new Error(`${where}: a ${row.kind} tool needs a mutation, ${row.operation} is a ${op.definition.operation}`);
  }
  const resultField = row.result ?? op.rootField;
  const responseKeys = op.definition.selectionSet.selections
    .map((s) => (s.kind === Kind.FIELD ? (s.alias?.value ?? s.name.value) : null))
    .filter(Boolean);
  if (!responseKeys.includes(resultField)) {
    throw new Error(`${where}: ${row.operation} has no root field ${resultField}`);
  }

  const base = withoutFixed(variablesSchema(options.schema, op.variables, { flatten: FLATTEN_VARIABLE }), row, where);
  const argumentNames = new Set(Object.keys((base.properties as object | undefined) ?? {}));
  for (const reserved of [CONFIRM_ARG, IDEMPOTENCY_ARG]) {
    if (argumentNames.has(reserved)) {
      throw new Error(`${where}: ${row.operation} takes ${reserved}, a reserved argument`);
    }
  }
  const flattened =
    op.variables.length === 1 && op.variables[0].variable.name.value === FLATTEN_VARIABLE ? FLATTEN_VARIABLE : null;
  const needsConfirm = CONFIRM_KINDS.has(row.kind);
  const confirmNote = needsConfirm ? confirmNoteFor(row.kind) : null;
  const creates = isCreatingTool(row, op);
  const description = op.description.trim() || `Runs ${op.name}.`;

  return {
    row,
    definition: {
      name: row.name,
      description: confirmNote ? `${description} ${confirmNote}` : description,
      inputSchema: inputSchemaFor(base, needsConfirm, creates),
      annotations: annotationsFor(row.kind, { creates, idempotent: row.idempotent }),
    },
    needsConfirm,
    confirmNote,
    creates,
    flattened,
    argumentNames,
    fixed: row.fixed ?? {},
    resultField,
    healthData: row.healthData === true || row.scopes.some(isHealthScope),
  };
}

/** Builds the registry; throws on the first row it cannot serve. */
export function buildRegistry(rows: readonly McpTool[], options: RegistryOptions): ToolRegistry {
  const byName = new Map<string, RegisteredTool>();
  for (const row of rows) {
    if (byName.has(row.name)) throw new Error(`MCP tool ${row.name}: defined twice`);
    byName.set(row.name, register(row, options));
  }
  const tools = [...byName.values()].sort((a, b) => (a.row.name < b.row.name ? -1 : 1));
  return {
    tools,
    byName,
    visibleTo: (scopes) => tools.filter((t) => t.row.scopes.every((s) => scopes.has(s))),
  };
}
