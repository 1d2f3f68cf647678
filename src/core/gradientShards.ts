/**
 * Gradient shards: data parallelism for updates (supervised cross-entropy, REINFORCE), platform-neutral. tfjs-wasm runs one
 * thread per engine, so a second engine in a worker (a Node worker_thread in the CLI,
 * src/cli/gradientHost.ts; a Web Worker in the page, src/worker/gradientShards.ts) is how an
 * update uses a second core. Each shard holds a policy copy; a request brings the current
 * weights and part of a batch, the shard answers with the summed loss terms and gradients
 * (gradientShardWorker.ts), each side's floats in one transferred buffer.
 *
 * Messages to a shard are handled one at a time, in order. A shard that fails (an error in its
 * worker, an exit, a refusal) or is closed refuses every request in flight and every later one
 * with a ShardError: a step never waits on a dead worker, and its caller redoes it on its own
 * thread.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { GrammarSpec } from './grammar';
import type { Adam } from './model/adam';
import { packWeights, type WeightsMessage } from './model/packedWeights';
import { applyClipped, type SequencePair, type UpdateStats } from './model/training';
import type { PolicyConfig, WeightArray } from './model/transformer';

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

/** What the user is told when a shard fails: its reason, and that the work goes on. */
export function shardFailureNote(reason: string): string {
  return `${reason}; updates go on in one thread`;
}

/**
 * A batch's items (their indices) in parts of balanced work, this thread's first and then one per
 * shard (fewer when the batch is small: no part is empty). A part is padded to its longest prompt
 * and its longest program, so its work is about its item count times that padded length: the
 * items are ordered by length and cut where the largest part's padded tokens are least. Equal
 * contiguous halves of a Kolmogorov RL batch (8 items x 4 samples of at most 32 values) padded
 * 18% more tokens in the slower half than this split (a simulation over the training file's
 * items; docs/performance.md), and the step waits for the slower part.
 */
export function balancedParts(items: readonly SequencePair[], shards: number): number[][] {
  const order = items.map((_, i) => i).sort((a, b) => items[a].prompt.length + items[a].tokens.length - (items[b].prompt.length + items[b].tokens.length) || a - b);
  const n = order.length;
  const parts = Math.min(shards + 1, n);
  if (parts <= 1) return n ? [order] : [];
  // best[p][i]: the least largest part of order[0..i) in p parts; cut[p][i]: where its last part
  // starts. The last part order[j..i) grows leftward with running maxima: O(parts n^2).
  const best = [Array.from({ length: n + 1 }, (_, i) => (i === 0 ? 0 : Infinity))];
  const cut: number[][] = [[]];
  for (let p = 1; p <= parts; p++) {
    best.push(Array(n + 1).fill(Infinity));
    cut.push(Array(n + 1).fill(0));
    for (let i = p; i <= n; i++) {
      let prompt = 0, tokens = 0;
      for (let j = i - 1; j >= p - 1; j--) {
        prompt = Math.max(prompt, items[order[j]].prompt.length);
        tokens = Math.max(tokens, items[order[j]].tokens.length);
        const worst = Math.max(best[p - 1][j], (i - j) * (prompt + tokens));
        // <= keeps the earliest cut among equals, as the loop upward did.
        if (worst <= best[p][i]) {
          best[p][i] = worst;
          cut[p][i] = j;
        }
      }
    }
  }
  const out: number[][] = [];
  for (let p = parts, i = n; p > 0; i = cut[p][i], p--) out.unshift(order.slice(cut[p][i], i));
  return out;
}

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
  let total: tf.Tensor[] = [];
  try {
    total = tf.tidy(() => mine.grads.map((grad, v) => results.reduce((acc, r) => acc.add(tf.tensor(r.grads[v], grad.shape)), grad).div(tokens)));
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
export type GradientShardFactory = (count: number, policy: PolicyConfig, grammar: GrammarSpec) => Promise<GradientShards>;

export type ToShard =
  | { type: 'init'; policy: PolicyConfig; grammar: GrammarSpec }
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

/**
 * Starts shards on the given worker handles (they load the same model) and resolves once every one
 * is ready. After `close`, a request in flight or a later one is refused with a ShardError (its
 * caller then computes on its own thread), never left waiting on a worker that is gone.
 */
export async function startGradientShards(handles: readonly ShardHandle[], policy: PolicyConfig, grammar: GrammarSpec): Promise<GradientShards> {
  const connections = handles.map((handle) => connect(handle, policy, grammar));
  const close = async () => {
    for (const connection of connections) connection.fail(new ShardError('the gradient workers were closed'));
    await Promise.all(handles.map((handle) => handle.terminate()));
  };
  try {
    return { shards: await Promise.all(connections.map((connection) => connection.ready)), close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** One worker's connection: ready once the worker has its model; `fail` refuses every request from then on. */
function connect(handle: ShardHandle, policy: PolicyConfig, grammar: GrammarSpec): { ready: Promise<GradientShard>; fail: (error: Error) => void } {
  const pending = new Map<number, { resolve: (r: ShardGradients) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failure: Error | null = null;
  let notReady: (error: Error) => void = () => undefined;
  const fail = (error: Error) => {
    failure ??= error;
    for (const { reject } of pending.values()) reject(failure);
    pending.clear();
    notReady(failure);
  };
  const shard: GradientShard = {
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
  };
  const ready = new Promise<GradientShard>((resolve, reject) => {
    notReady = reject;
    handle.onFailure((message) => fail(new ShardError(`gradient worker failed: ${message}`)));
    handle.onMessage((message) => {
      if (message.type === 'ready') return resolve(shard);
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
  ready.catch(() => undefined); // a failure before ready is read by startGradientShards
  return { ready, fail };
}
