/** What other domains may use of the devices domain (the admin API's reads of sensors). */
export { listAllSensors, sensorCounts } from './devices.admin.ts';
export type { AdminSensorView, ListAllSensorsOptions } from './devices.admin.ts';
