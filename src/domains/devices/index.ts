/** What other domains may use of devices: the phones a push goes to, and retiring dead tokens. */
export { pushTargets, retireDeviceTokens } from './devices.service.ts';
export type { PushTargetView, PushTargetsOptions, RetireTokensOptions } from './devices.service.ts';
