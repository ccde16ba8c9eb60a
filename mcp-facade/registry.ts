/**
 * The tool registry, built once at start from the tool rows and the persisted operations. For each
 * row it derives what tools/list shows (title, input JSON Schema from the operation's variables with
 * the bounds of the fields' validators, annotations from the kind, the description from the
 * operation's leading comment, the ask-the-user note from what the operation does) and what the call
 * path needs (the arguments it accepts, confirm, idempotency, paging, flattened input, result
 * field, health meta, the scopes the token must hold for the tool to be listed, and its toolset, the
 * family a client can choose in its MCP URL). The listing is kept short (issue 30 item 7): every
 * connected agent reads it whole before it does anything (test/mcp-facade/listing-size.test.ts).
 *
 * Why once: rows and operations are fixed for the life of the process, so per-request work is a
 * scope filter over a ready list. It must never start with a row it cannot serve: an unknown
 * operation, a duplicate or malformed name, an unknown scope, or two tools an agent could not tell
 * apart (the same title or description) throws here, at start.
 */
import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  Kind,
  OperationTypeNode,
} from 'graphql';
import type { GraphQLSchema } from 'graphql';
import type { Tool, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { isHealthScope, isScope } from '../src/auth/scopes.ts';
import type { Scope } from '../src/auth/scopes.ts';
import { variablesSchema } from '../src/graphql/json-schema.ts';
import type { JsonSchema } from '../src/graphql/json-schema.ts';
import { declaredScopesOf, rootFieldsOf } from '../src/schema/operations.ts';
import type { OperationStore, PersistedOperation } from '../src/schema/operations.ts';
import { CURSOR_ARG, CURSOR_MAX_LENGTH } from './answer-size.ts';
import { OAUTH_HIDDEN_KINDS, TOOL_KINDS } from './tool.ts';
import type { McpDoor, McpTool, ToolKind } from './tool.ts';
import type { OpaqueKeys } from '../src/base/wire.ts';

/** The argument every deletes / shares / takes-a-payment tool needs set to true. */
export const CONFIRM_ARG = 'confirm';
/** The argument every creating tool needs: one key per new entry. */
export const IDEMPOTENCY_ARG = 'idempotency_key';
export const IDEMPOTENCY_KEY_LENGTH = { min: 8, max: 128 } as const;

/** The single input-object variable that MCP arguments flatten into (`updateProfile($input: ...)`). */
const FLATTEN_VARIABLE = 'input';
/** MCP tool names (2025-11-25): 1-128 of A-Z a-z 0-9 _ - . */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** Root mutation fields whose name says they create an entry. */
const CREATING_FIELD = /^(create|log|add|start)(?=[A-Z]|$)/;

const CONFIRM_KINDS: ReadonlySet<ToolKind> = new Set(['deletes', 'shares', 'takes a payment']);

/** The operation that names whose health data a credential reads (meta.subject, meta.phone_last_sync_at). */
export const HEALTH_META_OPERATION = 'healthDataSubject';

/**
 * How a tool's answer is paged (answer-size.ts): `list`, the operation answers a list and the
 * facade pages it; `page`, the operation answers `{ items, nextCursor }` and takes a `cursor`, and
 * the facade pages within its pages; `own`, the operation takes a cursor of another shape of answer
 * (sync pages), left as it is; null, no paging (only the size cap).
 */
export type Paging = 'list' | 'page' | 'own' | null;

export interface RegisteredTool {
  row: McpTool;
  /** the tools/list entry */
  definition: Tool;
  /** refuses to run without confirm: true */
  needsConfirm: boolean;
  /**
   * confirm tools: what the refusal without confirm: true says (what the tool does and what to ask);
   * the description ends with CONFIRM_NOTE only
   */
  confirmNote: string | null;
  /** takes a required idempotency_key */
  creates: boolean;
  /** how the answer is paged (see Paging) */
  paging: Paging;
  /** the input-object variable whose fields are the top-level arguments, or null */
  flattened: string | null;
  /** wire argument names of the operation the caller may send (without the facade's and fixed ones) */
  argumentNames: ReadonlySet<string>;
  /** every argument the tool declares: the operation's, and confirm, idempotency_key or cursor when it takes them */
  acceptedArguments: ReadonlySet<string>;
  /**
   * the scopes a token must hold for tools/list to show the tool: the row's and those the
   * operation's root fields declare (a row the spec lists without a scope still needs its field's)
   */
  listedFor: readonly Scope[];
  /** a root field refuses every token (it needs a login session, a phone or an admin): never listed */
  tokenCannotCall: boolean;
  /** wire arguments the row fixes, merged into every call */
  fixed: Readonly<Record<string, unknown>>;
  /** response key of `data` that the tool answers */
  resultField: string;
  /** where that answer holds JSON values (their keys pass through as they are) */
  opaque: OpaqueKeys | true | undefined;
  /** health data: structured results carry meta.phone_last_sync_at */
  healthData: boolean;
  /** never offered over OAuth: a payment kind (OAUTH_HIDDEN_KINDS) or a row with `oauth: false` */
  oauthHidden: boolean;
  /** the toolset (the spec's family) the tool belongs to; null for a row without one (a test's) */
  toolset: string | null;
}

/**
 * The toolsets a connection chose in its MCP URL (`?toolsets=glucose,nutrition`), or null for all
 * of them (no `toolsets`, or `toolsets=all`).
 */
export type ToolsetChoice = ReadonlySet<string> | null;

/** The toolsets value that keeps every tool. */
export const ALL_TOOLSETS = 'all';

export interface ToolRegistry {
  /** every tool, in name order */
  tools: readonly RegisteredTool[];
  /** every tool by name, whatever the door (use `find` to answer a call) */
  byName: ReadonlyMap<string, RegisteredTool>;
  /** every toolset (family) a client may choose, in name order (`all` is not among them) */
  toolsets: readonly string[];
  /**
   * What tools/list shows, in name order: the tools the credential can call (it holds every scope of
   * `listedFor`), that the door offers (the OAuth door hides `oauthHidden` tools) and that are in
   * the chosen toolsets. Door default: `pat`, the personal-token host; toolsets default: all.
   */
  visibleTo(
    scopes: ReadonlySet<string>,
    door?: McpDoor,
    toolsets?: ToolsetChoice,
  ): RegisteredTool[];
  /**
   * The tool a tools/call names, or undefined when there is none, the door hides it, or it is in no
   * chosen toolset (Unknown tool).
   */
  find(name: string, door?: McpDoor, toolsets?: ToolsetChoice): RegisteredTool | undefined;
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
  return (
    op.definition.operation === OperationTypeNode.MUTATION &&
    CREATING_FIELD.test(rootFieldName(op) ?? '')
  );
}

/**
 * MCP annotations from the kind (../shared/notes/mcp-oauth.md 1.3). The spec's defaults are the
 * pessimistic answers (not read-only, destructive, not idempotent, open world); the listing says
 * what an agent's client decides by and leaves the rest out (issue 30 item 7: fewer tokens per
 * tool). Reads say readOnlyHint alone: the spec gives destructiveHint and idempotentHint meaning
 * only when readOnlyHint is false. Every tool that changes data says destructiveHint, and
 * idempotentHint when true. openWorldHint is never said: what reaches outside the account
 * (sharing, payments) is destructive, so destructiveHint already tells it apart.
 */
export function annotationsFor(
  kind: ToolKind,
  options: { creates: boolean; idempotent?: boolean },
): ToolAnnotations {
  switch (kind) {
    case 'read':
      return { readOnlyHint: true };
    case 'write':
      return {
        destructiveHint: false,
        ...(options.creates || options.idempotent === true ? { idempotentHint: true } : {}),
      };
    case 'deletes':
      return { destructiveHint: true, idempotentHint: true };
    case 'shares':
    case 'takes a payment':
      // disclosure and payments cannot be undone: destructive, not idempotent (the default)
      return { destructiveHint: true };
  }
}

/**
 * The first clause of a description (up to the first `.`, `;` or `:` outside parentheses):
 * "Signs one session (a phone or a browser, ...) out; it stops ..." -> "Signs one session (...) out".
 */
export function firstClause(description: string): string {
  let depth = 0;
  for (let i = 0; i < description.length; i++) {
    const c = description[i];
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (
      depth === 0 &&
      (c === '.' || c === ';' || c === ':') &&
      /^\s?$/.test(description[i + 1] ?? '')
    ) {
      return description.slice(0, i).trim();
    }
  }
  return description.trim().replace(/\.$/, '');
}

/**
 * What a confirm tool's description ends with. It never restates what the tool does (the
 * description has just said it; issue 30 item 6); the `confirm` argument says the rest.
 */
export const CONFIRM_NOTE = 'Ask the person first.';

/** What the `confirm` argument says. */
const CONFIRM_DESCRIPTION = 'true once the person agreed';

/**
 * What a confirm tool answers when called without confirm: true: what this tool does, in the words
 * of its own description's first clause (the refusal stands alone, apart from the listing), and
 * what to do.
 */
export function confirmNoteFor(description: string): string {
  const does = firstClause(description);
  return (
    `It ${does.charAt(0).toLowerCase()}${does.slice(1)}. ` +
    'Ask the person first and call again with confirm: true only after they agreed.'
  );
}

/** "get_glucose_readings" -> "Get glucose readings": the title of a row without its own. */
function titleFromName(name: string): string {
  const words = name
    .split(/[_.-]+/)
    .filter(Boolean)
    .join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Whether the operation's result field answers a page: `{ items: [...], nextCursor }`, and it takes a cursor. */
function pagingOf(
  row: McpTool,
  op: PersistedOperation,
  schema: GraphQLSchema,
  resultField: string,
): Paging {
  if (row.kind !== 'read') return null; // a later page would run a write again
  const field = rootFieldsOf(schema, op.definition).find((f) =>
    op.definition.selectionSet.selections.some(
      (s) =>
        s.kind === Kind.FIELD &&
        s.name.value === f.name &&
        (s.alias?.value ?? s.name.value) === resultField,
    ),
  );
  if (!field) return null;
  const takesCursor = op.variables.some((v) => v.variable.name.value === CURSOR_ARG);
  const type = getNullableType(field.type);
  if (isListType(type)) return takesCursor ? 'own' : 'list';
  const named = getNamedType(type);
  if (takesCursor && isObjectType(named)) {
    const fields = named.getFields();
    return fields.items && isListType(getNullableType(fields.items.type)) && fields.nextCursor
      ? 'page'
      : 'own';
  }
  return takesCursor ? 'own' : null;
}

const CURSOR_SCHEMA = {
  type: 'string',
  maxLength: CURSOR_MAX_LENGTH,
  description: 'the last next_cursor',
};

/**
 * An optional argument of a read or creating tool without `null` among its types or enum values:
 * leaving it out and sending null mean the same there (the call path still takes null), so the
 * listing says it once (issue 30 item 7). Other writes keep null where the argument takes it: there
 * it can clear a field.
 */
function withoutNull(schema: JsonSchema): JsonSchema {
  const anyOf = schema.anyOf as JsonSchema[] | undefined;
  if (Array.isArray(anyOf)) {
    const rest = anyOf.filter((s) => s.type !== 'null');
    if (rest.length !== 1) return schema;
    const { anyOf: _anyOf, ...outer } = schema;
    return withoutNull({ ...rest[0], ...outer });
  }
  const out = { ...schema };
  if (Array.isArray(out.type)) {
    const types = (out.type as string[]).filter((t) => t !== 'null');
    out.type = types.length === 1 ? types[0] : types;
  }
  if (Array.isArray(out.enum)) out.enum = (out.enum as unknown[]).filter((v) => v !== null);
  return nestedWithoutNull(out);
}

/** `schema` with the optional fields of the objects it holds (items, properties) without null. */
function nestedWithoutNull(schema: JsonSchema): JsonSchema {
  const out = { ...schema };
  if (out.items && typeof out.items === 'object' && !Array.isArray(out.items))
    out.items = nestedWithoutNull(withoutNull(out.items as JsonSchema));
  if (out.properties) {
    const required = (out.required as string[] | undefined) ?? [];
    out.properties = Object.fromEntries(
      Object.entries(out.properties as Record<string, JsonSchema>).map(([name, sub]) => [
        name,
        required.includes(name) ? nestedWithoutNull(sub) : withoutNull(sub),
      ]),
    );
  }
  return out;
}

interface InputSchemaOptions {
  needsConfirm: boolean;
  creates: boolean;
  /** takes the facade's cursor */
  paged: boolean;
  /** a read or creating tool: its optional arguments are listed without null */
  nullIsAbsent: boolean;
}

function inputSchemaFor(base: JsonSchema, options: InputSchemaOptions): Tool['inputSchema'] {
  const required = [...((base.required as string[] | undefined) ?? [])];
  const properties: Record<string, object> = {
    ...((options.nullIsAbsent ? nestedWithoutNull(base) : base).properties as
      | Record<string, JsonSchema>
      | undefined),
  };
  if (options.paged) properties[CURSOR_ARG] = CURSOR_SCHEMA;
  if (options.needsConfirm) {
    properties[CONFIRM_ARG] = {
      type: 'boolean',
      description: CONFIRM_DESCRIPTION,
    };
    required.push(CONFIRM_ARG);
  }
  if (options.creates) {
    properties[IDEMPOTENCY_ARG] = {
      type: 'string',
      minLength: IDEMPOTENCY_KEY_LENGTH.min,
      maxLength: IDEMPOTENCY_KEY_LENGTH.max,
      description: 'new UUID per entry; reuse to retry',
    };
    required.push(IDEMPOTENCY_ARG);
  }
  // NOTE: no `additionalProperties: false` (nor `minLength: 1`, nor the flattened input type's own
  // description, which the tool's description says better) in the listing: they cost an agent tokens
  // on every tool and say nothing the properties do not (issue 30 item 7); the call path still
  // refuses every argument the schema does not declare (extra_forbidden)
  const { description: _inputType, ...rest } = base;
  return listed({
    ...rest,
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
  }) as Tool['inputSchema'];
}

/**
 * `schema` as listed, at any depth: without `additionalProperties: false` and `minLength: 1` (see
 * inputSchemaFor). Neither tells an agent anything it would get wrong: it sends the arguments the
 * schema names, and never an empty id; the call path and the fields still refuse both.
 */
function listed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(listed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'minLength' && value === 1) continue;
    // NOTE: `properties` maps argument names (never keywords) to schemas
    out[key] =
      key === 'properties' && value && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, listed(sub)]))
        : listed(value);
  }
  return out;
}

/** The input schema without the arguments the row fixes; a fixed name the operation lacks throws. */
function withoutFixed(base: JsonSchema, row: McpTool, where: string): JsonSchema {
  const fixed = Object.keys(row.fixed ?? {});
  if (!fixed.length) return base;
  const properties = { ...(base.properties as Record<string, JsonSchema> | undefined) };
  for (const name of fixed) {
    if (!(name in properties))
      throw new Error(`${where}: ${row.operation} takes no argument ${name} to fix`);
    delete properties[name];
  }
  const required = ((base.required as string[] | undefined) ?? []).filter(
    (n) => !fixed.includes(n),
  );
  const { required: _required, ...rest } = base;
  return { ...rest, properties, ...(required.length ? { required } : {}) };
}

/** The row's operation, once the row's name, kind, scopes and result field are known to be sound. */
function checkedOperation(
  row: McpTool,
  options: RegistryOptions,
  where: string,
): PersistedOperation {
  if (!TOOL_NAME.test(row.name)) throw new Error(`${where}: invalid tool name`);
  if (!TOOL_KINDS.includes(row.kind)) throw new Error(`${where}: unknown kind ${String(row.kind)}`);
  for (const s of row.scopes)
    if (!isScope(s)) throw new Error(`${where}: unknown scope ${String(s)}`);
  const op = options.operations.byName.get(row.operation);
  if (!op) throw new Error(`${where}: unknown operation ${row.operation}`);
  if ((row.kind === 'read' || row.kind === 'deletes') && row.creates) {
    throw new Error(`${where}: a ${row.kind} tool cannot create`);
  }
  if (row.kind !== 'read' && op.definition.operation !== OperationTypeNode.MUTATION) {
    throw new Error(
      `${where}: a ${row.kind} tool needs a mutation, ${row.operation} is a ${op.definition.operation}`,
    );
  }
  const resultField = row.result ?? op.rootField;
  const responseKeys = op.definition.selectionSet.selections
    .map((s) => (s.kind === Kind.FIELD ? (s.alias?.value ?? s.name.value) : null))
    .filter(Boolean);
  if (!responseKeys.includes(resultField)) {
    throw new Error(`${where}: ${row.operation} has no root field ${resultField}`);
  }
  return op;
}

/** The operation's arguments as the tool takes them (fixed ones left out), none of them reserved. */
function operationArguments(
  row: McpTool,
  op: PersistedOperation,
  options: RegistryOptions,
  paging: Paging,
  where: string,
): { base: JsonSchema; argumentNames: Set<string> } {
  const base = withoutFixed(
    variablesSchema(options.schema, op.variables, {
      flatten: FLATTEN_VARIABLE,
      operation: op.definition,
    }),
    row,
    where,
  );
  const argumentNames = new Set(Object.keys((base.properties as object | undefined) ?? {}));
  for (const reserved of [
    CONFIRM_ARG,
    IDEMPOTENCY_ARG,
    ...(paging === 'list' ? [CURSOR_ARG] : []),
  ]) {
    if (argumentNames.has(reserved)) {
      throw new Error(`${where}: ${row.operation} takes ${reserved}, a reserved argument`);
    }
  }
  if (paging === 'page') argumentNames.delete(CURSOR_ARG); // the facade's cursor wraps the operation's
  return { base, argumentNames };
}

/** Whom the tool is listed for (its scopes and its fields'), and whether a token can call it at all. */
function callersOf(
  row: McpTool,
  op: PersistedOperation,
  options: RegistryOptions,
): { listedFor: Scope[]; tokenCannotCall: boolean } {
  const fields = rootFieldsOf(options.schema, op.definition).map(declaredScopesOf);
  const listedFor = [
    ...new Set([
      ...row.scopes,
      ...fields.flatMap((f) => (f.scope && isScope(f.scope) ? [f.scope] : [])),
    ]),
  ];
  const tokenCannotCall = fields.some((f) => f.loginSession || f.nativeSession || f.admin);
  return { listedFor, tokenCannotCall };
}

function register(row: McpTool, options: RegistryOptions): RegisteredTool {
  const where = `MCP tool ${row.name}`;
  const op = checkedOperation(row, options, where);
  const resultField = row.result ?? op.rootField;
  const paging = pagingOf(row, op, options.schema, resultField);
  const facadePaged = paging === 'list' || paging === 'page';
  const { base, argumentNames } = operationArguments(row, op, options, paging, where);
  const flattened =
    op.variables.length === 1 && op.variables[0].variable.name.value === FLATTEN_VARIABLE
      ? FLATTEN_VARIABLE
      : null;
  const needsConfirm = CONFIRM_KINDS.has(row.kind);
  const creates = isCreatingTool(row, op);
  const description = [row.description?.trim(), op.description.trim() || `Runs ${op.name}.`]
    .filter(Boolean)
    .join(' ');
  const acceptedArguments = new Set([
    ...argumentNames,
    ...(needsConfirm ? [CONFIRM_ARG] : []),
    ...(creates ? [IDEMPOTENCY_ARG] : []),
    ...(facadePaged ? [CURSOR_ARG] : []),
  ]);
  const healthData = row.healthData === true || row.scopes.some(isHealthScope);
  if (healthData && !options.operations.byName.has(HEALTH_META_OPERATION)) {
    throw new Error(`${where}: health answers need the operation ${HEALTH_META_OPERATION}`);
  }

  return {
    row,
    definition: {
      name: row.name,
      title: row.title ?? titleFromName(row.name),
      description: needsConfirm ? `${description} ${CONFIRM_NOTE}` : description,
      inputSchema: inputSchemaFor(base, {
        needsConfirm,
        creates,
        paged: facadePaged,
        nullIsAbsent: row.kind === 'read' || creates,
      }),
      // NOTE: the title once, as the tool's `title` (MCP 2025-06-18 reads it first); not again as
      // annotations.title, which only older clients read for display (issue 30 item 7)
      annotations: annotationsFor(row.kind, { creates, idempotent: row.idempotent }),
    },
    needsConfirm,
    confirmNote: needsConfirm ? confirmNoteFor(description) : null,
    creates,
    paging,
    flattened,
    argumentNames,
    acceptedArguments,
    ...callersOf(row, op, options),
    fixed: row.fixed ?? {},
    resultField,
    opaque: op.opaque[resultField],
    healthData,
    oauthHidden: row.oauth === false || OAUTH_HIDDEN_KINDS.has(row.kind),
    toolset: row.family ?? null,
  };
}

/**
 * Tools running the same operation with the same fixed arguments answer alike: each description
 * (unless its row says it in its own words) says so, naming the others, so that no two tools read
 * the same to an agent.
 */
function withTwinNotes(tools: RegisteredTool[]): void {
  const key = (t: RegisteredTool): string => `${t.row.operation} ${JSON.stringify(t.fixed)}`;
  const groups = new Map<string, RegisteredTool[]>();
  for (const t of tools) groups.set(key(t), [...(groups.get(key(t)) ?? []), t]);
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    for (const t of group) {
      if (t.row.description) continue;
      const others = group.filter((o) => o !== t).map((o) => o.row.name);
      const note = `The same tool as ${others.join(', ')}.`;
      // the ask-the-person note of a confirm tool stays last
      const description = t.needsConfirm
        ? `${t.definition.description!.slice(0, -CONFIRM_NOTE.length - 1)} ${note} ${CONFIRM_NOTE}`
        : `${t.definition.description} ${note}`;
      t.definition = { ...t.definition, description };
    }
  }
}

/** Two tools an agent could not tell apart (the same title or description) refuse the start. */
function refuseLookalikes(tools: readonly RegisteredTool[]): void {
  for (const field of ['title', 'description'] as const) {
    const seen = new Map<string, string>();
    for (const t of tools) {
      const value = t.definition[field] ?? '';
      const other = seen.get(value);
      if (other) throw new Error(`MCP tools ${other} and ${t.row.name} have the same ${field}`);
      seen.set(value, t.row.name);
    }
  }
}

/** Builds the registry; throws on the first row it cannot serve. */
export function buildRegistry(rows: readonly McpTool[], options: RegistryOptions): ToolRegistry {
  const byName = new Map<string, RegisteredTool>();
  for (const row of rows) {
    if (byName.has(row.name)) throw new Error(`MCP tool ${row.name}: defined twice`);
    byName.set(row.name, register(row, options));
  }
  const tools = [...byName.values()].sort((a, b) => (a.row.name < b.row.name ? -1 : 1));
  withTwinNotes(tools);
  refuseLookalikes(tools);
  const toolsets = [
    ...new Set(tools.flatMap((t) => (t.toolset === null ? [] : [t.toolset]))),
  ].sort();
  if (toolsets.includes(ALL_TOOLSETS))
    throw new Error(`MCP tools: no family may be named ${ALL_TOOLSETS}`);
  // NOTE: the OAuth door never offers payment tools or rows with `oauth: false` (spec, Authentication 9)
  const offered = (t: RegisteredTool, door: McpDoor, chosen: ToolsetChoice = null): boolean =>
    (door === 'pat' || !t.oauthHidden) &&
    (chosen === null || (t.toolset !== null && chosen.has(t.toolset)));
  return {
    tools,
    byName,
    toolsets,
    // NOTE: what a credential may call: every scope of the row and of the operation's root fields
    visibleTo: (scopes, door = 'pat', chosen = null) =>
      tools.filter(
        (t) =>
          offered(t, door, chosen) && !t.tokenCannotCall && t.listedFor.every((s) => scopes.has(s)),
      ),
    find: (name, door = 'pat', chosen = null) => {
      const tool = byName.get(name);
      return tool && offered(tool, door, chosen) ? tool : undefined;
    },
  };
}

/**
 * The toolsets a client chose, from the `toolsets` values of its MCP URL (comma-separated, the
 * parameter possibly repeated): null for all of them (no value, or `all` among them), else the set;
 * `unknown` names what the registry has no toolset of (the request is refused), `empty` when the
 * values name nothing.
 */
export function chooseToolsets(
  values: readonly string[] | undefined,
  known: readonly string[],
): { toolsets: ToolsetChoice } | { unknown: string[] } | { empty: true } {
  if (values === undefined) return { toolsets: null };
  const names = values.flatMap((v) => v.split(',')).map((n) => n.trim().toLowerCase());
  const named = names.filter(Boolean);
  if (!named.length) return { empty: true };
  const unknown = named.filter((n) => n !== ALL_TOOLSETS && !known.includes(n));
  if (unknown.length) return { unknown: [...new Set(unknown)] };
  return { toolsets: named.includes(ALL_TOOLSETS) ? null : new Set(named) };
}

/**
 * The registry, built on its first use rather than at start: building every tool's schemas took
 * 80 ms of the 1 s start-up goal (issue 18). The first MCP request pays it once; the contract
 * tests build it whole, so a row it cannot serve still fails CI.
 */
export function lazyRegistry(build: () => ToolRegistry): ToolRegistry {
  let built: ToolRegistry | undefined;
  const registry = (): ToolRegistry => (built ??= build());
  return {
    get tools() {
      return registry().tools;
    },
    get byName() {
      return registry().byName;
    },
    get toolsets() {
      return registry().toolsets;
    },
    visibleTo: (scopes, door, toolsets) => registry().visibleTo(scopes, door, toolsets),
    find: (name, door, toolsets) => registry().find(name, door, toolsets),
  };
}
