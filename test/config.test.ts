import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/base/config.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'hdp-cfg-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('config', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({ DATA_DIR: dir });
    expect(c.PORT).toBe(8000);
    expect(c.HOST).toBe('127.0.0.1');
    expect(c.DATABASE_URL).toBeUndefined();
    expect(c.MCP_CALLS_PER_MINUTE).toBe(60);
    expect(c.MCP_CALLS_PER_DAY).toBe(2000);
    expect(c.cookieSecure).toBe(false);
    expect(c.trustProxy).toBe('loopback');
  });

  it('reads the observability keys: METRICS_TOKEN (16+ characters), an OTLP endpoint URL', () => {
    const c = loadConfig({ DATA_DIR: dir });
    expect(c.METRICS_TOKEN).toBeUndefined();
    expect(c.OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(c.OTEL_SERVICE_NAME).toBe('health-platform');
    expect(loadConfig({ DATA_DIR: dir, METRICS_TOKEN: 'x'.repeat(16) }).METRICS_TOKEN).toBe(
      'x'.repeat(16),
    );
    expect(() => loadConfig({ DATA_DIR: dir, METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    const otel = { DATA_DIR: dir, OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' };
    expect(loadConfig(otel).OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://collector:4318');
    expect(() => loadConfig({ ...otel, OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
  });

  it('reads TRUST_PROXY as express reads trust proxy: hops as a number, false as none, else addresses', () => {
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toBe(
      'loopback, 10.0.0.0/8',
    );
  });

  it('generates the embedded secret once, private to the owner, and reuses it', () => {
    const a = loadConfig({ DATA_DIR: dir });
    const b = loadConfig({ DATA_DIR: dir });
    expect(Buffer.from(a.jwtSecret).toString()).toBe(Buffer.from(b.jwtSecret).toString());
    expect(a.jwtSecret.length).toBeGreaterThanOrEqual(32);
    expect(statSync(path.join(dir, 'secrets.json')).mode & 0o777).toBe(0o600);
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATA_DIR: dir, DATABASE_URL: '', PORT: '' }).PORT).toBe(8000);
  });

  it('refuses bad values with a message naming the variable', () => {
    expect(() => loadConfig({ DATA_DIR: dir, PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ DATA_DIR: dir, DATABASE_URL: 'mysql://x' })).toThrow(
      /DATABASE_URL: must be a postgres/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, JWT_SECRET: 'short' })).toThrow(/JWT_SECRET/);
  });

  it('puts the OAuth MCP host on MCP_OAUTH_PORT and MCP_OAUTH_HOST, defaulting to 8001 and HOST', () => {
    const c = loadConfig({ DATA_DIR: dir });
    expect(c.MCP_OAUTH_PORT).toBe(8001);
    expect(c.MCP_OAUTH_HOST).toBe('127.0.0.1');
    expect(c.MCP_PUBLIC_URL).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dir, HOST: '0.0.0.0' }).MCP_OAUTH_HOST).toBe('0.0.0.0');
    const set = loadConfig({ DATA_DIR: dir, MCP_OAUTH_PORT: '0', MCP_OAUTH_HOST: '::1' });
    expect([set.MCP_OAUTH_PORT, set.MCP_OAUTH_HOST]).toEqual([0, '::1']);
    expect(() => loadConfig({ DATA_DIR: dir, MCP_OAUTH_PORT: '70000' })).toThrow(/MCP_OAUTH_PORT/);
  });

  it('takes MCP_PUBLIC_URL as an origin: https, or http on loopback only', () => {
    const url = (v: string): string | undefined =>
      loadConfig({ DATA_DIR: dir, MCP_PUBLIC_URL: v }).MCP_PUBLIC_URL;
    expect(url('https://mcp.example.com')).toBe('https://mcp.example.com');
    expect(url('https://MCP.example.com/')).toBe('https://mcp.example.com');
    expect(url('https://mcp.example.com:8443')).toBe('https://mcp.example.com:8443');
    expect(url('http://127.0.0.1:8001')).toBe('http://127.0.0.1:8001');
    expect(url('http://localhost:8001')).toBe('http://localhost:8001');
    expect(url('http://[::1]:8001')).toBe('http://[::1]:8001');
    for (const [bad, why] of [
      ['http://mcp.example.com', /MCP_PUBLIC_URL: .* must be https unless its host is loopback/],
      ['https://mcp.example.com/mcp', /MCP_PUBLIC_URL: .* origin only/],
      ['https://mcp.example.com?a=1', /MCP_PUBLIC_URL: .* origin only/],
      ['https://mcp.example.com/#top', /MCP_PUBLIC_URL: .* origin only/],
      ['https://user:pw@mcp.example.com', /MCP_PUBLIC_URL: .* origin only/],
      ['ftp://mcp.example.com', /MCP_PUBLIC_URL: .* http\(s\) URL/],
      ['mcp.example.com', /MCP_PUBLIC_URL: .* is not a URL/],
    ] as const) {
      expect(() => url(bad), bad).toThrow(why);
    }
  });

  it('reads model access: AI off without a key, 30 s timeout, vision on, consent not enforced', () => {
    const c = loadConfig({ DATA_DIR: dir });
    expect(c.OPENAI_API_KEY).toBeUndefined();
    expect(c.OPENAI_BASE_URL).toBeUndefined();
    expect([c.OPENAI_TIMEOUT_MS, c.MEAL_VISION_ENABLED, c.AI_CONSENT_ENFORCED]).toEqual([
      30_000,
      true,
      false,
    ]);
    const set = loadConfig({
      DATA_DIR: dir,
      OPENAI_API_KEY: 'sk-test',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      OPENAI_TIMEOUT_MS: '5000',
      MEAL_VISION_ENABLED: 'false',
      AI_CONSENT_ENFORCED: '1',
    });
    expect([
      set.OPENAI_API_KEY,
      set.OPENAI_BASE_URL,
      set.OPENAI_TIMEOUT_MS,
      set.MEAL_VISION_ENABLED,
      set.AI_CONSENT_ENFORCED,
    ]).toEqual(['sk-test', 'http://127.0.0.1:11434/v1', 5000, false, true]);
    expect(() => loadConfig({ DATA_DIR: dir, OPENAI_TIMEOUT_MS: 'soon' })).toThrow(
      /OPENAI_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, MEAL_VISION_ENABLED: 'yes' })).toThrow(
      /MEAL_VISION_ENABLED/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, OPENAI_BASE_URL: 'not a url' })).toThrow(
      /OPENAI_BASE_URL/,
    );
  });

  it('reads the models, their prices, the budget and the meal AI caps; a model without a price is an error', () => {
    const c = loadConfig({ DATA_DIR: dir });
    expect(c.aiPrices).toEqual({ 'gpt-4o-mini': { input: 0.15, output: 0.6 } });
    expect(c).toMatchObject({
      AI_MODEL_MEAL_ANALYZE: 'gpt-4o-mini',
      AI_DAILY_BUDGET_USD: 20,
      MEALS_ANALYZE_MAX_IMAGES: 4,
      MEALS_ANALYZE_MAX_IMAGE_BYTES: 5 * 1024 * 1024,
      MEALS_ANALYZE_MAX_DESCRIPTION_CHARS: 1000,
      MEALS_SUGGEST_NAME_DAILY_CAP: 100,
      MEALS_INSIGHT_DAILY_CAP: 50,
    });
    const priced = loadConfig({
      DATA_DIR: dir,
      AI_MODEL_ASSISTANT: 'big-model',
      AI_PRICES: '{"gpt-4o-mini":{"input":0.15,"output":0.6},"big-model":{"input":2,"output":8}}',
    });
    expect(priced.aiPrices['big-model']).toEqual({ input: 2, output: 8 });
    expect(() => loadConfig({ DATA_DIR: dir, AI_MODEL_ASSISTANT: 'big-model' })).toThrow(
      /AI_PRICES: no price for model big-model/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, AI_PRICES: '{' })).toThrow(/AI_PRICES: is not JSON/);
    expect(() => loadConfig({ DATA_DIR: dir, AI_PRICES: '{"gpt-4o-mini":{"input":-1}}' })).toThrow(
      /AI_PRICES: must map/,
    );
  });

  it('marks cookies Secure behind an https public URL', () => {
    expect(
      loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://health.example.com' }).cookieSecure,
    ).toBe(true);
  });

  it('issue 18: WEB_CONCURRENCY above 1 needs DATABASE_URL and REDIS_URL', () => {
    const pgUrl = 'postgres://u@127.0.0.1:5432/h';
    expect(loadConfig({ DATA_DIR: dir }).WEB_CONCURRENCY).toBe(1);
    expect(() => loadConfig({ DATA_DIR: dir, WEB_CONCURRENCY: '2' })).toThrow(
      'WEB_CONCURRENCY: 2 processes need DATABASE_URL (PostgreSQL)',
    );
    expect(() => loadConfig({ DATA_DIR: dir, WEB_CONCURRENCY: '2', DATABASE_URL: pgUrl })).toThrow(
      'WEB_CONCURRENCY: 2 processes need REDIS_URL',
    );
    const c = loadConfig({
      DATA_DIR: dir,
      WEB_CONCURRENCY: '2',
      DATABASE_URL: pgUrl,
      REDIS_URL: 'redis://127.0.0.1:6379',
    });
    expect(c.WEB_CONCURRENCY).toBe(2);
    expect(() => loadConfig({ DATA_DIR: dir, WEB_CONCURRENCY: '0' })).toThrow('WEB_CONCURRENCY');
  });
});
