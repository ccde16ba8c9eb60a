/**
 * Issue 30 item 5: the phone uploads the person's Apple Health export.zip
 * (POST /api/v1/health/archive/import, login session only); the file is streamed to disk, a
 * background job imports it, and the person and agents read the progress (REST, and the archive
 * coverage's latest_import over MCP). The export is the real healthkit-to-sqlite zip
 * (test/fixtures/apple_health); the hostile ones are that zip cut short, renamed inside or corrupted.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  archiveImportDir,
  archiveImportFile,
} from '../../src/domains/health/health.archive-upload.ts';
import {
  checkStaleArchiveImports,
  resumeArchiveImports,
  runArchiveImportJob,
} from '../../src/domains/health/health.archive-upload.worker.ts';
import { createLogger } from '../../src/base/logger.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startTestApp } from '../harness/app.ts';
import type { TestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { rawRequest } from '../harness/raw-http.ts';
import { clock } from '../../src/base/clock.ts';

/** Its own DATA_DIR, so the folder of uploads holds only this file's uploads. */
const dataDir = mkdtempSync(path.join(tmpdir(), 'hdp-archive-upload-'));
const MAX_BYTES = 64 * 1024;
const app = await startTestApp({ DATA_DIR: dataDir, HEALTH_ARCHIVE_MAX_BYTES: String(MAX_BYTES) });
const UPLOAD = '/api/v1/health/archive/import';
const EXPORT_ZIP = readFileSync(
  path.resolve('test/fixtures/apple_health/healthkit_to_sqlite_export.zip'),
);
/** Where export.xml's deflated bytes start in that zip (local header at 652, 30 + 30 name bytes). */
const XML_DATA_AT = 712;

/** The zip with 16 bytes of export.xml's deflated data flipped: a deflate error when read. */
function corruptedZip(): Buffer {
  const bytes = Buffer.from(EXPORT_ZIP);
  for (let k = 0; k < 16; k++) bytes[XML_DATA_AT + 100 + k] ^= 0x5a;
  return bytes;
}

/** The zip with export.xml renamed (same length) in its local header and its directory. */
function zipWithoutExportXml(): Buffer {
  const bytes = Buffer.from(EXPORT_ZIP);
  const from = Buffer.from('apple_health_export/export.xml');
  const to = Buffer.from('apple_health_export/exporx.xml');
  let found = 0;
  for (let at = bytes.indexOf(from); at !== -1; at = bytes.indexOf(from, at + 1)) {
    to.copy(bytes, at);
    found += 1;
  }
  expect(found).toBe(2); // the local header and the central directory
  return bytes;
}

interface UploadOptions {
  token?: string;
  bytes?: Buffer;
  fileName?: string;
  headers?: Record<string, string>;
}

/** POSTs a multipart form with `bytes` as its `file` part. */
async function upload(options: UploadOptions) {
  const form = new FormData();
  form.append(
    'file',
    new Blob([new Uint8Array(options.bytes ?? EXPORT_ZIP)], { type: 'application/zip' }),
    options.fileName ?? 'export.zip',
  );
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  const res = await app.fetch(UPLOAD, { method: 'POST', body: form, headers });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

/** Reads the import until it has ended (ready or failed). */
async function settled(token: string, id: string) {
  for (;;) {
    const res = await rest(app, 'GET', `/api/v1/health/archive/imports/${id}`, { token });
    expect(res.status).toBe(200);
    if (res.body.status === 'ready' || res.body.status === 'failed') return res.body;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The files in the folder of uploads (partial uploads and files of imports not yet ended). */
const uploadFiles = (a: TestApp = app): string[] => {
  const dir = archiveImportDir(a.config.DATA_DIR);
  return existsSync(dir) ? readdirSync(dir) : [];
};

/** Waits until the folder of uploads is empty (an abandoned upload is removed once noticed). */
async function noFilesLeft(): Promise<void> {
  while (uploadFiles().length > 0) await new Promise((r) => setTimeout(r, 20));
}

describe('POST /api/v1/health/archive/import', () => {
  it('imports an uploaded export.zip in the background; the archive reads and MCP tools then answer its data', async () => {
    const me = await seedUser(app);
    const res = await upload({ token: me.token });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({
      status: 'queued',
      file_name: 'export.zip',
      size_bytes: EXPORT_ZIP.length,
      records_read: 0,
      counts: null,
      error: null,
    });
    expect(res.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    const done = await settled(me.token, res.body.id);
    expect(done).toMatchObject({ status: 'ready', attempts: 1, error: null });
    // the importer's figures for this export (test/domains/health-archive.test.ts reads it directly)
    expect(done.counts).toMatchObject({
      health_metrics: 1,
      workout_samples: 1,
      archive_workouts: 1,
      archive_route_points: 3,
      missing_route_files: 0,
    });
    expect(done.records_read).toBeGreaterThan(0);
    expect(done.records_stored).toBeGreaterThan(0);
    expect(uploadFiles()).toEqual([]); // the file is deleted once imported

    const list = await rest(app, 'GET', '/api/v1/health/archive/imports', { token: me.token });
    expect(list.body.map((i: { id: string }) => i.id)).toEqual([res.body.id]);

    // agents: a personal token reads the archive, and the coverage names the latest import
    const pat = await seedPersonalToken(app, me.user.id, [
      'health:metrics:read',
      'health:workouts:read',
    ]);
    const client = await mcpClient(app, pat);
    const coverage = (await callTool(client, 'get_health_archive_coverage'))
      .structuredContent as any;
    expect(coverage.latest_import).toMatchObject({ id: res.body.id, status: 'ready' });
    expect(coverage.workouts.count).toBe(1);
    expect(coverage.route_points).toBe(3);
    expect(coverage.types.map((t: { type: string }) => t.type)).toContain(
      'HKQuantityTypeIdentifierHeartRate',
    );
    const workouts = (
      await callTool(client, 'health_archive_workouts', {
        start: '2016-11-01T00:00:00Z',
        end: '2016-12-01T00:00:00Z',
      })
    ).structuredContent as any;
    expect(workouts.items).toHaveLength(1);
    expect(workouts.items[0].activity_type).toBe('HKWorkoutActivityTypeRunning');
    expect(new Date(workouts.items[0].start_at).toISOString()).toBe('2016-11-14T14:25:41.000Z');
    const byRest = await rest(app, 'GET', '/api/v1/health/archive/imports/' + res.body.id, {
      token: pat,
    });
    expect(byRest.body).toMatchObject({ id: res.body.id, status: 'ready' });
  });

  it('answers the same import for the same file uploaded again, and for a retry with the same Idempotency-Key without reading the file', async () => {
    const me = await seedUser(app);
    const first = await upload({ token: me.token, headers: { 'idempotency-key': 'k-1' } });
    expect(first.status).toBe(202);
    await settled(me.token, first.body.id);
    const again = await upload({ token: me.token, fileName: 'renamed.zip' });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: first.body.id, status: 'ready', attempts: 1 });
    // the key names the upload: its retry is answered before the body is looked at
    const retry = await upload({
      token: me.token,
      bytes: Buffer.from('not the file'),
      headers: { 'idempotency-key': 'k-1' },
    });
    expect(retry.status).toBe(202);
    expect(retry.body.id).toBe(first.body.id);
    expect(await app.db.prisma.healthArchiveImport.count({ where: { userId: me.user.id } })).toBe(
      1,
    );
    // another person's identical file is their own import
    const other = await seedUser(app);
    const theirs = await upload({ token: other.token });
    expect(theirs.body.id).not.toBe(first.body.id);
    await settled(other.token, theirs.body.id);
    expect(uploadFiles()).toEqual([]);
  });

  it('refuses a personal token (403) and a missing credential (401) without keeping the file', async () => {
    const me = await seedUser(app);
    const pat = await seedPersonalToken(app, me.user.id, [
      'health:metrics:read',
      'health:workouts:read',
      'health:logs:write',
    ]);
    const byToken = await upload({ token: pat });
    expect(byToken.status).toBe(403);
    expect(byToken.body).toEqual({ detail: 'Not allowed for this kind of credential' });
    const anonymous = await upload({});
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ detail: 'Not authenticated' });
    expect(await app.db.prisma.healthArchiveImport.count({ where: { userId: me.user.id } })).toBe(
      0,
    );
    expect(uploadFiles()).toEqual([]);
  });

  it('answers 413 beyond HEALTH_ARCHIVE_MAX_BYTES and removes the partial file', async () => {
    const me = await seedUser(app);
    const big = Buffer.concat([EXPORT_ZIP, Buffer.alloc(MAX_BYTES)]);
    const res = await upload({ token: me.token, bytes: big });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      detail: `The file is larger than ${MAX_BYTES} bytes, the most an export.zip upload may have`,
    });
    expect(uploadFiles()).toEqual([]);
    // exactly the limit is taken (then refused as no zip: its end is not the zip's directory)
    const atLimit = await upload({
      token: me.token,
      bytes: Buffer.concat([Buffer.alloc(MAX_BYTES - EXPORT_ZIP.length), EXPORT_ZIP]),
    });
    expect(atLimit.status).toBe(422);
  });

  it('answers 422 for a file that is not a zip, a zip cut short and a zip without export.xml, keeping nothing', async () => {
    const me = await seedUser(app);
    const cases: [Buffer, string][] = [
      [Buffer.from('%PDF-1.7 this is not a zip'), 'The file is not a (complete) zip archive'],
      [EXPORT_ZIP.subarray(0, 1500), 'The file is not a (complete) zip archive'],
      [Buffer.alloc(0), 'The file is not a (complete) zip archive'],
      [zipWithoutExportXml(), 'The zip holds no export.xml'],
    ];
    for (const [bytes, msg] of cases) {
      const res = await upload({ token: me.token, bytes });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc).toEqual(['body', 'file']);
      expect(res.body.detail[0].msg).toContain(msg);
      expect(res.body.detail[0].msg).toContain('Export All Health Data');
    }
    const missing = await rest(app, 'POST', UPLOAD, { token: me.token, body: {} });
    expect(missing.status).toBe(422);
    expect(await app.db.prisma.healthArchiveImport.count({ where: { userId: me.user.id } })).toBe(
      0,
    );
    expect(uploadFiles()).toEqual([]);
  });

  it('fails the import of a zip whose export.xml cannot be read, with a reason saying what to do; the same file again is tried again', async () => {
    const me = await seedUser(app);
    const res = await upload({ token: me.token, bytes: corruptedZip() });
    expect(res.status).toBe(202);
    const failed = await settled(me.token, res.body.id);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(
      /^The export could not be read \(.+\)\. Export again on the iPhone .+ upload the new export\.zip/,
    );
    expect(failed.error).not.toContain(dataDir);
    expect(uploadFiles()).toEqual([]);
    const again = await upload({ token: me.token, bytes: corruptedZip() });
    expect(again.body).toMatchObject({ id: res.body.id, status: 'queued', error: null });
    expect((await settled(me.token, res.body.id)).attempts).toBe(1);
  });

  it('keeps nothing of an upload whose client goes away mid-body, or whose form ends before its boundary', async () => {
    const me = await seedUser(app);
    const boundary = 'x-archive-boundary';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="export.zip"\r\n` +
        'Content-Type: application/zip\r\n\r\n',
    );
    const headers = {
      authorization: `Bearer ${me.token}`,
      'content-type': `multipart/form-data; boundary=${boundary}`,
    };
    const aborted = await rawRequest(app.baseUrl, {
      method: 'POST',
      path: UPLOAD,
      headers,
      body: Buffer.concat([head, EXPORT_ZIP.subarray(0, 1000)]),
      abort: true,
    });
    expect(aborted.status).toBe(0);
    await noFilesLeft();
    // the whole body arrives, but the form never closes: the file part is cut short
    const cut = await rawRequest(app.baseUrl, {
      method: 'POST',
      path: UPLOAD,
      headers,
      body: Buffer.concat([head, EXPORT_ZIP]),
    });
    expect(cut.status).toBe(422);
    expect(JSON.parse(cut.body).detail[0].msg).toContain('ended before the whole file arrived');
    expect(await app.db.prisma.healthArchiveImport.count({ where: { userId: me.user.id } })).toBe(
      0,
    );
    expect(uploadFiles()).toEqual([]);
    // the server goes on serving
    const next = await upload({ token: me.token });
    expect(next.status).toBe(202);
    expect((await settled(me.token, next.body.id)).status).toBe('ready');
  });

  it('answers 429 after ARCHIVE_IMPORTS_PER_DAY (10) uploads of a person in a UTC day', async () => {
    const me = await seedUser(app);
    expect(app.config.ARCHIVE_IMPORTS_PER_DAY).toBe(10);
    for (let i = 0; i < app.config.ARCHIVE_IMPORTS_PER_DAY; i++) {
      expect((await upload({ token: me.token, bytes: Buffer.from(`not a zip ${i}`) })).status).toBe(
        422,
      );
    }
    const refused = await upload({ token: me.token });
    expect(refused.status).toBe(429);
    expect(refused.body.detail).toMatchObject({ code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(uploadFiles()).toEqual([]);
  });

  it("answers 404 for another person's import id and for an unknown one", async () => {
    const owner = await seedUser(app);
    const res = await upload({ token: owner.token });
    await settled(owner.token, res.body.id);
    const stranger = await seedUser(app);
    for (const id of [res.body.id, randomUUID()]) {
      const read = await rest(app, 'GET', `/api/v1/health/archive/imports/${id}`, {
        token: stranger.token,
      });
      expect(read.status).toBe(404);
      expect(read.body).toEqual({ detail: 'No health archive import with this id' });
    }
    const list = await rest(app, 'GET', '/api/v1/health/archive/imports', {
      token: stranger.token,
    });
    expect(list.body).toEqual([]);
  });

  it("refuses another file while one of the person's imports has not ended (409 naming it)", async () => {
    const me = await seedUser(app);
    const pending = await app.db.prisma.healthArchiveImport.create({
      data: {
        id: randomUUID(),
        userId: me.user.id,
        status: 'queued',
        sha256: 'f'.repeat(64),
        fileName: 'earlier.zip',
        sizeBytes: 1,
      },
    });
    const res = await upload({ token: me.token });
    expect(res.status).toBe(409);
    expect(res.body.detail).toMatchObject({
      code: 'import_in_progress',
      import_id: pending.id,
    });
    expect(uploadFiles()).toEqual([]);
    await app.db.prisma.healthArchiveImport.delete({ where: { id: pending.id } });
  });
});

describe('importHealthArchive through /graphql', () => {
  it('takes the file as a GraphQL multipart upload (in memory) and queues the same import', async () => {
    const me = await seedUser(app);
    const send = async (token: string) => {
      const form = new FormData();
      form.append(
        'operations',
        JSON.stringify({
          query: 'mutation($f: File!) { importHealthArchive(file: $f) { id status sha256 } }',
          variables: { f: null },
        }),
      );
      form.append('map', JSON.stringify({ 0: ['variables.f'] }));
      form.append('0', new Blob([new Uint8Array(EXPORT_ZIP)]), 'export.zip');
      const res = await app.fetch('/graphql', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
        body: form,
      });
      return res.json();
    };
    const body = await send(me.token);
    expect(body.errors).toBeUndefined();
    expect(body.data.importHealthArchive.status).toBe('queued');
    const done = await settled(me.token, body.data.importHealthArchive.id);
    expect(done.status).toBe('ready');
    // the REST upload of the same bytes answers this import
    expect((await upload({ token: me.token })).body.id).toBe(body.data.importHealthArchive.id);
    const pat = await seedPersonalToken(app, me.user.id, ['health:metrics:read']);
    expect((await send(pat)).errors[0].extensions.code).toBe('FORBIDDEN');
  });
});

describe('archive imports in the background', () => {
  /** The worker's parts, as the app registers them. */
  const deps = {
    prisma: app.db.prisma,
    db: app.db,
    config: app.config,
    log: createLogger('silent'),
    jobs: app.jobs,
    singleProcess: false,
  };

  /** An import of the fixture with its file in place (as an upload leaves it), not yet sent to the worker. */
  async function placed(userId: number, data: { status?: string; heartbeatAt?: Date } = {}) {
    const id = randomUUID();
    await mkdir(archiveImportDir(dataDir), { recursive: true });
    writeFileSync(archiveImportFile(dataDir, id)!, EXPORT_ZIP);
    await app.db.prisma.healthArchiveImport.create({
      data: {
        id,
        userId,
        attempts: data.status === 'running' ? 1 : 0,
        sha256: randomUUID().replace(/-/g, ''),
        fileName: 'export.zip',
        sizeBytes: EXPORT_ZIP.length,
        ...data,
      },
    });
    return id;
  }

  it('sets an import the stopping app interrupts back to queued, keeping its file, and the next start finishes it', async () => {
    const me = await seedUser(app);
    const id = await placed(me.user.id);
    // the app is stopping: the importer's next progress report ends it
    await runArchiveImportJob(deps, id, AbortSignal.abort());
    const stopped = await app.db.prisma.healthArchiveImport.findUniqueOrThrow({ where: { id } });
    expect(stopped).toMatchObject({
      status: 'queued',
      attempts: 1,
      error: null,
      heartbeatAt: null,
    });
    expect(uploadFiles()).toEqual([`${id}.zip`]);
    await resumeArchiveImports(deps);
    const done = await settled(me.token, id);
    expect(done).toMatchObject({ status: 'ready', attempts: 2 });
    expect(uploadFiles()).toEqual([]);
  });

  it('queues again and finishes an import a dead process left running', async () => {
    const me = await seedUser(app);
    const id = await placed(me.user.id, {
      status: 'running',
      heartbeatAt: new Date(clock.ms() - 3_600_000),
    });
    expect(await checkStaleArchiveImports(deps, clock.now())).toBe(1);
    const done = await settled(me.token, id);
    expect(done).toMatchObject({ status: 'ready', attempts: 2 });
    expect(done.counts.archive_workouts).toBe(1);
    expect(uploadFiles()).toEqual([]);
  });

  it('removes the imports and the uploaded files with the account', async () => {
    const me = await seedUser(app);
    // queued but not sent to the worker: its file is there when the account goes
    await placed(me.user.id);
    expect((await rest(app, 'DELETE', '/api/auth/me', { token: me.token })).status).toBe(200);
    expect(await app.db.prisma.healthArchiveImport.count({ where: { userId: me.user.id } })).toBe(
      0,
    );
    expect(uploadFiles()).toEqual([]);
  });
});
