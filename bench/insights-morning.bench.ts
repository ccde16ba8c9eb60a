/**
 * The morning insights run over 10,000 people (issue 33 goal: with WEB_CONCURRENCY=2, each person
 * exactly once, no duplicate insight or push; throughput in people per second). One scratch
 * database (a fresh database on BENCH_DATABASE_URL's or TEST_DATABASE_URL's PostgreSQL server,
 * dropped afterwards; else one PGlite in a temp dir, where one process holds the database and one
 * worker runs).
 *
 * Seeded in bulk SQL: PEOPLE people whose local morning has come (zones chosen now, so that each
 * is between 08:00 and 22:00 local), CONTROL people in zones where it is still night (never to be
 * run), each with a phone; 40 % with a short night (sleep_more fires: a push), GLUCOSE_PEOPLE with
 * a reading every 15 minutes over 15 days (scores, the trend card, review_lows). On PostgreSQL,
 * two workers as two processes would have them: two app instances on two connection pools to
 * the same database, their checks started at once (runMorningCheck, the periodic check's body).
 * Pushes go to an HTTP gateway in this process that answers 200 and counts pushes per token.
 *
 * Checked afterwards: every due person has exactly one morning row (done), no control person has
 * one, no person has more than one notification or more than one push at the gateway, no insight
 * is recorded twice. Prints one JSON line.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/base/config.ts';
import { createLogger } from '../src/base/logger.ts';
import { openDatabase } from '../src/db/database.ts';
import type { Database } from '../src/db/database.ts';
import { runMorningCheck } from '../src/domains/insights/insights.morning.ts';
import type { MorningCheckView } from '../src/domains/insights/insights.morning.ts';
import { notifyPerson } from '../src/domains/notifications/index.ts';
import { createApp } from '../src/server/app.ts';
import { round } from './in-process.ts';

const PEOPLE = Number(process.env.PEOPLE ?? 10_000);
const CONTROL = Number(process.env.CONTROL ?? 500);
const GLUCOSE_PEOPLE = Number(process.env.GLUCOSE_PEOPLE ?? 1_000);
const CANDIDATE_ZONES = [
  'UTC',
  'Europe/London',
  'Europe/Berlin',
  'Europe/Helsinki',
  'Asia/Dubai',
  'Asia/Kolkata',
  'Asia/Kathmandu',
  'Asia/Shanghai',
  'Asia/Tokyo',
  'Australia/Adelaide',
  'Australia/Sydney',
  'Pacific/Auckland',
  'Pacific/Honolulu',
  'America/Anchorage',
  'America/Los_Angeles',
  'America/Denver',
  'America/Chicago',
  'America/New_York',
  'America/Sao_Paulo',
  'America/St_Johns',
  'Atlantic/Azores',
  ...Array.from({ length: 27 }, (_, i) => i - 12).map((o) =>
    o === 0 ? 'Etc/GMT' : `Etc/GMT${o > 0 ? '-' : '+'}${Math.abs(o)}`,
  ),
];

const localHour = (zone: string): number =>
  Number(
    new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', hourCycle: 'h23' }).format(
      new Date(),
    ),
  );
const DUE_ZONES = CANDIDATE_ZONES.filter((z) => localHour(z) >= 8 && localHour(z) <= 22);
const NIGHT_ZONES = CANDIDATE_ZONES.filter((z) => localHour(z) >= 1 && localHour(z) <= 5);

const adminUrl = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const dir = mkdtempSync(path.join(tmpdir(), 'hdp-bench-morning-'));
const admin = adminUrl ? new pg.Client({ connectionString: adminUrl }) : null;
let url: string | undefined;
let scratch: string | null = null;
if (admin) {
  await admin.connect();
  scratch = `hdp_bench_morning_${process.pid}`;
  await admin.query(`CREATE DATABASE ${scratch}`);
  const u = new URL(adminUrl!);
  u.pathname = `/${scratch}`;
  url = u.toString();
}

/** A push gateway answering 200 to everything, counting pushes per device token. */
const pushesByToken = new Map<string, number>();
const gateway = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    // APNs: POST /3/device/<token>; FCM: the token is in the body (message.token)
    const apns = /^\/3\/device\/([^/?]+)$/.exec(req.url ?? '');
    const body = apns
      ? null
      : (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message: { token: string } });
    const token = apns ? decodeURIComponent(apns[1]) : body!.message.token;
    pushesByToken.set(token, (pushesByToken.get(token) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
});
await new Promise<void>((r) => gateway.listen(0, '127.0.0.1', r));
const gatewayUrl = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;

const config = loadConfig({
  ...process.env,
  DATA_DIR: path.join(dir, 'data'),
  LOG_LEVEL: 'warn',
  JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
  DATABASE_URL: url ?? '',
  PUSH_HTTP_URL: gatewayUrl,
  // the bench calls the check itself; the apps' own timers stay off
  INSIGHTS_DELIVERY: 'off',
});

const first = await openDatabase({ url, dataDir: url ? null : path.join(dir, 'db') });
// the second worker: its own pool on the same database (PostgreSQL only; PGlite is one process)
const second: Database | null = url ? await openDatabase({ url, dataDir: null }) : null;

/** People, phones, nights and glucose in bulk; answers the seeding time. */
async function seed(db: Database): Promise<number> {
  const t = performance.now();
  const p = db.prisma;
  const zonesOf = (n: number, zones: string[]) =>
    Array.from({ length: n }, (_, i) => zones[i % zones.length]);
  const zones = [...zonesOf(PEOPLE, DUE_ZONES), ...zonesOf(CONTROL, NIGHT_ZONES)];
  await p.$executeRawUnsafe(
    `INSERT INTO users (email, timezone, updated_at)
     SELECT 'morning' || k || '@example.com', z, now()
       FROM unnest($1::text[]) WITH ORDINALITY AS t(z, k)`,
    zones,
  );
  await p.$executeRawUnsafe(
    `INSERT INTO device_tokens (id, user_id, token, platform)
     SELECT 'dt_' || id, id, 'tok-' || id, CASE WHEN id % 2 = 0 THEN 'ios' ELSE 'android' END FROM users`,
  );
  // a 5-hour night ending 2 hours ago for 40 % (sleep_more), 8 hours for the others with sleep
  await p.$executeRawUnsafe(
    `INSERT INTO sleep_samples (id, user_id, stage, start_at, end_at)
     SELECT 's_' || id, id, 'asleep',
            (now() AT TIME ZONE 'UTC') - make_interval(hours => CASE WHEN id % 5 < 2 THEN 7 ELSE 10 END),
            (now() AT TIME ZONE 'UTC') - interval '2 hours'
       FROM users WHERE id % 5 < 3`,
  );
  // a reading every 15 minutes over 15 days (about 6 % below 70 mg/dL: review_lows)
  await p.$executeRawUnsafe(
    `INSERT INTO glucose_readings (id, user_id, "timestamp", value_mg_dl, source)
     SELECT 'g_' || u || '_' || g, u, now() - interval '15 days' + make_interval(mins => g * 15),
            60 + ((g * 13 + u) % 160), 'cgm'
       FROM (SELECT id AS u FROM users ORDER BY id LIMIT $1) people, generate_series(0, 15 * 96 - 1) AS g`,
    GLUCOSE_PEOPLE,
  );
  for (const t of [
    'users',
    'device_tokens',
    'sleep_samples',
    'glucose_readings',
    'glucose_buckets',
  ])
    await p.$executeRawUnsafe(`ANALYZE ${t}`);
  return round((performance.now() - t) / 1000);
}

/** An app's parts as the background work gets them (its periodic checks off). */
function workerDeps(db: Database) {
  const app = createApp({ config, db, log: createLogger('warn') });
  return { deps: { ...app.deps, log: createLogger('warn'), notify: notifyPerson }, app };
}

/** The checks: each person once, nobody else, no duplicate insight, notification or push. */
async function verify(db: Database): Promise<Record<string, number>> {
  const q = async (sql: string): Promise<number> =>
    Number((await db.prisma.$queryRawUnsafe<{ n: bigint | number }[]>(sql))[0].n);
  const figures = {
    due_people: PEOPLE,
    run_people: await q(
      `SELECT count(DISTINCT user_id) AS n FROM insight_mornings WHERE done_at IS NOT NULL`,
    ),
    morning_rows: await q(`SELECT count(*) AS n FROM insight_mornings`),
    control_rows: await q(
      `SELECT count(*) AS n FROM insight_mornings m JOIN users u ON u.id = m.user_id
        WHERE u.email LIKE 'morning%' AND u.id > (SELECT min(id) + ${PEOPLE} - 1 FROM users)`,
    ),
    people_with_two_notifications: await q(
      `SELECT count(*) AS n FROM (SELECT user_id FROM notifications GROUP BY 1 HAVING count(*) > 1) x`,
    ),
    duplicate_insights: await q(
      `SELECT count(*) - count(DISTINCT (user_id, rule, subject)) AS n FROM insights`,
    ),
    insights: await q(`SELECT count(*) AS n FROM insights`),
    notifications: await q(`SELECT count(*) AS n FROM notifications`),
    sent: await q(`SELECT count(*) AS n FROM notifications WHERE push_status = 'sent'`),
  };
  const pushed = [...pushesByToken.values()];
  const out = {
    ...figures,
    gateway_pushes: pushed.reduce((a, b) => a + b, 0),
    tokens_pushed_twice: pushed.filter((n) => n > 1).length,
  };
  const wrong =
    out.run_people !== PEOPLE ||
    out.morning_rows !== PEOPLE ||
    out.control_rows !== 0 ||
    out.people_with_two_notifications !== 0 ||
    out.duplicate_insights !== 0 ||
    out.tokens_pushed_twice !== 0 ||
    out.gateway_pushes !== out.sent;
  if (wrong) throw new Error(`not exactly once: ${JSON.stringify(out)}`);
  return out;
}

try {
  const seedSeconds = await seed(first);
  const workers = [workerDeps(first), ...(second ? [workerDeps(second)] : [])];
  const t = performance.now();
  const results: MorningCheckView[] = await Promise.all(
    workers.map((w) => runMorningCheck(w.deps, {})),
  );
  const seconds = (performance.now() - t) / 1000;
  const checks = await verify(first);
  console.log(
    JSON.stringify({
      bench: 'insights-morning',
      database: url ? 'postgresql' : 'pglite',
      workers: workers.length,
      people: PEOPLE,
      zones_due: DUE_ZONES.length,
      glucose_people: GLUCOSE_PEOPLE,
      seed_s: seedSeconds,
      run_s: round(seconds, 2),
      people_per_s: round(PEOPLE / seconds),
      per_worker: results.map((r) => r.claimed),
      notified: results.reduce((a, r) => a + r.notified, 0),
      ...checks,
    }),
  );
  for (const w of workers) await w.app.jobs.stop();
} finally {
  await first.close();
  await second?.close();
  gateway.close();
  if (admin) {
    await admin.query(`DROP DATABASE IF EXISTS ${scratch} WITH (FORCE)`);
    await admin.end();
  }
  rmSync(dir, { recursive: true, force: true });
}
