/**
 * Model access (issue 14): the openai SDK client the AI features (meal recognition, names, insights,
 * the assistant) call, built from config alone. Without OPENAI_API_KEY there is no client and the AI
 * features are off; the rest of the platform runs. OPENAI_BASE_URL points it at any
 * OpenAI-compatible API (in tests, the suite's own server: test/fakes/openai.ts).
 *
 * It must never read process.env itself (config.ts is the only reader, so every SDK setting that
 * would fall back to an environment variable is given explicitly), and the SDK never retries on its
 * own: retries, caps and budgets are the caller's decision (`maxRetries: 0`). Every completion is
 * checked for the fields the features read (`createCompletion`, `checkedCompletion`): an answer
 * that is not JSON or lacks them is a 502, never a 500 (issue 29).
 */
import OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions';
import { z } from 'zod';
import type { Config } from '../base/config.ts';
import type { Logger } from '../base/logger.ts';
import { checkedAnswer, upstreamError } from './upstream.ts';

/** The client the AI features call (the SDK's own class). */
export type ModelClient = OpenAI;

/** The SDK's default base URL, given explicitly so the SDK does not read OPENAI_BASE_URL itself. */
const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/**
 * The OpenAI SDK client for the configured key, base URL and timeout, with no SDK retries; null
 * when OPENAI_API_KEY is unset (AI off).
 */
export function createModelClient(
  config: Pick<Config, 'OPENAI_API_KEY' | 'OPENAI_BASE_URL' | 'OPENAI_TIMEOUT_MS'>,
  log?: Logger,
): ModelClient | null {
  if (!config.OPENAI_API_KEY) return null;
  return new OpenAI({
    apiKey: config.OPENAI_API_KEY,
    baseURL: config.OPENAI_BASE_URL ?? DEFAULT_BASE_URL,
    timeout: config.OPENAI_TIMEOUT_MS,
    maxRetries: 0,
    // the SDK's own warnings (a stream chunk that is not JSON) go to our log, not the console
    ...(log && { logger: log, logLevel: 'warn' as const }),
    // NOTE: explicit nulls, or the SDK would read OPENAI_ORG_ID and friends from process.env.
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
  });
}

/** Who answers, as the 502's message names it. */
const SERVICE = 'the AI model';
const WHAT = 'complete the chat';

/** The fields of a chat completion the AI features read (extra fields are fine). */
const COMPLETION = z.object({
  choices: z.array(
    z.object({
      message: z.object({
        content: z.string().nullish(),
        tool_calls: z
          .array(
            z.union([
              z.object({
                id: z.string(),
                type: z.literal('function'),
                function: z.object({ name: z.string(), arguments: z.string() }),
              }),
              z.object({ type: z.string().refine((t) => t !== 'function') }),
            ]),
          )
          .nullish(),
      }),
    }),
  ),
  usage: z
    .object({ prompt_tokens: z.number().optional(), completion_tokens: z.number().optional() })
    .nullish(),
});

/** `completion` when it has the fields the features read, else a 502 (UPSTREAM_FAILED). */
export function checkedCompletion(completion: ChatCompletion, log?: Logger): ChatCompletion {
  return checkedAnswer(completion, COMPLETION, { service: SERVICE, what: WHAT, log });
}

/**
 * One chat completion (not streamed), checked: a body that is not JSON (the SDK's parse fails)
 * or lacks the fields the features read is a 502; the SDK's own errors pass through as they are.
 */
export async function createCompletion(
  client: ModelClient,
  body: ChatCompletionCreateParamsNonStreaming,
  log?: Logger,
): Promise<ChatCompletion> {
  let completion: ChatCompletion;
  try {
    completion = await client.chat.completions.create(body);
  } catch (error) {
    // NOTE: the SDK parses a JSON content type with response.json(): its SyntaxError is the answer's fault
    if (error instanceof SyntaxError) throw upstreamError(SERVICE, WHAT);
    throw error;
  }
  return checkedCompletion(completion, log);
}
