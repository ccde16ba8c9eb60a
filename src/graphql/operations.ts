/**
 * The persisted operations, loaded once from the committed manifest, parsed and validated against
 * the schema at start. executeOperation() runs one of them in process: the REST and MCP facades
 * call it (never HTTP), and yoga serves the same documents by sha256 id.
 *
 * Variables are coerced here first, so a wrongly typed variable becomes VALIDATION_FAILED with a
 * location, whichever door it came through.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { execute, getVariableValues, GraphQLError, Kind, parse, validate } from 'graphql';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode, SelectionSetNode, VariableDefinitionNode } from 'graphql';
import { maskError, validationError } from '../errors.ts';
import type { ValidationIssue } from '../errors.ts';
import type { Context } from './context.ts';
import type { ManifestOperation, OperationManifest } from './operation-files.ts';

export const MANIFEST_PATH = path.resolve(import.meta.dirname, '../generated/operations.json');

export interface PersistedOperation extends ManifestOperation {
  document: DocumentNode;
  definition: OperationDefinitionNode;
  variables: readonly VariableDefinitionNode[];
  /** selection sets of the fragments the document carries, by name */
  fragments: Map<string, SelectionSetNode>;
  /** response key of the first root field (what facades answer by default) */
  rootField: string;
}

export interface OperationResult {
  data: Record<string, unknown> | null;
  errors: GraphQLError[];
}

export interface OperationStore {
  byName: ReadonlyMap<string, PersistedOperation>;
  byId: ReadonlyMap<string, PersistedOperation>;
  /** Runs a persisted operation by name with the given context. */
  execute(name: string, variables: Record<string, unknown>, ctx: Context): Promise<OperationResult>;
}

/** Turns graphql-js variable coercion errors into located validation issues. */
function variableIssues(errors: readonly GraphQLError[]): ValidationIssue[] {
  return errors.map((e) => {
    const m = e.message.match(/^Variable "\$(\w+)" (?:got invalid value .*? at "(\w+(?:\.[\w[\]]+)*)"|of required type|got invalid value)/s);
    const variable = m?.[1] ?? 'variables';
    const at = m?.[2]?.split('.').slice(1).map((p) => (/^\d+$/.test(p) ? Number(p) : p)) ?? [];
    const msg = e.message.includes('; ') ? e.message.slice(e.message.lastIndexOf('; ') + 2) : e.message;
    const type = /required|was not provided/.test(e.message) ? 'missing' : 'type_error';
    // a required field absent from an input object: locate the field itself, as FastAPI does
    const absent = type === 'missing' ? /Field "(\w+)" of required type .* was not provided/.exec(e.message)?.[1] : undefined;
    return { loc: [variable, ...at, ...(absent ? [absent] : [])], msg: type === 'missing' ? 'Field required' : msg, type };
  });
}

/** Loads the manifest and checks every operation against the schema (throws on any mismatch). */
export function loadOperations(schema: GraphQLSchema, manifestPath = MANIFEST_PATH): OperationStore {
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as OperationManifest;
  const byName = new Map<string, PersistedOperation>();
  const byId = new Map<string, PersistedOperation>();
  for (const op of manifest.operations) {
    const document = parse(op.body);
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`operation ${op.name} does not match the schema: ${errors[0].message}`);
    const definition = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
    const fragments = new Map<string, SelectionSetNode>();
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d.selectionSet);
    const first = definition.selectionSet.selections[0];
    const rootField = first.kind === Kind.FIELD ? (first.alias?.value ?? first.name.value) : '';
    const entry = { ...op, document, definition, variables: definition.variableDefinitions ?? [], fragments, rootField };
    byName.set(op.name, entry);
    byId.set(op.id, entry);
  }

  return {
    byName,
    byId,
    async execute(name, variables, ctx) {
      const op = byName.get(name);
      if (!op) throw new Error(`unknown operation ${name}`);
      const coerced = getVariableValues(schema, op.variables, variables);
      const mask = (e: unknown) => maskError(e, ctx.requestId, (err) => ctx.log.error({ err }, 'unexpected error'));
      if (coerced.errors) return { data: null, errors: [validationError(variableIssues(coerced.errors))] };
      const result = await execute({ schema, document: op.document, variableValues: variables, contextValue: ctx });
      return {
        data: (result.data as Record<string, unknown> | null | undefined) ?? null,
        errors: (result.errors ?? []).map(mask),
      };
    },
  };
}
