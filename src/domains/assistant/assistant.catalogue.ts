/**
 * The read operations the assistant may call while answering: a fixed catalogue of persisted
 * GraphQL queries, offered to the model as function tools (name = operation name, parameters =
 * the operation's variables as JSON Schema, description = the operation's leading comment) and run
 * in process with the caller's own context, so the same scope checks apply as for any other door:
 * a scope the credential lacks is an error result handed back to the model, never data.
 *
 * It must never offer a mutation, never run an operation outside the catalogue, and never build
 * a context of its own (the principal is the caller's, never more).
 */
import { readFileSync } from 'node:fs';
import { execute, Kind, parse, validate } from 'graphql';
import type { DocumentNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { errorInfo } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { variablesSchema } from '../../graphql/json-schema.ts';
import type { JsonSchema } from '../../graphql/json-schema.ts';
import { MANIFEST_PATH } from '../../graphql/operation-files.ts';
import type { OperationManifest } from '../../graphql/operation-files.ts';
import { unsafeInputIssues } from '../../platform/input-guards.ts';
import { camelKeys, snakeKeys } from '../../base/wire.ts';

/** The persisted queries the assistant may read the person's data with. */
export const ASSISTANT_READ_OPERATIONS = [
  'me',
  'glucoseReadingPage',
  'glucoseTrends',
  'meals',
  'recentMeals',
  'dailyNutrition',
  'healthMetrics',
  'healthSleep',
  'healthWorkouts',
  'insightScore',
  'scoreDays',
  'insightCards',
] as const;

/** The most characters of one tool result sent to the model (the rest is cut, and it is told). */
export const TOOL_RESULT_MAX_CHARS = 8_000;

/** One catalogue entry: a function tool for the model and the operation it runs. */
export interface ReadTool {
  name: string;
  description: string;
  parameters: JsonSchema;
  document: DocumentNode;
  /** a single `input` variable whose fields are the tool's top-level arguments */
  flattened: boolean;
}

/** What running one tool call gave: the text for the model, and whether data came back. */
export interface ToolRun {
  ok: boolean;
  /** JSON text handed to the model (at most TOOL_RESULT_MAX_CHARS) */
  content: string;
  /** the error code when the call was refused (INSUFFICIENT_SCOPE, VALIDATION_FAILED, ...) */
  error: string | null;
}

const catalogues = new WeakMap<GraphQLSchema, ReadonlyMap<string, ReadTool>>();

/** The catalogue for `schema`, built once per schema (queries in the manifest only). */
export function readTools(schema: GraphQLSchema): ReadonlyMap<string, ReadTool> {
  const built = catalogues.get(schema);
  if (built) return built;
  const manifest = JSON.parse(readFileSync(MANIFEST_PATH, 'utf8')) as OperationManifest;
  const tools = new Map<string, ReadTool>();
  for (const name of ASSISTANT_READ_OPERATIONS) {
    const op = manifest.operations.find((o) => o.name === name);
    if (!op || op.type !== 'query') continue;
    const document = parse(op.body);
    if (validate(schema, document).length) continue;
    const definition = document.definitions.find(
      (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
    )!;
    const variables = definition.variableDefinitions ?? [];
    const flattened = variables.length === 1 && variables[0].variable.name.value === 'input';
    tools.set(name, {
      name,
      description: op.description.slice(0, 1000),
      parameters: variablesSchema(schema, variables, { flatten: 'input', operation: definition }),
      document,
      flattened,
    });
  }
  catalogues.set(schema, tools);
  return tools;
}

function errorRun(code: string, message: string): ToolRun {
  return { ok: false, content: JSON.stringify({ error: { code, message } }), error: code };
}

/** The JSON text of `value`, cut to TOOL_RESULT_MAX_CHARS with a note when longer. */
export function boundedJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text.length <= TOOL_RESULT_MAX_CHARS) return text;
  return JSON.stringify({
    truncated: `The result had ${text.length} characters; only its first ${TOOL_RESULT_MAX_CHARS} are shown. Ask for less (a shorter range or a smaller limit).`,
    partial: text.slice(0, TOOL_RESULT_MAX_CHARS),
  });
}

/**
 * Runs one tool call of the model: the operation with the arguments the model sent (JSON text),
 * in process with the caller's context. NOTE: the caller's principal runs it, so a scope the
 * credential lacks answers INSUFFICIENT_SCOPE here exactly as on every other door.
 */
export async function runReadTool(
  ctx: AuthedContext,
  schema: GraphQLSchema,
  name: string,
  argumentsJson: string,
): Promise<ToolRun> {
  const tool = readTools(schema).get(name);
  if (!tool) return errorRun('NOT_FOUND', `There is no tool named ${name.slice(0, 64)}`);
  let args: unknown;
  try {
    args = argumentsJson.trim() ? JSON.parse(argumentsJson) : {};
  } catch {
    return errorRun('VALIDATION_FAILED', 'The arguments are not valid JSON');
  }
  if (!args || typeof args !== 'object' || Array.isArray(args))
    return errorRun('VALIDATION_FAILED', 'The arguments must be a JSON object');
  if (unsafeInputIssues(args as Record<string, unknown>).length)
    return errorRun('VALIDATION_FAILED', 'The arguments hold text that cannot be used');
  const camel = camelKeys(args) as Record<string, unknown>;
  const variableValues = tool.flattened ? { input: camel } : camel;
  const result = await execute({
    schema,
    document: tool.document,
    variableValues,
    contextValue: ctx,
  });
  if (result.data === undefined && result.errors?.length) {
    return errorRun('VALIDATION_FAILED', result.errors[0].message.slice(0, 500));
  }
  if (result.errors?.length) {
    const error = result.errors[0];
    const { code } = errorInfo(error.extensions?.code);
    if (code === 'INTERNAL') ctx.log.error({ err: error, tool: name }, 'assistant tool failed');
    const message = code === 'INTERNAL' ? 'The read failed' : error.message.slice(0, 500);
    return errorRun(code, message);
  }
  return { ok: true, content: boundedJson(snakeKeys(result.data ?? null)), error: null };
}
