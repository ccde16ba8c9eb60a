/**
 * A fake OpenAI API: a real HTTP server on 127.0.0.1 speaking Chat Completions
 * (`POST /v1/chat/completions`, also without `/v1`) for the real openai SDK, so tests and
 * benchmarks never call a model and never mock the SDK (issue 14). It accepts text and `image_url`
 * message parts, `response_format` (`json_schema` and `json_object`) and `stream: true` (server-sent
 * chunks ending with `data: [DONE]`).
 *
 * Deterministic: each request takes the next queued answer (`reply`, `fail`, `malformed`,
 * `answerRaw`), else the default answer; `delay` holds the next answer back. Usage is computed, never random: prompt
 * tokens are ceil(characters of text parts / 4) plus 85 per image, completion tokens
 * ceil(characters of the answer / 4); a stream ends with a usage chunk (`choices: []`). Every
 * request is recorded (`requests`) with its parsed body and headers. Closed after the test file.
 *
 * Tool calls: a request may offer `tools` (function tools) and carry `assistant` messages with
 * `tool_calls` and `tool` messages answering them; `replyToolCalls` queues an answer calling
 * functions (`finish_reason: tool_calls`, streamed as `tool_calls` deltas with `stream: true`).
 */
import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import { startHttpFake } from './http-fake.ts';

/** Tokens an image part counts for (the API's low-detail figure). */
export const FAKE_IMAGE_TOKENS = 85;

/** One request the fake received. */
export interface FakeOpenAIRequest {
  method: string;
  /** path as requested, like `/v1/chat/completions` */
  path: string;
  headers: IncomingHttpHeaders;
  /** the parsed JSON body (undefined when it was not JSON) */
  body: ChatCompletionRequestBody | undefined;
  /** performance.now() when the request arrived, and when its answer was sent: the model's own time */
  receivedAt: number;
  answeredAt?: number;
}

/** The parts of a Chat Completions request body the fake reads; the rest is kept as sent. */
export interface ChatCompletionRequestBody {
  model?: string;
  messages?: {
    role: string;
    content: string | ContentPart[] | null;
    tool_call_id?: string;
    tool_calls?: FakeToolCall[];
  }[];
  tools?: {
    type: string;
    function?: { name?: string; description?: string; parameters?: unknown };
  }[];
  response_format?: {
    type: string;
    json_schema?: { name?: string; schema?: unknown; strict?: boolean };
  };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  [key: string]: unknown;
}

/** One message content part. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string; detail?: string } }
  | { type: string; [key: string]: unknown };

/** A function call in an assistant message (as the API sends and receives it). */
export interface FakeToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

type Answer =
  | { kind: 'content'; content: string }
  | { kind: 'tools'; calls: FakeToolCall[] }
  | { kind: 'fail'; status: number; body: unknown }
  | { kind: 'malformed' }
  | { kind: 'raw'; body: string; contentType: string };

export interface FakeOpenAI {
  /** base URL for the SDK (OPENAI_BASE_URL), http://127.0.0.1:<port>/v1 */
  url: string;
  /** every request received, oldest first */
  requests: FakeOpenAIRequest[];
  /** Queues the next answer's message content (an object is sent JSON-stringified). */
  reply(content: string | object): void;
  /** Sets the answer given when nothing is queued. */
  setDefault(content: string | object): void;
  /**
   * Queues an answer calling functions: each `{ name, arguments }` (an object is sent
   * JSON-stringified), with ids call_1, call_2, ... counted over the fake's life.
   */
  replyToolCalls(calls: { name: string; arguments?: string | object }[]): void;
  /** The names of the function tools one recorded request offered. */
  toolsOf(request: FakeOpenAIRequest): string[];
  /** The `tool` messages (results handed back to the model) of one recorded request, in order. */
  toolResultsOf(request: FakeOpenAIRequest): { toolCallId: string; content: string }[];
  /** Queues an error answer: this status with `body`, default an OpenAI error object. */
  fail(status: number, body?: unknown): void;
  /** Queues an answer whose message content is not JSON (a truncated object). */
  malformed(): void;
  /**
   * Queues an answer that breaks the protocol: this raw body, status 200, with a JSON content type
   * unless given (`{}`, text that is not JSON, a stream of chunks without `choices`).
   */
  answerRaw(body: string, contentType?: string): void;
  /** Holds the next answer back this long, in ms (a client timeout aborts it). */
  delay(ms: number): void;
  /** Image URLs (data: or http) in one recorded request's messages, in order. */
  imagesOf(request: FakeOpenAIRequest): string[];
  /** Forgets queued answers, a pending delay and recorded requests; restores the default answer. */
  reset(): void;
  close(): Promise<void>;
}

export interface StartFakeOpenAIOptions {
  /** answer given when nothing is queued (default `'OK'`) */
  defaultAnswer?: string | object;
  /**
   * When nothing is queued and the request asks for a `json_schema` answer, answer the smallest
   * value that fits that schema (sampleOf) instead of the default: a server every AI feature can
   * call with any input (the fuzz test)
   */
  answerFromSchema?: boolean;
}

/** Strings tried, in order, for a string schema with a `pattern`. */
const PATTERN_SAMPLES = ['🍽️', 'a', '1', 'a@example.com'];

/**
 * The smallest value that fits a JSON schema as the SDK's zod helper writes them: objects with
 * every required property, arrays of `minItems` samples, the first enum value, the shortest
 * string (matching `pattern` from PATTERN_SAMPLES), numbers at their minimum.
 */
export function sampleOf(schema: unknown): unknown {
  const s = (schema ?? {}) as Record<string, any>;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length) return s.enum[0];
  const alternatives = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (alternatives?.length) return sampleOf(alternatives[0]);
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        ((s.required ?? []) as string[]).map((k) => [k, sampleOf(s.properties?.[k])]),
      );
    case 'array':
      return Array.from({ length: s.minItems ?? 0 }, () => sampleOf(s.items));
    case 'string': {
      if (s.pattern) {
        const re = new RegExp(s.pattern as string, 'u');
        return PATTERN_SAMPLES.find((c) => re.test(c)) ?? 'a';
      }
      return 'a'.repeat(Math.max(1, (s.minLength as number | undefined) ?? 0));
    }
    case 'integer':
    case 'number':
      return s.minimum ?? (s.exclusiveMinimum !== undefined ? s.exclusiveMinimum + 1 : 0);
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** Content the fake sends for `malformed()`: not JSON. */
export const MALFORMED_CONTENT = '{"items": [{"name": "rice", "grams": 1';

const asContent = (content: string | object): string =>
  typeof content === 'string' ? content : JSON.stringify(content);

const tokens = (chars: number): number => Math.ceil(chars / 4);

function partsOf(body: ChatCompletionRequestBody): ContentPart[] {
  return (body.messages ?? []).flatMap((m): ContentPart[] =>
    typeof m.content === 'string'
      ? [{ type: 'text', text: m.content }]
      : Array.isArray(m.content)
        ? m.content
        : [],
  );
}

function promptTokens(body: ChatCompletionRequestBody): number {
  let chars = 0;
  let images = 0;
  for (const part of partsOf(body)) {
    if (part.type === 'text' && typeof part.text === 'string') chars += part.text.length;
    if (part.type === 'image_url') images += 1;
  }
  return tokens(chars) + images * FAKE_IMAGE_TOKENS;
}

/** Why a body is not a Chat Completions request the API would accept; null when it is. */
function invalid(body: ChatCompletionRequestBody | undefined): string | null {
  if (!body || typeof body !== 'object') return 'body must be a JSON object';
  if (typeof body.model !== 'string' || !body.model) return 'model is required';
  if (!Array.isArray(body.messages) || !body.messages.length) return 'messages must be non-empty';
  for (const part of partsOf(body)) {
    if (part.type === 'text' && typeof part.text !== 'string') return 'text part without text';
    if (part.type === 'image_url') {
      const image = part.image_url as { url?: unknown } | undefined;
      if (typeof image?.url !== 'string' || !/^(data:image\/|https?:\/\/)/.test(image.url))
        return 'image_url.url must be a data:image/ or http(s) URL';
    } else if (part.type !== 'text') return `unsupported content part type ${part.type}`;
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return 'tools must be an array';
    for (const tool of body.tools) {
      if (tool?.type !== 'function' || !/^[A-Za-z0-9_-]{1,64}$/.test(tool.function?.name ?? ''))
        return 'tools[].function.name must match ^[a-zA-Z0-9_-]{1,64}$';
    }
  }
  const callIds = new Set<string>();
  for (const m of body.messages) {
    for (const call of m.tool_calls ?? []) callIds.add(call.id);
    if (m.role === 'tool' && (!m.tool_call_id || !callIds.has(m.tool_call_id)))
      return 'a tool message must answer a tool_call_id of an earlier assistant message';
  }
  const format = body.response_format;
  if (format !== undefined) {
    if (!['text', 'json_object', 'json_schema'].includes(format.type))
      return `unsupported response_format.type ${format.type}`;
    if (format.type === 'json_schema' && (!format.json_schema?.name || !format.json_schema.schema))
      return 'response_format.json_schema needs a name and a schema';
  }
  return null;
}

const errorBody = (status: number, message: string, type = 'invalid_request_error'): unknown => ({
  error: { message, type, param: null, code: status === 429 ? 'rate_limit_exceeded' : null },
});

export async function startFakeOpenAI(options: StartFakeOpenAIOptions = {}): Promise<FakeOpenAI> {
  const initialDefault = asContent(options.defaultAnswer ?? 'OK');
  let defaultContent = initialDefault;
  let pendingDelay = 0;
  const queue: Answer[] = [];
  const requests: FakeOpenAIRequest[] = [];
  let served = 0;
  let callSeq = 0;

  const json = (res: ServerResponse, status: number, body: unknown, id: string): void => {
    if (res.destroyed) return;
    res
      .writeHead(status, { 'content-type': 'application/json', 'x-request-id': id })
      .end(JSON.stringify(body));
  };

  const answer = (
    res: ServerResponse,
    body: ChatCompletionRequestBody,
    next: Answer,
    n: number,
  ): void => {
    const requestId = `req_fake_${n}`;
    if (next.kind === 'fail') return json(res, next.status, next.body, requestId);
    if (next.kind === 'raw') {
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': next.contentType, 'x-request-id': requestId });
      return void res.end(next.body);
    }
    const calls = next.kind === 'tools' ? next.calls : null;
    const content =
      next.kind === 'malformed' ? MALFORMED_CONTENT : next.kind === 'tools' ? '' : next.content;
    const finishReason = calls ? 'tool_calls' : 'stop';
    const answered = content.length + (calls ? JSON.stringify(calls).length : 0);
    const id = `chatcmpl-fake-${n}`;
    const created = 1_700_000_000 + n;
    const model = body.model!;
    const usage = {
      prompt_tokens: promptTokens(body),
      completion_tokens: tokens(answered),
      total_tokens: promptTokens(body) + tokens(answered),
    };
    if (!body.stream) {
      return json(
        res,
        200,
        {
          id,
          object: 'chat.completion',
          created,
          model,
          system_fingerprint: 'fp_fake',
          choices: [
            {
              index: 0,
              message: calls
                ? { role: 'assistant', content: null, refusal: null, tool_calls: calls }
                : { role: 'assistant', content, refusal: null },
              logprobs: null,
              finish_reason: finishReason,
            },
          ],
          usage,
        },
        requestId,
      );
    }
    if (res.destroyed) return;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      'x-request-id': requestId,
    });
    const chunk = (choices: unknown[], extra: object = {}): string =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, system_fingerprint: 'fp_fake', choices, ...extra })}\n\n`;
    const delta = (d: object, finish: string | null = null): unknown => ({
      index: 0,
      delta: d,
      logprobs: null,
      finish_reason: finish,
    });
    // Pieces of up to 16 characters: several chunks for any real answer, the same every run.
    const pieces = content.match(/[\s\S]{1,16}/g) ?? [];
    res.write(chunk([delta({ role: 'assistant', content: '', refusal: null })]));
    for (const piece of pieces) res.write(chunk([delta({ content: piece })]));
    for (const [index, call] of (calls ?? []).entries()) {
      const head = {
        index,
        id: call.id,
        type: 'function',
        function: { name: call.function.name, arguments: '' },
      };
      res.write(chunk([delta({ tool_calls: [head] })]));
      for (const piece of call.function.arguments.match(/[\s\S]{1,16}/g) ?? [])
        res.write(chunk([delta({ tool_calls: [{ index, function: { arguments: piece } }] })]));
    }
    res.write(chunk([delta({}, finishReason)]));
    res.write(chunk([], { usage }));
    res.end('data: [DONE]\n\n');
  };

  // NOTE: the handler runs only once listening, when `http` is set
  const http = await startHttpFake((req, res) => {
    const n = ++served;
    const receivedAt = performance.now();
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://fake').pathname;
      let body: ChatCompletionRequestBody | undefined;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ChatCompletionRequestBody;
      } catch {
        body = undefined;
      }
      const request: FakeOpenAIRequest = {
        method: req.method ?? '',
        path,
        headers: req.headers,
        body,
        receivedAt,
      };
      requests.push(request);
      res.on('finish', () => (request.answeredAt = performance.now()));
      const requestId = `req_fake_${n}`;
      if (path !== '/v1/chat/completions' && path !== '/chat/completions')
        return json(res, 404, errorBody(404, `Unknown path ${path}`), requestId);
      if (req.method !== 'POST')
        return json(res, 405, errorBody(405, `Method ${req.method} not allowed`), requestId);
      if (!/^Bearer \S+/.test(req.headers.authorization ?? ''))
        return json(res, 401, errorBody(401, 'Missing API key', 'invalid_api_key'), requestId);
      const why = invalid(body);
      if (why) return json(res, 400, errorBody(400, why), requestId);
      const schema = body!.response_format?.json_schema?.schema;
      const fallback =
        options.answerFromSchema && schema ? asContent(sampleOf(schema) as object) : defaultContent;
      const next = queue.shift() ?? { kind: 'content', content: fallback };
      const wait = pendingDelay;
      pendingDelay = 0;
      if (!wait) return answer(res, body!, next, n);
      http.later(wait, () => answer(res, body!, next, n));
    });
  });
  const origin = http.origin;

  const fake: FakeOpenAI = {
    url: `${origin}/v1`,
    requests,
    reply: (content) => void queue.push({ kind: 'content', content: asContent(content) }),
    replyToolCalls: (calls) =>
      void queue.push({
        kind: 'tools',
        calls: calls.map((c) => ({
          id: `call_${++callSeq}`,
          type: 'function' as const,
          function: { name: c.name, arguments: asContent(c.arguments ?? {}) },
        })),
      }),
    toolsOf: (request) => (request.body?.tools ?? []).map((t) => t.function?.name ?? ''),
    toolResultsOf: (request) =>
      (request.body?.messages ?? []).flatMap((m) =>
        m.role === 'tool'
          ? [
              {
                toolCallId: m.tool_call_id ?? '',
                content: typeof m.content === 'string' ? m.content : '',
              },
            ]
          : [],
      ),
    setDefault: (content) => void (defaultContent = asContent(content)),
    fail: (status, body) =>
      void queue.push({
        kind: 'fail',
        status,
        body: body ?? errorBody(status, `Fake failure ${status}`, 'server_error'),
      }),
    malformed: () => void queue.push({ kind: 'malformed' }),
    answerRaw: (body, contentType = 'application/json') =>
      void queue.push({ kind: 'raw', body, contentType }),
    delay: (ms) => void (pendingDelay = ms),
    imagesOf: (request) =>
      request.body
        ? partsOf(request.body).flatMap((p) =>
            p.type === 'image_url' ? [(p.image_url as { url: string }).url] : [],
          )
        : [],
    reset: () => {
      queue.length = 0;
      requests.length = 0;
      pendingDelay = 0;
      defaultContent = initialDefault;
    },
    close: () => http.close(),
  };
  return fake;
}
