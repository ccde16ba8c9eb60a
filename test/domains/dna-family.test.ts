/**
 * Issue 35 through the real MCP and REST doors: relatives, ancestry, deep time, runs of
 * homozygosity, painting and the story. Simulated people (test/fixtures/dna/relatives.ts, a
 * 150,000-marker panel built once) are uploaded as 23andMe files (relatives-file.ts); invitation
 * emails are read from a real SMTP server.
 *
 * Two people go from invitation to comparison to removal; the insights hint at stretches two
 * relatives share; a foreign link id answers 404 on every tool and route; an invitation never
 * tells whether an address has an account, and at most ten go out a day; nothing is compared
 * before acceptance or without both genomes; ancestry is compared only where both share it; the
 * ancestry job estimates from the ancestry-informative SNPs or refuses without them; the paternal
 * line needs Y data and over OAuth the maternal line carries no variant; runs of homozygosity are
 * worded as no diagnosis; the story tells medicines only when picked; the scopes and view-as hold;
 * deleting DNA data ends the links and a new upload makes the comparison again from the new file.
 */
import { describe, expect, it } from 'vitest';
import type { Scope } from '../../src/auth/scopes.ts';
import { DNA_NOT_SHARED } from '../../src/domains/dna/dna.access.ts';
import { MAX_DNA_INVITATIONS_PER_DAY } from '../../src/domains/dna/dna.family.ts';
import { geneticMap } from '../../src/domains/dna/dna.genetic-map.ts';
import { DEFAULT_CALLS, generateGenome } from '../fixtures/dna/generate.ts';
import {
  child,
  childOfFirstCousins,
  founder,
  genomeOf,
  makePanel,
  rng,
  simulatePair,
} from '../fixtures/dna/relatives.ts';
import type { SimulatedRelation } from '../fixtures/dna/relatives.ts';
import {
  europeanAisnps,
  mtLines,
  rawFile,
  sexLines,
  yBackboneLines,
} from '../fixtures/dna/relatives-file.ts';
import type { RawLine } from '../fixtures/dna/relatives-file.ts';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedActiveGrant, switchViewAs } from '../factories/sharing.ts';
import { seedPersonalToken, seedUser } from '../factories/users.ts';
import { startFakeSmtp } from '../fakes/smtp.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const smtp = await startFakeSmtp();
const app = await startTestApp({ SMTP_URL: smtp.url });
const DNA: Scope[] = ['health:dna:read', 'health:dna:write'];
/** Comparing two 150,000-marker uploads takes about a second on the embedded database. */
const SLOW = 120_000;

const panel = makePanel(geneticMap('GRCh37'), { markers: 150_000, seed: 35 });
const random = rng(3535);

/** Two simulated people of `relation` as raw files (with extra lines each). */
function pairFiles(relation: SimulatedRelation, extra: [RawLine[], RawLine[]] = [[], []]) {
  const [x, y] = simulatePair(panel, relation, random);
  return [
    rawFile(genomeOf(panel, x, random), extra[0]),
    rawFile(genomeOf(panel, y, random), extra[1]),
  ];
}
/** An unrelated simulated person's raw file. */
const founderFile = (extra: RawLine[] = []): Buffer =>
  rawFile(genomeOf(panel, founder(panel, random), random), extra);
/** A small generated genome (5,000 markers, a woman's, no ancestry-informative SNP). */
const smallFile = (): Buffer =>
  generateGenome({ vendor: '23andme', calls: DEFAULT_CALLS, compression: 'gzip' });

async function upload(token: string, bytes: Buffer): Promise<any> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), 'genome.txt.gz');
  const res = await app.fetch('/api/v1/dna/upload', {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${token}` },
  });
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

interface PersonOptions {
  name?: string;
  email?: string;
  file?: Buffer | null;
  scopes?: Scope[];
}

/** A person (a phone login, a personal token's MCP client) with an uploaded file or none. */
async function person(options: PersonOptions = {}) {
  const me = await seedUser(app, { name: options.name, email: options.email });
  if (options.file) await upload(me.token, options.file);
  const pat = await seedPersonalToken(app, me.user.id, options.scopes ?? DNA);
  return {
    seeded: me,
    id: me.user.id,
    email: me.user.email,
    token: me.token,
    pat,
    client: await mcpClient(app, pat),
  };
}
type Person = Awaited<ReturnType<typeof person>>;

const sc = (r: any): any => r.structuredContent;
const errorOf = (r: any): any => (r.isError ? sc(r).error : undefined);
const call = async (p: Person, tool: string, args: Record<string, unknown> = {}) => {
  const result = await callTool(p.client, tool, args);
  expect(result.isError, `${tool}: ${JSON.stringify(sc(result))}`).toBeFalsy();
  return sc(result);
};
let keys = 0;
const idempotencyKey = () => `dna-family-${clock.ms()}-${++keys}`;

const invite = (from: Person, email: string, extra: Record<string, unknown> = {}) =>
  call(from, 'dna_family_invite', { email, confirm: true, ...extra });
const accept = (p: Person, id: string, extra: Record<string, unknown> = {}) =>
  call(p, 'dna_family_accept', { id, confirm: true, ...extra });
const list = async (p: Person): Promise<any[]> => (await call(p, 'dna_family_list')).items;

/** `a` invites `b`, who accepts: the link id. */
async function linked(a: Person, b: Person): Promise<string> {
  const { id } = await invite(a, b.email);
  await accept(b, id);
  return id;
}

/** The ancestry report read until done or failed (the worker runs in this process). */
async function ancestryFinished(p: Person): Promise<any> {
  for (let i = 0; i < 400; i++) {
    const body = await call(p, 'dna_ancestry_read');
    if (body.report?.status === 'done' || body.report?.status === 'failed') return body;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('the ancestry report was not made');
}

describe('two relatives from invitation to comparison to removal', () => {
  it(
    'invites by email, accepts, compares a parent and child from both sides, paints, and removes',
    async () => {
      const [fileA, fileB] = pairFiles('parent_child');
      const a = await person({ name: 'Ann Parent', file: fileA });
      const b = await person({ name: 'Ben Child', file: fileB });

      const since = smtp.messages.length;
      const invited = await invite(a, b.email);
      expect(invited).toMatchObject({
        role: 'inviter',
        status: 'pending',
        email: b.email,
        name: null,
      });
      const id: string = invited.id;
      // the email goes to B, names A and the invitation, and tells no DNA result
      const mail = await smtp.waitFor(b.email, { since });
      expect(mail.subject).toContain('Ann Parent');
      expect(mail.text).toContain(a.email);
      expect(mail.text).toContain(`invitation ${id}`);
      expect(mail.text).not.toMatch(/\bcM\b|parent_child/);

      // B sees it pending, as the invitee, with A's address; nothing is compared yet
      expect(await list(b)).toEqual([
        expect.objectContaining({
          id,
          role: 'invitee',
          status: 'pending',
          email: a.email,
          name: 'Ann Parent',
        }),
      ]);
      expect((await call(b, 'dna_family_read', { id })).status).toBe('not_accepted');
      const accepted = await accept(b, id);
      expect(accepted).toMatchObject({ id, role: 'invitee', status: 'accepted' });
      expect(accepted.accepted_at).not.toBeNull();

      const fromA = await call(a, 'dna_family_read', { id });
      expect(fromA.status).toBe('compared');
      expect(fromA.relative).toMatchObject({ role: 'inviter', name: 'Ben Child', email: b.email });
      expect(fromA.comparison.degrees).toContain('parent_child');
      expect(fromA.comparison.shared_cm).toBeGreaterThan(3000);
      expect(fromA.comparison.markers.compared).toBeGreaterThanOrEqual(100_000);
      // the comparison is kept sealed: no finding in the clear
      const row = await app.db.prisma.dnaRelative.findUniqueOrThrow({ where: { id } });
      expect(row.comparedFor).not.toBeNull();
      expect(Buffer.from(row.comparison!).includes(Buffer.from('parent_child'))).toBe(false);

      const fromB = await call(b, 'dna_family_read', { id });
      expect(fromB.status).toBe('compared');
      expect(fromB.relative).toMatchObject({ role: 'invitee', email: a.email });
      expect(fromB.comparison.degrees).toContain('parent_child');
      expect(fromB.comparison.shared_cm).toBe(fromA.comparison.shared_cm);
      const byRest = await rest(app, 'GET', `/api/v1/dna/family/${id}`, { token: b.token });
      expect(byRest.status).toBe(200);
      expect(byRest.body.comparison.shared_cm).toBe(fromA.comparison.shared_cm);

      const insights = await call(a, 'dna_family_insights');
      expect(insights.relatives).toEqual([
        expect.objectContaining({ id, email: b.email, status: 'compared' }),
      ]);
      expect(insights.relatives[0].degrees).toContain('parent_child');
      expect(insights.pending).toBe(0);
      expect(insights.insights.join(' ')).toContain(b.email);
      const insightsRest = await rest(app, 'GET', '/api/v1/dna/family/insights', {
        token: a.token,
      });
      expect(insightsRest.status).toBe(200);
      expect(insightsRest.body.relatives[0].id).toBe(id);

      const painting = await call(a, 'dna_painting_read');
      expect(painting.chromosomes).toHaveLength(22);
      expect(painting.relatives).toEqual([expect.objectContaining({ id, email: b.email })]);
      const drawn = painting.chromosomes.map((c: any) =>
        c.relatives.find((r: any) => r.relative === id),
      );
      expect(drawn.every(Boolean)).toBe(true);
      const segments = drawn.flatMap((r: any) => r.half_identical);
      expect(segments.length).toBeGreaterThan(22);
      expect(segments.every((s: any) => s.length_cm >= 7 && s.end > s.start)).toBe(true);
      expect(painting.ancestry_painting.available).toBe(false);
      expect((await rest(app, 'GET', '/api/v1/dna/painting', { token: a.token })).status).toBe(200);

      const findings = await call(a, 'dna_painting_findings_read');
      expect(findings.findings.some((f: string) => f.includes(b.email))).toBe(true);
      const findingsRest = await rest(app, 'GET', '/api/v1/dna/painting/findings', {
        token: b.token,
      });
      expect(findingsRest.body.findings.some((f: string) => f.includes(a.email))).toBe(true);

      // A ends it: both lists are empty, the row is gone, and B's read answers 404
      const removed = await call(a, 'dna_family_remove', { id, confirm: true });
      expect(removed.removed).toBe(true);
      expect(await list(a)).toEqual([]);
      expect(await list(b)).toEqual([]);
      expect(await app.db.prisma.dnaRelative.count({ where: { id } })).toBe(0);
      expect(errorOf(await callTool(b.client, 'dna_family_read', { id }))?.code).toBe('NOT_FOUND');
      expect(
        errorOf(await callTool(a.client, 'dna_family_remove', { id, confirm: true }))?.code,
      ).toBe('NOT_FOUND');
      expect((await call(a, 'dna_painting_read')).relatives).toEqual([]);
    },
    SLOW,
  );
});

describe('family insights', () => {
  it(
    'hints where two relatives share the same stretch with you, closest first, never one label',
    async () => {
      const parent = founder(panel, random);
      const kids = [1, 2].map(() => child(panel, parent, founder(panel, random), random));
      const p = await person({
        name: 'Pat Parent',
        file: rawFile(genomeOf(panel, parent, random)),
      });
      const [k1, k2] = await Promise.all(
        kids.map(async (k, i) =>
          person({ name: `Kid ${i + 1}`, file: rawFile(genomeOf(panel, k, random)) }),
        ),
      );
      const ids = [await linked(p, k1), await linked(k2, p)];
      const outsider = await person();
      await invite(p, outsider.email);

      const insights = await call(p, 'dna_family_insights');
      expect(insights.pending).toBe(1);
      expect(insights.relatives.map((r: any) => r.id).sort()).toEqual([...ids].sort());
      for (const r of insights.relatives) {
        expect(r.status).toBe('compared');
        expect(r.degrees).toContain('parent_child');
        expect(r.degrees.length).toBeGreaterThan(0);
      }
      const cm = insights.relatives.map((r: any) => r.shared_cm);
      expect(cm[0]).toBeGreaterThanOrEqual(cm[1]);
      const text = insights.insights.join(' ');
      expect(text).toMatch(/^Closest: /);
      expect(text).toContain('1 invitation waiting');
      const overlap = insights.insights.find((i: string) => i.includes('both share DNA with you'));
      expect(overlap).toBeDefined();
      expect(overlap).toContain(k1.email);
      expect(overlap).toContain(k2.email);
      expect(overlap).toMatch(/only a comparison between the two of them can tell/);

      // the painting draws both on every chromosome
      const painting = await call(p, 'dna_painting_read');
      for (const c of painting.chromosomes) {
        expect(c.relatives.map((r: any) => r.relative).sort()).toEqual([...ids].sort());
      }
      // a kid sees the parent only: the other kid is not theirs to see
      expect((await call(k1, 'dna_family_insights')).relatives.map((r: any) => r.id)).toEqual([
        ids[0],
      ]);
    },
    SLOW,
  );
});

describe('another person’s link', () => {
  it('answers 404 to a third person on every tool and route, and stays as it was', async () => {
    const a = await person({ file: smallFile() });
    const b = await person({ file: smallFile() });
    const c = await person({ file: smallFile() });
    const pendingId = (await invite(a, b.email)).id;
    const other = await person();
    const acceptedId = await linked(other, a);

    for (const id of [pendingId, acceptedId]) {
      const calls: [string, Record<string, unknown>][] = [
        ['dna_family_read', { id }],
        ['dna_family_update', { id, share_ancestry: true, confirm: true }],
        ['dna_family_remove', { id, confirm: true }],
        ['dna_family_accept', { id, confirm: true }],
        ['dna_family_relative_ancestry', { id }],
      ];
      for (const [tool, args] of calls) {
        const error = errorOf(await callTool(c.client, tool, args));
        expect(error?.code, `${tool} ${id}`).toBe('NOT_FOUND');
      }
      const routes: [string, string, unknown?][] = [
        ['GET', `/api/v1/dna/family/${id}`],
        ['PATCH', `/api/v1/dna/family/${id}`, { share_ancestry: true }],
        ['DELETE', `/api/v1/dna/family/${id}`],
        ['POST', `/api/v1/dna/family/${id}/accept`, {}],
        ['POST', `/api/v1/dna/family/${id}/ancestry`],
      ];
      for (const [method, path, body] of routes) {
        const res = await rest(app, method, path, { token: c.token, body });
        expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(404);
      }
    }
    // the inviter cannot accept for the invitee either
    expect(
      errorOf(await callTool(a.client, 'dna_family_accept', { id: pendingId, confirm: true }))
        ?.code,
    ).toBe('NOT_FOUND');
    // nothing changed: the pending one is still pending and shares nothing, both still listed
    const mine = await list(a);
    expect(mine.map((r: any) => r.id).sort()).toEqual([pendingId, acceptedId].sort());
    const pending = mine.find((r: any) => r.id === pendingId);
    expect(pending).toMatchObject({ status: 'pending', my_shares: { ancestry: false } });
    expect(pending.their_shares.ancestry).toBe(false);
    expect(await list(c)).toEqual([]);
    // an id that does not exist answers the same
    const none = '00000000-0000-4000-8000-000000000000';
    expect(errorOf(await callTool(a.client, 'dna_family_read', { id: none }))?.code).toBe(
      'NOT_FOUND',
    );
  });
});

describe('invitations', () => {
  it('answers the same link for the same address (any case, either side) and sends one email', async () => {
    const a = await person();
    const b = await person();
    const since = smtp.messages.length;
    const first = await invite(a, b.email);
    const again = await invite(a, b.email.toUpperCase());
    expect(again.id).toBe(first.id);
    const byRest = await rest(app, 'POST', '/api/v1/dna/family', {
      token: a.token,
      body: { email: b.email },
    });
    expect(byRest.status).toBe(200);
    expect(byRest.body.id).toBe(first.id);
    // B inviting A back is the same link, seen from B's side
    const back = await invite(b, a.email);
    expect(back).toMatchObject({ id: first.id, role: 'invitee' });
    expect(await list(a)).toHaveLength(1);
    await smtp.waitFor(b.email, { since });
    await new Promise((r) => setTimeout(r, 200));
    expect(smtp.messages.slice(since).filter((m) => m.to.includes(b.email))).toHaveLength(1);
    expect(smtp.messages.slice(since).filter((m) => m.to.includes(a.email))).toHaveLength(0);
  });

  it('sends at most the daily number of invitations, removed ones included', async () => {
    const a = await person();
    const address = (k: number) => `invited-${k}.${clock.ms()}@example.com`;
    const sent: string[] = [];
    for (let k = 0; k < MAX_DNA_INVITATIONS_PER_DAY; k++) {
      sent.push((await invite(a, address(k))).id);
    }
    const over = errorOf(
      await callTool(a.client, 'dna_family_invite', { email: address(100), confirm: true }),
    );
    expect(over?.code).toBe('RATE_LIMITED');
    const overRest = await rest(app, 'POST', '/api/v1/dna/family', {
      token: a.token,
      body: { email: address(101) },
    });
    expect(overRest.status).toBe(429);
    // each invitation sent an email: withdrawing one does not make room for another today
    await call(a, 'dna_family_remove', { id: sent[0], confirm: true });
    const since = smtp.messages.length;
    const again = await callTool(a.client, 'dna_family_invite', {
      email: address(0),
      confirm: true,
    });
    expect(errorOf(again)?.code, JSON.stringify(sc(again))).toBe('RATE_LIMITED');
    expect(smtp.messages.slice(since).filter((m) => m.to.includes(address(0)))).toEqual([]);
  });

  it('refuses the caller’s own address with a 422 on MCP and REST', async () => {
    const a = await person();
    const error = errorOf(
      await callTool(a.client, 'dna_family_invite', {
        email: a.email.toUpperCase(),
        confirm: true,
      }),
    );
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.detail[0].loc).toEqual(['email']);
    const res = await rest(app, 'POST', '/api/v1/dna/family', {
      token: a.token,
      body: { email: a.email },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'email']);
    const bad = await rest(app, 'POST', '/api/v1/dna/family', {
      token: a.token,
      body: { email: 'not-an-address' },
    });
    expect(bad.status).toBe(422);
    expect(await list(a)).toEqual([]);
  });

  it('answers an address without an account exactly as one with, and its owner can accept after signing up', async () => {
    const a = await person();
    const known = await person();
    const unknownEmail = `nobody-yet.${clock.ms()}@example.com`;
    const since = smtp.messages.length;
    const toKnown = await invite(a, known.email);
    const toUnknown = await invite(a, unknownEmail);
    const shape = (v: any) => {
      const { id: _id, email: _email, created_at: _at, ...rest } = v;
      return { keys: Object.keys(v).sort(), ...rest };
    };
    expect(shape(toUnknown)).toEqual(shape(toKnown));
    expect(toUnknown).toMatchObject({ status: 'pending', name: null, email: unknownEmail });
    // both are emailed the same way
    const mails = await Promise.all([
      smtp.waitFor(known.email, { since }),
      smtp.waitFor(unknownEmail, { since }),
    ]);
    expect(mails[0].text.replace(toKnown.id, 'ID')).toBe(mails[1].text.replace(toUnknown.id, 'ID'));
    // the address's owner signs up, sees it and accepts
    const later = await person({ email: unknownEmail });
    expect((await list(later)).map((r: any) => [r.id, r.role, r.status])).toEqual([
      [toUnknown.id, 'invitee', 'pending'],
    ]);
    const accepted = await accept(later, toUnknown.id);
    expect(accepted.status).toBe('accepted');
    const seen = (await list(a)).find((r: any) => r.id === toUnknown.id);
    expect(seen.status).toBe('accepted');
  });

  it(
    'gives an unrelated pair "unrelated" or "distant" only (REST invite, accept and read)',
    async () => {
      const a = await person({ file: founderFile() });
      const b = await person({ file: founderFile() });
      const invited = await rest(app, 'POST', '/api/v1/dna/family', {
        token: a.token,
        body: { email: b.email },
      });
      expect(invited.status).toBe(200);
      const id = invited.body.id;
      const accepted = await rest(app, 'POST', `/api/v1/dna/family/${id}/accept`, {
        token: b.token,
      });
      expect(accepted.status).toBe(200);
      expect(accepted.body.status).toBe('accepted');
      const read = await rest(app, 'GET', `/api/v1/dna/family/${id}`, { token: a.token });
      expect(read.status).toBe(200);
      expect(read.body.status).toBe('compared');
      expect(read.body.comparison.degrees.length).toBeGreaterThan(0);
      for (const d of read.body.comparison.degrees) expect(['unrelated', 'distant']).toContain(d);
      expect(read.body.comparison.shared_cm).toBeLessThan(100);
    },
    SLOW,
  );
});

describe('nothing is compared before acceptance or without both genomes', () => {
  it('answers not_accepted while pending, and no_genome with a note for whoever has none', async () => {
    const a = await person({ file: smallFile() });
    const b = await person();
    const { id } = await invite(a, b.email);
    const pending = await call(a, 'dna_family_read', { id });
    expect(pending).toMatchObject({ status: 'not_accepted', comparison: null, refusal: null });
    expect(pending.note).toMatch(/not been accepted/);
    expect(await app.db.prisma.dnaRelative.findUniqueOrThrow({ where: { id } })).toMatchObject({
      comparison: null,
      comparedFor: null,
    });

    await accept(b, id);
    const fromA = await call(a, 'dna_family_read', { id });
    expect(fromA).toMatchObject({ status: 'no_genome', comparison: null });
    expect(fromA.note).toMatch(/they have not uploaded/i);
    const fromB = await call(b, 'dna_family_read', { id });
    expect(fromB.status).toBe('no_genome');
    expect(fromB.note).toMatch(/upload your raw DNA file/i);
    const insights = await call(a, 'dna_family_insights');
    expect(insights.relatives).toEqual([expect.objectContaining({ id, status: 'no_genome' })]);
    expect(insights.insights.join(' ')).toMatch(/not compared/);
  });

  it('refuses too few shared markers with the count and the floor', async () => {
    const a = await person({ file: smallFile() });
    const b = await person({ file: smallFile() });
    const id = await linked(a, b);
    const read = await call(a, 'dna_family_read', { id });
    expect(read.status).toBe('too_few_markers');
    expect(read.comparison).toBeNull();
    expect(read.refusal.floor).toBe(100_000);
    expect(read.refusal.compared).toBeLessThan(100_000);
    expect(read.note).toBe(read.refusal.reason);
  });
});

describe('what a relative shows beyond relatedness', () => {
  it('shows their haplogroups and ancestry only as far as they share them, never their variants', async () => {
    const herFile = () => rawFile(null, [...europeanAisnps(), ...sexLines('female')]);
    const a = await person({ file: herFile() });
    const b = await person({
      file: rawFile(null, [
        ...europeanAisnps(),
        ...sexLines('male'),
        ...yBackboneLines('R-M269'),
        ...mtLines('U5a1', ['3010A']),
      ]),
    });
    const { id } = await invite(a, b.email);
    // nothing shown before acceptance, nor while B shares nothing
    expect((await call(a, 'dna_family_read', { id })).theirs).toBeNull();
    await accept(b, id);
    expect((await call(a, 'dna_family_read', { id })).theirs).toBeNull();

    await call(b, 'dna_family_update', { id, share_haplogroups: true, confirm: true });
    const seen = await call(a, 'dna_family_read', { id });
    expect(seen.theirs).toMatchObject({ paternal_haplogroup: 'R-M269', ancestry: null });
    expect(seen.theirs.maternal_haplogroup).toMatch(/^U5/);
    expect(JSON.stringify(seen.theirs)).not.toContain('3010');
    // A shares nothing: B sees nothing of A's
    expect((await call(b, 'dna_family_read', { id })).theirs).toBeNull();

    // ancestry shared before B has an estimate says so; once made, A sees the shares
    await call(b, 'dna_family_update', { id, share_ancestry: true, confirm: true });
    const early = await call(a, 'dna_family_read', { id });
    expect(early.theirs.ancestry).toBeNull();
    expect(early.theirs.note).toMatch(/no ancestry estimate yet/);
    await call(b, 'dna_ancestry_start', { idempotency_key: `b-ancestry-${id}` });
    expect((await ancestryFinished(b)).report.status).toBe('done');
    const later = await rest(app, 'GET', `/api/v1/dna/family/${id}`, { token: a.token });
    expect(later.status).toBe(200);
    expect(later.body.theirs.ancestry[0]).toMatchObject({ superpopulation: 'EUR' });

    // turning it off hides it again at once
    await call(b, 'dna_family_update', {
      id,
      share_ancestry: false,
      share_haplogroups: false,
      confirm: true,
    });
    expect((await call(a, 'dna_family_read', { id })).theirs).toBeNull();
  });
});

describe('a relative’s ancestry', () => {
  it('is not_shared until both share it (accept’s and update’s share args), then compared by group', async () => {
    const file = () => rawFile(null, [...europeanAisnps(), ...sexLines('female')]);
    const a = await person({ file: file() });
    const b = await person({ file: file() });
    const { id } = await invite(a, b.email);
    const early = await call(a, 'dna_family_relative_ancestry', { id });
    expect(early).toMatchObject({ status: 'not_accepted', groups: [] });

    // B accepts sharing theirs; A has not shared: neither side sees a comparison
    const accepted = await accept(b, id, { share_ancestry: true });
    expect(accepted.my_shares).toEqual({ ancestry: true, haplogroups: false });
    const fromA = await call(a, 'dna_family_relative_ancestry', { id });
    expect(fromA).toMatchObject({ status: 'not_shared', groups: [] });
    expect(fromA.note).toMatch(/You have not shared/);
    const fromB = await call(b, 'dna_family_relative_ancestry', { id });
    expect(fromB).toMatchObject({ status: 'not_shared', groups: [] });
    expect(fromB.note).toMatch(/They have not shared/);

    // B turning it off and on again is B's own side only
    const off = await call(b, 'dna_family_update', { id, share_ancestry: false, confirm: true });
    expect(off.my_shares.ancestry).toBe(false);
    expect(off.their_shares.ancestry).toBe(false);
    const on = await rest(app, 'PATCH', `/api/v1/dna/family/${id}`, {
      token: b.token,
      body: { share_ancestry: true },
    });
    expect(on.status).toBe(200);
    expect(on.body.my_shares.ancestry).toBe(true);

    const shared = await call(a, 'dna_family_update', { id, share_ancestry: true, confirm: true });
    expect(shared).toMatchObject({
      my_shares: { ancestry: true, haplogroups: false },
      their_shares: { ancestry: true, haplogroups: false },
    });
    const compared = await call(a, 'dna_family_relative_ancestry', { id });
    expect(compared.status).toBe('compared');
    expect(compared.groups).toHaveLength(5);
    expect(compared.groups.map((g: any) => g.superpopulation).sort()).toEqual([
      'AFR',
      'AMR',
      'EAS',
      'EUR',
      'SAS',
    ]);
    const eur = compared.groups.find((g: any) => g.superpopulation === 'EUR');
    expect(eur.mine).toBeGreaterThan(0.8);
    expect(eur.theirs).toBeGreaterThan(0.8);
    expect(eur.overlapping).toBe(true);
    expect(compared.note).toMatch(/not a family tree/);
    const byRest = await rest(app, 'POST', `/api/v1/dna/family/${id}/ancestry`, {
      token: b.token,
    });
    expect(byRest.status).toBe(200);
    expect(byRest.body.status).toBe('compared');
  });
});

describe('the ancestry estimate and calculators', () => {
  it(
    'estimates five shares summing to 1 from the ancestry-informative SNPs, as a background job',
    async () => {
      const p = await person({
        file: rawFile(null, [...europeanAisnps(), ...sexLines('female')]),
      });
      expect((await call(p, 'dna_ancestry_read')).report).toBeNull();
      const started = await call(p, 'dna_ancestry_start', { idempotency_key: idempotencyKey() });
      expect(started).toMatchObject({ kind: 'ancestry' });
      const view = await ancestryFinished(p);
      expect(view.report).toMatchObject({ id: started.id, status: 'done' });
      const a = view.ancestry;
      expect(a.status).toBe('estimated');
      expect(a.calculator).toBe('continental-combined');
      expect(a.proportions).toHaveLength(5);
      const sum = a.proportions.reduce((s: number, x: any) => s + x.proportion, 0);
      expect(sum).toBeCloseTo(1, 2);
      for (const x of a.proportions) {
        expect(x.low).toBeLessThanOrEqual(x.proportion);
        expect(x.high).toBeGreaterThanOrEqual(x.proportion);
      }
      expect(a.proportions[0].superpopulation).toBe('EUR');
      expect(a.markers_used).toBeGreaterThanOrEqual(40);
      // a second start answers the same report (REST too), and REST reads it
      const again = await rest(app, 'POST', '/api/v1/dna/ancestry', { token: p.token });
      expect(again.status).toBe(200);
      expect(again.body.id).toBe(started.id);
      const read = await rest(app, 'GET', '/api/v1/dna/ancestry', { token: p.token });
      expect(read.body.ancestry.proportions[0].superpopulation).toBe('EUR');
      // the story tells it once made
      const story = await call(p, 'dna_story_share', { include: ['ancestry'] });
      expect(story.included).toEqual(['ancestry']);
      expect(story.text).toMatch(/European/);
    },
    SLOW,
  );

  it('refuses a genome without the ancestry-informative SNPs (too_few_markers)', async () => {
    const p = await person({ file: smallFile() });
    const started = await rest(app, 'POST', '/api/v1/dna/ancestry', { token: p.token });
    expect(started.status).toBe(200);
    const view = await ancestryFinished(p);
    expect(view.report.status).toBe('done');
    expect(view.ancestry).toMatchObject({ status: 'refused', reason: 'too_few_markers' });
    expect(view.ancestry.proportions).toBeNull();
    expect(view.ancestry.markers_used).toBeLessThan(40);
    expect(view.ancestry.note).toMatch(/at least 40/);
  });

  it('names the calculators for an unknown name, and refuses population-level ones', async () => {
    const p = await person({ file: rawFile(null, europeanAisnps()) });
    const error = errorOf(await callTool(p.client, 'dna_calculator_run', { calculator: 'nope' }));
    expect(error.code).toBe('VALIDATION_FAILED');
    expect(error.message).toContain('continental-combined');
    const res = await rest(app, 'GET', '/api/v1/dna/calculator?calculator=nope', {
      token: p.token,
    });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body.detail)).toContain('continental-combined');

    const refused = await call(p, 'dna_calculator_run', { calculator: 'population-combined' });
    expect(refused.result).toMatchObject({ status: 'refused', reason: 'sub_continental' });
    expect(refused.result.proportions).toBeNull();
    expect(refused.refused_names).toContain('population-combined');
    const kidd = await rest(app, 'GET', '/api/v1/dna/calculator?calculator=continental-kidd', {
      token: p.token,
    });
    expect(kidd.status).toBe(200);
    expect(kidd.body.result).toMatchObject({ status: 'estimated', calculator: 'continental-kidd' });
    expect(kidd.body.calculators.map((c: any) => c.name)).toContain('continental-combined');
  });
});

describe('deep time', () => {
  const maleFile = () =>
    rawFile(null, [
      ...europeanAisnps(),
      ...sexLines('male'),
      ...yBackboneLines('R-M269'),
      // U5a1 and a variant it does not expect (an H1 one)
      ...mtLines('U5a1', ['3010A']),
    ]);

  it('reads a man’s paternal clade from Y markers, and "no Y data" for a woman', async () => {
    const man = await person({ file: maleFile() });
    const his = await call(man, 'dna_deep_time_read');
    expect(['called', 'not_determined']).toContain(his.report.paternal.status);
    expect(his.report.paternal.clade).toBe('R-M269');
    expect(his.report.maternal.best.haplogroup).toMatch(/^U5/);
    const woman = await person({ file: smallFile() });
    const hers = await rest(app, 'GET', '/api/v1/dna/deep-time', { token: woman.token });
    expect(hers.status).toBe(200);
    expect(hers.body.report.paternal.status).toBe('no_y_data');
    expect(hers.body.report.paternal.clade).toBeNull();
    expect(hers.body.genotypes_shown).toBe(true);
  });

  it('answers findings only over OAuth: no maternal variant listed, genotypes_shown false', async () => {
    const man = await person({ file: maleFile() });
    const own = await call(man, 'dna_deep_time_read');
    const listed = [...own.report.maternal.best.missing, ...own.report.maternal.best.extra];
    expect(listed.length).toBeGreaterThan(0); // the personal token sees them
    const { accessToken } = await seedOAuthConnection(app, man.id, DNA);
    const client = await mcpClient({ baseUrl: app.mcpUrl }, accessToken, { path: '/mcp' });
    const result = await callTool(client, 'dna_deep_time_read');
    expect(result.isError).toBeFalsy();
    const body = sc(result);
    expect(body.genotypes_shown).toBe(false);
    expect(body.report.maternal.best.haplogroup).toBe(own.report.maternal.best.haplogroup);
    expect(body.report.maternal.best.missing).toEqual([]);
    expect(body.report.maternal.best.extra).toEqual([]);
    for (const r of body.report.maternal.runners_up) {
      expect([...r.missing, ...r.extra]).toEqual([]);
    }
    expect(body.report.paternal.clade).toBe('R-M269');
    expect(body.report.paternal.conflicts.every((c: any) => !c.call)).toBe(true);
  });
});

describe('parents related (runs of homozygosity)', () => {
  it(
    'measures a 150,000-marker genome in words that say it is not a diagnosis',
    async () => {
      const p = await person({ file: founderFile() });
      const r = await call(p, 'dna_family_parents_related');
      expect(r.status).toBe('measured');
      expect(['none', 'some', 'notable', 'extensive']).toContain(r.report.level);
      expect(r.report.wording).toContain('This is not a diagnosis');
      expect(r.report.chromosomes).toHaveLength(22);
      expect(r.note).toBe(r.report.wording);

      const inbred = rawFile(genomeOf(panel, childOfFirstCousins(panel, random), random));
      const q = await person({ file: inbred });
      const res = await rest(app, 'GET', '/api/v1/dna/parents-related', { token: q.token });
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('measured');
      expect(res.body.report.total_cm).toBeGreaterThan(r.report.total_cm);
      expect(['some', 'notable', 'extensive']).toContain(res.body.report.level);
      expect(res.body.report.wording).toContain('This is not a diagnosis');
    },
    SLOW,
  );

  it('refuses the small generated genome with too_few_markers', async () => {
    const p = await person({ file: smallFile() });
    const r = await call(p, 'dna_family_parents_related');
    expect(r).toMatchObject({ status: 'too_few_markers', report: null });
    expect(r.refusal.floor).toBe(100_000);
    expect(r.refusal.compared).toBeLessThan(100_000);
  });
});

describe('the story', () => {
  it('tells medicines only when picked, says why an item is left out, and refuses unknown items', async () => {
    const p = await person({ file: smallFile() });
    const picked = await call(p, 'dna_story_share', { include: ['medicines'] });
    expect(picked.included).toEqual([]);
    expect(picked.left_out).toEqual([
      { item: 'medicines', reason: expect.stringMatching(/dna_medicines_start/) },
    ]);
    expect(picked.note).toMatch(/Nothing was sent/);

    // with a medicines report made, the default story still says nothing of it
    const started = await call(p, 'dna_medicines_start', { idempotency_key: idempotencyKey() });
    for (let i = 0; i < 300; i++) {
      const v = await call(p, 'dna_medicines_read', { report_id: started.id });
      if (v.report.status === 'done') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const story = await call(p, 'dna_story_share');
    expect(story.included).not.toContain('medicines');
    expect(story.left_out.map((l: any) => l.item)).not.toContain('medicines');
    expect(story.text).not.toMatch(/medicine|metaboli|CYP2C19/i);
    const byRest = await rest(app, 'GET', '/api/v1/dna/story', { token: p.token });
    expect(byRest.status).toBe(200);
    expect(byRest.body.text).toBe(story.text);
    const withMedicines = await rest(app, 'GET', '/api/v1/dna/story?include=medicines,ancestry', {
      token: p.token,
    });
    expect(withMedicines.status).toBe(200);
    expect(withMedicines.body.included).toEqual(['medicines']);
    expect(withMedicines.body.text).toContain('CYP2C19');

    const unknown = errorOf(await callTool(p.client, 'dna_story_share', { include: ['bogus'] }));
    expect(unknown.code).toBe('VALIDATION_FAILED');
    const res = await rest(app, 'GET', '/api/v1/dna/story?include=bogus', { token: p.token });
    expect(res.status).toBe(422);
  });
});

describe('scopes and access grants', () => {
  it('refuses writes to a token holding only health:dna:read', async () => {
    const owner = await person({ file: smallFile() });
    const reader = await person({ scopes: ['health:dna:read'] });
    const cases: [string, Record<string, unknown>, string][] = [
      ['dna_family_invite', { email: owner.email, confirm: true }, 'health:dna:write'],
      ['dna_ancestry_start', { idempotency_key: idempotencyKey() }, 'health:dna:write'],
    ];
    for (const [tool, args, scope] of cases) {
      const error = errorOf(await callTool(reader.client, tool, args));
      expect(error, tool).toEqual({
        code: 'INSUFFICIENT_SCOPE',
        message: `This token lacks the scope ${scope} that ${tool} needs`,
        detail: { code: 'insufficient_scope', scope },
        retryable: false,
      });
    }
    expect(await app.db.prisma.dnaRelative.count({ where: { inviterId: reader.id } })).toBe(0);
    expect(await app.db.prisma.dnaReport.count({ where: { userId: reader.id } })).toBe(0);
    const pat = await seedPersonalToken(app, reader.id, ['health:dna:read']);
    const res = await rest(app, 'POST', '/api/v1/dna/family', {
      token: pat,
      body: { email: owner.email },
    });
    expect(res.status).toBe(403);
    // reads still work with the read scope
    expect(await list(reader)).toEqual([]);
  });

  it('never lists or invites relatives while viewing another person’s data', async () => {
    const owner = await seedUser(app);
    const grantee = await person({ file: smallFile() });
    const grant = await seedActiveGrant(app, owner, grantee.seeded);
    const pat = await seedPersonalToken(app, grantee.id, [...DNA, 'sharing:read']);
    const client = await mcpClient(app, pat);
    await switchViewAs(app, pat, grant);
    const refused = await callTool(client, 'dna_family_list');
    expect(refused.isError).toBe(true);
    expect(sc(refused).error.message).toBe(DNA_NOT_SHARED);
    await switchViewAs(app, grantee.token, grant);
    for (const path of ['/api/v1/dna/family', '/api/v1/dna/family/insights']) {
      const res = await rest(app, 'GET', path, { token: grantee.token });
      expect(res.status, path).toBe(403);
      expect(res.body).toEqual({ detail: DNA_NOT_SHARED });
    }
    // a write while viewing as is refused too (view-as is read-only before DNA is even asked)
    const invited = await rest(app, 'POST', '/api/v1/dna/family', {
      token: grantee.token,
      body: { email: 'someone@example.com' },
    });
    expect(invited.status).toBe(403);
    expect(await app.db.prisma.dnaRelative.count({ where: { inviterId: grantee.id } })).toBe(0);
    await switchViewAs(app, pat, null);
    expect(sc(await callTool(client, 'dna_family_list')).items).toEqual([]);
  });
});

describe('deleting and replacing DNA data', () => {
  it(
    'ends the links when one side deletes their DNA data',
    async () => {
      const [fileA, fileB] = pairFiles('full_siblings');
      const a = await person({ file: fileA });
      const b = await person({ file: fileB });
      const id = await linked(a, b);
      expect((await call(b, 'dna_family_read', { id })).comparison.degrees).toContain(
        'full_sibling',
      );
      const deleted = await call(a, 'dna_data_delete', { confirm: true });
      expect(deleted.deleted).toBe(true);
      expect(deleted.tables).toContainEqual({ table: 'dna_relatives', rows: 1 });
      expect(await list(b)).toEqual([]);
      expect(await list(a)).toEqual([]);
      expect(errorOf(await callTool(b.client, 'dna_family_read', { id }))?.code).toBe('NOT_FOUND');
      expect((await call(b, 'dna_family_insights')).relatives).toEqual([]);
    },
    SLOW,
  );

  it('ends invitations addressed to the person too, also those sent before they had an account', async () => {
    const inviter = await person();
    const laterEmail = `signs-up-later.${clock.ms()}@example.com`;
    const early = await invite(inviter, laterEmail);
    const x = await person({ email: laterEmail, file: smallFile() });
    const claimed = await invite(await person(), x.email);
    expect((await list(x)).map((r: any) => r.id).sort()).toEqual([early.id, claimed.id].sort());
    const deleted = await call(x, 'dna_data_delete', { confirm: true });
    expect(deleted.note).toMatch(/DNA relatives/);
    expect(await list(x)).toEqual([]);
    expect(await list(inviter)).toEqual([]);
  });

  it(
    'clears the kept comparison on a new upload, and the next read compares the new file',
    async () => {
      const [fileC, fileD] = pairFiles('parent_child');
      const c = await person({ file: fileC });
      const d = await person({ file: fileD });
      const id = await linked(c, d);
      const before = await call(c, 'dna_family_read', { id });
      expect(before.comparison.degrees).toEqual(['parent_child']);
      const kept = await app.db.prisma.dnaRelative.findUniqueOrThrow({ where: { id } });
      expect(kept.comparedFor).not.toBeNull();

      // D uploads someone else's file: the comparison kept for the old one is cleared at once
      await upload(d.token, founderFile());
      const cleared = await app.db.prisma.dnaRelative.findUniqueOrThrow({ where: { id } });
      expect(cleared).toMatchObject({ comparison: null, comparedFor: null, status: 'accepted' });

      const after = await call(c, 'dna_family_read', { id });
      expect(after.status).toBe('compared');
      for (const deg of after.comparison.degrees) expect(['unrelated', 'distant']).toContain(deg);
      expect(after.comparison.shared_cm).toBeLessThan(before.comparison.shared_cm / 10);
      const remade = await app.db.prisma.dnaRelative.findUniqueOrThrow({ where: { id } });
      expect(remade.comparedFor).not.toBeNull();
      expect(remade.comparedFor).not.toBe(kept.comparedFor);
      expect((await call(d, 'dna_family_read', { id })).comparison.shared_cm).toBe(
        after.comparison.shared_cm,
      );
    },
    SLOW,
  );
});
