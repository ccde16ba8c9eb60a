/**
 * Snoring (issue 16): nights pushed by the phone through sync, read and deleted through MCP
 * (snore_nights_list, snore_night_read, snore_night_delete) and /api/v1/health/snoring, and their
 * audio clips: multipart upload, snore_audio_read in base64 parts, owner only, removed with the night.
 */
import { describe, expect, it } from 'vitest';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import type { SeededUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { dateOf, dayAt, rand } from './goals.helpers.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const READ = ['health:sleep:read'] as const;

/** A WAV file of `bytes` bytes (RIFF header, then silence). */
function wav(bytes: number): Uint8Array<ArrayBuffer> {
  const b = Buffer.alloc(bytes);
  b.write('RIFF', 0);
  b.writeUInt32LE(bytes - 8, 4);
  b.write('WAVE', 8);
  b.write('fmt ', 12);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(8000, 24);
  b.writeUInt32LE(16000, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36);
  b.writeUInt32LE(bytes - 44, 40);
  for (let i = 44; i < bytes; i++) b[i] = i % 251;
  return new Uint8Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** The phone pushes nights ending `daysAgo` days before today at 06:00 UTC. */
async function pushNights(u: SeededUser, daysAgo: number[]): Promise<string[]> {
  const created = daysAgo.map((d) => ({
    id: rand(),
    started_at: dayAt(-d - 1, 23).getTime(),
    ended_at: dayAt(-d, 6).getTime(),
    snoring_minutes: 40 + d,
    snoring_percent: 9.5,
    loudness_mean_db: 41,
    loudness_max_db: 63,
    episodes: 12,
    source: 'SnoreApp',
  }));
  const res = await rest(app, 'POST', '/api/sync/push', {
    token: u.token,
    body: {
      changes: { snore_nights: { created, updated: [], deleted: [] } },
      last_pulled_at: null,
    },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return created.map((c) => c.id);
}

function upload(token: string, nightId: string, data: Uint8Array<ArrayBuffer>, type = 'audio/wav') {
  const form = new FormData();
  form.append('file', new Blob([data], { type }), 'clip.wav');
  return app.fetch(`/api/v1/health/snoring/${nightId}/audio`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
}

describe('snore_nights_list and snore_night_read', () => {
  it('lists the nights a page at a time, newest first, dated by the morning they end', async () => {
    const u = await seedUser(app);
    const [today, yesterday, before] = await pushNights(u, [0, 1, 2]);
    const client = await mcpClient(app, await seedPersonalToken(app, u.user.id, [...READ]));
    const first = (await callTool(client, 'snore_nights_list', { limit: 2 }))
      .structuredContent as any;
    expect(first.items.map((n: any) => n.id)).toEqual([today, yesterday]);
    expect(first.items[0]).toMatchObject({
      night_date: dateOf(0),
      snoring_minutes: 40,
      loudness_max_db: 63,
      episodes: 12,
      clips: [],
    });
    expect(first.next_cursor).toBeTruthy();
    const second = (
      await callTool(client, 'snore_nights_list', { limit: 2, cursor: first.next_cursor })
    ).structuredContent as any;
    expect(second.items.map((n: any) => n.id)).toEqual([before]);
    expect(second.next_cursor ?? null).toBeNull();
    const ranged = await rest(
      app,
      'GET',
      `/api/v1/health/snoring?from=${dateOf(-1)}&to=${dateOf(-1)}`,
      {
        token: u.token,
      },
    );
    expect(ranged.status).toBe(200);
    expect(ranged.body.items.map((n: any) => n.id)).toEqual([yesterday]);
    const one = await rest(app, 'GET', `/api/v1/health/snoring/${before}`, { token: u.token });
    expect(one.body).toMatchObject({ id: before, night_date: dateOf(-2), snoring_minutes: 42 });
    const viaMcp = await callTool(client, 'snore_night_read', { id: today });
    expect((viaMcp.structuredContent as any).id).toBe(today);
  });

  it("answers 404 for another person's night and refuses bad bounds (422)", async () => {
    const owner = await seedUser(app);
    const [night] = await pushNights(owner, [0]);
    const other = await seedUser(app);
    expect(
      (await rest(app, 'GET', `/api/v1/health/snoring/${night}`, { token: other.token })).status,
    ).toBe(404);
    const client = await mcpClient(app, await seedPersonalToken(app, other.user.id, [...READ]));
    expect((await callTool(client, 'snore_night_read', { id: night })).isError).toBe(true);
    const list = await rest(app, 'GET', '/api/v1/health/snoring', { token: other.token });
    expect(list.body.items).toEqual([]);
    for (const q of [
      'limit=101',
      'days=400',
      `from=${dateOf(0)}&to=${dateOf(-1)}`,
      'from=2026-02-30',
      'cursor=nope',
    ]) {
      expect(
        (await rest(app, 'GET', `/api/v1/health/snoring?${q}`, { token: owner.token })).status,
      ).toBe(422);
    }
    const long = 'x'.repeat(65);
    expect(
      (await rest(app, 'GET', `/api/v1/health/snoring/${long}`, { token: owner.token })).status,
    ).toBe(422);
  });

  it('needs health:sleep:read to read and health:logs:write to delete', async () => {
    const u = await seedUser(app);
    const [night] = await pushNights(u, [0]);
    const summary = await seedPersonalToken(app, u.user.id, ['health:summary:read']);
    expect((await rest(app, 'GET', '/api/v1/health/snoring', { token: summary })).status).toBe(403);
    const reader = await seedPersonalToken(app, u.user.id, [...READ]);
    expect(
      (await rest(app, 'DELETE', `/api/v1/health/snoring/${night}`, { token: reader })).status,
    ).toBe(403);
    const client = await mcpClient(app, reader);
    const del = await callTool(client, 'snore_night_delete', { id: night, confirm: true });
    expect(del.isError).toBe(true);
    expect(
      (await rest(app, 'GET', `/api/v1/health/snoring/${night}`, { token: u.token })).status,
    ).toBe(200);
  });
});

describe('snoring audio clips', () => {
  it('stores an uploaded clip and reads it back in base64 parts, owner only', async () => {
    const u = await seedUser(app);
    const [night] = await pushNights(u, [0]);
    const clip = wav(100_000);
    const up = await upload(u.token, night, clip);
    expect(up.status).toBe(201);
    const stored = await up.json();
    expect(stored).toMatchObject({ night_id: night, mime_type: 'audio/wav', bytes: 100_000 });
    expect(stored.key).toMatch(/^snoring\//);
    // private: the public media route never serves the folder
    expect((await app.fetch(`/media/${stored.key}`)).status).toBe(404);

    const client = await mcpClient(app, await seedPersonalToken(app, u.user.id, [...READ]));
    const first = (await callTool(client, 'snore_audio_read', { night_id: night }))
      .structuredContent as any;
    expect(first).toMatchObject({
      clip: 0,
      clips: 1,
      bytes: 100_000,
      offset: 0,
      next_offset: 60_000,
    });
    const rest2 = await rest(app, 'GET', `/api/v1/health/snoring/${night}/audio?offset=60000`, {
      token: u.token,
    });
    expect(rest2.body.next_offset).toBeNull();
    const joined = Buffer.concat([
      Buffer.from(first.data, 'base64'),
      Buffer.from(rest2.body.data, 'base64'),
    ]);
    expect(joined.equals(Buffer.from(clip))).toBe(true);
    const shown = await rest(app, 'GET', `/api/v1/health/snoring/${night}`, { token: u.token });
    expect(shown.body.clips).toEqual([
      expect.objectContaining({ key: stored.key, bytes: 100_000 }),
    ]);

    const other = await seedUser(app);
    const theirs = await mcpClient(app, await seedPersonalToken(app, other.user.id, [...READ]));
    expect((await callTool(theirs, 'snore_audio_read', { night_id: night })).isError).toBe(true);
    expect(
      (await rest(app, 'GET', `/api/v1/health/snoring/${night}/audio`, { token: other.token }))
        .status,
    ).toBe(404);
    expect((await upload(other.token, night, wav(2000))).status).toBe(404);
  });

  it('refuses a file that is not audio (422), a clip index out of range and an offset past the end', async () => {
    const u = await seedUser(app);
    const [night] = await pushNights(u, [0]);
    expect(
      (await upload(u.token, night, new TextEncoder().encode('not audio at all'), 'audio/wav'))
        .status,
    ).toBe(422);
    expect(
      (await rest(app, 'GET', `/api/v1/health/snoring/${night}/audio`, { token: u.token })).status,
    ).toBe(404);
    expect((await upload(u.token, night, wav(1000))).status).toBe(201);
    expect(
      (await rest(app, 'GET', `/api/v1/health/snoring/${night}/audio?clip=1`, { token: u.token }))
        .status,
    ).toBe(422);
    expect(
      (
        await rest(app, 'GET', `/api/v1/health/snoring/${night}/audio?offset=5000`, {
          token: u.token,
        })
      ).status,
    ).toBe(422);
    expect(
      (await rest(app, 'GET', `/api/v1/health/snoring/${night}/audio?clip=-1`, { token: u.token }))
        .status,
    ).toBe(422);
  });
});

describe('snore_night_delete', () => {
  it('asks for confirmation, tombstones the night and removes its clips and files', async () => {
    const u = await seedUser(app);
    const [night] = await pushNights(u, [0]);
    const up = await (await upload(u.token, night, wav(3000))).json();
    const client = await mcpClient(
      app,
      await seedPersonalToken(app, u.user.id, ['health:sleep:read', 'health:logs:write']),
    );
    expect((await callTool(client, 'snore_night_delete', { id: night })).isError).toBe(true);
    const del = await callTool(client, 'snore_night_delete', { id: night, confirm: true });
    expect(del.structuredContent).toMatchObject({ id: night, deleted: true, clips_removed: 1 });
    const row = await app.db.prisma.snoreNight.findUniqueOrThrow({ where: { id: night } });
    expect(row.deletedAt).not.toBeNull();
    expect(await app.db.prisma.snoreAudioClip.count({ where: { nightId: night } })).toBe(0);
    expect(await app.deps.storage.get(up.key)).toBeNull();
    expect(
      (await rest(app, 'GET', `/api/v1/health/snoring/${night}`, { token: u.token })).status,
    ).toBe(404);
    expect(
      (await rest(app, 'DELETE', `/api/v1/health/snoring/${night}`, { token: u.token })).status,
    ).toBe(404);
  });

  it("answers 404 for another person's night and leaves it", async () => {
    const owner = await seedUser(app);
    const [night] = await pushNights(owner, [0]);
    const other = await seedUser(app);
    expect(
      (await rest(app, 'DELETE', `/api/v1/health/snoring/${night}`, { token: other.token })).status,
    ).toBe(404);
    expect(
      (await rest(app, 'GET', `/api/v1/health/snoring/${night}`, { token: owner.token })).status,
    ).toBe(200);
  });
});

describe('a night deleted through sync', () => {
  /** The phone deletes nights through a WatermelonDB push (a tombstone, nothing else). */
  async function pushDeletes(u: SeededUser, ids: string[]): Promise<void> {
    const res = await rest(app, 'POST', '/api/sync/push', {
      token: u.token,
      body: {
        changes: { snore_nights: { created: [], updated: [], deleted: ids } },
        last_pulled_at: clock.ms(),
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  }
  const clipCount = (nightId: string) => app.db.prisma.snoreAudioClip.count({ where: { nightId } });

  it('loses its clips and files as the push commits; other nights and people keep theirs', async () => {
    const u = await seedUser(app);
    const [gone, kept] = await pushNights(u, [1, 0]);
    const goneClips = [
      await (await upload(u.token, gone, wav(2000))).json(),
      await (await upload(u.token, gone, wav(3000))).json(),
    ];
    const keptClip = await (await upload(u.token, kept, wav(2500))).json();
    const other = await seedUser(app);
    const [othersNight] = await pushNights(other, [1]);
    const othersClip = await (await upload(other.token, othersNight, wav(2000))).json();

    await pushDeletes(u, [gone]);
    // no read in between: the push itself removed the rows and the files
    expect(await clipCount(gone)).toBe(0);
    for (const clip of goneClips) expect(await app.deps.storage.get(clip.key)).toBeNull();
    expect(await clipCount(kept)).toBe(1);
    expect(await app.deps.storage.get(keptClip.key)).not.toBeNull();
    expect(await clipCount(othersNight)).toBe(1);
    expect(await app.deps.storage.get(othersClip.key)).not.toBeNull();
    // deleting it again (a retried push) finds no live night and removes nothing more
    await pushDeletes(u, [gone]);
    expect(await app.deps.storage.get(keptClip.key)).not.toBeNull();
  });

  it('keeps them when the push does not commit (a conflict later in the same push)', async () => {
    const u = await seedUser(app);
    const [night] = await pushNights(u, [1]);
    const clip = await (await upload(u.token, night, wav(2000))).json();
    const journal = { id: rand(), body: 'slept badly', happened_at: clock.ms() };
    const push = (changes: object, lastPulledAt: number | null) =>
      rest(app, 'POST', '/api/sync/push', {
        token: u.token,
        body: { changes, last_pulled_at: lastPulledAt },
      });
    const none = { created: [], updated: [], deleted: [] };
    expect((await push({ journal_entries: { ...none, created: [journal] } }, null)).status).toBe(
      200,
    );
    const pulledAt = clock.ms();
    // another device changes the journal entry after this phone's last pull
    await new Promise((r) => setTimeout(r, 5));
    const later = { journal_entries: { ...none, updated: [{ ...journal, body: 'slept well' }] } };
    expect((await push(later, clock.ms())).status).toBe(200);

    const res = await push(
      {
        snore_nights: { ...none, deleted: [night] },
        journal_entries: { ...none, updated: [{ ...journal, body: 'stale' }] },
      },
      pulledAt,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(409);
    const row = await app.db.prisma.snoreNight.findUniqueOrThrow({ where: { id: night } });
    expect(row.deletedAt).toBeNull();
    expect(await clipCount(night)).toBe(1);
    expect(await app.deps.storage.get(clip.key)).not.toBeNull();
  });
});
