/**
 * What other domains may use of the devices domain: the phones a push goes to and retiring dead
 * tokens (notifications), the admin API's reads of sensors, and the synced sensor sessions.
 */
export { pushTargets, retireDeviceTokens } from './devices.service.ts';
export type { PushTargetView, PushTargetsOptions, RetireTokensOptions } from './devices.service.ts';
export { listAllSensors, sensorCounts } from './devices.admin.ts';
export type { AdminSensorView, ListAllSensorsOptions } from './devices.admin.ts';
export { DEVICES_SYNCED_TABLES } from './devices.synced.ts';
