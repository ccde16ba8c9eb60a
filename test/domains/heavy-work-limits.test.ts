/**
 * Issue 45: uploads and heavy reads are rate-limited per person, on every door, with 429 and
 * Retry-After: genome uploads (DNA_UPLOADS_PER_DAY), blood report reads (LAB_PARSES_PER_HOUR),
 * Apple Health archive uploads (ARCHIVE_IMPORTS_PER_DAY) and discovery run starts
 * (DISCOVERY_RUNS_PER_DAY, counted apart from the runs kept, which each start prunes). The first
 * three are set low here; discovery keeps its documented 20. Refused files count too: the work of
 * reading them is what the limit bounds.
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { gql, rest } from '../harness/clients.ts';
import type { JsonResponse } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp({
  DNA_UPLOADS_PER_DAY: '2',
  LAB_PARSES_PER_HOUR: '2',
  ARCHIVE_IMPORTS_PER_DAY: '2',
});
const DAY_SECONDS = 86_400;

/** POSTs `bytes` as the multipart `file` part to `path` with the person's login session. */
async function uploadTo(path: string, person: SeededUser, bytes: string): Promise<JsonResponse> {
  const form = new FormData();
  form.append('file', new Blob([bytes]), 'file.bin');
  const res = await app.fetch(path, {
    method: 'POST',
    headers: { authorization: `Bearer ${person.token}` },
    body: form,
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** The REST refusal of a spent limit: 429 rate_limited, Retry-After within the window. */
function expectRateLimited(res: JsonResponse, windowSeconds: number): void {
  expect(res.status, JSON.stringify(res.body)).toBe(429);
  expect(res.body.detail).toEqual({ code: 'rate_limited' });
  const retryAfter = Number(res.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describe('genome uploads (DNA_UPLOADS_PER_DAY)', () => {
  it('answers the third upload of a UTC day 429 with Retry-After, on REST and GraphQL', async () => {
    const me = await seedUser(app);
    for (let i = 0; i < 2; i++) {
      const res = await uploadTo('/api/v1/dna/upload', me, `not a genome ${i}`);
      expect(res.status, `upload ${i + 1}`).toBe(422);
    }
    expectRateLimited(await uploadTo('/api/v1/dna/upload', me, 'not a genome'), DAY_SECONDS);
    const form = new FormData();
    form.append(
      'operations',
      JSON.stringify({
        query: 'mutation ($file: File!) { uploadGenome(file: $file) { vendor } }',
        variables: { file: null },
      }),
    );
    form.append('map', JSON.stringify({ 0: ['variables.file'] }));
    form.append('0', new Blob(['not a genome']), 'genome.txt');
    const byGql = await app.fetch('/graphql', {
      method: 'POST',
      headers: { authorization: `Bearer ${me.token}` },
      body: form,
    });
    expect((await byGql.json()).errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      detail: { code: 'rate_limited' },
    });
    // another person's uploads are their own
    const other = await seedUser(app);
    expect((await uploadTo('/api/v1/dna/upload', other, 'not a genome')).status).toBe(422);
  });
});

describe('blood report reads (LAB_PARSES_PER_HOUR)', () => {
  it('counts REST, MCP and GraphQL reads together: the third in an hour is 429 with Retry-After', async () => {
    const me = await seedUser(app);
    const pat = await seedPersonalToken(app, me.user.id, ['health:labs:write']);
    const file = Buffer.from('not a report').toString('base64');
    const byRest = await rest(app, 'POST', '/api/v1/labs/parse', {
      token: me.token,
      body: { file },
    });
    expect(byRest.status).toBe(422);
    const client = await mcpClient(app, pat);
    const byMcp = await callTool(client, 'blood_report_parse_inline', { file });
    expect((byMcp.structuredContent as any).error.code).toBe('VALIDATION_FAILED');

    const third = await gql(
      app,
      'mutation ($file: String!) { parseBloodReport(file: $file) { source } }',
      { token: me.token, variables: { file } },
    );
    expect(third.body.errors[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      detail: { code: 'rate_limited' },
    });
    const refusedByMcp = await callTool(client, 'blood_report_parse_inline', { file });
    expect((refusedByMcp.structuredContent as any).error).toMatchObject({
      code: 'RATE_LIMITED',
      retry_after: expect.any(Number),
    });
    expectRateLimited(
      await rest(app, 'POST', '/api/v1/labs/parse', { token: me.token, body: { file } }),
      3600,
    );
  });
});

describe('Apple Health archive uploads (ARCHIVE_IMPORTS_PER_DAY)', () => {
  it('answers the third upload of a UTC day 429 with Retry-After', async () => {
    const me = await seedUser(app);
    for (let i = 0; i < 2; i++) {
      const res = await uploadTo('/api/v1/health/archive/import', me, `not a zip ${i}`);
      expect(res.status, `upload ${i + 1}`).toBe(422);
    }
    expectRateLimited(
      await uploadTo('/api/v1/health/archive/import', me, 'not a zip'),
      DAY_SECONDS,
    );
  });
});

describe('discovery run starts (DISCOVERY_RUNS_PER_DAY)', () => {
  it('refuses the 21st start of a UTC day (429 with retry_after) although only 10 runs are kept', async () => {
    const me = await seedUser(app);
    const pat = await seedPersonalToken(app, me.user.id, ['discovery:read', 'discovery:write']);
    const client = await mcpClient(app, pat);
    let seq = 0;
    const start = () =>
      callTool(client, 'discovery_run_start', { idempotency_key: `limit-${clock.ms()}-${++seq}` });
    const perDay = app.config.DISCOVERY_RUNS_PER_DAY;
    expect(perDay).toBe(20);
    for (let i = 0; i < perDay; i++) {
      const started = await start();
      expect(started.isError, `start ${i + 1}`).toBeFalsy();
      // the run ends (as the worker would end it) so that the next start is no 409
      await app.db.prisma.discoveryRun.updateMany({
        where: { id: (started.structuredContent as any).id, status: { in: ['queued', 'running'] } },
        data: { status: 'done', finishedAt: clock.now() },
      });
    }
    // every start pruned the older runs: a count of the rows kept would allow ten more
    const kept = () => app.db.prisma.discoveryRun.count({ where: { userId: me.user.id } });
    expect(await kept()).toBe(10);
    const refused = ((await start()).structuredContent as any).error;
    expect(refused).toMatchObject({
      code: 'RATE_LIMITED',
      message: expect.stringMatching(/^At most 20 discovery runs a day: read the latest findings/),
      detail: { code: 'rate_limited' },
    });
    expect(refused.retry_after).toBeGreaterThan(0);
    expect(refused.retry_after).toBeLessThanOrEqual(DAY_SECONDS);
    expect(await kept()).toBe(10);
  });
});
