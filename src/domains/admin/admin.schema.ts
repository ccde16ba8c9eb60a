/**
 * The admin API (issue 15): dashboard figures, people, glucose, sensors, raw sensor data, insights,
 * the food catalogue, events, the system status and the audit log. Every field is admin-only
 * (`t.withAuth({ admin: true })`: 401 without a credential, 403 for someone who is not an admin).
 */
import type { ArgBuilder, ObjectRef } from '@pothos/core';
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { AccountSummaryView } from '../account/index.ts';
import type { AdminSensorView } from '../devices/index.ts';
import type { CatalogueRowView } from '../foods/index.ts';
import type {
  GlucoseAggregateView,
  PersonGlucoseCountsView,
  RawSampleView,
} from '../glucose/index.ts';
import { InsightCard, Suggestions } from '../insights/index.ts';
import type { PersonInsightsView } from '../insights/index.ts';
import type { AuditEntryView } from './admin.audit.ts';
import { adminEvents } from './admin.events.ts';
import type { AdminEventView } from './admin.events.ts';
import {
  RAW_CHUNK_DEFAULT,
  RAW_CHUNK_MAX,
  RAW_WINDOW_DEFAULT,
  adminRawSensorData,
} from './admin.raw-data.ts';
import type { RawSensorChunkView } from './admin.raw-data.ts';
import {
  adminFoods,
  adminAuditLog,
  adminInsights,
  adminSensors,
  adminUser,
  adminUsers,
  adminDashboardStats,
  triggerAdminInsights,
} from './admin.service.ts';
import type {
  AdminUserView,
  DashboardStatsView,
  InsightsOverviewView,
  Page,
} from './admin.service.ts';
import { adminSystemStatus } from './admin.status.ts';
import type { SystemStatusView } from './admin.status.ts';

/** Pages: the most a page number may be, and the documented list bounds. */
type Types = typeof builder.$inferSchemaTypes;

const PAGE_MAX = 1_000_000;
const LIMIT_MAX = 100;
const USERS_LIMIT_DEFAULT = 10;
const LIST_LIMIT_DEFAULT = 20;
const EVENTS_LIMIT_DEFAULT = 50;
/** Samples per raw-data window at most (the documented default is 50,000). */
const RAW_WINDOW_MAX = 10_000_000;
const TEXT_MAX = 200;

const userId = z.number().int().min(1).max(2_147_483_647);
const text = z.string().trim().max(TEXT_MAX);

// ---- types ----

const AccountSummary = builder.objectRef<AccountSummaryView>('AdminUserSummary').implement({
  description: 'An account as the admin list shows it',
  fields: (t) => ({
    id: t.exposeInt('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    isAdmin: t.exposeBoolean('isAdmin'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    phoneLastSyncAt: t.expose('phoneLastSyncAt', {
      type: 'DateTime',
      nullable: true,
      description: 'when the phone last pushed a sync',
    }),
  }),
});

const PersonGlucoseCounts = builder
  .objectRef<PersonGlucoseCountsView>('AdminPersonGlucose')
  .implement({
    description: "A person's glucose data, counted",
    fields: (t) => ({
      readings: t.exposeInt('readings'),
      rawSamples: t.exposeInt('rawSamples'),
      lastReadingAt: t.expose('lastReadingAt', { type: 'DateTime', nullable: true }),
    }),
  });

const AdminUser = builder.objectRef<AdminUserView>('AdminUser').implement({
  description: "One person's account and data counts (no health values)",
  fields: (t) => ({
    id: t.exposeInt('id'),
    email: t.exposeString('email'),
    name: t.exposeString('name', { nullable: true }),
    isAdmin: t.exposeBoolean('isAdmin'),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
    phoneLastSyncAt: t.expose('phoneLastSyncAt', { type: 'DateTime', nullable: true }),
    timezone: t.exposeString('timezone', { nullable: true }),
    country: t.exposeString('country', { nullable: true }),
    glucoseUnit: t.exposeString('glucoseUnit'),
    diabetesType: t.exposeString('diabetesType', { nullable: true }),
    onboardingCompleted: t.exposeBoolean('onboardingCompleted'),
    activeSessions: t.exposeInt('activeSessions', {
      description: 'sessions neither revoked nor expired',
    }),
    glucose: t.expose('glucose', { type: PersonGlucoseCounts }),
  }),
});

const GlucoseAggregate = builder
  .objectRef<GlucoseAggregateView>('AdminGlucoseAggregate')
  .implement({
    description: 'Live glucose readings of every person, aggregated (no person named)',
    fields: (t) => ({
      readings: t.exposeInt('readings'),
      people: t.exposeInt('people', { description: 'people with at least one reading' }),
      meanMgDl: t.exposeFloat('meanMgDl', { nullable: true }),
      minMgDl: t.exposeFloat('minMgDl', { nullable: true }),
      maxMgDl: t.exposeFloat('maxMgDl', { nullable: true }),
      inRangePct: t.exposeFloat('inRangePct', {
        nullable: true,
        description: 'share of readings within 70..180 mg/dL, percent',
      }),
      readingsLast24h: t.exposeInt('readingsLast24h'),
      rawSamples: t.exposeInt('rawSamples'),
      firstReadingAt: t.expose('firstReadingAt', { type: 'DateTime', nullable: true }),
      lastReadingAt: t.expose('lastReadingAt', { type: 'DateTime', nullable: true }),
    }),
  });

const AccountCounts = builder
  .objectRef<DashboardStatsView['accounts']>('AdminAccountCounts')
  .implement({
    description: 'Accounts, counted',
    fields: (t) => ({
      users: t.exposeInt('users'),
      admins: t.exposeInt('admins'),
      newLast7Days: t.exposeInt('newLast7Days'),
      activeSessions: t.exposeInt('activeSessions'),
    }),
  });

const SensorCounts = builder
  .objectRef<DashboardStatsView['sensors']>('AdminSensorCounts')
  .implement({
    description: 'Bound CGM sensors by status',
    fields: (t) => ({ active: t.exposeInt('active'), unbound: t.exposeInt('unbound') }),
  });

const DashboardStats = builder.objectRef<DashboardStatsView>('AdminDashboardStats').implement({
  description: "The admin dashboard's figures",
  fields: (t) => ({
    accounts: t.expose('accounts', { type: AccountCounts }),
    glucose: t.expose('glucose', { type: GlucoseAggregate }),
    sensors: t.expose('sensors', { type: SensorCounts }),
    generatedAt: t.expose('generatedAt', { type: 'DateTime' }),
  }),
});

const AdminSensor = builder.objectRef<AdminSensorView>('AdminSensor').implement({
  description: "A person's bound CGM sensor",
  fields: (t) => ({
    id: t.exposeString('id'),
    userId: t.exposeInt('userId'),
    serialNumber: t.exposeString('serialNumber'),
    sensorType: t.exposeString('sensorType', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    status: t.exposeString('status', { description: 'active or unbound' }),
    unboundAt: t.expose('unboundAt', { type: 'DateTime', nullable: true }),
  }),
});

const CatalogueRow = builder.objectRef<CatalogueRowView>('AdminFood').implement({
  description: 'A catalogue food (imported; custom foods are not listed)',
  fields: (t) => ({
    id: t.exposeString('id'),
    source: t.exposeString('source'),
    description: t.exposeString('description'),
    brand: t.exposeString('brand', { nullable: true }),
    category: t.exposeString('category', { nullable: true }),
    gtin: t.exposeString('gtin', { nullable: true }),
    hasFullNutrients: t.exposeBoolean('hasFullNutrients'),
    updatedAt: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const AdminEventType = builder.enumType('AdminEventType', {
  description: 'What an admin event is (docs/decisions.md, "Admin API (issue 15)")',
  values: {
    signup: { value: 'signup', description: 'an account was created' },
    sign_in: { value: 'sign_in', description: 'a login session was opened' },
    admin_action: { value: 'admin_action', description: 'an admin acted (the audit log)' },
  } as const,
});

const AdminEvent = builder.objectRef<AdminEventView>('AdminEvent').implement({
  description: 'Something that happened to an account',
  fields: (t) => ({
    type: t.field({ type: AdminEventType, resolve: (e) => e.type }),
    userId: t.exposeInt('userId', { nullable: true, description: 'the person concerned' }),
    at: t.expose('at', { type: 'DateTime' }),
    detail: t.expose('detail', {
      type: 'JSON',
      description: 'sign_in: {kind}; admin_action: {action, admin_user_id}',
    }),
  }),
});

const AuditEntry = builder.objectRef<AuditEntryView>('AdminAuditEntry').implement({
  description: 'One admin action on data: who, what, when',
  fields: (t) => ({
    id: t.exposeInt('id'),
    adminUserId: t.exposeInt('adminUserId'),
    targetUserId: t.exposeInt('targetUserId', { nullable: true }),
    action: t.exposeString('action', { description: 'the field, e.g. adminUser' }),
    detail: t.expose('detail', { type: 'JSON', description: 'ids and filters, never values' }),
    createdAt: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

const RawSample = builder.objectRef<RawSampleView>('AdminRawSensorSample').implement({
  description: 'One raw sensor sample as the phone read it',
  fields: (t) => ({
    id: t.exposeString('id'),
    userId: t.exposeInt('userId'),
    sensorId: t.exposeInt('sensorId'),
    timestamp: t.expose('timestamp', { type: 'DateTime' }),
    rawValue: t.exposeFloat('rawValue'),
    temperatureC: t.exposeFloat('temperatureC', { nullable: true }),
  }),
});

const RawChunk = builder.objectRef<RawSensorChunkView>('AdminRawSensorChunk').implement({
  description: 'One chunk of a window of raw sensor samples, with the cursor of the next',
  fields: (t) => ({
    page: t.exposeInt('page'),
    limit: t.exposeInt('limit'),
    rows: t.expose('rows', {
      type: [RawSample],
      nullable: true,
      description: 'the samples (null when asked `asJson`)',
    }),
    rowsJson: t.exposeString('rowsJson', {
      nullable: true,
      description:
        'with `asJson`: the samples as one JSON array text in wire names (snake_case), written by the database (what the REST export streams)',
    }),
    nextCursor: t.exposeString('nextCursor', {
      nullable: true,
      description: 'pass as `after` for the next chunk; null: the window is complete',
    }),
  }),
});

const InsightsRun = builder.objectRef<PersonInsightsView>('AdminInsightsRun').implement({
  description: "A person's insights computed now, as the person would see them",
  fields: (t) => ({
    userId: t.exposeInt('userId'),
    generatedAt: t.expose('generatedAt', { type: 'DateTime' }),
    cards: t.expose('cards', { type: [InsightCard] }),
    suggestions: t.expose('suggestions', { type: Suggestions }),
  }),
});

const InsightThresholds = builder
  .objectRef<InsightsOverviewView['thresholds']>('AdminInsightThresholds')
  .implement({
    description: 'The thresholds of the insight rules (docs/scores.md)',
    fields: (t) => ({
      lowMgDl: t.exposeFloat('lowMgDl'),
      highMgDl: t.exposeFloat('highMgDl'),
      predictionHorizonMinutes: t.exposeInt('predictionHorizonMinutes'),
    }),
  });

const InsightsOverview = builder
  .objectRef<InsightsOverviewView>('AdminInsightsOverview')
  .implement({
    description: 'How insights are made (on demand, stored nowhere) and the latest admin runs',
    fields: (t) => ({
      scoreKinds: t.exposeStringList('scoreKinds'),
      thresholds: t.expose('thresholds', { type: InsightThresholds }),
      peopleWithGlucose: t.exposeInt('peopleWithGlucose', {
        description: 'people with readings, whose glucose insights can say something',
      }),
      recentRuns: t.expose('recentRuns', {
        type: [AuditEntry],
        description: 'the latest admin insight triggers (at most 20)',
      }),
    }),
  });

const StatusDatabase = builder
  .objectRef<SystemStatusView['database']>('AdminStatusDatabase')
  .implement({
    description: 'Whether the database answers (never its URL)',
    fields: (t) => ({
      kind: t.exposeString('kind', { description: 'pglite or postgresql' }),
      reachable: t.exposeBoolean('reachable'),
      latencyMs: t.exposeFloat('latencyMs', { nullable: true }),
    }),
  });

const StatusMigrations = builder
  .objectRef<SystemStatusView['migrations']>('AdminStatusMigrations')
  .implement({
    description: 'Whether every migration folder is applied',
    fields: (t) => ({
      upToDate: t.exposeBoolean('upToDate'),
      pending: t.exposeStringList('pending', { description: 'migration folders not applied' }),
    }),
  });

const StatusLimitsStore = builder
  .objectRef<SystemStatusView['limitsStore']>('AdminStatusLimitsStore')
  .implement({
    description: 'Where rate-limit counts live',
    fields: (t) => ({
      kind: t.exposeString('kind', { description: 'memory, or redis (shared by replicas)' }),
    }),
  });

const StatusCounts = builder
  .objectRef<NonNullable<SystemStatusView['counts']>>('AdminStatusCounts')
  .implement({
    description: 'Rows, counted',
    fields: (t) => ({
      users: t.exposeInt('users'),
      glucoseReadings: t.exposeInt('glucoseReadings'),
      rawSamples: t.exposeInt('rawSamples'),
    }),
  });

const SystemStatus = builder.objectRef<SystemStatusView>('AdminSystemStatus').implement({
  description: 'Whether the service and its parts are up (nothing secret)',
  fields: (t) => ({
    status: t.exposeString('status', { description: 'ok, or degraded when a part is not' }),
    version: t.exposeString('version'),
    nodeVersion: t.exposeString('nodeVersion'),
    uptimeSeconds: t.exposeInt('uptimeSeconds'),
    database: t.expose('database', { type: StatusDatabase }),
    migrations: t.expose('migrations', { type: StatusMigrations }),
    limitsStore: t.expose('limitsStore', { type: StatusLimitsStore }),
    aiConfigured: t.exposeBoolean('aiConfigured'),
    counts: t.expose('counts', {
      type: StatusCounts,
      nullable: true,
      description: 'null when the database is down',
    }),
    checkedAt: t.expose('checkedAt', { type: 'DateTime' }),
  }),
});

/** A numbered page of a list type. */
function pageOf<T>(name: string, item: ObjectRef<Types, T>): ObjectRef<Types, Page<T>> {
  return builder.objectRef<Page<T>>(name).implement({
    description: `A numbered page of ${item.name} items`,
    fields: (t) => ({
      total: t.exposeInt('total', { description: 'items matching, on every page' }),
      page: t.exposeInt('page'),
      limit: t.exposeInt('limit'),
      items: t.field({ type: [item], resolve: (p) => p.items }),
    }),
  });
}

/** `page` (>= 1, default 1) and `limit` (1..100) arguments. */
function pageArgs(arg: ArgBuilder<Types>, limitDefault: number) {
  return {
    page: arg.int({
      required: true,
      defaultValue: 1,
      description: 'page number, from 1',
      validate: z.number().int().min(1).max(PAGE_MAX),
    }),
    limit: arg.int({
      required: true,
      defaultValue: limitDefault,
      description: `items per page (1..${LIMIT_MAX}, default ${limitDefault})`,
      validate: z.number().int().min(1).max(LIMIT_MAX),
    }),
  };
}

const UsersPage = pageOf('AdminUserPage', AccountSummary);
const SensorsPage = pageOf('AdminSensorPage', AdminSensor);
const FoodsPage = pageOf('AdminFoodPage', CatalogueRow);
const EventsPage = pageOf('AdminEventPage', AdminEvent);
const AuditPage = pageOf('AdminAuditPage', AuditEntry);

// ---- root fields ----

builder.queryFields((t) => ({
  adminDashboardStats: t.withAuth({ admin: true }).field({
    type: DashboardStats,
    description: "The dashboard's figures: accounts, glucose, sensors (admins only)",
    resolve: (_root, _args, ctx) => adminDashboardStats(ctx),
  }),
  adminUsers: t.withAuth({ admin: true }).field({
    type: UsersPage,
    description: 'One page of accounts, newest first, optionally searched (admins only; audited)',
    args: {
      search: t.arg.string({
        description: 'part of the address or name, case-insensitive',
        validate: text.nullish(),
      }),
      ...pageArgs(t.arg, USERS_LIMIT_DEFAULT),
    },
    resolve: (_root, args, ctx) => adminUsers(ctx, args),
  }),
  adminUser: t.withAuth({ admin: true }).field({
    type: AdminUser,
    description: "One person's account and data counts; 404 when unknown (admins only; audited)",
    args: { userId: t.arg.int({ required: true, validate: userId }) },
    resolve: (_root, args, ctx) => adminUser(ctx, args.userId),
  }),
  adminGlucoseAggregate: t.withAuth({ admin: true }).field({
    type: GlucoseAggregate,
    description: "Every person's live glucose readings, aggregated (admins only)",
    resolve: (_root, _args, ctx) => adminDashboardStats(ctx).then((s) => s.glucose),
  }),
  adminSensors: t.withAuth({ admin: true }).field({
    type: SensorsPage,
    description: "One page of every person's CGM sensors, by status (admins only; audited)",
    args: {
      status: t.arg.string({
        description: 'active or unbound; none: both',
        validate: z.enum(['active', 'unbound']).nullish(),
      }),
      ...pageArgs(t.arg, LIST_LIMIT_DEFAULT),
    },
    resolve: (_root, args, ctx) => adminSensors(ctx, args),
  }),
}));

builder.queryFields((t) => ({
  adminRawSensorData: t.withAuth({ admin: true }).field({
    type: RawChunk,
    description:
      'One chunk of a window of raw sensor samples, in person, sensor, time order (admins only; audited)',
    args: {
      userId: t.arg.int({ description: "one person's samples", validate: userId.nullish() }),
      sensorId: t.arg.int({
        description: "one sensor number's samples",
        validate: z.number().int().min(0).max(2_147_483_647).nullish(),
      }),
      startDate: t.arg.string({
        description: 'first instant (inclusive): a date (UTC midnight) or an ISO date-time',
        validate: z.string().max(40).nullish(),
      }),
      endDate: t.arg.string({
        description: 'end (exclusive): a date (includes that whole UTC day) or an ISO date-time',
        validate: z.string().max(40).nullish(),
      }),
      page: t.arg.int({
        required: true,
        defaultValue: 1,
        description: 'window number, from 1',
        validate: z.number().int().min(1).max(PAGE_MAX),
      }),
      limit: t.arg.int({
        required: true,
        defaultValue: RAW_WINDOW_DEFAULT,
        description: `samples per window (1..${RAW_WINDOW_MAX}, default ${RAW_WINDOW_DEFAULT})`,
        validate: z.number().int().min(1).max(RAW_WINDOW_MAX),
      }),
      after: t.arg.string({
        description: 'nextCursor of the previous chunk; none: the first chunk of the window',
        validate: z.string().min(1).max(200).nullish(),
      }),
      first: t.arg.int({
        required: true,
        defaultValue: RAW_CHUNK_DEFAULT,
        description: `samples in this chunk (1..${RAW_CHUNK_MAX})`,
        validate: z.number().int().min(1).max(RAW_CHUNK_MAX),
      }),
      asJson: t.arg.boolean({
        description: 'answer `rowsJson` (one JSON text written by the database) instead of `rows`',
      }),
    },
    resolve: (_root, args, ctx) => adminRawSensorData(ctx, args),
  }),
}));

builder.queryFields((t) => ({
  adminInsights: t.withAuth({ admin: true }).field({
    type: InsightsOverview,
    description: 'How insights are made and the latest admin insight runs (admins only)',
    resolve: (_root, _args, ctx) => adminInsights(ctx),
  }),
  adminFoods: t.withAuth({ admin: true }).field({
    type: FoodsPage,
    description: 'One page of catalogue foods, by text and source (admins only)',
    args: {
      search: t.arg.string({
        description: 'part of the description or brand',
        validate: text.nullish(),
      }),
      source: t.arg.string({
        description: 'usda_foundation, usda_branded or open_food_facts',
        validate: z.string().max(50).nullish(),
      }),
      ...pageArgs(t.arg, LIST_LIMIT_DEFAULT),
    },
    resolve: (_root, args, ctx) => adminFoods(ctx, args),
  }),
  adminEvents: t.withAuth({ admin: true }).field({
    type: EventsPage,
    description:
      'One page of account events (sign-ups, sign-ins, admin actions), newest first (admins only)',
    args: {
      type: t.arg({ type: AdminEventType, description: 'one kind of event' }),
      userId: t.arg.int({
        description: "one person's events (audited)",
        validate: userId.nullish(),
      }),
      ...pageArgs(t.arg, EVENTS_LIMIT_DEFAULT),
    },
    resolve: (_root, args, ctx) => adminEvents(ctx, args),
  }),
  adminSystemStatus: t.withAuth({ admin: true }).field({
    type: SystemStatus,
    description: 'Database, migrations, limits store, version, uptime and counts (admins only)',
    resolve: (_root, _args, ctx) => adminSystemStatus(ctx),
  }),
  adminAuditLog: t.withAuth({ admin: true }).field({
    type: AuditPage,
    description: 'One page of the admin audit log, newest first (admins only)',
    args: {
      targetUserId: t.arg.int({
        description: 'entries about one person',
        validate: userId.nullish(),
      }),
      action: t.arg.string({ description: 'one action, e.g. adminUser', validate: text.nullish() }),
      ...pageArgs(t.arg, EVENTS_LIMIT_DEFAULT),
    },
    resolve: (_root, args, ctx) => adminAuditLog(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  triggerAdminInsights: t.withAuth({ admin: true }).field({
    type: InsightsRun,
    description: "Computes one person's insights now; 404 when unknown (admins only; audited)",
    args: { userId: t.arg.int({ required: true, validate: userId }) },
    resolve: (_root, args, ctx) => triggerAdminInsights(ctx, args.userId),
  }),
}));
