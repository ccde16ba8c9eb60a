/**
 * Model access (issue 14): the real openai SDK, built by createModelClient from config, against the
 * suite's fake OpenAI server (test/fakes/openai.ts): structured answers with an image, streaming,
 * error statuses, the timeout, and no client without a key.
 */
import { APIConnectionTimeoutError, APIError } from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { createModelClient } from '../../src/integrations/openai.ts';
import { FAKE_IMAGE_TOKENS, MALFORMED_CONTENT, startFakeOpenAI } from '../fakes/openai.ts';
import { JPEG } from '../fakes/images.ts';
import { testConfig } from '../harness/app.ts';
import { clock } from '../../src/base/clock.ts';

const fake = await startFakeOpenAI();
const config = testConfig({
  OPENAI_API_KEY: 'sk-test-key',
  OPENAI_BASE_URL: fake.url,
  OPENAI_TIMEOUT_MS: '300',
});
const client = createModelClient(config)!;
afterEach(() => fake.reset());

const photo = `data:image/jpeg;base64,${Buffer.from(JPEG).toString('base64')}`;
const mealSchema = {
  type: 'object',
  properties: {
    items: {
      type: 'array',
      items: {
        type: 'object',
        properties: { name: { type: 'string' }, grams: { type: 'number' } },
        required: ['name', 'grams'],
        additionalProperties: false,
      },
    },
  },
  required: ['items'],
  additionalProperties: false,
};

describe('createModelClient', () => {
  it('answers null without OPENAI_API_KEY (AI off)', () => {
    expect(createModelClient(testConfig())).toBeNull();
  });

  it('builds the SDK client with the base URL, the timeout and no SDK retries', () => {
    expect([client.baseURL, client.timeout, client.maxRetries]).toEqual([fake.url, 300, 0]);
  });

  it('round-trips a JSON-schema structured answer to a message with an image', async () => {
    fake.reply({ items: [{ name: 'rice', grams: 150 }] });
    const completion = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [
        { role: 'system', content: 'Name the foods.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'lunch' },
            { type: 'image_url', image_url: { url: photo, detail: 'low' } },
          ],
        },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'meal', strict: true, schema: mealSchema },
      },
    });
    const content = completion.choices[0].message.content!;
    expect(JSON.parse(content)).toEqual({ items: [{ name: 'rice', grams: 150 }] });
    expect(completion.usage).toEqual({
      prompt_tokens: Math.ceil('Name the foods.lunch'.length / 4) + FAKE_IMAGE_TOKENS,
      completion_tokens: Math.ceil(content.length / 4),
      total_tokens:
        Math.ceil('Name the foods.lunch'.length / 4) +
        FAKE_IMAGE_TOKENS +
        Math.ceil(content.length / 4),
    });

    expect(fake.requests).toHaveLength(1);
    const [request] = fake.requests;
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe('Bearer sk-test-key');
    expect(request.body?.model).toBe('gpt-4o-mini');
    expect(request.body?.response_format?.json_schema?.schema).toEqual(mealSchema);
    expect(fake.imagesOf(request)).toEqual([photo]);
  });

  it('answers the default when nothing is queued, and malformed content on request', async () => {
    const ask = async (): Promise<string | null> =>
      (
        await client.chat.completions.create({
          model: 'gpt-4o-mini',
          messages: [{ role: 'user', content: 'hi' }],
        })
      ).choices[0].message.content;
    expect(await ask()).toBe('OK');
    fake.malformed();
    const malformed = await ask();
    expect(malformed).toBe(MALFORMED_CONTENT);
    expect(() => JSON.parse(malformed!) as unknown).toThrow(SyntaxError);
  });

  it('streams the answer in chunks ending with usage', async () => {
    const text = 'Grilled chicken with rice and a green salad.';
    fake.reply(text);
    const stream = await client.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'describe' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    let usage: unknown;
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) pieces.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(pieces.length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe(text);
    expect(finish).toBe('stop');
    expect(usage).toEqual({
      prompt_tokens: 2,
      completion_tokens: Math.ceil(text.length / 4),
      total_tokens: 2 + Math.ceil(text.length / 4),
    });
    expect(fake.requests[0].body?.stream).toBe(true);
  });

  it('surfaces an error status as the SDK APIError with that status, without retrying', async () => {
    fake.fail(503);
    const error: unknown = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(503);
    expect(fake.requests).toHaveLength(1);
  });

  it('surfaces an answer slower than OPENAI_TIMEOUT_MS as the SDK timeout error', async () => {
    fake.delay(2000);
    const started = clock.ms();
    const error: unknown = await client.chat.completions
      .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIConnectionTimeoutError);
    expect(clock.ms() - started).toBeLessThan(1500);
    expect(fake.requests).toHaveLength(1);
  });
});

describe('the fake answering from the schema (answerFromSchema)', () => {
  it('answers the smallest value that fits the requested JSON schema', async () => {
    const schemaFake = await startFakeOpenAI({ answerFromSchema: true });
    const sdk = createModelClient({ ...config, OPENAI_BASE_URL: schemaFake.url })!;
    const completion = await sdk.chat.completions.create({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'anything' }],
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'x',
          strict: true,
          schema: {
            type: 'object',
            properties: {
              name: { type: 'string', minLength: 3 },
              emoji: { type: 'string', pattern: '^\\p{Extended_Pictographic}' },
              tone: { type: 'string', enum: ['positive', 'neutral'] },
              grams: { type: 'number', minimum: 1 },
              tags: { type: 'array', items: { type: 'string' } },
            },
            required: ['name', 'emoji', 'tone', 'grams', 'tags'],
            additionalProperties: false,
          },
        },
      },
    });
    expect(JSON.parse(completion.choices[0].message.content!)).toEqual({
      name: 'aaa',
      emoji: '🍽️',
      tone: 'positive',
      grams: 1,
      tags: [],
    });
    await schemaFake.close();
  });
});
