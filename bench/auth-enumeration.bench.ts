/**
 * Can response times tell whether an address has an account? For each of the three answers that
 * must not tell (POST /api/auth/email/start, POST /api/auth/forgot-password, a failed
 * POST /api/auth/login), requests for a registered and an unregistered address are sent one at a
 * time, in random order, and the median latencies compared (goal: within 10%).
 * The server runs as a child process exactly as `npm start` runs it (embedded database in a temp
 * dir, or BENCH_DATABASE_URL), with the per-address and per-IP limits raised so that the benchmark
 * measures the answers rather than the 429s. Emails go to the development outbox in the temp dir.
 * Prints one JSON line: per endpoint, both medians (ms), their ratio (slower / faster) and ok.
 */
import { startBenchServer } from './server.ts';
import { median } from './stats.ts';

const rounds = Number(process.env.ROUNDS ?? 400);
const warmup = 20;
const unlimited = '1000000000';
const server = await startBenchServer({
  SMTP_URL: '',
  EMAIL_CODES_PER_ADDRESS_PER_HOUR: unlimited,
  EMAIL_CODES_PER_IP_PER_HOUR: unlimited,
  PASSWORD_RESETS_PER_ADDRESS_PER_HOUR: unlimited,
  PASSWORD_RESETS_PER_IP_PER_HOUR: unlimited,
  LOGIN_FAILURES_PER_15_MINUTES: unlimited,
});
const base = server.base;

const jsonHeaders = { 'content-type': 'application/json' };

/** One request; its latency in ms (the body is read, so the whole answer is counted). */
async function timed(pathname: string, body: unknown, expected: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(base + pathname, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify(body),
  });
  await res.text();
  const ms = performance.now() - started;
  if (res.status !== expected) throw new Error(`${pathname}: ${res.status}, expected ${expected}`);
  return ms;
}

interface Figures {
  known_p50_ms: number;
  unknown_p50_ms: number;
  /** slower median / faster median */
  ratio: number;
  within_10pct: boolean;
}

/**
 * Sends `rounds` requests of each case (after a warm-up), choosing the case of every request by a
 * coin flip, so that whatever a request leaves behind (forgot-password's background email for a
 * registered address) falls on the next request whichever case that is.
 */
async function compare(
  pathname: string,
  bodyFor: (email: string) => unknown,
  expected: number,
  known: string,
  unknown: string,
): Promise<Figures> {
  const times: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] };
  for (let i = 0; i < 2 * warmup; i++)
    await timed(pathname, bodyFor(i % 2 ? known : unknown), expected);
  while (times.known.length < rounds || times.unknown.length < rounds) {
    const which = Math.random() < 0.5 ? 'known' : 'unknown';
    const ms = await timed(pathname, bodyFor(which === 'known' ? known : unknown), expected);
    if (times[which].length < rounds) times[which].push(ms);
  }
  const k = median(times.known);
  const u = median(times.unknown);
  const ratio = Math.max(k, u) / Math.min(k, u);
  return {
    known_p50_ms: Number(k.toFixed(3)),
    unknown_p50_ms: Number(u.toFixed(3)),
    ratio: Number(ratio.toFixed(3)),
    within_10pct: ratio <= 1.1,
  };
}

try {
  const known = 'bench-known@example.com';
  const unknown = 'bench-unknown@example.com';
  const registered = await fetch(`${base}/api/auth/register`, {
    method: 'POST',
    headers: jsonHeaders,
    body: JSON.stringify({ email: known, password: 'benchmark password' }),
  });
  if (!registered.ok) throw new Error(`register: ${registered.status}`);

  const emailStart = await compare(
    '/api/auth/email/start',
    (email) => ({ email }),
    200,
    known,
    unknown,
  );
  const forgotPassword = await compare(
    '/api/auth/forgot-password',
    (email) => ({ email }),
    200,
    known,
    unknown,
  );
  const loginFailure = await compare(
    '/api/auth/login',
    (email) => ({ email, password: 'wrong password' }),
    401,
    known,
    unknown,
  );
  console.log(
    JSON.stringify({
      bench: 'auth-enumeration',
      database: process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
      rounds,
      email_start: emailStart,
      forgot_password: forgotPassword,
      login_failure: loginFailure,
      all_within_10pct: [emailStart, forgotPassword, loginFailure].every((f) => f.within_10pct),
    }),
  );
} finally {
  await server.stop();
}
