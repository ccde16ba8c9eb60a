/** What the app takes from discovery: its background work (the run worker), for the registry. */
export { DISCOVERY_WORK } from './discovery.worker.ts';
export type { DiscoveryWorkerDeps } from './discovery.worker.ts';
