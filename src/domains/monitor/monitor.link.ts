/**
 * Linking a person's room-monitor cloud account (client credentials) and fetching their devices'
 * history from it (sync).
 */
import { appError } from '../../base/errors.ts';
import type { AuthedContext } from '../../graphql/context.ts';
import {
  fetchMonitorDevices,
  fetchMonitorSamples,
  fetchMonitorToken,
} from '../../integrations/monitor-cloud.ts';
import { decryptSecret, encryptSecret } from './monitor.crypto.ts';
import { storeReadings } from './monitor.readings.ts';
import type { MonitorReadingView } from './monitor.readings.ts';
import { clock } from '../../base/clock.ts';

/** A linked monitor as answered. */
export interface MonitorDeviceView {
  serialNumber: string;
  deviceType: string | null;
  name: string | null;
}

/** The answer of a link. */
export interface MonitorLinkView {
  linked: true;
  clientId: string;
  linkedAt: Date;
  devices: MonitorDeviceView[];
}

/** One device's history as a sync answers it. */
export interface MonitorDeviceHistoryView extends MonitorDeviceView {
  readings: MonitorReadingView[];
}

/** The answer of a sync. */
export interface MonitorSyncView {
  /** readings the cloud answered for the window */
  fetched: number;
  /** of those, how many were new here */
  stored: number;
  devices: MonitorDeviceHistoryView[];
}

export interface LinkMonitorOptions {
  /** the person's monitor-cloud API client id */
  clientId: string;
  /** its secret (stored encrypted, never answered) */
  clientSecret: string;
}

export interface SyncMonitorOptions {
  /** how many days back to fetch (1..30) */
  days: number;
}

const deviceView = (d: MonitorDeviceView): MonitorDeviceView => ({
  serialNumber: d.serialNumber,
  deviceType: d.deviceType,
  name: d.name,
});

/** Sample times the cloud may answer: from 2000 to a day ahead (others are dropped). */
const plausibleTime = (seconds: number): boolean =>
  seconds >= 946_684_800 && seconds * 1000 <= clock.ms() + 86_400_000;

/**
 * Checks the credentials with the cloud (client-credentials grant), then stores the link and the
 * devices, replacing any earlier link of the person. A device another person had linked moves to
 * this person: the cloud just confirmed this account holds it.
 */
export async function linkMonitor(
  ctx: AuthedContext,
  options: LinkMonitorOptions,
): Promise<MonitorLinkView> {
  const token = await fetchMonitorToken(ctx.config, options);
  const devices = await fetchMonitorDevices(ctx.config, token);
  const userId = ctx.principal.userId;
  const secretCiphertext = encryptSecret(ctx.config.jwtSecret, options.clientSecret);
  const link = await ctx.prisma.$transaction(async (tx) => {
    const saved = await tx.monitorLink.upsert({
      where: { userId },
      create: { userId, clientId: options.clientId, secretCiphertext },
      update: { clientId: options.clientId, secretCiphertext, linkedAt: clock.now() },
    });
    await tx.monitorDevice.deleteMany({
      where: {
        OR: [{ userId }, { serialNumber: { in: devices.map((d) => d.serialNumber) } }],
      },
    });
    await tx.monitorDevice.createMany({
      data: devices.map((d) => ({ ...d, userId })),
      skipDuplicates: true,
    });
    // Readings pushed before anyone linked these monitors become the person's.
    await tx.monitorReading.updateMany({
      where: { userId: null, serialNumber: { in: devices.map((d) => d.serialNumber) } },
      data: { userId },
    });
    return saved;
  });
  ctx.log.info({ userId, devices: devices.length }, 'monitor linked');
  return { linked: true, clientId: link.clientId, linkedAt: link.linkedAt, devices };
}

/**
 * Fetches the last days of every linked device from the cloud with the stored credentials,
 * stores them (a reading already here is skipped) and answers them, oldest first per device.
 */
export async function syncMonitor(
  ctx: AuthedContext,
  options: SyncMonitorOptions,
): Promise<MonitorSyncView> {
  const userId = ctx.principal.userId;
  const link = await ctx.prisma.monitorLink.findUnique({ where: { userId } });
  if (!link)
    throw appError('NOT_FOUND', 'No room monitor is linked: link one with POST /api/monitor/link', {
      detail: { code: 'monitor_not_linked' },
    });
  const clientSecret = decryptSecret(ctx.config.jwtSecret, link.secretCiphertext);
  if (clientSecret === null)
    throw appError('CONFLICT', 'The stored monitor link cannot be used any more: link again', {
      detail: { code: 'monitor_relink_needed' },
    });
  const token = await fetchMonitorToken(ctx.config, { clientId: link.clientId, clientSecret });
  const devices = await ctx.prisma.monitorDevice.findMany({
    where: { userId },
    orderBy: { serialNumber: 'asc' },
  });
  const end = clock.now();
  const start = new Date(end.getTime() - options.days * 86_400_000);
  const answer: MonitorSyncView = { fetched: 0, stored: 0, devices: [] };
  for (const device of devices) {
    const samples = await fetchMonitorSamples(ctx.config, token, { ...device, start, end });
    const readings = samples
      .filter((s) => plausibleTime(s.time))
      .map((s) => ({
        userId,
        serialNumber: device.serialNumber,
        recordedAt: new Date(s.time * 1000),
        temperature: s.temp,
        humidity: s.humidity,
        co2: s.co2,
        pm25: s.pm25,
      }))
      .sort((a, b) => a.recordedAt.getTime() - b.recordedAt.getTime());
    answer.fetched += readings.length;
    answer.stored += await storeReadings(ctx.prisma, readings);
    answer.devices.push({
      ...deviceView(device),
      readings: readings.map(({ userId: _owner, ...view }) => view),
    });
  }
  return answer;
}
