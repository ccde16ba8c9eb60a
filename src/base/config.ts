/**
 * Configuration: the only module that reads process.env. Every variable is documented in
 * .env.example; a bad value stops the process at start with a clear message.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** The OAuth MCP host's own port (same process; 0: any free port) and address (default HOST) */
  MCP_OAUTH_PORT: z.coerce.number().int().min(0).max(65535).default(8001),
  MCP_OAUTH_HOST: z.string().min(1).optional(),
  /**
   * Public origin of the OAuth MCP host (its issuer; the resource is <origin>/mcp): no path, query
   * or fragment; https unless the host is loopback. Unset: http://<MCP_OAUTH_HOST>:<bound port>
   */
  MCP_PUBLIC_URL: z.string().optional(),
  /** postgres:// URL; unset means the embedded PGlite database in DATA_DIR */
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  DATA_DIR: z.string().default('./data'),
  /**
   * Server processes (node:cluster workers sharing the ports); 1: no cluster, one process. Above 1
   * needs DATABASE_URL and REDIS_URL (docs/deployment.md)
   */
  WEB_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(1),
  /** HMAC key for login tokens; generated once into DATA_DIR/secrets.json when unset */
  JWT_SECRET: z.string().min(32).optional(),
  ACCESS_TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /**
   * Which proxies' X-Forwarded-For to believe for the client IP (per-IP limits): express' `trust
   * proxy` (`loopback`, a list of addresses/CIDRs, a number of hops, or `false`: none)
   */
  TRUST_PROXY: z.string().default('loopback'),
  /** Public address of this server (for links and OpenAPI servers) */
  PUBLIC_URL: z.string().url().optional(),
  /** Mark cookies Secure; defaults to true when PUBLIC_URL is https */
  COOKIE_SECURE: bool.optional(),
  /** smtp:// or smtps:// URL of the mail server; unset: emails go to DATA_DIR/outbox (development) */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Health Platform <no-reply@localhost>'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Sets the server's clock (src/base/clock.ts) to this moment when the app is created; it runs on
   * from there. For tests and demonstrations only, never in production.
   */
  CLOCK_AT: z.iso.datetime({ offset: true, error: 'must be an ISO date-time' }).optional(),
  /** Serve GraphiQL at GET /graphql (assets are inlined; no internet needed) */
  GRAPHIQL: bool.default(true),
  /**
   * Food catalogue: `auto` imports the shipped catalogue (data/catalogue) in the background at
   * start when it is missing or changed (the server answers meanwhile); `off` never does
   */
  FOODS_AUTOLOAD: z.enum(['auto', 'off']).default('auto'),
  MCP_CALLS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  /** Days a finished health export (file and job) is kept before it is deleted (issue 16) */
  EXPORT_RETENTION_DAYS: z.coerce.number().int().min(1).max(90).default(7),
  /** Rows a health export job reads per query (memory holds one chunk) */
  EXPORT_CHUNK_ROWS: z.coerce.number().int().min(1).max(50_000).default(1000),
  /** Seconds a health export download link stays valid */
  EXPORT_LINK_TTL_SECONDS: z.coerce.number().int().min(30).max(3600).default(600),
  MCP_CALLS_PER_DAY: z.coerce.number().int().min(1).default(2000),
  /** Extra origins allowed to call the MCP endpoint from a browser (comma separated) */
  MCP_ALLOWED_ORIGINS: z.string().default(''),
  /**
   * Browser origins of an admin panel served elsewhere (comma separated), granted CORS on /api/admin
   * (preflight and answers). None by default: an admin panel on this server's own origin needs none.
   */
  ADMIN_ALLOWED_ORIGINS: z.string().default(''),
  /**
   * Extra host names (no scheme, port or path; comma separated) the MCP endpoint answers under,
   * besides localhost, 127.0.0.1, [::1] and PUBLIC_URL's host (DNS-rebinding defence)
   */
  MCP_ALLOWED_HOSTS: z.string().default(''),
  /** Largest profile photo in bytes (413 beyond) */
  PROFILE_PHOTO_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024),
  /** Largest multipart upload the REST facade reads before answering 413 (at least the largest file limit) */
  UPLOAD_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(10 * 1024 * 1024),
  /**
   * Largest Apple Health export.zip the phone may upload (POST /api/v1/health/archive/import),
   * streamed to DATA_DIR/health-imports; beyond it 413 and the partial file is removed
   */
  HEALTH_ARCHIVE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(2 * 1024 * 1024 * 1024),
  // Identity providers are IDP_<NAME>_CLIENT_ID / _ISSUER / _JWKS_URL: see identityProviders() below.
  /** Timeout of one JWKS fetch from an identity provider */
  IDP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /** Emailed sign-in codes: minutes a code stays valid */
  EMAIL_CODE_TTL_MINUTES: z.coerce.number().int().min(1).max(60).default(10),
  /** Codes sent per address per hour, and per client IP per hour (then 429) */
  EMAIL_CODES_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).default(5),
  EMAIL_CODES_PER_IP_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /** Code guesses evaluated per address per 24 hours, over all its codes (then 429) */
  EMAIL_CODE_GUESSES_PER_DAY: z.coerce.number().int().min(1).default(100),
  /** Password-reset links: minutes a link stays valid; links sent per address and per IP per hour */
  PASSWORD_RESET_TTL_MINUTES: z.coerce.number().int().min(5).max(1440).default(60),
  PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).default(5),
  PASSWORD_RESETS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /** Outreach (newsletter, privacy requests, waitlist): hours an emailed confirmation link stays valid */
  OUTREACH_CONFIRM_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(1)
    .max(24 * 30)
    .default(72),
  /** Outreach requests (subscribe, privacy request, waitlist join) per address and per client IP per hour (then 429) */
  OUTREACH_REQUESTS_PER_ADDRESS_PER_HOUR: z.coerce.number().int().min(1).default(5),
  OUTREACH_REQUESTS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).default(30),
  /** Waitlist confirmations tried per client IP per hour (then 429) */
  OUTREACH_CONFIRMS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).default(30),
  /** Where privacy requests are announced (the team's inbox) */
  PRIVACY_TEAM_EMAIL: z
    .string()
    .regex(/^[^\s@]+@[^\s@]+$/, 'an email address')
    .default('privacy@localhost'),
  /** Accounts created with a password (register, REST and GraphQL) per client IP per hour (then 429) */
  SIGNUPS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).default(10),
  /**
   * Limits of a GraphQL document sent to POST /graphql, refused before it runs (every persisted
   * operation fits them): selection depth, aliases, lexical tokens, estimated cost
   * (src/graphql/document-limits.ts) and directives; tokens count comments too
   */
  GRAPHQL_MAX_DEPTH: z.coerce.number().int().min(1).max(100).default(10),
  GRAPHQL_MAX_ALIASES: z.coerce.number().int().min(0).max(1000).default(15),
  GRAPHQL_MAX_TOKENS: z.coerce.number().int().min(100).max(100_000).default(1000),
  GRAPHQL_MAX_COST: z.coerce.number().int().min(100).max(10_000_000).default(20_000),
  GRAPHQL_MAX_DIRECTIVES: z.coerce.number().int().min(0).max(1000).default(20),
  /** Longest GraphQL document text, in characters (a comment or a string is one token however long) */
  GRAPHQL_MAX_DOCUMENT_CHARS: z.coerce.number().int().min(1000).max(1_000_000).default(50_000),
  /** Wrong community invite codes per account and per client IP per hour (then 429, issue 32) */
  COMMUNITY_JOIN_FAILURES_PER_HOUR_PER_ACCOUNT: z.coerce.number().int().min(1).default(10),
  COMMUNITY_JOIN_FAILURES_PER_HOUR_PER_IP: z.coerce.number().int().min(1).default(30),
  /** Failed password logins per client IP and address per 15 minutes (app, web and admin login) */
  LOGIN_FAILURES_PER_15_MINUTES: z.coerce.number().int().min(1).default(10),
  /** Model access (issue 14): the API key; unset turns the AI features off (their routes answer 503) */
  OPENAI_API_KEY: z.string().min(1).optional(),
  /** An OpenAI-compatible API's base URL (the SDK's own variable name); unset: the SDK's default */
  OPENAI_BASE_URL: z.string().url().optional(),
  /** Timeout of one model call (504 beyond); the SDK never retries on its own */
  OPENAI_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  /** Meal photo recognition, names, insights and emojis; false: those routes answer 503 */
  MEAL_VISION_ENABLED: bool.default(true),
  /** Require the person's AI consent before a model sees their data (403 needs_consent) */
  AI_CONSENT_ENFORCED: bool.default(false),
  /** Model of each AI feature: meal photo recognition (needs vision), meal texts, the assistant */
  AI_MODEL_MEAL_ANALYZE: z.string().min(1).max(100).default('gpt-4o-mini'),
  AI_MODEL_MEAL_TEXT: z.string().min(1).max(100).default('gpt-4o-mini'),
  AI_MODEL_ASSISTANT: z.string().min(1).max(100).default('gpt-4o-mini'),
  /** USD per 1M tokens per model, JSON {"model": {"input": n, "output": n}}; every model above needs one */
  AI_PRICES: z.string().default('{"gpt-4o-mini":{"input":0.15,"output":0.6}}'),
  /** What the AI features may cost per UTC day, all accounts together (429 ai_budget_exhausted beyond) */
  AI_DAILY_BUDGET_USD: z.coerce.number().min(0).max(1_000_000).default(20),
  /** Days a cached AI answer (analyze, insight) is served again without a model call */
  AI_CACHE_DAYS: z.coerce.number().int().min(1).max(365).default(30),
  /** Meal analyze input limits: photos per call, bytes per photo (413), description characters (422) */
  MEALS_ANALYZE_MAX_IMAGES: z.coerce.number().int().min(1).max(20).default(4),
  MEALS_ANALYZE_MAX_IMAGE_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .default(5 * 1024 * 1024),
  MEALS_ANALYZE_MAX_DESCRIPTION_CHARS: z.coerce.number().int().min(1).max(100_000).default(1000),
  /** Model calls per account per UTC day (429 rate_limited beyond); cached answers do not count */
  MEALS_ANALYZE_DAILY_CAP: z.coerce.number().int().min(1).default(30),
  /** suggest_name and emojis together */
  MEALS_SUGGEST_NAME_DAILY_CAP: z.coerce.number().int().min(1).default(100),
  /** meal insight and workout insight together */
  MEALS_INSIGHT_DAILY_CAP: z.coerce.number().int().min(1).default(50),
  /** assistant model rounds (each reply's rounds, document-fact drawing) per account per UTC day */
  ASSISTANT_DAILY_CAP: z.coerce.number().int().min(1).default(200),
  /** Push gateway (issue 15): APNs and FCM requests go there; unset: pushes are logged, not sent */
  PUSH_HTTP_URL: z.string().url().optional(),
  /** Bearer token the push gateway expects, when it expects one */
  PUSH_HTTP_TOKEN: z.string().min(1).optional(),
  /** The app's bundle id (the APNs topic) and Firebase project id (the FCM v1 path) */
  PUSH_APNS_TOPIC: z.string().min(1).max(200).default('com.example.health'),
  PUSH_FCM_PROJECT: z.string().min(1).max(200).default('health-app'),
  /**
   * Insights come to the person (issue 33): `on` runs the morning job and the predicted-low check
   * on new glucose in the background; `off` runs neither (insights are then recorded when read)
   */
  INSIGHTS_DELIVERY: z.enum(['on', 'off']).default('on'),
  /** The local hour (0..23, the person's zone) from which a person's morning run is due */
  INSIGHTS_MORNING_HOUR: z.coerce.number().int().min(0).max(23).default(7),
  /** How often each process looks for people whose morning has come (ms) */
  INSIGHTS_MORNING_CHECK_MS: z.coerce.number().int().min(1000).max(3_600_000).default(300_000),
  /**
   * DNA (issue 34): the AES-256-GCM key genomes are sealed with, 32 bytes as 64 hex digits or
   * base64; unset: a key created once in DATA_DIR/secrets/dna.key (mode 0600) and reused
   */
  DNA_ENCRYPTION_KEY: z
    .string()
    .regex(/^([0-9a-fA-F]{64}|[A-Za-z0-9+/_-]{43}=?)$/, '32 bytes as 64 hex digits or base64')
    .optional(),
  /** Admin notification sends per admin per hour (then 429) */
  ADMIN_NOTIFICATION_SENDS_PER_HOUR: z.coerce.number().int().min(1).default(100),
  /** The person's own test pushes per hour (then 429) */
  NOTIFICATION_TEST_SENDS_PER_HOUR: z.coerce.number().int().min(1).default(10),
  /** Payments (issue 15): Stripe's secret key; unset turns payments off (their routes answer 503) */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  /** Stripe's publishable key, handed to the app's payment sheet (GET /api/payments/config) */
  STRIPE_PUBLISHABLE_KEY: z.string().min(1).optional(),
  /** The webhook endpoint's signing secret (whsec_...); unset: the webhook answers 503 */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Where the SDK sends API requests (protocol, host, port); unset: https://api.stripe.com */
  STRIPE_API_BASE: z.string().url().optional(),
  /** Timeout of one Stripe request (504 beyond); the SDK tries a failed request once more */
  STRIPE_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** The sensor kit's full (fully refundable) price in the currency's smallest unit */
  KIT_PRICE_CENTS: z.coerce.number().int().min(50).max(10_000_000).default(9900),
  /** The currency of the kit price and of orders (ISO 4217, lower case) */
  PAYMENTS_CURRENCY: z
    .string()
    .regex(/^[a-z]{3}$/, 'a lower-case ISO 4217 code')
    .default('usd'),
  /** Stripe price ids of the subscription plans (price_...); a plan without one answers 503 */
  STRIPE_PRICE_PREMIUM_MONTHLY: z.string().min(1).optional(),
  STRIPE_PRICE_PREMIUM_YEARLY: z.string().min(1).optional(),
  /** Payment and setup intents created per client IP per hour (kit, auth, setup; then 429) */
  PAYMENTS_INTENTS_PER_IP_PER_HOUR: z.coerce.number().int().min(1).default(20),
  /**
   * Room-monitor cloud (issue 15): its consumer API's base URL (devices at <base>/v1/devices, like
   * Airthings' https://ext-api.airthings.com); unset: link and sync answer 503
   */
  MONITOR_API_BASE: z.string().url().optional(),
  /** Its client-credentials token endpoint; unset: <MONITOR_API_BASE>/v1/token */
  MONITOR_TOKEN_URL: z.string().url().optional(),
  /** HMAC-SHA256 key of the cloud's webhook signatures; unset: the webhook answers 503 */
  MONITOR_WEBHOOK_SECRET: z.string().min(16).optional(),
  /** Timeout of one call to the monitor cloud (504 beyond) */
  MONITOR_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
  /** Feedback reports a person may send per UTC day (429 rate_limited beyond) */
  FEEDBACK_REPORTS_PER_DAY: z.coerce.number().int().min(1).default(20),
  /**
   * Heavy work a person may start (issue 45; 429 rate_limited with Retry-After beyond): genome
   * uploads and Apple Health archive uploads per UTC day, blood reports read per hour, discovery
   * runs per UTC day
   */
  DNA_UPLOADS_PER_DAY: z.coerce.number().int().min(1).default(10),
  ARCHIVE_IMPORTS_PER_DAY: z.coerce.number().int().min(1).default(10),
  LAB_PARSES_PER_HOUR: z.coerce.number().int().min(1).default(30),
  DISCOVERY_RUNS_PER_DAY: z.coerce.number().int().min(1).default(20),
  /**
   * Bearer token GET /metrics requires (docs/operations.md); unset: /metrics answers only direct
   * loopback connections (never a proxied request)
   */
  METRICS_TOKEN: z.string().min(16).optional(),
  /** OpenTelemetry: an OTLP/HTTP collector's base URL (spans go to <url>/v1/traces); unset: no tracing */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().url().optional(),
  /** The service name spans carry */
  OTEL_SERVICE_NAME: z.string().min(1).max(100).default('health-platform'),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config
  extends Omit<
    Env,
    | 'JWT_SECRET'
    | 'MCP_ALLOWED_ORIGINS'
    | 'ADMIN_ALLOWED_ORIGINS'
    | 'MCP_ALLOWED_HOSTS'
    | 'TRUST_PROXY'
    | 'MCP_OAUTH_HOST'
    | 'MCP_PUBLIC_URL'
    | 'AI_PRICES'
  > {
  /** MCP_OAUTH_HOST, else HOST */
  MCP_OAUTH_HOST: string;
  /** MCP_PUBLIC_URL as an origin (no trailing slash), when set */
  MCP_PUBLIC_URL?: string;
  jwtSecret: Uint8Array;
  /** express' `trust proxy` setting, from TRUST_PROXY */
  trustProxy: string | number | boolean;
  cookieSecure: boolean;
  mcpAllowedOrigins: string[];
  adminAllowedOrigins: string[];
  /** MCP_ALLOWED_HOSTS as lower-case host names (IPv6 in brackets), any port */
  mcpAllowedHosts: string[];
  /** enabled identity providers by name (those with a client id), see identityProviders() */
  identityProviders: Readonly<Record<string, IdentityProviderConfig>>;
  /** AI_PRICES: USD per 1M tokens of each model (every configured model has one) */
  aiPrices: Readonly<Record<string, ModelPrice>>;
}

/** What a model costs: USD per 1M input tokens and per 1M output tokens. */
export interface ModelPrice {
  input: number;
  output: number;
}

const PriceTable = z.record(
  z.string().min(1),
  z.object({ input: z.number().min(0), output: z.number().min(0) }).strict(),
);

/** AI_PRICES parsed; throws a config error on bad JSON, or a configured model with no price. */
function aiPrices(value: string, models: string[]): Record<string, ModelPrice> {
  let parsed: ReturnType<typeof PriceTable.safeParse>;
  try {
    parsed = PriceTable.safeParse(JSON.parse(value));
  } catch {
    throw new Error('Invalid configuration:\n  AI_PRICES: is not JSON');
  }
  if (!parsed.success) {
    throw new Error(
      'Invalid configuration:\n  AI_PRICES: must map model names to {"input": USD, "output": USD} per 1M tokens',
    );
  }
  const missing = models.filter((m) => !(m in parsed.data));
  if (missing.length) {
    // NOTE: cost is never guessed: a model without a price could spend past the budget unseen.
    throw new Error(
      `Invalid configuration:\n  AI_PRICES: no price for model ${missing.join(', ')}`,
    );
  }
  return parsed.data;
}

/** One identity provider whose ID tokens are accepted for sign-in. */
export interface IdentityProviderConfig {
  /** lower-case name used in requests and stored in IdentityLink.provider */
  name: string;
  /** accepted `iss` values */
  issuers: string[];
  /** the provider's JSON Web Key Set */
  jwksUrl: string;
  /** accepted `aud` values: the app's client ids at the provider */
  clientIds: string[];
}

/** Issuer and key-set presets; a configured client id enables them. */
const IDP_PRESETS: Record<string, { issuers: string[]; jwksUrl: string }> = {
  apple: { issuers: ['https://appleid.apple.com'], jwksUrl: 'https://appleid.apple.com/auth/keys' },
  google: {
    issuers: ['https://accounts.google.com', 'accounts.google.com'],
    jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs',
  },
};

const IDP_VARIABLE = /^IDP_([A-Z0-9]+)_(CLIENT_ID|ISSUER|JWKS_URL)$/;

const list = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A `Host` header's host name (lower case, IPv6 in brackets) without its port; null if malformed. */
export function hostNameOf(host: string): string | null {
  const m = host.match(/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::\d{1,5})?$/i);
  return m ? m[1].toLowerCase() : null;
}

/** MCP_ALLOWED_HOSTS entries as host names; throws a config error on an entry with a scheme, port or path. */
function allowedHosts(value: string): string[] {
  return list(value).map((entry) => {
    const name = hostNameOf(entry);
    if (name === null || name !== entry.toLowerCase()) {
      throw new Error(
        `Invalid configuration:\n  MCP_ALLOWED_HOSTS: ${JSON.stringify(entry.slice(0, 100))} is not a host name ` +
          '(no scheme, port or path; IPv6 in brackets)',
      );
    }
    return name;
  });
}

const LOOPBACK_NAMES = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/i;

/** Whether a URL host name (IPv6 in brackets) is this machine's loopback. */
export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK_NAMES.test(hostname);
}

/**
 * MCP_PUBLIC_URL as an origin; throws a config error on a non-URL, a path, query, fragment or
 * credentials, or http on a host other than loopback (tokens must not travel in clear).
 */
function mcpPublicUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const fail = (why: string): never => {
    throw new Error(
      `Invalid configuration:\n  MCP_PUBLIC_URL: ${JSON.stringify(value.slice(0, 100))} ${why}`,
    );
  };
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail('is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') fail('must be an http(s) URL');
  if (url.username || url.password || url.pathname !== '/' || url.search || url.hash)
    fail('must be an origin only (no path, query, fragment or credentials)');
  if (url.protocol === 'http:' && !isLoopbackHost(url.hostname))
    fail('must be https unless its host is loopback');
  return url.origin;
}

/**
 * Identity providers from IDP_<NAME>_CLIENT_ID / _ISSUER / _JWKS_URL. Apple and Google have issuer
 * and JWKS presets (overridable); any other NAME needs all three. A provider without a client id
 * is not enabled. Throws a config error naming the variable on a bad or incomplete provider.
 */
function identityProviders(
  given: Record<string, string | undefined>,
): Record<string, IdentityProviderConfig> {
  const byName: Record<string, Partial<Record<'CLIENT_ID' | 'ISSUER' | 'JWKS_URL', string>>> = {};
  for (const [key, value] of Object.entries(given)) {
    const m = key.match(IDP_VARIABLE);
    if (m && value) (byName[m[1]] ??= {})[m[2] as 'CLIENT_ID' | 'ISSUER' | 'JWKS_URL'] = value;
  }
  const out: Record<string, IdentityProviderConfig> = {};
  for (const [NAME, vars] of Object.entries(byName)) {
    const name = NAME.toLowerCase();
    const preset = IDP_PRESETS[name];
    const clientIds = list(vars.CLIENT_ID ?? '');
    if (!clientIds.length) continue;
    const issuers = vars.ISSUER ? list(vars.ISSUER) : (preset?.issuers ?? []);
    const jwksUrl = vars.JWKS_URL ?? preset?.jwksUrl;
    if (!issuers.length)
      throw new Error(
        `Invalid configuration:\n  IDP_${NAME}_ISSUER: required for provider ${name}`,
      );
    if (!jwksUrl || !/^https?:\/\//.test(jwksUrl)) {
      throw new Error(
        `Invalid configuration:\n  IDP_${NAME}_JWKS_URL: an http(s) URL is required for provider ${name}`,
      );
    }
    out[name] = { name, issuers, jwksUrl, clientIds };
  }
  return out;
}

/**
 * More than one server process needs what they can share: PostgreSQL (the embedded PGlite database
 * belongs to one process) and Redis (without it every limit would count per process).
 */
function multiProcessNeeds(env: Pick<Env, 'WEB_CONCURRENCY' | 'DATABASE_URL' | 'REDIS_URL'>): void {
  if (env.WEB_CONCURRENCY === 1) return;
  const missing = !env.DATABASE_URL
    ? 'DATABASE_URL (PostgreSQL): the embedded PGlite database belongs to one process'
    : !env.REDIS_URL
      ? 'REDIS_URL: without Redis every limit (login throttle, MCP calls, AI caps) would count per process'
      : null;
  if (missing) {
    throw new Error(
      `Invalid configuration:\n  WEB_CONCURRENCY: ${env.WEB_CONCURRENCY} processes need ${missing}`,
    );
  }
}

/** Secrets the embedded default needs, generated on first start and kept beside the data. */
function embeddedSecrets(dataDir: string): { jwtSecret: string } {
  const file = path.join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as { jwtSecret: string };
  mkdirSync(dataDir, { recursive: true });
  const secrets = { jwtSecret: randomBytes(48).toString('base64url') };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  return secrets;
}

/** Parses the environment (process.env unless given) into a typed config. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable counts as unset (as shells and compose files commonly produce them).
  const given = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  const parsed = EnvSchema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const {
    JWT_SECRET,
    MCP_ALLOWED_ORIGINS,
    ADMIN_ALLOWED_ORIGINS,
    MCP_ALLOWED_HOSTS,
    TRUST_PROXY,
    MCP_OAUTH_HOST,
    MCP_PUBLIC_URL,
    AI_PRICES,
    ...rest
  } = parsed.data;
  if (rest.UPLOAD_MAX_BYTES < rest.PROFILE_PHOTO_MAX_BYTES) {
    throw new Error(
      'Invalid configuration:\n  UPLOAD_MAX_BYTES: must be at least PROFILE_PHOTO_MAX_BYTES',
    );
  }
  multiProcessNeeds(rest);
  const dataDir = path.resolve(rest.DATA_DIR);
  const secret = JWT_SECRET ?? embeddedSecrets(dataDir).jwtSecret;
  return {
    ...rest,
    DATA_DIR: dataDir,
    MCP_OAUTH_HOST: MCP_OAUTH_HOST ?? rest.HOST,
    MCP_PUBLIC_URL: mcpPublicUrl(MCP_PUBLIC_URL),
    jwtSecret: new TextEncoder().encode(secret),
    cookieSecure: rest.COOKIE_SECURE ?? rest.PUBLIC_URL?.startsWith('https:') ?? false,
    mcpAllowedOrigins: list(MCP_ALLOWED_ORIGINS),
    adminAllowedOrigins: list(ADMIN_ALLOWED_ORIGINS),
    mcpAllowedHosts: allowedHosts(MCP_ALLOWED_HOSTS),
    identityProviders: identityProviders(given),
    aiPrices: aiPrices(AI_PRICES, [
      rest.AI_MODEL_MEAL_ANALYZE,
      rest.AI_MODEL_MEAL_TEXT,
      rest.AI_MODEL_ASSISTANT,
    ]),
    trustProxy: /^\d+$/.test(TRUST_PROXY)
      ? Number(TRUST_PROXY)
      : TRUST_PROXY === 'false'
        ? false
        : TRUST_PROXY,
  };
}
