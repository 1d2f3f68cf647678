/**
 * The page's gradient shards (core/gradientShards.ts): worker threads beside the trainer that take
 * part of every update that splits its batch (the warm start's, reinforce's, expert iteration's),
 * as the CLI's `pretrain --threads` and `train --threads` do. They are started on first use for
 * the run's model and grammar and kept while those stay. A shard that fails is closed for good
 * (for that model): whoever's step it failed redoes it on the trainer's thread and says so.
 * Only on the wasm backend: a GPU backend does an update's work in one place.
 */
import { ShardError, type GradientShard } from '../../core/gradientShards';
import type { GrammarSpec } from '../../core/grammar';
import type { PolicyConfig } from '../../core/model/transformer';
import type { ServiceState } from './state';

/** The shards for this model and grammar, started if need be; [] when there are none to have. */
export async function shardsFor(state: ServiceState, policy: PolicyConfig, grammar: GrammarSpec): Promise<GradientShard[]> {
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
  const shards = (await state.shards!.host)?.shards ?? [];
  // A failure the shards report ends them for this model, whichever update met it.
  return shards.map((shard) => ({
    compute: (...request) =>
      shard.compute(...request).catch((error: unknown) => {
        if (error instanceof ShardError && state.shards?.key === key) {
          closeShards(state);
          state.shards = { key, host: Promise.resolve(null) };
        }
        throw error;
      }),
  }));
}

/** Ends the shards (another model, a failure). */
export function closeShards(state: ServiceState): void {
  const shards = state.shards;
  state.shards = undefined;
  void shards?.host.then((host) => host?.close());
}
