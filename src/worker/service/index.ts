/** The trainer service's parts, by concept (trainerService.ts puts them together). */
export * as checkpoints from './checkpoints';
export * as control from './control';
export * as datasets from './datasets';
export * as deviceRecovery from './deviceRecovery';
export * as evaluation from './evaluation';
export * as events from './events';
export * as runs from './runs';
export * as serviceState from './state';
export * as shards from './shards';
export * as warmStart from './warmStart';
