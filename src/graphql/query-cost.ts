/**
 * The cost limit of a GraphQL operation sent to POST /graphql (issue 30, item 9): what bounds a
 * document is what its answer can hold, not a small page size. Just before an operation executes,
 * with its variables known, its cost is counted and an operation over GRAPHQL_MAX_COST is refused
 * (BAD_REQUEST, `document_too_complex`, as the other document limits: src/graphql/document-limits.ts)
 * before any resolver runs.
 *
 * The cost is the most objects the answer can hold:
 * - an object costs 1 plus the cost of its selection; scalars, enums and lists of them cost 0;
 * - a list of objects costs its size times the cost of one element. Its size is the field's page
 *   size: `first` or `last`, else `limit`, from a literal, a variable or the argument's default.
 *   A connection (a field with a page size whose type is an object) hands its size to the lists
 *   right below it (`nodes`, `edges`, `items`); any other list counts as LIST_SIZE objects;
 * - fragments count as if written out, every branch of an abstract type counts, `@skip`/`@include`
 *   are ignored (an upper bound), and introspection (`__schema`, `__type`, `__typename`) is free.
 * So `me { glucoseReadings(first: $n) { nodes { timestamp valueMgDl } pageInfo { endCursor } } }`
 * costs 3 + n: a week of 5-minute readings (n = 2,016) is about 2,000 of the 20,000.
 *
 * Persisted operations are not counted: they are this server's own documents (REST and MCP run
 * them in process, src/schema/operations.ts; the web app sends them by id), each of their
 * arguments is bounded by the schema, and some read more than an arbitrary document may (a REST
 * export of 50,000 readings). The rule is for the documents a client writes.
 *
 * It must never run a resolver or read the database; its cost is one walk of the operation's
 * selections per request.
 */
import {
  getNamedType,
  getNullableType,
  GraphQLError,
  GraphQLInt,
  isCompositeType,
  isInterfaceType,
  isListType,
  isObjectType,
  Kind,
  valueFromASTUntyped,
} from 'graphql';
import type {
  DocumentNode,
  ExecutionArgs,
  FragmentDefinitionNode,
  GraphQLArgument,
  GraphQLCompositeType,
  GraphQLField,
  GraphQLSchema,
  OperationDefinitionNode,
  SelectionSetNode,
  ValueNode,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Context } from './context.ts';
import { documentTooComplex } from './document-limits.ts';

/** The objects a list without a page size is taken to hold (a meal's items, a trend's hours). */
export const LIST_SIZE = 10;

/** The largest GraphQL Int: a larger page size fails coercion anyway. */
const INT_MAX = 2 ** 31 - 1;

/** The arguments that size a list, the first present wins. */
const PAGE_SIZE_ARGS = ['first', 'last', 'limit'] as const;

interface Walk {
  schema: GraphQLSchema;
  fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** the variables as sent, and the operation's defaults for those left out */
  variables: Readonly<Record<string, unknown>>;
  /**
   * the cost of each fragment, by name and the page size handed to it: a fragment spread many
   * times over (a few hundred tokens can nest spreads into billions of paths) is walked once
   */
  fragmentCosts: Map<string, number>;
}

/** The value of an argument as given (a literal or a variable), or undefined when it is absent. */
function givenValue(node: ValueNode, walk: Walk): unknown {
  if (node.kind === Kind.VARIABLE) return walk.variables[node.name.value];
  return valueFromASTUntyped(node, walk.variables);
}

/** The page size of a field as this request asks it, or null for a field without one. */
function pageSizeOf(
  field: GraphQLField<unknown, unknown>,
  args: readonly { name: { value: string }; value: ValueNode }[],
  walk: Walk,
): number | null {
  for (const name of PAGE_SIZE_ARGS) {
    const declared: GraphQLArgument | undefined = field.args.find((a) => a.name === name);
    if (!declared || getNamedType(declared.type) !== GraphQLInt) continue;
    const node = args.find((a) => a.name.value === name);
    const given = node ? givenValue(node.value, walk) : undefined;
    const value = given ?? declared.defaultValue;
    // a value that is not a whole number fails the argument's own validation: count it as one
    if (typeof value !== 'number' || !Number.isFinite(value)) return 1;
    return Math.min(Math.max(0, Math.floor(value)), INT_MAX);
  }
  return null;
}

/**
 * The cost of a selection on `parent`; `size` is the page size of the connection this selection
 * belongs to, handed to its lists.
 */
function selectionCost(
  selectionSet: SelectionSetNode,
  parent: GraphQLCompositeType,
  size: number | null,
  walk: Walk,
): number {
  let total = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const on = selection.typeCondition
        ? walk.schema.getType(selection.typeCondition.name.value)
        : parent;
      if (on && isCompositeType(on)) total += selectionCost(selection.selectionSet, on, size, walk);
      continue;
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      total += fragmentCost(selection.name.value, size, walk);
      continue;
    }
    const name = selection.name.value;
    if (name.startsWith('__')) continue; // introspection and __typename are free
    if (!isObjectType(parent) && !isInterfaceType(parent)) continue;
    const field = parent.getFields()[name];
    if (!field || !selection.selectionSet) continue; // scalars and enums cost nothing
    const type = getNamedType(field.type);
    if (!isCompositeType(type)) continue;
    const own = pageSizeOf(field, selection.arguments ?? [], walk);
    const isList = isListType(getNullableType(field.type));
    // a list takes its own page size, else its connection's; a connection hands its size down
    const each = 1 + selectionCost(selection.selectionSet, type, isList ? null : own, walk);
    total += isList ? (own ?? size ?? LIST_SIZE) * each : each;
  }
  return total;
}

/** The cost of the fragment `name` where a connection hands it `size` (once per name and size). */
function fragmentCost(name: string, size: number | null, walk: Walk): number {
  const key = `${name}:${size ?? ''}`;
  let cost = walk.fragmentCosts.get(key);
  if (cost === undefined) {
    const fragment = walk.fragments.get(name);
    const on = fragment && walk.schema.getType(fragment.typeCondition.name.value);
    // validation refused fragment cycles before execution; 0 stands in while one is walked
    walk.fragmentCosts.set(key, 0);
    cost =
      fragment && on && isCompositeType(on)
        ? selectionCost(fragment.selectionSet, on, size, walk)
        : 0;
    walk.fragmentCosts.set(key, cost);
  }
  return cost;
}

/** The variables of `operation`: as sent, with the operation's own defaults for those left out. */
function variablesOf(
  operation: OperationDefinitionNode,
  sent: Readonly<Record<string, unknown>> | null | undefined,
): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (sent && Object.hasOwn(sent, name) && sent[name] !== undefined) values[name] = sent[name];
    else if (definition.defaultValue) values[name] = valueFromASTUntyped(definition.defaultValue);
  }
  return values;
}

/**
 * The cost of the operation `operationName` of a (validated) document with these variables; 0 when
 * the document names no such operation (execution then refuses it).
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables?: Readonly<Record<string, unknown>> | null,
): number {
  const operations = document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const operation = operationName
    ? operations.find((o) => o.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return 0;
  const fragments = new Map(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((f) => [f.name.value, f]),
  );
  const walk: Walk = {
    schema,
    fragments,
    variables: variablesOf(operation, variables),
    fragmentCosts: new Map(),
  };
  return selectionCost(operation.selectionSet, root, null, walk);
}

/** The refusal of an operation costing `cost`, over `max`. */
export function tooCostly(cost: number, max: number): GraphQLError {
  const n = (x: number) => x.toLocaleString('en-US');
  return documentTooComplex(
    'cost',
    `its cost is ${n(cost)}, over the limit of ${n(max)} (objects it can answer: each list counts ` +
      'its page size times the cost of one element; ask smaller pages or fewer lists)',
    { cost, max },
  );
}

export interface QueryCostOptions {
  /** GRAPHQL_MAX_COST: the most an operation may cost */
  maxCost: number;
  /** whether a document is one of the persisted operations (those are not counted) */
  isPersisted: (document: DocumentNode) => boolean;
}

/** The yoga plugin: an operation over the limit is answered with its refusal and never executes. */
export function useQueryCost(options: QueryCostOptions): Plugin<Context> {
  return {
    onExecute: ({ args, setResultAndStopExecution }) => {
      const { schema, document, operationName, variableValues } = args as ExecutionArgs;
      if (options.isPersisted(document)) return;
      const cost = operationCost(schema, document, operationName, variableValues);
      if (cost > options.maxCost)
        setResultAndStopExecution({ errors: [tooCostly(cost, options.maxCost)] });
    },
  };
}
