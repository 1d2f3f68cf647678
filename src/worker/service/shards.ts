/**
 * The page's gradient shards (core/gradientShards.ts): worker threads beside the trainer that take
 * part of every supervised update (the warm start), as the CLI's `pretrain --threads` does. They
 * are started on first use for the run's model and grammar and kept while those stay; a shard
 * that fails is closed and the work goes on in the trainer alone, with a word to the user.
 * Only on the wasm backend: a GPU backend does an update's work in one place.
 */
import type { GradientShard, ShardGrammar } from '../../core/gradientShards';
import type { PolicyConfig } from '../../core/model/transformer';
import type { ServiceState } from './state';

/** The shards for this model and grammar, started if need be; [] when there are none to have. */
export async function shardsFor(state: ServiceState, policy: PolicyConfig, grammar: ShardGrammar): Promise<GradientShard[]> {
  const platform = state.platform.gradientShards;
  if (!platform || platform.count < 1 || state.backendName !== 'wasm') return [];
  const key = JSON.stringify([policy, grammar]);
  if (state.shards?.key !== key) {
    closeShards(state);
    const host = platform.start(platform.count, policy, grammar).catch((error: Error) => {
      state.events.send({ type: 'error', message: `the gradient workers did not start (${error.message}); updates run on one thread` });
      return null;
    });
    state.shards = { key, host };
  }
  return (await state.shards!.host)?.shards ?? [];
}

/** A shard failed: the shards end, and this model's updates run on the trainer's thread from now on. */
export function disableShards(state: ServiceState, reason: string): void {
  const key = state.shards?.key ?? '';
  closeShards(state);
  state.shards = { key, host: Promise.resolve(null) };
  state.events.send({ type: 'error', message: `${reason}; updates go on in one thread` });
}

/** Ends the shards (a failure, another model, the end of the service). */
export function closeShards(state: ServiceState): void {
  const shards = state.shards;
  state.shards = undefined;
  void shards?.host.then((host) => host?.close());
}
