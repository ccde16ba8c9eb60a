/** The person's devices: push tokens and CGM sensors (bind, unbind). */
import { z } from 'zod';
import { builder } from '../../graphql/builder.ts';
import type { DeviceTokenView, SensorSessionView } from './devices.service.ts';
import { bindSensor, registerDeviceToken, unbindSensor } from './devices.service.ts';

const serial = z.string().trim().min(1, 'serial_number is required').max(100);

export const DeviceToken = builder.objectRef<DeviceTokenView>('DeviceToken').implement({
  description: "A push-notification token of one of the person's phones",
  fields: (t) => ({
    id: t.exposeString('id'),
    token: t.exposeString('token'),
    platform: t.exposeString('platform'),
    deviceId: t.exposeString('deviceId', { nullable: true }),
    lastSeenAt: t.expose('lastSeenAt', { type: 'DateTime' }),
  }),
});

export const SensorSession = builder.objectRef<SensorSessionView>('SensorSession').implement({
  description: 'A CGM sensor bound to the person',
  fields: (t) => ({
    id: t.exposeString('id'),
    serialNumber: t.exposeString('serialNumber'),
    sensorType: t.exposeString('sensorType', { nullable: true }),
    startedAt: t.expose('startedAt', { type: 'DateTime' }),
    expiresAt: t.expose('expiresAt', { type: 'DateTime', nullable: true }),
    status: t.exposeString('status', { description: 'active or unbound' }),
    unboundAt: t.expose('unboundAt', { type: 'DateTime', nullable: true }),
  }),
});

const DeviceTokenInput = builder.inputType('DeviceTokenIn', {
  fields: (t) => ({
    token: t.string({ required: true, description: 'the APNs or FCM push token' }),
    platform: t.string({ required: true, description: 'ios or android' }),
    deviceId: t.string({ description: "the phone's own install identifier" }),
  }),
  validate: z.object({
    token: z.string().trim().min(1).max(4096),
    platform: z.enum(['ios', 'android'], { message: 'platform must be ios or android' }),
    deviceId: z.string().max(200).nullish(),
  }),
});

const SensorSessionInput = builder.inputType('SensorSessionIn', {
  fields: (t) => ({
    serialNumber: t.string({ required: true }),
    sensorType: t.string({ description: 'e.g. libre2, libre3, dexcom_g7' }),
    startedAt: t.field({ type: 'DateTime', description: 'default now' }),
    expiresAt: t.field({ type: 'DateTime' }),
  }),
  validate: z
    .object({
      serialNumber: serial,
      sensorType: z.string().max(100).nullish(),
      startedAt: z.date().nullish(),
      expiresAt: z.date().nullish(),
    })
    .refine((v) => !v.startedAt || !v.expiresAt || v.expiresAt > v.startedAt, {
      message: 'expires_at must be after started_at',
      path: ['expiresAt'],
    }),
});

builder.mutationFields((t) => ({
  // NOTE: the phone registers itself (a login session); a token or an agent never binds devices.
  registerDeviceToken: t.withAuth({ loginSession: true }).field({
    type: DeviceToken,
    description: "Registers (or refreshes) a push token of the caller's phone",
    args: { input: t.arg({ type: DeviceTokenInput, required: true }) },
    resolve: (_root, { input }, ctx) => registerDeviceToken(ctx, input),
  }),
  bindSensor: t.withAuth({ loginSession: true }).field({
    type: SensorSession,
    description:
      "Binds a CGM sensor to the caller, or updates the caller's sensor with that serial number",
    args: { input: t.arg({ type: SensorSessionInput, required: true }) },
    resolve: (_root, { input }, ctx) => bindSensor(ctx, input),
  }),
  unbindSensor: t.withAuth({ loginSession: true }).field({
    type: SensorSession,
    description: "Unbinds one of the caller's sensors",
    args: { serialNumber: t.arg.string({ required: true, validate: serial }) },
    resolve: (_root, { serialNumber }, ctx) => unbindSensor(ctx, { serialNumber }),
  }),
}));
