/**
 * What every update of the policy shares, whatever the algorithm: turning (prompt, program)
 * pairs into one left-padded batch with the grammar's masks, the masked log-probabilities of
 * the program tokens, and an Adam step with global-norm clipping that reads the loss on the
 * host and refuses to apply a non-finite update.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Grammar } from '../grammar';
import { leftPad } from './sampler';
import type { Adam } from './adam';
import type { TransformerPolicy } from './transformer';

export interface SequencePair {
  prompt: readonly number[];
  tokens: readonly number[];
}

export interface SequenceBatch {
  input: tf.Tensor2D; // [B, T] prompt + program[:-1], left-padded
  starts: number[];
  /** Column of the logits that predicts the first program token. */
  first: number;
  /** Program tokens per row, right-padded to P. */
  targets: tf.Tensor2D; // [B, P] int32
  /** 0 where the grammar allows a token, -1e9 where it does not. */
  allowed: tf.Tensor3D; // [B, P, V]
  /** 1 for real program tokens, 0 for padding. */
  tokenMask: tf.Tensor2D; // [B, P]
  tokenCount: number;
  programLength: number;
}

const NEG = -1e9;

export function buildSequenceBatch<S>(pairs: readonly SequencePair[], grammar: Grammar<S>, context: number, padToken = 0): SequenceBatch {
  const B = pairs.length;
  const V = grammar.vocabSize;
  const P = Math.max(1, ...pairs.map((p) => p.tokens.length));
  const { data: promptData, length: Lp, starts } = leftPad(pairs.map((p) => [...p.prompt]), padToken);
  const T = Lp + P - 1;
  if (T > context) throw new Error(`prompt (${Lp}) and program (${P}) tokens exceed the context of ${context}`);
  const input = new Int32Array(B * T).fill(padToken);
  const targets = new Int32Array(B * P);
  const allowed = new Float32Array(B * P * V).fill(NEG);
  const tokenMask = new Float32Array(B * P);
  const mask = new Uint8Array(V);
  let tokenCount = 0;
  pairs.forEach((pair, b) => {
    input.set(promptData.subarray(b * Lp, (b + 1) * Lp), b * T);
    let state = grammar.initial(pair.prompt);
    pair.tokens.forEach((token, i) => {
      if (i < P - 1) input[b * T + Lp + i] = token;
      targets[b * P + i] = token;
      tokenMask[b * P + i] = 1;
      grammar.allowed(state, mask);
      if (!mask[token]) throw new Error(`row ${b}: token ${token} at ${i} is not allowed by the grammar`);
      const base = (b * P + i) * V;
      for (let v = 0; v < V; v++) if (mask[v]) allowed[base + v] = 0;
      state = grammar.advance(state, token);
      tokenCount += 1;
    });
    // Padding positions allow everything so their softmax is well defined; they are masked out.
    for (let i = pair.tokens.length; i < P; i++) allowed.fill(0, (b * P + i) * V, (b * P + i + 1) * V);
  });
  return {
    input: tf.tensor2d(input, [B, T], 'int32'),
    starts,
    first: Lp - 1,
    targets: tf.tensor2d(targets, [B, P], 'int32'),
    allowed: tf.tensor3d(allowed, [B, P, V]),
    tokenMask: tf.tensor2d(tokenMask, [B, P]),
    tokenCount,
    programLength: P,
  };
}

export function disposeBatch(batch: SequenceBatch): void {
  tf.dispose([batch.input, batch.targets, batch.allowed, batch.tokenMask]);
}

/** Masked log-softmax over the program positions: [B, P, V]. */
export function programLogProbs(policy: TransformerPolicy, batch: SequenceBatch, temperature = 1): tf.Tensor3D {
  const logits = policy.forward(batch.input, batch.starts); // [B, T, V]
  const [B, , V] = logits.shape;
  const program = logits.slice([0, batch.first, 0], [B, batch.programLength, V]); // [B, P, V]
  return tf.logSoftmax(program.div(temperature).add(batch.allowed)) as tf.Tensor3D;
}

/** Log-probability of each target token: [B, P] (gather-free, so it differentiates on wasm). */
export function takenLogProbs(logProbs: tf.Tensor3D, batch: SequenceBatch): tf.Tensor2D {
  return logProbs.mul(tf.oneHot(batch.targets, logProbs.shape[2])).sum(2) as tf.Tensor2D;
}

/** Log-probability under `policy` of each program token taken: [B, P]. */
export function programTokenLogProbs(policy: TransformerPolicy, batch: SequenceBatch, temperature = 1): tf.Tensor2D {
  return takenLogProbs(programLogProbs(policy, batch, temperature), batch);
}

/** Summed log-probability of each row's program under `policy` (its unmasked tokens): [B]. */
export function programLogProbSums(policy: TransformerPolicy, batch: SequenceBatch, temperature = 1): tf.Tensor1D {
  return programTokenLogProbs(policy, batch, temperature).mul(batch.tokenMask).sum(1) as tf.Tensor1D;
}

export interface UpdateStats {
  values: Record<string, number>;
  gradNorm: number;
  skipped: boolean;
  reason?: string;
}

/**
 * One optimiser step on `lossFn` (which returns the loss first, then scalar diagnostics).
 * Everything is read back in one host sync; a non-finite loss or gradient skips the update.
 */
export function clippedStep(
  optimizer: Adam,
  variables: tf.Variable[],
  lossFn: () => Record<string, tf.Scalar>,
  gradClip: number,
): Promise<UpdateStats> {
  return accumulatedStep(optimizer, variables, [{ weight: 1, lossFn }], gradClip);
}

/** One micro-batch of an accumulated update: its loss and its share of the whole batch's. */
export interface MicroBatch {
  weight: number;
  lossFn: () => Record<string, tf.Scalar>;
}

/**
 * One optimiser step whose gradient is accumulated over micro-batches (gradient accumulation):
 * each part's gradient is computed alone and added with its weight, so a batch too big for memory
 * in one pass is learned from as one. With weights that are each part's share of the loss's
 * normaliser (its programs, or its tokens), the step equals the whole batch's. Diagnostics are
 * the weighted sums too.
 */
export async function accumulatedStep(
  optimizer: Adam,
  variables: tf.Variable[],
  parts: readonly MicroBatch[],
  gradClip: number,
): Promise<UpdateStats> {
  let total: tf.Tensor[] | null = null;
  const values: Record<string, number> = {};
  try {
    for (const { weight, lossFn } of parts) {
      let diagnostics: Record<string, tf.Scalar> = {};
      const { value, grads } = tf.variableGrads(() => {
        diagnostics = lossFn();
        for (const [name, scalar] of Object.entries(diagnostics)) if (name !== 'loss') diagnostics[name] = tf.keep(scalar);
        return diagnostics.loss;
      }, variables);
      const entries = Object.entries(diagnostics).filter(([name]) => name !== 'loss');
      const read = await Promise.all([value.data(), ...entries.map(([, scalar]) => scalar.data())]);
      values.loss = (values.loss ?? 0) + weight * read[0][0];
      entries.forEach(([name], i) => (values[name] = (values[name] ?? 0) + weight * read[i + 1][0]));
      tf.dispose([value, ...entries.map(([, scalar]) => scalar)]);
      const ordered = variables.map((variable) => grads[variable.name]);
      const previous = total as tf.Tensor[] | null;
      if (!previous && weight === 1) {
        total = ordered; // one part (no accumulation): its gradients as they are
        continue;
      }
      total = tf.tidy(() => ordered.map((g, i) => (previous ? previous[i].add(g.mul(weight)) : g.mul(weight))));
      tf.dispose([...(previous ?? []), ...ordered]);
    }
    return { values, ...(await applyClipped(optimizer, total!, values.loss, gradClip)) };
  } finally {
    if (total) tf.dispose(total);
  }
}

/**
 * Contiguous micro-batches of whole groups (episodes of one prompt stay together), about
 * `items / count` items each: a group is never split, so uneven groups can make one part more
 * than `count` (groups of 3, 3, 3 and 1 in 2 parts give 3, 3 and 4). Callers weight each part by
 * its share of the tokens, so the gradient is the whole batch's either way.
 */
export function microBatches<T>(items: readonly T[], count: number, groupOf: (item: T) => number | undefined = (item) => (item as { group?: number }).group): T[][] {
  if (count <= 1 || items.length <= 1) return [[...items]];
  const groups: T[][] = [];
  for (const item of items) {
    const last = groups[groups.length - 1];
    if (last && groupOf(item) !== undefined && groupOf(last[0]) === groupOf(item)) last.push(item);
    else groups.push([item]);
  }
  const size = Math.ceil(items.length / Math.min(count, groups.length));
  const parts: T[][] = [];
  for (const group of groups) {
    const last = parts[parts.length - 1];
    if (last && last.length + group.length <= size) last.push(...group);
    else parts.push([...group]);
  }
  return parts;
}

/**
 * Applies gradients (in the optimizer's variable order) with global-norm clipping, unless the
 * loss or the norm is not finite: then nothing changes and the reason says why. The caller
 * keeps ownership of the gradient tensors.
 */
export async function applyClipped(
  optimizer: Adam,
  gradients: readonly tf.Tensor[],
  loss: number,
  gradClip: number,
): Promise<{ gradNorm: number; skipped: boolean; reason?: string }> {
  const norm = tf.tidy(() => tf.sqrt(tf.addN(gradients.map((g) => g.square().sum()))));
  const gradNorm = (await norm.data())[0];
  norm.dispose();
  if (!Number.isFinite(loss) || !Number.isFinite(gradNorm)) {
    return { gradNorm, skipped: true, reason: `non-finite ${Number.isFinite(loss) ? `gradient (norm ${gradNorm})` : `loss (${loss})`}; update skipped, weights unchanged` };
  }
  optimizer.apply(gradients, gradNorm > gradClip ? gradClip / gradNorm : 1);
  return { gradNorm, skipped: false };
}
