/**
 * Account deletion (issue 3): every table related to User, found in the Prisma datamodel, gets a row
 * of the account; after DELETE /api/auth/me none is left, nothing of anyone else is touched, and the
 * old credentials fail. Rows inserted while the deletion runs are removed too.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ALL_SCOPES } from '../../src/auth/scopes.ts';
import type { Db } from '../../src/db/client.ts';
import { createSession } from '../../src/domains/account/account.sessions.ts';
import {
  deleteAccount,
  EMAIL_KEYED,
  userKeyedTables,
} from '../../src/domains/account/account.deletion.ts';
import type { PersonKeyedTable } from '../../src/domains/account/account.deletion.ts';
import { getDatamodel } from '../../src/generated/pothos-types.ts';
import type { AuthedContext } from '../../src/graphql/context.ts';
import { seedOAuthConnection } from '../factories/oauth.ts';
import { seedPersonalToken, seedUser, seedWebSession, serviceContext } from '../factories/users.ts';
import { PNG } from '../fakes/images.ts';
import { startTestApp } from '../harness/app.ts';
import { rest } from '../harness/clients.ts';
import { callTool, mcpClient, mcpPost, rpc } from '../harness/mcp.ts';
import { clock } from '../../src/base/clock.ts';

const app = await startTestApp();
const prisma = app.db.prisma;

interface Person {
  id: number;
  email: string;
}

const later = (): Date => new Date(clock.ms() + 86_400_000);
const rand = (): string => randomBytes(8).toString('hex');

/**
 * One row for `me` in each (model, field) naming a person; `other` is whoever else the row needs.
 * A model related to User that has no seeder here fails the coverage test: add one.
 */
const SEEDERS: Record<string, (p: Db, me: Person, other: Person) => Promise<unknown>> = {
  'AccessGrant.granteeId': (p, me, other) =>
    p.accessGrant.create({
      data: {
        ownerId: other.id,
        granteeId: me.id,
        inviteeEmail: me.email,
        status: 'active',
        expiresAt: later(),
      },
    }),
  'AccessGrant.ownerId': (p, me, other) =>
    p.accessGrant.create({
      data: { ownerId: me.id, inviteeEmail: other.email, expiresAt: later() },
    }),
  'GlucoseReading.userId': (p, me) =>
    p.glucoseReading.create({
      data: { id: rand(), userId: me.id, timestamp: clock.now(), valueMgDl: 100 },
    }),
  'GlucoseSensor.userId': (p, me) =>
    p.glucoseSensor.create({ data: { id: rand(), userId: me.id, sensorId: 1 } }),
  'RawSensorData.userId': (p, me) =>
    p.rawSensorData.create({
      data: { id: rand(), userId: me.id, sensorId: 1, timestamp: clock.now(), rawValue: 100 },
    }),
  'Consent.userId': (p, me) => p.consent.create({ data: { userId: me.id, kind: 'meal_photo' } }),
  'AiUsage.userId': (p, me) =>
    p.aiUsage.create({
      data: { userId: me.id, feature: 'meal_insight', model: 'm', outcome: 'ok' },
    }),
  'AiCache.userId': (p, me) =>
    p.aiCache.create({ data: { userId: me.id, feature: 'meal_insight', key: rand(), answer: {} } }),
  'MealEmoji.userId': (p, me) =>
    p.mealEmoji.create({ data: { userId: me.id, name: rand(), emoji: '🍚' } }),
  'AssistantConversation.userId': (p, me) =>
    p.assistantConversation.create({ data: { userId: me.id, title: rand() } }),
  'AssistantMessage.userId': (p, me) =>
    p.assistantConversation.create({
      data: {
        userId: me.id,
        title: rand(),
        messages: { create: { userId: me.id, role: 'user', content: rand() } },
      },
    }),
  'AssistantUpload.userId': (p, me) =>
    p.assistantUpload.create({
      data: {
        userId: me.id,
        fileName: 'notes.txt',
        contentType: 'text/plain',
        sizeBytes: 1,
        storageKey: `assistant/${rand()}.txt`,
        facts: { create: { userId: me.id, source: 'document', text: rand() } },
      },
    }),
  'MemoryFact.userId': (p, me) =>
    p.memoryFact.create({ data: { userId: me.id, source: 'person', key: rand(), text: rand() } }),
  'IdempotencyRecord.userId': (p, me) =>
    p.idempotencyRecord.create({
      data: {
        userId: me.id,
        tool: 'update_profile',
        key: rand(),
        fingerprint: 'f',
        status: 'done',
      },
    }),
  'IdentityLink.userId': (p, me) =>
    p.identityLink.create({
      data: { userId: me.id, provider: 'google', subject: rand(), email: me.email },
    }),
  'ProductInterest.userId': (p, me) =>
    p.productInterest.create({ data: { userId: me.id, product: 'kit' } }),
  'NotificationPrefs.userId': (p, me) =>
    p.notificationPrefs.create({ data: { userId: me.id, categories: ['account'] } }),
  'Notification.userId': (p, me) =>
    p.notification.create({
      data: {
        userId: me.id,
        category: 'account',
        title: 't',
        body: 'b',
        source: 'test',
        pushStatus: 'sent',
      },
    }),
  'NotificationReminder.userId': (p, me) =>
    p.notificationReminder.create({
      data: { userId: me.id, label: 'walk', localTime: '08:00', days: [1], timeZone: 'UTC' },
    }),
  'NewsletterSubscriber.email': (p, me) =>
    p.newsletterSubscriber.create({ data: { email: me.email } }),
  'PrivacyRequest.email': (p, me) =>
    p.privacyRequest.create({ data: { email: me.email, kind: 'access' } }),
  'WaitlistEntry.email': (p, me) => p.waitlistEntry.create({ data: { email: me.email } }),
  'Entitlement.userId': (p, me) =>
    p.entitlement.upsert({
      where: { userId: me.id },
      create: { userId: me.id, stripeCustomerId: `cus_${rand()}` },
      update: {},
    }),
  'Order.userId': (p, me) =>
    p.order.create({
      data: { userId: me.id, product: 'kit', quantity: 1, amountCents: 9900, currency: 'usd' },
    }),
  'PaymentIntentRecord.userId': (p, me) =>
    p.paymentIntentRecord.create({
      data: {
        id: `pi_${rand()}`,
        userId: me.id,
        kind: 'kit',
        clientSecretHash: rand(),
        status: 'requires_payment_method',
      },
    }),
  'PasswordResetToken.userId': (p, me) =>
    p.passwordResetToken.create({ data: { userId: me.id, tokenHash: rand(), expiresAt: later() } }),
  'PersonalToken.userId': (_p, me) => seedPersonalToken(app, me.id, ['profile:read']),
  // a connection with its access and refresh tokens (OAuthConnection and OAuthToken rows)
  'OAuthConnection.userId': (_p, me) => seedOAuthConnection(app, me.id, ['profile:read']),
  'OAuthToken.userId': (_p, me) => seedOAuthConnection(app, me.id, ['profile:read']),
  'OAuthAuthorizationCode.userId': (p, me) =>
    p.oAuthAuthorizationCode.create({
      data: {
        codeHash: rand(),
        userId: me.id,
        clientId: 'client',
        redirectUri: 'http://127.0.0.1/callback',
        redirectUriGiven: true,
        codeChallenge: rand(),
        scopes: ['profile:read'],
        resource: `${app.mcpUrl}/mcp`,
        expiresAt: later(),
      },
    }),
  'HealthMetric.userId': (p, me) =>
    p.healthMetric.create({
      data: {
        id: rand(),
        userId: me.id,
        metricType: 'steps',
        value: 10,
        unit: 'count',
        timestamp: clock.now(),
      },
    }),
  'SleepSample.userId': (p, me) =>
    p.sleepSample.create({
      data: {
        id: rand(),
        userId: me.id,
        stage: 'deep',
        startAt: clock.now(),
        endAt: clock.now(),
        source: rand(),
      },
    }),
  'WorkoutSample.userId': (p, me) =>
    p.workoutSample.create({
      data: {
        id: rand(),
        userId: me.id,
        activityType: 'running',
        startAt: clock.now(),
        endAt: clock.now(),
        durationMinutes: 0,
        source: rand(),
      },
    }),
  'HealthArchiveRecord.userId': (p, me) =>
    p.healthArchiveRecord.create({
      data: {
        userId: me.id,
        kind: 'quantity',
        type: 'HKQuantityTypeIdentifierStepCount',
        startAt: clock.now(),
        endAt: clock.now(),
        sourceName: rand(),
      },
    }),
  'HealthArchiveWorkout.userId': (p, me) =>
    p.healthArchiveWorkout.create({
      data: {
        id: rand(),
        userId: me.id,
        activityType: 'HKWorkoutActivityTypeRunning',
        startAt: clock.now(),
        endAt: clock.now(),
      },
    }),
  'HealthArchiveRoutePoint.userId': (p, me) =>
    p.healthArchiveRoutePoint.create({
      data: {
        seq: 0,
        at: clock.now(),
        lat: 51.5,
        lon: -0.12,
        user: { connect: { id: me.id } },
        workout: {
          create: {
            id: rand(),
            userId: me.id,
            activityType: 'HKWorkoutActivityTypeWalking',
            startAt: clock.now(),
            endAt: clock.now(),
          },
        },
      },
    }),
  'HealthArchiveEcg.userId': (p, me) =>
    p.healthArchiveEcg.create({
      data: {
        id: rand(),
        userId: me.id,
        recordedAt: clock.now(),
        sampleRateHz: 512,
        header: {},
        samples: [1, 2, 3],
        fileName: 'electrocardiograms/ecg.csv',
      },
    }),
  'DeviceToken.userId': (p, me) =>
    p.deviceToken.create({ data: { id: rand(), userId: me.id, token: rand(), platform: 'ios' } }),
  'SensorSession.userId': (p, me) =>
    p.sensorSession.create({
      data: { id: rand(), userId: me.id, serialNumber: rand(), startedAt: clock.now() },
    }),
  'Session.userId': (_p, me) =>
    createSession(serviceContext(app), { userId: me.id, kind: 'native' }),
  'JournalEntry.userId': (p, me) =>
    p.journalEntry.create({
      data: { id: rand(), userId: me.id, body: 'b', serverUpdatedAt: clock.now() },
    }),
  'SyncState.userId': (p, me) => p.syncState.create({ data: { userId: me.id } }),
  'Food.ownerUserId': (p, me) =>
    p.food.create({
      data: {
        id: `custom:${rand()}`,
        source: 'custom',
        description: 'my bread',
        ownerUserId: me.id,
      },
    }),
  'Meal.userId': (p, me) =>
    p.meal.create({ data: { id: rand(), userId: me.id, eatenAt: clock.now() } }),
  'MealItem.userId': (p, me) =>
    p.mealItem.create({
      data: { id: rand(), userId: me.id, mealId: rand(), name: 'rice', grams: 100 },
    }),
  'SavedMeal.userId': (p, me) =>
    p.savedMeal.create({ data: { id: rand(), userId: me.id, name: 'Porridge' } }),
  'SavedMealItem.userId': (p, me) =>
    p.savedMealItem.create({
      data: { id: rand(), userId: me.id, savedMealId: rand(), name: 'oats', grams: 50 },
    }),
  'FavoriteFood.userId': (p, me) =>
    p.favoriteFood.create({
      data: { id: rand(), userId: me.id, foodId: `fdc:${rand()}`, name: 'oats' },
    }),
  'BloodPressureReading.userId': (p, me) =>
    p.bloodPressureReading.create({
      data: { id: rand(), userId: me.id, systolic: 120, diastolic: 80, measuredAt: clock.now() },
    }),
  'LogEntry.userId': (p, me) =>
    p.logEntry.create({
      data: { id: rand(), userId: me.id, kind: 'weight', value: 70, loggedAt: clock.now() },
    }),
  'MonitorLink.userId': (p, me) =>
    p.monitorLink.create({ data: { userId: me.id, clientId: rand(), secretCiphertext: rand() } }),
  'MonitorDevice.userId': (p, me) =>
    p.monitorDevice.create({ data: { userId: me.id, serialNumber: rand() } }),
  'MonitorReading.userId': (p, me) =>
    p.monitorReading.create({
      data: { userId: me.id, serialNumber: rand(), recordedAt: clock.now(), co2: 600 },
    }),
  'FeedbackReport.userId': (p, me) =>
    p.feedbackReport.create({ data: { userId: me.id, category: 'idea', message: 'more graphs' } }),
  'Goal.userId': (p, me) =>
    p.goal.create({ data: { id: rand(), userId: me.id, metric: 'steps', target: 8000 } }),
  'Experiment.userId': (p, me) =>
    p.experiment.create({
      data: {
        id: rand(),
        userId: me.id,
        name: 'walk',
        intervention: 'a walk after dinner',
        baselineDays: 7,
        interventionDays: 7,
        startAt: clock.now(),
      },
    }),
  'DetectedMealDismissal.userId': (p, me) =>
    p.detectedMealDismissal.create({
      data: { userId: me.id, detectedId: `dm-${clock.ms()}`, startedAt: clock.now() },
    }),
  'SnoreNight.userId': (p, me) =>
    p.snoreNight.create({
      data: { id: rand(), userId: me.id, startedAt: clock.now(), endedAt: later() },
    }),
  'SnoreAudioClip.userId': async (p, me) => {
    const night = await p.snoreNight.create({
      data: { id: rand(), userId: me.id, startedAt: clock.now(), endedAt: later() },
    });
    return p.snoreAudioClip.create({
      data: {
        userId: me.id,
        nightId: night.id,
        key: `snoring/${rand()}${rand()}.wav`,
        mimeType: 'audio/wav',
        bytes: 1,
      },
    });
  },
  'HealthArchiveImport.userId': (p, me) =>
    p.healthArchiveImport.create({
      data: {
        id: crypto.randomUUID(),
        userId: me.id,
        sha256: rand(),
        fileName: 'export.zip',
        sizeBytes: 1024,
      },
    }),
  'ExportJob.userId': (p, me) =>
    p.exportJob.create({
      data: {
        id: crypto.randomUUID(),
        userId: me.id,
        status: 'ready',
        format: 'csv',
        interval: 'raw',
        metricTypes: [],
        fromAt: new Date(0),
        toAt: clock.now(),
        expiresAt: later(),
      },
    }),
  'Insight.userId': (p, me) =>
    p.insight.create({
      data: {
        userId: me.id,
        kind: 'score',
        rule: 'score_sleep',
        subject: '2026-01-01',
        date: '2026-01-01',
        priority: 3,
        title: 'Sleep score 80',
        body: 'constructed',
        source: {},
      },
    }),
  // insights come to the person (issue 33): a morning run's claim, a predicted-low episode
  'InsightMorning.userId': (p, me) =>
    p.insightMorning.create({
      data: { userId: me.id, day: '2026-01-01', claimedAt: clock.now(), doneAt: clock.now() },
    }),
  'InsightAlertEpisode.userId': (p, me) =>
    p.insightAlertEpisode.create({
      data: { userId: me.id, rule: 'predicted_low', startedAt: clock.now(), lastAt: clock.now() },
    }),
  // community and challenges (issue 32): a circle shared with `other`, a nudge each way, a mute
  // each way, a challenge with a check-in
  'CommunityMember.userId': (p, me, other) =>
    p.communityCircle.create({
      data: {
        name: 'walkers',
        inviteCodeHash: rand(),
        members: { create: [{ userId: other.id }, { userId: me.id, shares: ['steps'] }] },
      },
    }),
  'CommunityNudge.senderId': (p, me, other) =>
    p.communityNudge.create({ data: { senderId: me.id, recipientId: other.id, kind: 'cheer' } }),
  'CommunityNudge.recipientId': (p, me, other) =>
    p.communityNudge.create({ data: { senderId: other.id, recipientId: me.id, kind: 'cheer' } }),
  'CommunityMute.userId': (p, me, other) =>
    p.communityMute.create({ data: { userId: me.id, mutedUserId: other.id } }),
  'CommunityMute.mutedUserId': (p, me, other) =>
    p.communityMute.create({ data: { userId: other.id, mutedUserId: me.id } }),
  'ChallengeParticipant.userId': (p, me, other) =>
    p.challenge.create({
      data: {
        creatorId: other.id,
        title: 'steps week',
        metric: 'steps',
        scoring: 'goal_percent',
        startDate: '2026-01-01',
        days: 7,
        participants: {
          create: [
            { userId: other.id, status: 'accepted', goalTarget: 10_000 },
            { userId: me.id, status: 'accepted', goalTarget: 8_000 },
          ],
        },
      },
    }),
  'ChallengeCheckin.userId': async (p, me, other) => {
    const challenge = await p.challenge.create({
      data: {
        creatorId: other.id,
        title: 'no sugar',
        metric: 'habit',
        scoring: 'checkins',
        habit: 'no sugar',
        startDate: '2026-01-01',
        days: 7,
        participants: { create: [{ userId: me.id, status: 'accepted' }] },
      },
    });
    return p.challengeCheckin.create({
      data: { challengeId: challenge.id, userId: me.id, date: '2026-01-02' },
    });
  },
  // discovery (issue 33): an observation, a run with one finding
  'DiscoveryObservation.userId': (p, me) =>
    p.discoveryObservation.create({
      data: { userId: me.id, observedAt: clock.now(), label: 'headache', intensity: 3 },
    }),
  'DiscoveryRun.userId': (p, me) =>
    p.discoveryRun.create({
      data: {
        userId: me.id,
        kind: 'run',
        fromDate: '2026-01-01',
        toDate: '2026-03-31',
        zone: 'UTC',
      },
    }),
  'DiscoveryHypothesis.userId': async (p, me) => {
    const run = await p.discoveryRun.create({
      data: {
        userId: me.id,
        kind: 'run',
        fromDate: '2026-01-01',
        toDate: '2026-03-31',
        zone: 'UTC',
        status: 'done',
      },
    });
    return p.discoveryHypothesis.create({
      data: {
        runId: run.id,
        userId: me.id,
        driver: 'steps',
        outcome: 'sleep_minutes',
        lag: 0,
        method: 'difference',
        n: 30,
        nHigh: 15,
        nLow: 15,
        significant: false,
        statement: 'Not enough data.',
      },
    });
  },
  // DNA (issue 34): a stored genome (its sealed bytes need no real content here)
  'DnaGenome.userId': (p, me) =>
    p.dnaGenome.create({
      data: {
        userId: me.id,
        vendor: '23andme',
        build: 'GRCh37',
        markers: 1,
        called: 1,
        callRate: 1,
        sexNote: 'too few called X markers',
        sealed: new Uint8Array([1, 2, 3]),
        fileBytes: 3,
      },
    }),
  // a medicines report made from it
  'DnaReport.userId': (p, me) =>
    p.dnaReport.create({
      data: { userId: me.id, kind: 'medicines', status: 'done', sealed: new Uint8Array([4]) },
    }),
  // DNA relatives, both sides
  'DnaRelative.inviterId': (p, me, other) =>
    p.dnaRelative.create({ data: { inviterId: me.id, inviteeEmail: other.email } }),
  'DnaRelative.inviteeId': (p, me, other) =>
    p.dnaRelative.create({
      data: {
        inviterId: other.id,
        inviteeId: me.id,
        inviteeEmail: me.email,
        status: 'accepted',
        comparison: new Uint8Array([5]),
      },
    }),
  // a blood report and one of its values
  'LabReport.userId': (p, me) =>
    p.labReport.create({ data: { id: rand(), userId: me.id, drawnOn: '2026-03-14' } }),
  'LabResult.userId': (p, me) =>
    p.labResult.create({
      data: {
        id: rand(),
        userId: me.id,
        reportId: rand(),
        markerId: 'glucose',
        loinc: '2345-7',
        value: 5.4,
        unit: 'mmol/L',
      },
    }),
  // keyed by address
  'DnaRelative.inviteeEmail': (p, me, other) =>
    p.dnaRelative.create({ data: { inviterId: other.id, inviteeEmail: me.email } }),
  'EmailCode.email': (p, me) =>
    p.emailCode.create({ data: { email: me.email, codeHash: rand(), expiresAt: later() } }),
  'AccessGrant.inviteeEmail': (p, me, other) =>
    p.accessGrant.create({
      data: { ownerId: other.id, inviteeEmail: me.email, expiresAt: later() },
    }),
};

/** Address fields of a row that belongs to the user it is related to (removed with that relation). */
const OWNERS_OWN_ADDRESS = ['IdentityLink.email'];

const ALL_TABLES: PersonKeyedTable[] = [...userKeyedTables(), ...EMAIL_KEYED];
const nameOf = (t: PersonKeyedTable): string => `${t.model}.${t.field}`;

type CountDelegate = { count(args: { where: Record<string, unknown> }): Promise<number> };
function countIn(t: PersonKeyedTable, person: Person): Promise<number> {
  const delegate = (prisma as unknown as Record<string, CountDelegate>)[
    t.model[0].toLowerCase() + t.model.slice(1)
  ];
  return delegate.count({
    where: { [t.field]: t.field.toLowerCase().endsWith('email') ? person.email : person.id },
  });
}

async function rowsOf(person: Person): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const t of ALL_TABLES) out[nameOf(t)] = await countIn(t, person);
  return out;
}

async function seedEverywhere(me: Person, other: Person): Promise<void> {
  for (const t of ALL_TABLES) await SEEDERS[nameOf(t)](prisma, me, other);
}

function authedContext(person: { user: { id: number }; sessionId: string }): AuthedContext {
  return {
    ...serviceContext(app),
    principal: {
      kind: 'session',
      userId: person.user.id,
      sessionId: person.sessionId,
      sessionKind: 'native',
      isAdmin: false,
      scopes: ALL_SCOPES,
    },
  };
}

describe('the tables account deletion covers', () => {
  it('are every model related to User in the Prisma datamodel, each with a seeder here', () => {
    const derived = userKeyedTables().map(nameOf);
    const { models } = getDatamodel().datamodel;
    const related = Object.entries(models).flatMap(([model, def]) =>
      model === 'User'
        ? []
        : def.fields
            .filter((f) => f.type === 'User')
            .flatMap((f) => (f.relationFromFields ?? []).map((fk) => `${model}.${fk}`)),
    );
    expect(derived.sort()).toEqual(related.sort());
    expect(derived).toEqual(
      expect.arrayContaining([
        'Session.userId',
        'PersonalToken.userId',
        'IdempotencyRecord.userId',
        'AccessGrant.ownerId',
        'AccessGrant.granteeId',
        'Consent.userId',
        'IdentityLink.userId',
        'PasswordResetToken.userId',
      ]),
    );
    const missing = ALL_TABLES.map(nameOf).filter((n) => !SEEDERS[n]);
    expect(missing, 'add a seeder for each new table to SEEDERS in this file').toEqual([]);
  });

  it('include every address field that names a person (or the field belongs to its related user)', () => {
    const { models } = getDatamodel().datamodel;
    const addressFields = Object.entries(models).flatMap(([model, def]) =>
      model === 'User'
        ? []
        : def.fields
            .filter((f) => f.kind === 'scalar' && /email/i.test(f.name))
            .map((f) => `${model}.${f.name}`),
    );
    const covered = new Set([...EMAIL_KEYED.map(nameOf), ...OWNERS_OWN_ADDRESS]);
    expect(
      addressFields.filter((f) => !covered.has(f)),
      'decide: EMAIL_KEYED in account.deletion.ts, or OWNERS_OWN_ADDRESS here',
    ).toEqual([]);
  });
});

describe('DELETE /api/auth/me', () => {
  it('removes every row keyed by the account in every table, its photo, then the account, and nothing of anyone else', async () => {
    const me = await seedUser(app);
    const other = await seedUser(app);
    const bystander = await seedUser(app);
    await seedEverywhere(me.user, other.user);
    await seedEverywhere(bystander.user, other.user);
    const photo = await app.fetch('/api/auth/profile-photo', {
      method: 'POST',
      headers: { authorization: `Bearer ${me.token}` },
      body: (() => {
        const f = new FormData();
        f.append('file', new Blob([PNG], { type: 'image/png' }));
        return f;
      })(),
    });
    const photoUrl = (await photo.json()).profile_photo_url as string;
    const photoFile = path.join(app.config.DATA_DIR, 'uploads', photoUrl.replace('/media/', ''));
    expect(existsSync(photoFile)).toBe(true);
    const before = await rowsOf(me.user);
    expect(
      Object.entries(before).filter(([, n]) => n === 0),
      'every table has a row of the account',
    ).toEqual([]);
    const bystanderBefore = await rowsOf(bystander.user);

    const res = await rest(app, 'DELETE', '/api/auth/me', { token: me.token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ deleted: true, removed_rows: expect.any(Number) });
    expect(res.body.removed_rows).toBeGreaterThanOrEqual(ALL_TABLES.length);

    expect(Object.values(await rowsOf(me.user)).every((n) => n === 0)).toBe(true);
    expect(await prisma.user.findUnique({ where: { id: me.user.id } })).toBeNull();
    expect(existsSync(photoFile)).toBe(false);
    expect((await app.fetch(photoUrl)).status).toBe(404);
    expect(await rowsOf(bystander.user)).toEqual(bystanderBefore);
    expect(await prisma.user.findUnique({ where: { id: other.user.id } })).not.toBeNull();
  });

  it('leaves every old credential of the account failing: login tokens, web cookies, personal tokens, OAuth tokens, the password', async () => {
    const me = await seedUser(app);
    const web = await seedWebSession(app, me.user.id);
    const pat = await seedPersonalToken(app, me.user.id, ['profile:read']);
    const oauth = await seedOAuthConnection(app, me.user.id, ['profile:read']);
    const oauthList = (): Promise<Response> =>
      app.mcpFetch('/mcp', {
        method: 'POST',
        headers: {
          authorization: `Bearer ${oauth.accessToken}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify(rpc('tools/list')),
      });
    expect((await oauthList()).status).toBe(200);
    expect((await rest(app, 'DELETE', '/api/auth/me', { token: me.token })).status).toBe(200);

    expect((await rest(app, 'GET', '/api/auth/me', { token: me.token })).status).toBe(401);
    expect(
      (await rest(app, 'GET', '/api/auth/me', { headers: { cookie: web.cookie } })).status,
    ).toBe(401);
    expect((await rest(app, 'GET', '/api/auth/me', { token: pat })).status).toBe(401);
    expect((await mcpPost(app, rpc('tools/list'), { token: pat })).status).toBe(401);
    expect((await oauthList()).status).toBe(401);
    const login = await rest(app, 'POST', '/api/auth/login', {
      body: { email: me.user.email, password: me.password },
    });
    expect(login.status).toBe(401);
    expect((await rest(app, 'DELETE', '/api/auth/me', { token: me.token })).status).toBe(401);
  });

  it('clears the cookies of a web session that deletes its account (with the CSRF token)', async () => {
    const me = await seedUser(app);
    const web = await seedWebSession(app, me.user.id);
    expect(
      (await rest(app, 'DELETE', '/api/auth/me', { headers: { cookie: web.cookie } })).status,
    ).toBe(403);
    const res = await rest(app, 'DELETE', '/api/auth/me', {
      headers: { cookie: web.cookie, 'x-csrf-token': web.csrf },
    });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().join('\n')).toMatch(/hdp_session=;.*Max-Age=0/);
  });

  it('needs account:write: 401 without a credential, 403 for a token without the scope', async () => {
    expect((await rest(app, 'DELETE', '/api/auth/me')).status).toBe(401);
    const me = await seedUser(app);
    const pat = await seedPersonalToken(app, me.user.id, ['profile:write', 'profile:read']);
    const refused = await rest(app, 'DELETE', '/api/auth/me', { token: pat });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toEqual({ code: 'insufficient_scope', scope: 'account:write' });
    expect(await prisma.user.findUnique({ where: { id: me.user.id } })).not.toBeNull();
  });
});

describe('rows inserted while the deletion runs', () => {
  it('are removed by a later pass of the sweep', async () => {
    const me = await seedUser(app);
    const other = await seedUser(app);
    const passes: number[] = [];
    const result = await deleteAccount(authedContext(me), {
      afterPass: async (pass) => {
        passes.push(pass);
        await seedEverywhere(me.user, other.user); // a job writing for the account between passes
      },
    });
    expect(passes).toEqual([1, 2]);
    expect(result.deleted).toBe(true);
    expect(Object.values(await rowsOf(me.user)).every((n) => n === 0)).toBe(true);
    expect(await prisma.user.findUnique({ where: { id: me.user.id } })).toBeNull();
  });

  it('are removed, or refused, when they race a deletion over HTTP', async () => {
    const me = await seedUser(app);
    let done = false;
    let inserted = 0;
    let refused = 0;
    const writer = (async () => {
      while (!done) {
        try {
          await prisma.consent.deleteMany({ where: { userId: me.user.id } });
          await prisma.session.create({
            data: { id: rand(), userId: me.user.id, kind: 'native', epoch: 0, expiresAt: later() },
          });
          await prisma.consent.create({ data: { userId: me.user.id, kind: 'meal_photo' } });
          inserted++;
        } catch {
          refused++; // the user row is gone: the foreign key refuses the insert
        }
        await new Promise((r) => setImmediate(r));
      }
    })();
    const res = await rest(app, 'DELETE', '/api/auth/me', { token: me.token });
    done = true;
    await writer;
    expect(res.status).toBe(200);
    expect(inserted + refused).toBeGreaterThan(0);
    expect(await prisma.session.count({ where: { userId: me.user.id } })).toBe(0);
    expect(await prisma.consent.count({ where: { userId: me.user.id } })).toBe(0);
  });
});

describe('MCP account_delete', () => {
  it('refuses without confirm, then deletes the account; the token stops working', async () => {
    const me = await seedUser(app);
    const pat = await seedPersonalToken(app, me.user.id, ['account:write']);
    const client = await mcpClient(app, pat);
    const tool = (await client.listTools()).tools.find((t) => t.name === 'account_delete')!;
    expect(tool.annotations).toMatchObject({ destructiveHint: true });
    expect(tool.inputSchema.required).toEqual(['confirm']);

    const refused = await callTool(client, 'account_delete', {});
    expect((refused.structuredContent as any).error.code).toBe('CONFIRMATION_REQUIRED');
    expect(await prisma.user.findUnique({ where: { id: me.user.id } })).not.toBeNull();

    const done = await callTool(client, 'account_delete', { confirm: true });
    expect(done.structuredContent).toMatchObject({ deleted: true });
    expect(await prisma.user.findUnique({ where: { id: me.user.id } })).toBeNull();
    expect((await mcpPost(app, rpc('tools/list'), { token: pat })).status).toBe(401);
  });
});
