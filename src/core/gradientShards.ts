/**
 * Gradient shards: data parallelism for supervised updates, platform-neutral. tfjs-wasm runs one
 * thread per engine, so a second engine in a worker (a Node worker_thread in the CLI,
 * src/cli/gradientHost.ts; a Web Worker in the page, src/worker/gradientShards.ts) is how an
 * update uses a second core. Each shard holds a policy copy; a request brings the current
 * weights and part of a batch, the shard answers with the summed loss terms and gradients
 * (gradientShardWorker.ts), each side's floats in one transferred buffer.
 *
 * Messages to a shard are handled one at a time, in order. A shard that fails (an error in its
 * worker, an exit) fails every request in flight and every later one with its reason: a step
 * never waits on a dead worker.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GrammarSpec } from './grammar';
import type { Adam } from './model/adam';
import { packWeights, type WeightsMessage } from './model/packedWeights';
import { applyClipped, type SequencePair, type UpdateStats } from './model/training';
import type { PolicyConfig, WeightArray } from './model/transformer';

/**
 * The grammar a shard checks the pairs' tokens against: a task's grammarSpec (the masks depend
 * on it), or `{ task: 'open' }`, every token allowed (benchmarks on random tokens).
 */
export type ShardGrammar = GrammarSpec;

/** A shard failed or refused a request: the update did not happen, and this thread alone can redo it. */
export class ShardError extends Error {
  override name = 'ShardError';
}

/**
 * The loss a shard differentiates, summed over its pairs' program tokens: cross-entropy (the warm
 * start; its sums are `loss` and `correct`), or REINFORCE's (algorithms/reinforce.ts: the taken
 * log-probabilities times per-token advantages, an entropy bonus, a KL to the reference weights
 * the request carries; its sums are `loss`, `entropy` and `kl`). Sums, not means, so that the
 * parts of a batch add up to the whole.
 */
export type ShardLoss =
  | { kind: 'crossEntropy' }
  | { kind: 'reinforce'; temperature: number; entropyCoef: number; klCoef: number; advantages: number[][] };

/** Summed (not averaged) loss terms and gradients of part of a batch. */
export interface ShardGradients {
  /** The loss's sums by name (`loss` first, then what it reports). */
  sums: Record<string, number>;
  /** Program tokens the sums run over. */
  tokens: number;
  /** One per policy variable, in the policy's order. */
  grads: Float32Array[];
}

/** Computes part of a batch's gradients with the given weights somewhere else (another thread). */
export interface GradientShard {
  /** `reference`: the KL's frozen reference weights, when the loss has a KL term. */
  compute(weights: readonly WeightArray[], pairs: readonly SequencePair[], loss?: ShardLoss, reference?: readonly WeightArray[]): Promise<ShardGradients>;
}

/** A summed loss and its gradients computed here, as tensors (the caller disposes them). */
export interface SummedGradients {
  sums: Record<string, number>;
  tokens: number;
  grads: tf.Tensor[];
}

/**
 * One optimiser step from a batch's summed loss computed in parts: `remote` (gradient shards,
 * already asked) and `local` (this thread's part, computed while they work). Every sum and
 * gradient is divided by the batch's token count, as a one-thread loss that is a mean per token,
 * then clipped and applied. A part that fails leaves the weights unchanged and rejects.
 */
export async function applyShardedStep(
  optimizer: Adam,
  remote: readonly Promise<ShardGradients>[],
  local: () => SummedGradients,
  gradClip: number,
): Promise<{ sums: Record<string, number>; applied: Omit<UpdateStats, 'values'> }> {
  remote.forEach((part) => part.catch(() => undefined)); // a failure is read below; none goes unhandled
  const mine = local();
  let results: ShardGradients[];
  try {
    results = await Promise.all(remote);
  } catch (error) {
    tf.dispose(mine.grads);
    throw error;
  }
  const tokens = results.reduce((sum, r) => sum + r.tokens, mine.tokens);
  const sums = Object.fromEntries(Object.entries(mine.sums).map(([name, value]) => [name, results.reduce((sum, r) => sum + (r.sums[name] ?? 0), value) / tokens]));
  const total = tf.tidy(() => mine.grads.map((grad, v) => results.reduce((acc, r) => acc.add(tf.tensor(r.grads[v], grad.shape)), grad).div(tokens)));
  try {
    return { sums, applied: await applyClipped(optimizer, total, sums.loss, gradClip) };
  } finally {
    tf.dispose([...total, ...mine.grads]);
  }
}

/** Shards started for one model and grammar, and how to end them. */
export interface GradientShards {
  readonly shards: GradientShard[];
  close(): Promise<void>;
}

/** Starts `count` shards for a model and grammar (each platform's way to make worker threads). */
export type GradientShardFactory = (count: number, policy: PolicyConfig, grammar: ShardGrammar) => Promise<GradientShards>;

export type ToShard =
  | { type: 'init'; policy: PolicyConfig; grammar: ShardGrammar }
  | { type: 'compute'; id: number; weights: WeightsMessage; pairs: SequencePair[]; loss: ShardLoss; reference?: WeightsMessage };

export type FromShard =
  | { type: 'ready' }
  | { type: 'gradients'; id: number; sums: Record<string, number>; tokens: number; buffer: ArrayBuffer; sizes: number[] }
  | { type: 'error'; id?: number; message: string };

/** The trainer's side of one shard worker. */
export interface ShardHandle {
  postMessage(message: ToShard, transfer: ArrayBuffer[]): void;
  onMessage(listener: (message: FromShard) => void): void;
  /** The worker failed or exited: `message` says why. */
  onFailure(listener: (message: string) => void): void;
  terminate(): Promise<void> | void;
}

/** Starts shards on the given worker handles (they load the same model) and resolves once every one is ready. */
export async function startGradientShards(handles: readonly ShardHandle[], policy: PolicyConfig, grammar: ShardGrammar): Promise<GradientShards> {
  const close = async () => void (await Promise.all(handles.map((handle) => handle.terminate())));
  try {
    const shards = await Promise.all(handles.map((handle) => connect(handle, policy, grammar)));
    return { shards, close };
  } catch (error) {
    await close();
    throw error;
  }
}

function connect(handle: ShardHandle, policy: PolicyConfig, grammar: ShardGrammar): Promise<GradientShard> {
  const pending = new Map<number, { resolve: (r: ShardGradients) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failure: Error | null = null;
  return new Promise<GradientShard>((ready, notReady) => {
    const fail = (error: Error) => {
      failure ??= error;
      for (const { reject } of pending.values()) reject(failure);
      pending.clear();
      notReady(failure);
    };
    handle.onFailure((message) => fail(new ShardError(`gradient worker failed: ${message}`)));
    handle.onMessage((message) => {
      if (message.type === 'ready') {
        ready({
          compute: (weights, pairs, loss = { kind: 'crossEntropy' }, reference) =>
            new Promise<ShardGradients>((resolve, reject) => {
              if (failure) return reject(failure);
              const id = nextId++;
              pending.set(id, { resolve, reject });
              const packed = packWeights(weights, id);
              const frozen = reference && packWeights(reference, id);
              const message: ToShard = { type: 'compute', id, weights: packed, pairs: pairs.map(({ prompt, tokens }) => ({ prompt, tokens })), loss, ...(frozen ? { reference: frozen } : {}) };
              handle.postMessage(message, frozen ? [packed.buffer, frozen.buffer] : [packed.buffer]);
            }),
        });
        return;
      }
      if (message.id === undefined) return fail(new ShardError(`gradient worker: ${message.type === 'error' ? message.message : 'unexpected reply'}`));
      const request = pending.get(message.id);
      if (!request) return;
      pending.delete(message.id);
      if (message.type === 'error') return request.reject(new ShardError(`gradient worker: ${message.message}`));
      const data = new Float32Array(message.buffer);
      let offset = 0;
      const grads = message.sizes.map((size) => data.subarray((offset += size) - size, offset));
      request.resolve({ sums: message.sums, tokens: message.tokens, grads });
    });
    handle.postMessage({ type: 'init', policy, grammar }, []);
  });
}
