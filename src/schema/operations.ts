/**
 * The persisted operations, loaded once from the committed manifest and parsed at start; each is
 * validated against the schema and compiled on its first run (a start that checked all ~270 cost
 * ~0.7 s of the 1 s start-up goal; checkAll() does it at once, as the contract test does). executeOperation() runs one of them in process: the REST and MCP facades
 * call it (never HTTP), and yoga serves the same documents by sha256 id.
 *
 * A wrongly typed variable becomes VALIDATION_FAILED with a location, whichever door it came
 * through (coerced by the compiled query; located by graphql-js's messages).
 *
 * Execution: each operation is compiled once, on first use (graphql-jit), into a function that runs the
 * schema's own resolvers, so scopes, validation and errors stay those of the schema. graphql-js
 * walks every field of every result object generically (argument maps, type checks, promise checks
 * per field); a 50,000-reading answer is 300,000 fields, where the compiled plan costs a fraction
 * (docs/benchmarks.md). Yoga's /graphql still executes with graphql-js; test/graphql/compiled.test.ts
 * checks that both give the same answers. Never execute a document that was not validated here.
 */
import { readFileSync } from 'node:fs';
import {
  getNamedType,
  getVariableValues,
  GraphQLError,
  isInterfaceType,
  isObjectType,
  Kind,
  OperationTypeNode,
  parse,
  validate,
  valueFromASTUntyped,
} from 'graphql';
import type {
  DocumentNode,
  GraphQLField,
  GraphQLOutputType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  VariableDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { CompiledQuery } from 'graphql-jit';
import { maskError, validationError } from '../base/errors.ts';
import { inLocalTime } from './local-times.ts';
import { withAccountGone } from '../graphql/account-gone.ts';
import type { ValidationIssue } from '../base/errors.ts';
import { unsafeInputIssues } from '../platform/input-guards.ts';
import type { OpaqueKeys } from '../base/wire.ts';
import type { Context } from '../graphql/context.ts';
import { noteOperationType } from '../graphql/statement-metrics.ts';
import { MANIFEST_PATH } from '../graphql/operation-files.ts';
import type { ManifestOperation, OperationManifest } from '../graphql/operation-files.ts';

export interface PersistedOperation extends ManifestOperation {
  document: DocumentNode;
  definition: OperationDefinitionNode;
  variables: readonly VariableDefinitionNode[];
  /** selection sets of the fragments the document carries, by name */
  fragments: Map<string, SelectionSetNode>;
  /** response key of the first root field (what facades answer by default) */
  rootField: string;
  /** wire values of the variables' defaults, by name (see withDefaults) */
  defaults: ReadonlyMap<string, unknown>;
  /** whether a root field needs a credential (any but `public`): facades check it before the variables */
  needsCredential: boolean;
  /** where its answer holds JSON values, whose keys the facades pass through (src/base/wire.ts) */
  opaque: OpaqueKeys;
}

export interface OperationResult {
  data: Record<string, unknown> | null;
  errors: GraphQLError[];
}

export interface OperationStore {
  byName: ReadonlyMap<string, PersistedOperation>;
  byId: ReadonlyMap<string, PersistedOperation>;
  /** Runs a persisted operation by name with the given context (validated, compiled on first use). */
  execute(name: string, variables: Record<string, unknown>, ctx: Context): Promise<OperationResult>;
  /** Validates and compiles every operation now (throws on the first that does not match). */
  checkAll(): void;
}

/** Turns graphql-js variable coercion errors into located validation issues. */
function variableIssues(errors: readonly GraphQLError[]): ValidationIssue[] {
  return errors.map((e) => {
    const m = e.message.match(
      /^Variable "\$(\w+)" (?:got invalid value .*? at "(\w+(?:\.[\w[\]]+)*)"|of required type|got invalid value)/s,
    );
    const variable = m?.[1] ?? 'variables';
    const at =
      m?.[2]
        ?.split('.')
        .slice(1)
        .map((p) => (/^\d+$/.test(p) ? Number(p) : p)) ?? [];
    const msg = e.message.includes('; ')
      ? e.message.slice(e.message.lastIndexOf('; ') + 2)
      : e.message;
    const type = /required|was not provided/.test(e.message) ? 'missing' : 'type_error';
    // a missing field of an input object is located at that field (body.id_token), not at the object
    const missingField = e.message.match(
      /; Field "(\w+)" of required type "[^"]+" was not provided\.?$/,
    )?.[1];
    const loc = [variable, ...at, ...(missingField ? [missingField] : [])];
    return { loc, msg: type === 'missing' ? 'Field required' : msg, type };
  });
}

/**
 * graphql-jit 0.8 refuses an omitted non-null variable even when it declares a default
 * (`$sort: String! = "desc"`), where graphql-js applies the default. Absent variables with a
 * default are therefore handed over as the default's literal value, which coerces to the same thing.
 */
function withDefaults(
  variables: Record<string, unknown>,
  defaults: ReadonlyMap<string, unknown>,
): Record<string, unknown> {
  let out = variables;
  for (const [name, value] of defaults) {
    if (Object.hasOwn(variables, name)) continue;
    if (out === variables) out = { ...variables };
    out[name] = value;
  }
  return out;
}

/** The schema fields an operation's root selections name (fragments at the root are not used). */
export function rootFieldsOf(
  schema: GraphQLSchema,
  definition: OperationDefinitionNode,
): GraphQLField<unknown, unknown>[] {
  const root =
    definition.operation === OperationTypeNode.MUTATION
      ? schema.getMutationType()
      : schema.getQueryType();
  const fields = root?.getFields() ?? {};
  return definition.selectionSet.selections.flatMap((s) =>
    s.kind === Kind.FIELD && fields[s.name.value] ? [fields[s.name.value]] : [],
  );
}

/** The auth scopes a root field declares (builder.ts AuthScopes), as plugin-scope-auth keeps them. */
export interface DeclaredScopes {
  public?: boolean;
  authenticated?: boolean;
  scope?: string;
  loginSession?: boolean;
  nativeSession?: boolean;
  admin?: boolean;
}

/** What a root field declares with `t.withAuth(...)`; a function (decided per request) or nothing reads as `{}`. */
export function declaredScopesOf(field: GraphQLField<unknown, unknown>): DeclaredScopes {
  const declared = (field.extensions?.pothosOptions as { authScopes?: unknown } | undefined)
    ?.authScopes;
  return declared && typeof declared === 'object' ? (declared as DeclaredScopes) : {};
}

/**
 * The response keys down to every `JSON`-typed field an operation selects (through fragments and
 * inline fragments), so the facades keep those values' keys as they are.
 */
function opaqueKeysOf(
  schema: GraphQLSchema,
  selectionSet: SelectionSetNode,
  parent: GraphQLOutputType,
  fragments: ReadonlyMap<string, SelectionSetNode>,
): OpaqueKeys {
  const out: OpaqueKeys = {};
  const type = getNamedType(parent);
  if (!isObjectType(type) && !isInterfaceType(type)) return out;
  for (const selection of selectionSet.selections) {
    if (selection.kind !== Kind.FIELD) {
      const inner =
        selection.kind === Kind.INLINE_FRAGMENT
          ? selection.selectionSet
          : fragments.get(selection.name.value);
      const on =
        selection.kind === Kind.INLINE_FRAGMENT && selection.typeCondition
          ? (schema.getType(selection.typeCondition.name.value) as GraphQLOutputType)
          : parent;
      if (inner) mergeOpaque(out, opaqueKeysOf(schema, inner, on, fragments));
      continue;
    }
    const field = type.getFields()[selection.name.value];
    if (!field) continue;
    const key = selection.alias?.value ?? selection.name.value;
    const named = getNamedType(field.type);
    if (named.name === 'JSON') out[key] = true;
    else if (selection.selectionSet) {
      const inner = opaqueKeysOf(schema, selection.selectionSet, field.type, fragments);
      if (Object.keys(inner).length) mergeOpaque(out, { [key]: inner });
    }
  }
  return out;
}

/** Adds `more` into `into`, merging the keys both name (two fragments selecting one field). */
function mergeOpaque(into: OpaqueKeys, more: OpaqueKeys): void {
  for (const [key, value] of Object.entries(more)) {
    const had = into[key];
    if (had && had !== true && value !== true) mergeOpaque(had, value);
    else into[key] = value;
  }
}

type Parsed = Omit<PersistedOperation, keyof ManifestOperation>;

/** What the facades read of an operation, from its parsed document. */
function parseOperation(schema: GraphQLSchema, op: ManifestOperation): Parsed {
  const document = parse(op.body);
  const definition = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const fragments = new Map<string, SelectionSetNode>();
  for (const d of document.definitions)
    if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d.selectionSet);
  const first = definition.selectionSet.selections[0];
  const rootField = first.kind === Kind.FIELD ? (first.alias?.value ?? first.name.value) : '';
  const variables = definition.variableDefinitions ?? [];
  const defaults = new Map<string, unknown>();
  for (const v of variables)
    if (v.defaultValue) defaults.set(v.variable.name.value, valueFromASTUntyped(v.defaultValue));
  const needsCredential = rootFieldsOf(schema, definition).some(
    (f) => declaredScopesOf(f).public !== true,
  );
  const root = schema.getRootType(definition.operation)!;
  const opaque = opaqueKeysOf(schema, definition.selectionSet, root, fragments);
  return {
    opaque,
    document,
    definition,
    variables,
    fragments,
    rootField,
    defaults,
    needsCredential,
  };
}

/**
 * A manifest entry whose parsed parts are computed on first read: parsing all ~240 at start cost
 * ~0.1 s of the 1 s start-up goal (issue 18), and most are first needed by a request.
 */
function lazyOperation(schema: GraphQLSchema, op: ManifestOperation): PersistedOperation {
  let parsed: Parsed | undefined;
  const get = (): Parsed => (parsed ??= parseOperation(schema, op));
  return {
    ...op,
    get document() {
      return get().document;
    },
    get definition() {
      return get().definition;
    },
    get variables() {
      return get().variables;
    },
    get fragments() {
      return get().fragments;
    },
    get rootField() {
      return get().rootField;
    },
    get defaults() {
      return get().defaults;
    },
    get needsCredential() {
      return get().needsCredential;
    },
    get opaque() {
      return get().opaque;
    },
  };
}

/** Loads the manifest; each operation is parsed, validated and compiled when first used. */
export function loadOperations(
  schema: GraphQLSchema,
  manifestPath = MANIFEST_PATH,
): OperationStore {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as OperationManifest;
  const byName = new Map<string, PersistedOperation>();
  const byId = new Map<string, PersistedOperation>();
  for (const op of manifest.operations) {
    const entry = lazyOperation(schema, op);
    byName.set(op.name, entry);
    byId.set(op.id, entry);
  }

  const plans = new Map<string, CompiledQuery>();
  /** The operation validated against the schema and compiled, once. */
  function planOf(op: PersistedOperation): CompiledQuery {
    let plan = plans.get(op.name);
    if (plan) return plan;
    const errors = validate(schema, op.document);
    if (errors.length)
      throw new Error(`operation ${op.name} does not match the schema: ${errors[0].message}`);
    const compiled = compileQuery(schema, op.document, op.name);
    if (!isCompiledQuery(compiled))
      throw new Error(`operation ${op.name} does not compile: ${compiled.errors?.[0]?.message}`);
    plan = compiled;
    plans.set(op.name, plan);
    return plan;
  }

  return {
    byName,
    byId,
    checkAll() {
      for (const op of byName.values()) planOf(op);
    },
    async execute(name, variables, ctx) {
      const op = byName.get(name);
      if (!op) throw new Error(`unknown operation ${name}`);
      const plan = planOf(op);
      // NOTE: before any resolver (or the database) sees them: NUL characters and runaway nesting
      const unsafe = unsafeInputIssues(variables);
      if (unsafe.length) return { data: null, errors: [validationError(unsafe)] };
      const mask = (e: unknown) =>
        maskError(e, ctx.requestId, (err) => ctx.log.error({ err }, 'unexpected error'));
      noteOperationType(op.type); // the manifest's, not the document's again
      // offset-less date-times are the person's local time; MCP answers carry their offset
      const result = await inLocalTime(ctx, variables, () =>
        plan.query(undefined, ctx, withDefaults(variables, op.defaults)),
      );
      // NOTE: the compiled query coerces its variables first and answers errors without `data` when
      // they fail. Only then is graphql-js's coercion run, for its located messages: running it on
      // every call cost a 50,000-reading batch ~200 ms of blocked event loop (docs/benchmarks.md).
      if (result.data === undefined && result.errors?.length) {
        const coerced = getVariableValues(schema, op.variables, variables);
        const issues = coerced.errors
          ? variableIssues(coerced.errors)
          : variableIssues(result.errors);
        return { data: null, errors: [validationError(issues)] };
      }
      const errors = result.errors?.length ? await withAccountGone(ctx, result.errors) : [];
      return {
        data: (result.data as Record<string, unknown> | null | undefined) ?? null,
        errors: errors.map(mask),
      };
    },
  };
}
