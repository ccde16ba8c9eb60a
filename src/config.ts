/**
 * Configuration: the only module that reads process.env. Every variable is documented in
 * .env.example; a bad value stops the process at start with a clear message.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0'])
  .transform((v) => v === 'true' || v === '1');

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /** postgres:// URL; unset means the embedded PGlite database in DATA_DIR */
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  DATA_DIR: z.string().default('./data'),
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
  SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  MAIL_FROM: z.string().min(3).default('Health Platform <no-reply@localhost>'),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// URL').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** Serve GraphiQL at GET /graphql (assets are inlined; no internet needed) */
  GRAPHIQL: bool.default(true),
  MCP_CALLS_PER_MINUTE: z.coerce.number().int().min(1).default(60),
  MCP_CALLS_PER_DAY: z.coerce.number().int().min(1).default(2000),
  /** Extra origins allowed to call the MCP endpoint from a browser (comma separated) */
  MCP_ALLOWED_ORIGINS: z.string().default(''),
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
  /** Failed password logins per client IP and address per 15 minutes (app, web and admin login) */
  LOGIN_FAILURES_PER_15_MINUTES: z.coerce.number().int().min(1).default(10),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config extends Omit<Env, 'JWT_SECRET' | 'MCP_ALLOWED_ORIGINS' | 'TRUST_PROXY'> {
  jwtSecret: Uint8Array;
  /** express' `trust proxy` setting, from TRUST_PROXY */
  trustProxy: string | number | boolean;
  cookieSecure: boolean;
  mcpAllowedOrigins: string[];
}

/** Secrets the embedded default needs, generated on first start and kept beside the data. */
function embeddedSecrets(dataDir: string): { jwtSecret: string } {
  const file = path.join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8'));
  mkdirSync(dataDir, { recursive: true });
  const secrets = { jwtSecret: randomBytes(48).toString('base64url') };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
  return secrets;
}

/** Parses the environment (process.env unless given) into a typed config. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // An empty variable counts as unset (as shells and compose files commonly produce them).
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = EnvSchema.safeParse(given);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const { JWT_SECRET, MCP_ALLOWED_ORIGINS, TRUST_PROXY, ...rest } = parsed.data;
  const dataDir = path.resolve(rest.DATA_DIR);
  const secret = JWT_SECRET ?? embeddedSecrets(dataDir).jwtSecret;
  return {
    ...rest,
    DATA_DIR: dataDir,
    jwtSecret: new TextEncoder().encode(secret),
    cookieSecure: rest.COOKIE_SECURE ?? rest.PUBLIC_URL?.startsWith('https:') ?? false,
    mcpAllowedOrigins: MCP_ALLOWED_ORIGINS.split(',').map((s) => s.trim()).filter(Boolean),
    trustProxy: /^\d+$/.test(TRUST_PROXY) ? Number(TRUST_PROXY) : TRUST_PROXY === 'false' ? false : TRUST_PROXY,
  };
}
