/**
 * JSON Schema (draft 2020-12 subset, also valid draft-07) for the wire side of an operation:
 * its variables (MCP tool inputs, OpenAPI request bodies and parameters) and the shape of its
 * answer (OpenAPI responses, MCP output). Derived once at start from the schema; keys in
 * snake_case like the wire. Built-in scalars map to JSON types; DateTime is a date-time string.
 *
 * Bounds come from where the rules live: the zod validators that plugin-validation keeps on an
 * argument's or an input type's extensions (minimum, maximum, enum, lengths, item counts), and
 * GraphQL's own Int range. An argument's description is its GraphQL description. So the MCP input
 * schemas and the OpenAPI document show the limits the fields enforce, and never a second copy. A
 * zod format (uuid, email, date) is shown as its `format` alone, without the regex that spells it
 * out (every agent reads the MCP listing, issue 30 item 7).
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
  OperationTypeNode,
  TypeInfo,
  typeFromAST,
  valueFromASTUntyped,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type {
  GraphQLArgument,
  GraphQLInputField,
  GraphQLInputType,
  GraphQLOutputType,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  VariableDefinitionNode,
} from 'graphql';
import { z } from 'zod';
import { toSnake } from '../base/wire.ts';

export type JsonSchema = Record<string, unknown>;

/** GraphQL's Int: a signed 32-bit integer (graphql-js refuses anything outside). */
const INT_RANGE = { minimum: -2_147_483_648, maximum: 2_147_483_647 } as const;

/** Where @pothos/plugin-validation keeps the zod schemas of an argument, input field or input type. */
const VALIDATION_EXTENSION = '@pothos/plugin-validation';

/** The zod validators declared on a schema element (an argument, an input field or an input type). */
function validatorsOf(element: { extensions?: unknown }): z.ZodType[] {
  const ext = (
    element.extensions as Record<string, { schemas?: unknown } | undefined> | null | undefined
  )?.[VALIDATION_EXTENSION];
  return Array.isArray(ext?.schemas) ? (ext.schemas as z.ZodType[]) : [];
}

/** A zod schema as JSON Schema (input side); a validator zod cannot express adds nothing. */
function zodJson(validator: z.ZodType): JsonSchema {
  try {
    const { $schema: _dialect, ...json } = z.toJSONSchema(validator, {
      io: 'input',
      unrepresentable: 'any',
    }) as JsonSchema;
    return json;
  } catch {
    return {};
  }
}

/** Keywords copied from a validator onto the derived schema. */
const NUMBER_BOUNDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
] as const;
const OTHER_BOUNDS = [
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
] as const;

/** `X | null` or a union of literals (zod nullish, z.union of z.literal) reduced to one schema. */
function withoutNull(json: JsonSchema): JsonSchema {
  const anyOf = json.anyOf as JsonSchema[] | undefined;
  if (!Array.isArray(anyOf)) return json;
  const rest = anyOf.filter((s) => s.type !== 'null');
  if (rest.length === 1) return withoutNull(rest[0]);
  if (rest.length && rest.every((s) => 'const' in s)) return { enum: rest.map((s) => s.const) };
  return {};
}

function typesOf(schema: JsonSchema): string[] {
  return Array.isArray(schema.type)
    ? (schema.type as string[])
    : typeof schema.type === 'string'
      ? [schema.type]
      : [];
}

/**
 * `target` (derived from the GraphQL type) narrowed by `rule` (a validator's JSON Schema): numeric
 * bounds intersect, lengths, patterns and enums are taken over, objects and arrays recurse. A
 * nullable target keeps null among its enum values.
 */
function narrowed(target: JsonSchema, ruleJson: JsonSchema): JsonSchema {
  const rule = withoutNull(ruleJson);
  if (Array.isArray(target.anyOf)) {
    const [inner, ...others] = target.anyOf as JsonSchema[];
    return { ...target, anyOf: [narrowed(inner, rule), ...others] };
  }
  const types = typesOf(target);
  const out: JsonSchema = { ...target, ...narrowedParts(target, rule, types) };
  Object.assign(out, intersectedNumberBounds(out, rule), takenOverBounds(out, rule));
  const values = enumOf(rule, types);
  if (values) out.enum = values;
  return tidyIntegerBounds(out);
}

/** An object's properties and an array's items, each narrowed by the rule's own. */
function narrowedParts(target: JsonSchema, rule: JsonSchema, types: string[]): JsonSchema {
  const out: JsonSchema = {};
  if (types.includes('object') && rule.properties && target.properties) {
    const properties = { ...(target.properties as Record<string, JsonSchema>) };
    for (const [key, sub] of Object.entries(rule.properties as Record<string, JsonSchema>)) {
      const wire = toSnake(key);
      if (properties[wire]) properties[wire] = narrowed(properties[wire], sub);
    }
    out.properties = properties;
  }
  if (types.includes('array') && target.items && rule.items && !Array.isArray(rule.items)) {
    out.items = narrowed(target.items as JsonSchema, rule.items as JsonSchema);
  }
  return out;
}

/** Numeric bounds: the tighter of the two (a rule's `multipleOf` wins). */
function intersectedNumberBounds(current: JsonSchema, rule: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const key of NUMBER_BOUNDS) {
    const value = rule[key];
    if (typeof value !== 'number') continue;
    const had = current[key];
    const lower = key === 'minimum' || key === 'exclusiveMinimum';
    out[key] =
      typeof had !== 'number' || key === 'multipleOf'
        ? value
        : lower
          ? Math.max(had, value)
          : Math.min(had, value);
  }
  return out;
}

/** Lengths, patterns and formats the target does not state yet, from the rule. */
function takenOverBounds(current: JsonSchema, rule: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const key of OTHER_BOUNDS) {
    // NOTE: a zod format (uuid, email, date, base64, ...) comes with the long regex that spells it
    // out; the format says it in a word, so the regex is left out (hundreds of characters an agent
    // reads in every tool listing, issue 30 item 7). The validator still checks it.
    if (key === 'pattern' && typeof rule.format === 'string') continue;
    if (rule[key] !== undefined && current[key] === undefined) out[key] = rule[key];
  }
  return out;
}

/** The rule's enum (or const) as the target's, keeping null for a nullable target. */
function enumOf(rule: JsonSchema, types: string[]): unknown[] | undefined {
  const nullable = types.includes('null');
  if (Array.isArray(rule.enum)) {
    const values = (rule.enum as unknown[]).filter((v) => v !== null);
    return nullable ? [...values, null] : values;
  }
  if ('const' in rule) return nullable ? [rule.const, null] : [rule.const];
  return undefined;
}

/** Integers: an exclusive bound as the inclusive one (`> 0` is `>= 1`), and within GraphQL's Int. */
function tidyIntegerBounds(schema: JsonSchema): JsonSchema {
  if (!typesOf(schema).includes('integer')) return schema;
  const out = { ...schema };
  if (typeof out.exclusiveMinimum === 'number') {
    out.minimum = Math.max(
      Math.floor(out.exclusiveMinimum) + 1,
      (out.minimum as number | undefined) ?? -Infinity,
    );
    delete out.exclusiveMinimum;
  }
  if (typeof out.exclusiveMaximum === 'number') {
    out.maximum = Math.min(
      Math.ceil(out.exclusiveMaximum) - 1,
      (out.maximum as number | undefined) ?? Infinity,
    );
    delete out.exclusiveMaximum;
  }
  out.minimum = Math.max(
    (out.minimum as number | undefined) ?? INT_RANGE.minimum,
    INT_RANGE.minimum,
  );
  out.maximum = Math.min(
    (out.maximum as number | undefined) ?? INT_RANGE.maximum,
    INT_RANGE.maximum,
  );
  return out;
}

/** An integer variable (or a list of them) bounded by GraphQL's Int range at least. */
function withIntRange(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema.anyOf)) {
    const [inner, ...others] = schema.anyOf as JsonSchema[];
    return { ...schema, anyOf: [withIntRange(inner), ...others] };
  }
  if (typesOf(schema).includes('array') && schema.items)
    return { ...schema, items: withIntRange(schema.items as JsonSchema) };
  return tidyIntegerBounds(schema);
}

/** `schema` narrowed by every validator declared on `element` (an argument, input field or input type). */
function withValidators(schema: JsonSchema, element: { extensions?: unknown }): JsonSchema {
  return validatorsOf(element).reduce((s, v) => narrowed(s, zodJson(v)), schema);
}

function scalarSchema(type: GraphQLScalarType): JsonSchema {
  switch (type.name) {
    case 'Int':
      return { type: 'integer' };
    case 'Float':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'DateTime':
      // RFC 3339's date-time has an offset; the note says what leaving it out means (issue 30)
      return { type: 'string', format: 'date-time', description: DATE_TIME_NOTE };
    case 'File':
      return {
        type: 'string',
        format: 'binary',
        description: 'a file part of a multipart/form-data body',
      };
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
  // an enum lists null too, or a nullable enum would refuse the null its type allows
  const values = Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {};
  if (typeof t === 'string') return { ...schema, type: [t, 'null'], ...values };
  return { anyOf: [schema, { type: 'null' }] };
}

/** What every date-time argument says of itself, after its own description. */
export const DATE_TIME_NOTE = "no offset: the person's local time";

/** `schema` described by `description`, keeping a date-time's note after it. */
function withDescription(schema: JsonSchema, description?: string | null): JsonSchema {
  if (!description) return schema;
  const note = schema.description === DATE_TIME_NOTE ? ` (${DATE_TIME_NOTE})` : '';
  return { ...schema, description: `${description}${note}` };
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
  if (type instanceof GraphQLEnumType)
    return { type: 'string', enum: type.getValues().map((v) => v.name) };
  const input = type;
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of Object.values(input.getFields())) {
    properties[toSnake(field.name)] = withDescription(inputFieldSchema(field), field.description);
    if (isNonNullType(field.type) && field.defaultValue === undefined)
      required.push(toSnake(field.name));
  }
  const object = {
    type: 'object',
    properties,
    ...(required.length && { required }),
    additionalProperties: false,
  };
  return withDescription(withValidators(object, input), input.description);
}

function inputFieldSchema(field: GraphQLInputField): JsonSchema {
  return withValidators(inputTypeSchema(field.type), field);
}

/**
 * The arguments each variable of an operation feeds (`glucoseReadings(limit: $limit)` -> the
 * `limit` argument), or the input fields (`{ name: $name }`), with their validators and descriptions.
 */
function variableUses(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
): Map<string, (GraphQLArgument | GraphQLInputField)[]> {
  const uses = new Map<string, (GraphQLArgument | GraphQLInputField)[]>();
  const typeInfo = new TypeInfo(schema);
  visit(
    operation,
    visitWithTypeInfo(typeInfo, {
      Variable(node, _key, parent) {
        let target: GraphQLArgument | GraphQLInputField | null | undefined = null;
        if (parent && 'kind' in parent && parent.kind === Kind.ARGUMENT)
          target = typeInfo.getArgument();
        else if (parent && 'kind' in parent && parent.kind === Kind.OBJECT_FIELD) {
          const owner = getNamedType(typeInfo.getParentInputType() ?? undefined);
          target =
            owner instanceof GraphQLInputObjectType ? owner.getFields()[parent.name.value] : null;
        }
        if (target) uses.set(node.name.value, [...(uses.get(node.name.value) ?? []), target]);
      },
    }),
  );
  return uses;
}

/**
 * The JSON Schema of one variable of `operation`: its GraphQL type narrowed by the validators of
 * every argument (or input field) it feeds, with that argument's description and the variable's
 * default. The OpenAPI document's parameters and the MCP tool arguments both come from here.
 */
export function variableSchema(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode | undefined,
  variable: VariableDefinitionNode,
  options: { required?: boolean } = {},
): JsonSchema {
  const type = typeFromAST(schema, variable.type) as GraphQLInputType;
  const uses = operation
    ? (variableUses(schema, operation).get(variable.variable.name.value) ?? [])
    : [];
  let out = options.required ? requiredInput(type) : inputTypeSchema(type);
  for (const use of uses) out = withValidators(out, use);
  out = withIntRange(out);
  const description = uses.find((u) => u.description)?.description;
  if (description && (!out.description || out.description === DATE_TIME_NOTE))
    out = withDescription(out, description);
  if (variable.defaultValue) out = { ...out, default: valueFromASTUntyped(variable.defaultValue) };
  return out;
}

export interface VariablesSchemaOptions {
  /** a single input-object variable with this name is replaced by its fields (MCP arguments) */
  flatten?: string;
  /** the operation declaring the variables: their arguments' validators and descriptions apply */
  operation?: OperationDefinitionNode;
}

/** An object schema with one property per operation variable (snake_case names). */
export function variablesSchema(
  schema: GraphQLSchema,
  variables: readonly VariableDefinitionNode[],
  options: VariablesSchemaOptions = {},
): JsonSchema {
  if (
    options.flatten &&
    variables.length === 1 &&
    variables[0].variable.name.value === options.flatten
  ) {
    return variableSchema(schema, options.operation, variables[0], { required: true });
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const v of variables) {
    const name = toSnake(v.variable.name.value);
    properties[name] = variableSchema(schema, options.operation, v);
    if (v.type.kind === Kind.NON_NULL_TYPE && !v.defaultValue) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length && { required }),
    additionalProperties: false,
  };
}

function selectionSchema(
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  fragments: Map<string, SelectionSetNode>,
): JsonSchema {
  if (isNonNullType(type)) return requiredOutput(type.ofType, selectionSet, fragments);
  return nullable(requiredOutput(type, selectionSet, fragments));
}

function requiredOutput(
  type: GraphQLOutputType,
  selectionSet: SelectionSetNode | undefined,
  fragments: Map<string, SelectionSetNode>,
): JsonSchema {
  if (isNonNullType(type)) return requiredOutput(type.ofType, selectionSet, fragments);
  if (isListType(type))
    return { type: 'array', items: selectionSchema(type.ofType, selectionSet, fragments) };
  const named = getNamedType(type);
  if (named instanceof GraphQLScalarType) return scalarSchema(named);
  if (named instanceof GraphQLEnumType)
    return { type: 'string', enum: named.getValues().map((v) => v.name) };
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
        properties[key] = withDescription(
          selectionSchema(field.type, sel.selectionSet, fragments),
          field.description,
        );
      }
    }
  };
  visit(selectionSet);
  return { type: 'object', properties, required: Object.keys(properties) };
}

/** The schema of `data[rootField]` for an operation, following its selection set and fragments. */
export function resultSchema(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Map<string, SelectionSetNode>,
  rootField: string,
): JsonSchema {
  const root =
    operation.operation === OperationTypeNode.MUTATION
      ? schema.getMutationType()
      : schema.getQueryType();
  const sel = operation.selectionSet.selections.find(
    (s) => s.kind === Kind.FIELD && (s.alias?.value ?? s.name.value) === rootField,
  );
  if (!root || !sel || sel.kind !== Kind.FIELD)
    throw new Error(`no root field ${rootField} in ${operation.name?.value}`);
  const field = root.getFields()[sel.name.value];
  return selectionSchema(field.type, sel.selectionSet, fragments);
}
