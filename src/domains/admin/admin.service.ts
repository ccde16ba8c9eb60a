/**
 * The admin API's reads and the insight trigger (issue 15). Other domains' data is read only
 * through what those domains export (account, glucose, devices, insights, foods); this file adds
 * paging, the audit entries and 404 for an unknown person.
 * NOTE: every function here serves an admin field (`t.withAuth({ admin: true })`); an action on one
 * person's data records itself (recordAdminAction) before it answers.
 */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import { accountById, accountCounts, accountExists, listAccounts } from '../account/index.ts';
import type { AccountCountsView, AccountDetailView, AccountSummaryView } from '../account/index.ts';
import { listAllSensors, sensorCounts } from '../devices/index.ts';
import type { AdminSensorView } from '../devices/index.ts';
import { browseCatalogue } from '../foods/index.ts';
import type { CatalogueRowView } from '../foods/index.ts';
import { glucoseAggregate, glucoseCountsOf } from '../glucose/index.ts';
import type { GlucoseAggregateView, PersonGlucoseCountsView } from '../glucose/index.ts';
import {
  HIGH_MG_DL,
  insightsOfPerson,
  LOW_MG_DL,
  PREDICTION_HORIZON_MINUTES,
  SCORE_KINDS,
} from '../insights/index.ts';
import type { PersonInsightsView } from '../insights/index.ts';
import { listAuditEntries, recordAdminAction } from './admin.audit.ts';
import type { AuditEntryView } from './admin.audit.ts';
import { clock } from '../../base/clock.ts';

/** One page of a list: how many match in all, which page, its size and its items. */
export interface Page<T> {
  total: number;
  page: number;
  limit: number;
  items: T[];
}

export interface PageOptions {
  /** 1-based page number */
  page: number;
  /** items per page */
  limit: number;
}

const offsetOf = (o: PageOptions): number => (o.page - 1) * o.limit;

/** 404 unless the person exists (an unknown id answers like another user's id elsewhere). */
export async function requirePerson(ctx: AuthedContext, userId: number): Promise<void> {
  if (!(await accountExists(ctx, userId))) throw appError('NOT_FOUND', 'User not found');
}

export interface DashboardStatsView {
  accounts: AccountCountsView;
  glucose: GlucoseAggregateView;
  sensors: { active: number; unbound: number };
  generatedAt: Date;
}

/** The dashboard's figures: accounts, glucose and sensors, platform-wide (no person named). */
export async function adminDashboardStats(ctx: AuthedContext): Promise<DashboardStatsView> {
  const [accounts, glucose, sensors] = await Promise.all([
    accountCounts(ctx),
    glucoseAggregate(ctx),
    sensorCounts(ctx),
  ]);
  return { accounts, glucose, sensors, generatedAt: clock.now() };
}

export interface AdminUsersOptions extends PageOptions {
  /** part of the address or the name, case-insensitive */
  search?: string | null;
}

/** One page of accounts, newest first (audited: a list of people, no one target). */
export async function adminUsers(
  ctx: AuthedContext,
  options: AdminUsersOptions,
): Promise<Page<AccountSummaryView>> {
  await recordAdminAction(ctx, {
    action: 'adminUsers',
    targetUserId: null,
    detail: { search: options.search ?? null, page: options.page, limit: options.limit },
  });
  const { total, items } = await listAccounts(ctx, { ...options, offset: offsetOf(options) });
  return { total, page: options.page, limit: options.limit, items };
}

export interface AdminUserView extends AccountDetailView {
  glucose: PersonGlucoseCountsView;
}

/** One person's account and data counts; 404 for an unknown id. Audited. */
export async function adminUser(ctx: AuthedContext, userId: number): Promise<AdminUserView> {
  const account = await accountById(ctx, userId);
  if (!account) throw appError('NOT_FOUND', 'User not found');
  await recordAdminAction(ctx, { action: 'adminUser', targetUserId: userId });
  return { ...account, glucose: await glucoseCountsOf(ctx, userId) };
}

export interface AdminSensorsOptions extends PageOptions {
  /** active or unbound */
  status?: string | null;
}

/** One page of every person's sensors (audited: a list, no one target). */
export async function adminSensors(
  ctx: AuthedContext,
  options: AdminSensorsOptions,
): Promise<Page<AdminSensorView>> {
  await recordAdminAction(ctx, {
    action: 'adminSensors',
    targetUserId: null,
    detail: { status: options.status ?? null, page: options.page, limit: options.limit },
  });
  const { total, items } = await listAllSensors(ctx, { ...options, offset: offsetOf(options) });
  return { total, page: options.page, limit: options.limit, items };
}

export interface AdminFoodsOptions extends PageOptions {
  /** part of the description or brand */
  search?: string | null;
  /** one catalogue source */
  source?: string | null;
}

/** One page of catalogue foods (public data: not audited). */
export async function adminFoods(
  ctx: AuthedContext,
  options: AdminFoodsOptions,
): Promise<Page<CatalogueRowView>> {
  const { total, items } = await browseCatalogue(ctx, { ...options, offset: offsetOf(options) });
  return { total, page: options.page, limit: options.limit, items };
}

/** Computes one person's insights now (audited, before it reads); 404 for an unknown id. */
export async function triggerAdminInsights(
  ctx: AuthedContext,
  userId: number,
): Promise<PersonInsightsView> {
  await requirePerson(ctx, userId);
  await recordAdminAction(ctx, { action: 'triggerAdminInsights', targetUserId: userId });
  return insightsOfPerson(ctx, userId);
}

export interface InsightsOverviewView {
  scoreKinds: string[];
  thresholds: { lowMgDl: number; highMgDl: number; predictionHorizonMinutes: number };
  peopleWithGlucose: number;
  recentRuns: AuditEntryView[];
}

/** Insights are computed on demand and stored nowhere: their rules and the latest admin runs. */
export async function adminInsights(ctx: AuthedContext): Promise<InsightsOverviewView> {
  const [glucose, runs] = await Promise.all([
    glucoseAggregate(ctx),
    listAuditEntries(ctx, { action: 'triggerAdminInsights', offset: 0, limit: 20 }),
  ]);
  return {
    scoreKinds: [...SCORE_KINDS],
    thresholds: {
      lowMgDl: LOW_MG_DL,
      highMgDl: HIGH_MG_DL,
      predictionHorizonMinutes: PREDICTION_HORIZON_MINUTES,
    },
    peopleWithGlucose: glucose.people,
    recentRuns: runs.items,
  };
}

export interface AuditPageOptions extends PageOptions {
  /** entries about one person */
  targetUserId?: number | null;
  /** one action */
  action?: string | null;
}

/** One page of the audit log, newest first (reading the log is not itself logged). */
export async function adminAuditLog(
  ctx: AuthedContext,
  options: AuditPageOptions,
): Promise<Page<AuditEntryView>> {
  const { total, items } = await listAuditEntries(ctx, { ...options, offset: offsetOf(options) });
  return { total, page: options.page, limit: options.limit, items };
}
