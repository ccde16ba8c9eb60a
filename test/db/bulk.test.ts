/**
 * Bulk writes in slices (src/db/bulk.ts): between slices they give way to requests in flight, up
 * to a limit, and never wait for the request that is writing them. A real express server counts
 * the requests; the order of events is checked, not timings.
 */
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { setImmediate as nextTurn } from 'node:timers/promises';
import express from 'express';
import { afterAll, describe, expect, it } from 'vitest';
import { trackRequests, writeInSlices } from '../../src/db/bulk.ts';

const NEVER = 600_000;
const events: string[] = [];
/** a bulk write of `n` rows in slices of 2 that records each slice */
const bulk = (n: number, maxYieldMs: number) =>
  writeInSlices(
    Array.from({ length: n }, (_, i) => i),
    2,
    (slice) => {
      events.push(`slice ${slice.join(',')}`);
      return Promise.resolve(slice.length);
    },
    { maxYieldMs },
  );

let release: () => void = () => {};
let arrived: () => void = () => {};
const app = express();
app.use(trackRequests);
app.get('/slow', (_req, res) => {
  arrived();
  release = () => void res.json({ ok: true });
});
app.get('/bulk', async (_req, res) => void res.json({ stored: await bulk(6, NEVER) }));
const server = app.listen(0, '127.0.0.1');
await once(server, 'listening');
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
afterAll(() => new Promise((r) => server.close(r)));

/** a request held open until release(); resolves once the server has it, with its answer to come */
async function slowRequest(): Promise<{ answer: Promise<Response> }> {
  const inFlight = new Promise<void>((r) => (arrived = r));
  const answer = fetch(`${base}/slow`);
  await inFlight;
  return { answer };
}

describe('writeInSlices', () => {
  it('writes no slice while another request is in flight, and every slice once it has finished', async () => {
    events.length = 0;
    const { answer } = await slowRequest();
    const writing = bulk(5, NEVER).then((stored) => events.push(`stored ${stored}`));
    for (let i = 0; i < 20; i++) await nextTurn();
    expect(events).toEqual([]);
    events.push('request done');
    release();
    await (await answer).json();
    await writing;
    expect(events).toEqual(['request done', 'slice 0,1', 'slice 2,3', 'slice 4', 'stored 5']);
  });

  it('still makes progress when requests keep it waiting past its limit', async () => {
    events.length = 0;
    const { answer } = await slowRequest();
    expect(await bulk(3, 0)).toBe(3);
    expect(events).toEqual(['slice 0,1', 'slice 2']);
    release();
    await (await answer).json();
  });

  it('does not wait for the request that is writing the slices', async () => {
    events.length = 0;
    const res = await fetch(`${base}/bulk`);
    expect(await res.json()).toEqual({ stored: 6 });
    expect(events).toEqual(['slice 0,1', 'slice 2,3', 'slice 4,5']);
  });
});
