/**
 * JSON Schema (draft 2020-12 subset, also valid draft-07) for the wire side of an operation:
 * its variables (MCP tool inputs, OpenAPI request bodies and parameters) and the shape of its
 * answer (OpenAPI responses, MCP output). Derived once at start from the schema; keys in
 * snake_case like the wire. Built-in scalars map to JSON types; DateTime is a date-time string.
 */
import {
  getNamedType,
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  typeFromAST,
  valueFromASTUntyped,
} from 'graphql';
import type {
  GraphQLInputType,
  GraphQLOutputType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  VariableDefinitionNode,
} from 'graphql';
import { toSnake } from '../wire.ts';

export type JsonSchema = Record<string, unknown>;

function scalarSchema(type: GraphQLScalarType): JsonSchema {
  switch (type.name) {
    case 'Int':
      return { type: 'integer' };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'DateTime':
      return { type: 'string', format: 'date-time' };
    case 'File':
      return { type: 'string', format: 'binary', description: 'a file part of a multipart/form-data body' };
    case 'JSON':
      return { description: 'any JSON value' };
    case 'String':
    case 'ID':
      return { type: 'string' };
    default:
      return {};
  }
}

function nullable(schema: JsonSchema): JsonSchema {
  const t = schema.type;
  if (typeof t === 'string') return { ...schema, type: [t, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

function withDescription(schema: JsonSchema, description?: string | null): JsonSchema {
  return description ? { ...schema, description } : schema;
}

/** JSON Schema of a GraphQL input type; keys snake_case. */
export function inputTypeSchema(type: GraphQLInputType): JsonSchema {
  if (type instanceof GraphQLNonNull) return requiredInput(type.ofType);
  return nullable(requiredInput(type));
}

function requiredInput(type: GraphQLInputType): JsonSchema {
  if (type instanceof GraphQLNonNull) return requiredInput(type.ofType);
  if (type instanceof GraphQLList) return { type: 'array', items: inputTypeSchema(type.ofType) };
  if (type instanceof GraphQLScalarType) return scalarSchema(type);
  if (type instanceof GraphQLEnumType) return { type: 'string', enum: type.getValues().map((v) => v.name) };
  const input = type as GraphQLInputObjectType;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of Object.values(input.getFields())) {
    properties[toSnake(field.name)] = withDescription(inputTypeSchema(field.type), field.description);
    if (isNonNullType(field.type) && field.defaultValue === undefined) required.push(toSnake(field.name));
  }
  return withDescription(
    { type: 'object', properties, ...(required.length && { required }), additionalProperties: false },
    input.description,
  );
}

export interface VariablesSchemaOptions {
  /** a single input-object variable with this name is replaced by its fields (MCP arguments) */
  flatten?: string;
}

/** An object schema with one property per operation variable (snake_case names). */
export function variablesSchema(
  schema: GraphQLSchema,
  variables: readonly VariableDefinitionNode[],
  options: VariablesSchemaOptions = {},
): JsonSchema {
  if (options.flatten && variables.length === 1 && variables[0].variable.name.value === options.flatten) {
    const type = typeFromAST(schema, variables[0].type) as GraphQLInputType;
    return requiredInput(type);
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const v of variables) {
    const type = typeFromAST(schema, v.type) as GraphQLInputType;
    const name = toSnake(v.variable.name.value);
    properties[name] = inputTypeSchema(type);
    if (v.defaultValue) properties[name] = { ...properties[name], default: valueFromASTUntyped(v.defaultValue) };
    if (v.type.kind === Kind.NON_NULL_TYPE && !v.defaultValue) required.push(name);
  }
  return { type: 'object', properties, ...(required.length && { required }), additionalProperties: false };
}

function selectionSchema(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, fragments: Map<string, SelectionSetNode>): JsonSchema {
  if (isNonNullType(type)) return requiredOutput(type.ofType, selectionSet, fragments);
  return nullable(requiredOutput(type, selectionSet, fragments));
}

function requiredOutput(type: GraphQLOutputType, selectionSet: SelectionSetNode | undefined, fragments: Map<string, SelectionSetNode>): JsonSchema {
  if (isNonNullType(type)) return requiredOutput(type.ofType, selectionSet, fragments);
  if (isListType(type)) return { type: 'array', items: selectionSchema(type.ofType, selectionSet, fragments) };
  const named = getNamedType(type);
  if (named instanceof GraphQLScalarType) return scalarSchema(named);
  if (named instanceof GraphQLEnumType) return { type: 'string', enum: named.getValues().map((v) => v.name) };
  if (!isObjectType(named) && !isInterfaceType(named)) return {};
  const fields = (named as GraphQLObjectType).getFields();
  const properties: Record<string, JsonSchema> = {};
  const visit = (set: SelectionSetNode | undefined) => {
    for (const sel of set?.selections ?? []) {
      if (sel.kind === Kind.FRAGMENT_SPREAD) visit(fragments.get(sel.name.value));
      else if (sel.kind === Kind.INLINE_FRAGMENT) visit(sel.selectionSet);
      else if (sel.name.value !== '__typename') {
        const field = fields[sel.name.value];
        const key = toSnake(sel.alias?.value ?? sel.name.value);
        properties[key] = withDescription(selectionSchema(field.type, sel.selectionSet, fragments), field.description);
      }
    }
  };
  visit(selectionSet);
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** The schema of `data[rootField]` for an operation, following its selection set and fragments. */
export function resultSchema(schema: GraphQLSchema, operation: OperationDefinitionNode, fragments: Map<string, SelectionSetNode>, rootField: string): JsonSchema {
  const root = operation.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  const sel = operation.selectionSet.selections.find((s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === rootField);
  if (!root || !sel || sel.kind !== Kind.FIELD) throw new Error(`no root field ${rootField} in ${operation.name?.value}`);
  const field = root.getFields()[sel.name.value];
  return selectionSchema(field.type, sel.selectionSet, fragments);
}
