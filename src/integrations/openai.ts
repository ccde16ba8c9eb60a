/**
 * Model access (issue 14): the openai SDK client the AI features (meal recognition, names, insights,
 * the assistant) call, built from config alone. Without OPENAI_API_KEY there is no client and the AI
 * features are off; the rest of the platform runs. OPENAI_BASE_URL points it at any
 * OpenAI-compatible API (in tests, the suite's own server: test/fakes/openai.ts).
 *
 * It must never read process.env itself (config.ts is the only reader, so every SDK setting that
 * would fall back to an environment variable is given explicitly), and the SDK never retries on its
 * own: retries, caps and budgets are the caller's decision (`maxRetries: 0`).
 */
import OpenAI from 'openai';
import type { Config } from '../config.ts';

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
): ModelClient | null {
  if (!config.OPENAI_API_KEY) return null;
  return new OpenAI({
    apiKey: config.OPENAI_API_KEY,
    baseURL: config.OPENAI_BASE_URL ?? DEFAULT_BASE_URL,
    timeout: config.OPENAI_TIMEOUT_MS,
    maxRetries: 0,
    // NOTE: explicit nulls, or the SDK would read OPENAI_ORG_ID and friends from process.env.
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
  });
}
