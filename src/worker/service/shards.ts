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

/** Which shards a model and grammar take: shards are started for one and kept for it. */
export function shardKey(policy: PolicyConfig, grammar: GrammarSpec): string {
  return JSON.stringify([policy, grammar]);
}

/** The shards for this model and grammar, started if need be; [] when there are none to have. */
export async function shardsFor(state: ServiceState, policy: PolicyConfig, grammar: GrammarSpec): Promise<GradientShard[]> {
  const platform = state.platform.gradientShards;
  if (!platform || platform.count < 1 || state.backendName !== 'wasm') return [];
  const key = shardKey(policy, grammar);
  // Another model's shards stay: the live run may still be theirs (a new run is made aside first).
  let host = state.shards.get(key);
  if (!host) {
    host = platform.start(platform.count, policy, grammar).catch((error: Error) => {
      state.events.send({ type: 'error', message: `the gradient workers did not start (${error.message}); updates run on one thread` });
      return null;
    });
    state.shards.set(key, host);
  }
  const shards = (await host)?.shards ?? [];
  // A failure the shards report ends them for this model, whichever update met it.
  return shards.map((shard) => ({
    compute: (...request) =>
      shard.compute(...request).catch((error: unknown) => {
        if (error instanceof ShardError && state.shards.get(key) === host) {
          void host.then((failed) => failed?.close());
          state.shards.set(key, Promise.resolve(null));
        }
        throw error;
      }),
  }));
}

/** Ends every model's shards but those of `keep` (the live run's): called once a run is in place, or failed to be made. */
export function releaseShards(state: ServiceState, keep: string | null | undefined): void {
  for (const [key, host] of state.shards) {
    if (key === keep) continue;
    state.shards.delete(key);
    void host.then((started) => started?.close());
  }
}
