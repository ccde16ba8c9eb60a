/**
 * The AI meal features (issue 14, docs/ai.md section 5) on the server run as `npm start` runs it
 * (bench/server.ts: embedded database in a temp dir, or BENCH_DATABASE_URL), against the suite's
 * fake OpenAI server (test/fakes/openai.ts, a real HTTP server, in this process). Three goals:
 *
 * 1. Analyze overhead: POST /api/meals/analyze with one 1 MB JPEG, CALLS times (default 40) one
 *    after another, on the shipped catalogue (FOODS_AUTOLOAD=auto, awaited), each photo different
 *    (no cache hit), the fake answering one item ("bananas", matched), holding every answer back
 *    MODEL_MS (default 200 ms). Overhead = total - the model's own time (the fake's, from the
 *    request arriving to its answer sent, as a remote API's would be): multipart, the checks, the
 *    ledger, the catalogue matching, writing the base64 request. Goal: p50 <= 50 ms. Also printed:
 *    total - MODEL_MS (overhead_beyond_model_ms_p50_ms), which counts the fake's reading and
 *    parsing of the 1.4 MB request as ours.
 * 2. A cached meal insight (POST /api/meals/insight, the same body again: no model call) against a
 *    plain authenticated read (GET /api/auth/me), autocannon at 10 connections, ROUNDS rounds
 *    (default 3) alternating which goes first; medians. Goal: insight p50 <= 1.5 x /me p50.
 * 3. Races: 50 concurrent analyze calls from one account (distinct photos) on a server with
 *    MEALS_ANALYZE_DAILY_CAP=10 (admitted = model calls <= 10), and on a server whose
 *    AI_DAILY_BUDGET_USD fits two calls' worst case (spent <= budget; the spend is recomputed from
 *    the fake's usage, which is deterministic, at the configured price).
 * Prints one JSON line.
 */
import autocannon from 'autocannon';
import { jpegOfSize } from '../test/fakes/images.ts';
import { startFakeOpenAI } from '../test/fakes/openai.ts';
import type { FakeOpenAIRequest } from '../test/fakes/openai.ts';
import { startBenchServer } from './server.ts';
import type { BenchServer } from './server.ts';
import { signUp } from './server.ts';
import { median, percentile } from './stats.ts';

const calls = Number(process.env.CALLS ?? 40);
const modelMs = Number(process.env.MODEL_MS ?? 200);
const rounds = Number(process.env.ROUNDS ?? 3);
const seconds = Number(process.env.DURATION ?? 5);
const connections = 10;
const RACE = 50;
const RACE_CAP = 10;
/** about two calls' worst case with one 1 MB photo (40,000 image tokens + 1,500 out at gpt-4o-mini) */
const RACE_BUDGET_USD = 0.015;
const PRICE = { input: 0.15, output: 0.6 };

const ANSWER = {
  meal_name: 'Fruit plate',
  items: [
    {
      name: 'bananas',
      grams: 120,
      grams_low: 100,
      grams_high: 140,
      confidence: 0.9,
      barcode: null,
      kcal: 107,
      protein_g: 1.3,
      carbs_g: 27,
      fat_g: 0.4,
      fiber_g: 3.1,
      sugar_g: 14.7,
    },
  ],
};
const INSIGHT = {
  headline: 'A balanced lunch',
  analysis: 'Rice with chicken gave a moderate rise that came back within two hours.',
  suggestion: 'Add a side of vegetables to slow the rise further.',
  tags: [{ label: 'Protein', tone: 'positive' }],
  emoji: '🍛',
};
const INSIGHT_BODY = JSON.stringify({
  items: [{ name: 'rice', grams: 150 }, { name: 'chicken' }],
  hour: 13,
  totals: { carbs_g: 52, kcal: 610 },
  glucose: { peak: 162, baseline: 98 },
});

const fake = await startFakeOpenAI({ defaultAnswer: ANSWER });
const ai = {
  OPENAI_API_KEY: 'sk-bench',
  OPENAI_BASE_URL: fake.url,
  AI_DAILY_BUDGET_USD: '1000000',
  MEALS_ANALYZE_DAILY_CAP: '1000000',
  MEALS_INSIGHT_DAILY_CAP: '1000000',
};

const ratio = (a: number, b: number): number => Number((a / b).toFixed(2));

/** A 1 MB JPEG whose bytes differ by `n` (no two calls share a cache key). */
function photo(n: number): Uint8Array<ArrayBuffer> {
  const data = jpegOfSize(1024 * 1024);
  new DataView(data.buffer).setUint32(100, n);
  return data;
}

/** One analyze call; answers its status and wall time. */
async function analyze(
  base: string,
  token: string,
  data: Uint8Array<ArrayBuffer>,
): Promise<{ status: number; ms: number }> {
  const form = new FormData();
  form.append('photos', new Blob([data], { type: 'image/jpeg' }), 'meal.jpg');
  const t0 = performance.now();
  const res = await fetch(`${base}/api/meals/analyze`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200 && res.status !== 429) {
    throw new Error(`analyze: ${res.status} ${text.slice(0, 300)}`);
  }
  return { status: res.status, ms };
}

/** Goal 1: analyze's own time beyond the model's, one 1 MB photo per call. */
async function overhead(base: string, token: string) {
  for (let i = 0; i < 3; i++) await analyze(base, token, photo(1_000_000 + i)); // warm-up
  const totals: number[] = [];
  const modelTimes: number[] = [];
  for (let i = 0; i < calls; i++) {
    fake.delay(modelMs);
    const r = await analyze(base, token, photo(i));
    if (r.status !== 200) throw new Error(`analyze answered ${r.status}`);
    const call = fake.requests.at(-1)!;
    totals.push(r.ms);
    modelTimes.push(call.answeredAt! - call.receivedAt);
  }
  // the model's own time: from its request arriving (the 1.4 MB JSON body still to read and parse)
  // to its answer sent, as a remote API's would be; MODEL_MS is the part it waits on purpose
  const over = totals.map((t, i) => t - modelTimes[i]);
  return {
    calls,
    photo_bytes: 1024 * 1024,
    model_ms: modelMs,
    model_own_p50_ms: percentile(modelTimes, 50),
    total_p50_ms: percentile(totals, 50),
    overhead_p50_ms: percentile(over, 50),
    overhead_p99_ms: percentile(over, 99),
    overhead_beyond_model_ms_p50_ms: percentile(
      totals.map((t) => t - modelMs),
      50,
    ),
  };
}

interface Figures {
  p50_ms: number;
  p99_ms: number;
  req_per_s: number;
  non_2xx: number;
}

async function load(opts: autocannon.Options): Promise<Figures> {
  const r = await autocannon({ connections, duration: seconds, ...opts });
  return {
    p50_ms: r.latency.p50,
    p99_ms: r.latency.p99,
    req_per_s: Math.round(r.requests.average),
    non_2xx: r.non2xx,
  };
}

/** Goal 2: a cached insight against GET /api/auth/me. */
async function cachedInsight(base: string, token: string) {
  const auth = { authorization: `Bearer ${token}` };
  fake.reply(INSIGHT);
  const first = await fetch(`${base}/api/meals/insight`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: INSIGHT_BODY,
  });
  if (first.status !== 200) throw new Error(`insight: ${first.status} ${await first.text()}`);
  const modelCalls = fake.requests.length;
  const targets = {
    insight: {
      url: `${base}/api/meals/insight`,
      method: 'POST' as const,
      headers: { ...auth, 'content-type': 'application/json' },
      body: INSIGHT_BODY,
    },
    me: { url: `${base}/api/auth/me`, headers: auth },
  };
  await load({ ...targets.insight, duration: 2 });
  await load({ ...targets.me, duration: 2 });
  const runs: Record<'insight' | 'me', Figures[]> = { insight: [], me: [] };
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? (['me', 'insight'] as const) : (['insight', 'me'] as const);
    for (const name of order) runs[name].push(await load(targets[name]));
  }
  const p50 = (name: 'insight' | 'me') => median(runs[name].map((r) => r.p50_ms));
  return {
    connections,
    duration_s: seconds,
    rounds,
    insight_p50_ms: p50('insight'),
    me_p50_ms: p50('me'),
    insight_req_per_s: median(runs.insight.map((r) => r.req_per_s)),
    me_req_per_s: median(runs.me.map((r) => r.req_per_s)),
    non_2xx: [...runs.insight, ...runs.me].reduce((n, r) => n + r.non_2xx, 0),
    model_calls_during_load: fake.requests.length - modelCalls,
    insight_over_me_p50: ratio(p50('insight'), p50('me')),
    by_round: runs.insight.map((r, i) => ratio(r.p50_ms, runs.me[i].p50_ms)),
  };
}

/** USD of the fake's answers to `requests` at the configured price (its usage is deterministic). */
function spentOn(requests: FakeOpenAIRequest[]): number {
  let usd = 0;
  for (const r of requests) {
    let chars = 0;
    let images = 0;
    for (const m of r.body?.messages ?? []) {
      const parts =
        typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : (m.content ?? []);
      for (const p of parts as { type: string; text?: string }[]) {
        if (p.type === 'text') chars += p.text?.length ?? 0;
        if (p.type === 'image_url') images += 1;
      }
    }
    const tokensIn = Math.ceil(chars / 4) + images * 85;
    const tokensOut = Math.ceil(JSON.stringify(ANSWER).length / 4);
    usd += Math.ceil(((tokensIn * PRICE.input + tokensOut * PRICE.output) / 1e6) * 1e6) / 1e6;
  }
  return Number(usd.toFixed(6));
}

/** Goal 3: RACE concurrent calls on a server with `env`; what was admitted and spent. */
async function race(env: Record<string, string>, email: string, seed: number) {
  const server = await startBenchServer({ ...ai, ...env });
  try {
    const token = await signUp(server.base, email);
    fake.reset();
    fake.setDefault(ANSWER);
    const results = await Promise.all(
      Array.from({ length: RACE }, (_, i) => analyze(server.base, token, photo(seed + i))),
    );
    const ok = results.filter((r) => r.status === 200).length;
    return {
      calls: RACE,
      ok,
      refused_429: results.filter((r) => r.status === 429).length,
      model_calls: fake.requests.length,
      spent_usd: spentOn(fake.requests),
    };
  } finally {
    await server.stop();
  }
}

/** Waits for the background catalogue import (the core bundle answers 503 until it is built). */
async function catalogueReady(base: string): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < 3000; i++) {
    const res = await fetch(`${base}/api/foods/core-bundle`);
    await res.arrayBuffer();
    if (res.status === 200) return Math.round(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the food catalogue was not imported in 10 minutes');
}

let main: BenchServer | null = null;
try {
  // with the shipped catalogue: matching searches a real catalogue
  main = await startBenchServer({ ...ai, FOODS_AUTOLOAD: 'auto' });
  const catalogueMs = await catalogueReady(main.base);
  const token = await signUp(main.base, 'bench@example.com');
  const analyzeFigures = await overhead(main.base, token);
  const insightFigures = await cachedInsight(main.base, token);
  await main.stop();
  main = null;
  const capRace = await race({ MEALS_ANALYZE_DAILY_CAP: String(RACE_CAP) }, 'cap@example.com', 2e6);
  const budgetRace = await race(
    { AI_DAILY_BUDGET_USD: String(RACE_BUDGET_USD) },
    'budget@example.com',
    3e6,
  );
  console.log(
    JSON.stringify({
      bench: 'ai',
      database: process.env.BENCH_DATABASE_URL ? 'postgresql' : 'pglite',
      catalogue_import_ms: catalogueMs,
      analyze: analyzeFigures,
      cached_insight: insightFigures,
      race_cap: { ...capRace, cap: RACE_CAP, held: capRace.model_calls <= RACE_CAP },
      race_budget: {
        ...budgetRace,
        budget_usd: RACE_BUDGET_USD,
        held: budgetRace.spent_usd <= RACE_BUDGET_USD,
      },
      goals: {
        analyze_overhead_p50_max_ms: 50,
        insight_over_me_p50_max: 1.5,
        met: {
          analyze_overhead: analyzeFigures.overhead_p50_ms <= 50,
          cached_insight: insightFigures.insight_over_me_p50 <= 1.5,
          race_cap: capRace.model_calls <= RACE_CAP,
          race_budget: budgetRace.spent_usd <= RACE_BUDGET_USD,
        },
      },
    }),
  );
} finally {
  await main?.stop();
  await fake.close();
}
