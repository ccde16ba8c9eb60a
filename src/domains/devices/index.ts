/**
 * What other domains may use of the devices domain: the phones a push goes to and retiring dead
 * tokens (notifications), and the admin API's reads of sensors.
 */
export { pushTargets, retireDeviceTokens } from './devices.service.ts';
export type { PushTargetView, PushTargetsOptions, RetireTokensOptions } from './devices.service.ts';
export { listAllSensors, sensorCounts } from './devices.admin.ts';
export type { AdminSensorView, ListAllSensorsOptions } from './devices.admin.ts';
