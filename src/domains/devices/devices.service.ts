/**
 * The person's devices: phone push tokens (upsert by token) and CGM sensors (upsert by serial
 * number per person; unbind). Ids are deterministic so the tables can be synced.
 */
import { createHash } from 'node:crypto';
import { appError } from '../../base/errors.ts';
import type { AuthedContext, Context } from '../../graphql/context.ts';
import { syncedWrite } from '../../platform/sync-clock.ts';
import { clock } from '../../base/clock.ts';

export interface RegisterDeviceTokenOptions {
  /** the push token (APNs or FCM) */
  token: string;
  /** ios or android */
  platform: string;
  /** the phone's own install identifier, when sent */
  deviceId?: string | null;
}

export interface DeviceTokenView {
  id: string;
  token: string;
  platform: string;
  deviceId: string | null;
  lastSeenAt: Date;
}

export interface BindSensorOptions {
  /** the sensor's serial number (unique per person) */
  serialNumber: string;
  /** e.g. libre2, dexcom_g7 */
  sensorType?: string | null;
  /** when the sensor was started; default now */
  startedAt?: Date | null;
  /** when the sensor expires, when known */
  expiresAt?: Date | null;
}

export interface UnbindSensorOptions {
  /** the serial number of one of the caller's sensors */
  serialNumber: string;
}

export interface SensorSessionView {
  id: string;
  serialNumber: string;
  sensorType: string | null;
  startedAt: Date;
  expiresAt: Date | null;
  status: string;
  unboundAt: Date | null;
}

const hash = (...parts: (string | number)[]): string =>
  createHash('sha256').update(parts.join('\u001f')).digest('hex').slice(0, 32);

const tokenSelect = {
  id: true,
  token: true,
  platform: true,
  deviceId: true,
  lastSeenAt: true,
} as const;
const sensorSelect = {
  id: true,
  serialNumber: true,
  sensorType: true,
  startedAt: true,
  expiresAt: true,
  status: true,
  unboundAt: true,
} as const;

/**
 * Registers a push token for the caller. A token names one app install, so registering a token
 * that another account had moves it to the caller (the phone now belongs to whoever signed in).
 */
export async function registerDeviceToken(
  ctx: AuthedContext,
  options: RegisterDeviceTokenOptions,
): Promise<DeviceTokenView> {
  const userId = ctx.principal.userId;
  const now = clock.now();
  const data = {
    userId,
    platform: options.platform,
    deviceId: options.deviceId ?? null,
    lastSeenAt: now,
    serverUpdatedAt: now,
    deletedAt: null,
  };
  return ctx.prisma.deviceToken.upsert({
    where: { token: options.token },
    create: { id: `dt_${hash(options.token)}`, token: options.token, ...data },
    update: data,
    select: tokenSelect,
  });
}

/** Binds a sensor to the caller, or updates the caller's sensor with that serial number (re-activating it). */
export async function bindSensor(
  ctx: AuthedContext,
  options: BindSensorOptions,
): Promise<SensorSessionView> {
  const userId = ctx.principal.userId;
  const fields = {
    ...(options.sensorType !== undefined ? { sensorType: options.sensorType } : {}),
    ...(options.expiresAt !== undefined ? { expiresAt: options.expiresAt } : {}),
  };
  // NOTE: keyed by (caller, serial): another person's sensor with the same serial is never touched.
  // Sensor sessions are synced: the write is stamped with the account's change clock.
  return syncedWrite(ctx.prisma, userId, (tx, ts) =>
    tx.sensorSession.upsert({
      where: { userId_serialNumber: { userId, serialNumber: options.serialNumber } },
      create: {
        id: `ss_${hash(userId, options.serialNumber)}`,
        userId,
        serialNumber: options.serialNumber,
        startedAt: options.startedAt ?? clock.now(),
        serverUpdatedAt: new Date(ts),
        ...fields,
      },
      update: {
        ...fields,
        ...(options.startedAt ? { startedAt: options.startedAt } : {}),
        status: 'active',
        unboundAt: null,
        deletedAt: null,
        serverUpdatedAt: new Date(ts),
      },
      select: sensorSelect,
    }),
  );
}

/** Unbinds one of the caller's sensors; unknown or another person's serial numbers answer NOT_FOUND. */
export async function unbindSensor(
  ctx: AuthedContext,
  options: UnbindSensorOptions,
): Promise<SensorSessionView> {
  const userId = ctx.principal.userId;
  // NOTE: ownership is in the where: another person's serial number is "not found".
  const current = await ctx.prisma.sensorSession.findUnique({
    where: { userId_serialNumber: { userId, serialNumber: options.serialNumber } },
    select: sensorSelect,
  });
  if (!current || current.status === 'deleted') throw appError('NOT_FOUND', 'Sensor not found');
  if (current.status === 'unbound') return current;
  return syncedWrite(ctx.prisma, userId, (tx, ts) =>
    tx.sensorSession.update({
      where: { userId_serialNumber: { userId, serialNumber: options.serialNumber } },
      data: { status: 'unbound', unboundAt: clock.now(), serverUpdatedAt: new Date(ts) },
      select: sensorSelect,
    }),
  );
}

export interface PushTargetsOptions {
  /** whose phones (the caller's own, or the person an admin sends to) */
  userId: number;
}

/** One phone a push can go to. */
export interface PushTargetView {
  token: string;
  /** ios or android */
  platform: 'ios' | 'android';
}

/** The live push tokens of a person's phones (retired ones left out), newest first. */
export async function pushTargets(
  ctx: Context,
  options: PushTargetsOptions,
): Promise<PushTargetView[]> {
  const rows = await ctx.prisma.deviceToken.findMany({
    where: { userId: options.userId, deletedAt: null },
    orderBy: { lastSeenAt: 'desc' },
    select: { token: true, platform: true },
  });
  return rows.map((r) => ({ token: r.token, platform: r.platform === 'ios' ? 'ios' : 'android' }));
}

export interface RetireTokensOptions {
  /** the person the tokens belong to (a token moved to someone else since is left alone) */
  userId: number;
  /** tokens the push service reported dead (APNs 410, FCM UNREGISTERED) */
  tokens: string[];
}

/**
 * Retires push tokens the push service reported invalid: marked deleted (a synced tombstone), so no
 * push goes to them again until the phone registers the token anew. Answers how many were retired.
 */
export async function retireDeviceTokens(
  ctx: Context,
  options: RetireTokensOptions,
): Promise<number> {
  if (!options.tokens.length) return 0;
  const now = clock.now();
  const { count } = await ctx.prisma.deviceToken.updateMany({
    where: { userId: options.userId, token: { in: options.tokens }, deletedAt: null },
    data: { deletedAt: now, serverUpdatedAt: now },
  });
  return count;
}
