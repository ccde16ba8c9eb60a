/**
 * Room monitor (issue 15): linking the person's monitor-cloud account, its signed webhook, the
 * history sync, and the person's readings a page at a time.
 */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import { linkMonitor, syncMonitor } from './monitor.link.ts';
import type {
  MonitorDeviceHistoryView,
  MonitorDeviceView,
  MonitorLinkView,
  MonitorSyncView,
} from './monitor.link.ts';
import {
  MONITOR_DAYS_MAX,
  MONITOR_PAGE_DEFAULT,
  MONITOR_PAGE_MAX,
  monitorReadingPage,
} from './monitor.readings.ts';
import type { MonitorReadingPageView, MonitorReadingView } from './monitor.readings.ts';
import { receiveMonitorWebhook } from './monitor.webhook.ts';
import type { MonitorWebhookAck as WebhookAckView } from './monitor.webhook.ts';

/** Days a sync fetches by default. */
const SYNC_DAYS_DEFAULT = 7;

export const MonitorReading = builder.objectRef<MonitorReadingView>('MonitorReading').implement({
  description: "One sample of a room monitor: the room's air at a time",
  fields: (t) => ({
    serialNumber: t.exposeString('serialNumber', { description: "the monitor's serial number" }),
    recordedAt: t.expose('recordedAt', { type: 'DateTime', description: 'when it was measured' }),
    temperature: t.exposeFloat('temperature', { nullable: true, description: 'degrees Celsius' }),
    humidity: t.exposeFloat('humidity', { nullable: true, description: 'relative humidity, %' }),
    co2: t.exposeFloat('co2', { nullable: true, description: 'CO2, ppm' }),
    pm25: t.exposeFloat('pm25', { nullable: true, description: 'PM2.5, µg/m³' }),
  }),
});

const MonitorDevice = builder.objectRef<MonitorDeviceView>('MonitorDevice').implement({
  description: 'A room monitor of the linked monitor-cloud account',
  fields: (t) => ({
    serialNumber: t.exposeString('serialNumber'),
    deviceType: t.exposeString('deviceType', { nullable: true, description: 'the model' }),
    name: t.exposeString('name', { nullable: true, description: 'the room it is in' }),
  }),
});

const MonitorLink = builder.objectRef<MonitorLinkView>('MonitorLink').implement({
  description: 'The linked monitor-cloud account (the client secret is never answered)',
  fields: (t) => ({
    linked: t.exposeBoolean('linked'),
    clientId: t.exposeString('clientId'),
    linkedAt: t.expose('linkedAt', { type: 'DateTime' }),
    devices: t.field({ type: [MonitorDevice], resolve: (l) => l.devices }),
  }),
});

const MonitorDeviceHistory = builder
  .objectRef<MonitorDeviceHistoryView>('MonitorDeviceHistory')
  .implement({
    description: "A monitor's readings of the synced window, oldest first",
    fields: (t) => ({
      serialNumber: t.exposeString('serialNumber'),
      deviceType: t.exposeString('deviceType', { nullable: true }),
      name: t.exposeString('name', { nullable: true }),
      readings: t.field({ type: [MonitorReading], resolve: (d) => d.readings }),
    }),
  });

const MonitorSync = builder.objectRef<MonitorSyncView>('MonitorSync').implement({
  description: "The history fetched from the monitor cloud for the person's monitors",
  fields: (t) => ({
    fetched: t.exposeInt('fetched', { description: 'readings the cloud answered' }),
    stored: t.exposeInt('stored', { description: 'of those, new here' }),
    devices: t.field({ type: [MonitorDeviceHistory], resolve: (s) => s.devices }),
  }),
});

const MonitorReadingPage = builder
  .objectRef<MonitorReadingPageView>('MonitorReadingPage')
  .implement({
    description: 'A page of room-monitor readings and the cursor of the next page',
    fields: (t) => ({
      items: t.field({ type: [MonitorReading], resolve: (p) => p.items }),
      nextCursor: t.exposeString('nextCursor', {
        nullable: true,
        description: 'pass it as cursor for the next page; null on the last page',
      }),
    }),
  });

const MonitorWebhookAck = builder.objectRef<WebhookAckView>('MonitorWebhookAck').implement({
  description: 'The acknowledgement of a monitor-cloud delivery',
  fields: (t) => ({
    ok: t.exposeBoolean('ok'),
    duplicate: t.exposeBoolean('duplicate', {
      description: 'this delivery id was received before; nothing changed',
    }),
    stored: t.exposeInt('stored', { description: 'readings new here' }),
  }),
});

const LinkMonitorInput = builder.inputType('LinkMonitorInput', {
  description: "The person's monitor-cloud API client (LinkRequest)",
  fields: (t) => ({
    clientId: t.string({ required: true, description: 'the API client id' }),
    clientSecret: t.string({
      required: true,
      description: 'the API client secret (stored encrypted, never answered)',
    }),
  }),
  validate: z.object({
    clientId: z.string().trim().min(1).max(200),
    clientSecret: z.string().min(1).max(500),
  }),
});

export const days = (defaultValue: number, what: string) => ({
  defaultValue,
  required: true as const,
  description: `${what} (1..${MONITOR_DAYS_MAX}, default ${defaultValue})`,
  validate: z.number().int().min(1).max(MONITOR_DAYS_MAX),
});

/** The optional one-monitor filter of the reading reads. */
export const serialNumberArg = {
  description: 'only this monitor (its serial number); leave it out for all',
  validate: z.string().min(1).max(64).nullish(),
};

builder.queryFields((t) => ({
  monitorReadingPage: t.withAuth({ scope: 'health:metrics:read' }).field({
    type: MonitorReadingPage,
    description: "One page of the person's room-monitor readings of the last days, newest first",
    args: {
      days: t.arg.int(days(1, 'the window: the last days')),
      serialNumber: t.arg.string(serialNumberArg),
      limit: t.arg.int({
        defaultValue: MONITOR_PAGE_DEFAULT,
        required: true,
        description: `readings per page (${MONITOR_PAGE_DEFAULT}: a day of one monitor's 5-minute samples)`,
        validate: z.number().int().min(1).max(MONITOR_PAGE_MAX),
      }),
      cursor: t.arg.string({
        description: 'next_cursor of the previous page; leave it out for the first page',
        validate: z.string().min(1).max(200).nullish(),
      }),
    },
    resolve: (_root, args, ctx) => monitorReadingPage(ctx, args),
  }),
}));

builder.mutationFields((t) => ({
  linkMonitor: t.withAuth({ loginSession: true }).field({
    type: MonitorLink,
    description:
      "Links the person's monitor-cloud account by its API client credentials (replacing any earlier link) and stores its monitors",
    args: { input: t.arg({ type: LinkMonitorInput, required: true }) },
    resolve: (_root, { input }, ctx) => linkMonitor(ctx, input),
  }),
  syncMonitor: t.withAuth({ loginSession: true }).field({
    type: MonitorSync,
    description: "Fetches the history of the person's monitors from the cloud and stores it",
    args: { days: t.arg.int(days(SYNC_DAYS_DEFAULT, 'how many days back')) },
    resolve: (_root, args, ctx) => syncMonitor(ctx, args),
  }),
  receiveMonitorWebhook: t.withAuth({ public: true }).field({
    type: MonitorWebhookAck,
    description: 'Receives a signed push of readings from the monitor cloud',
    args: {
      body: t.arg.string({ required: true, description: 'the raw body as sent' }),
      signature: t.arg.string({ description: 'X-Monitor-Signature: sha256=<hex>' }),
      deliveryId: t.arg.string({ description: 'X-Monitor-Delivery: the id of this push' }),
    },
    resolve: (_root, args, ctx) => receiveMonitorWebhook(ctx, args),
  }),
}));
