/**
 * One training step of a policy on a given tfjs backend, from given weights, and how far two such
 * steps lie apart: how the tests hold WebGPU to wasm (e2e/webgpu.spec.ts runs it in Chromium,
 * where an adapter may exist; backendStep.test.ts runs it in Node on wasm and cpu, and says why
 * WebGPU is skipped there).
 *
 * The step is the bench's REINFORCE step (bench/run.ts, shared/bench/policy_bench.py): loss =
 * -(sum over each sequence of the taken tokens' log-probabilities x its advantage).mean(), on
 * fixed tokens and advantages, and its gradient in every weight. The optimizer's update is left
 * out: Adam divides by the root of the squared gradient, which turns a gradient's last-bit
 * differences into full-size steps where it is near zero, so comparing updated weights would
 * test Adam's epsilon rather than the backend.
 */
import * as tf from '@tensorflow/tfjs-core';
import { TransformerPolicy, type PolicyConfig, type WeightArray } from './transformer';

/** A small policy and batch for the check: every op of a real step (attention, GELU, LayerNorm, both embeddings) at sizes a software GPU runs in seconds. */
export const checkConfig: PolicyConfig = { vocabSize: 32, dModel: 32, heads: 4, layers: 2, context: 24, previousToken: true };
export const checkBatch = { batch: 4, seq: 16 };

export interface BackendStep {
  backend: string;
  loss: number;
  /** Gradients by weight name, in the policy's order. */
  grads: { name: string; values: Float32Array }[];
}

/** Fixed tokens and advantages for the check (a simple generator, no tfjs randomness, so every backend sees the same). */
function checkData(config: PolicyConfig, batch: number, seq: number): { tokens: Int32Array; advantages: Float32Array } {
  let state = 12345;
  const next = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 8) / 2 ** 24;
  return {
    tokens: Int32Array.from({ length: batch * seq }, () => Math.floor(next() * config.vocabSize)),
    advantages: Float32Array.from({ length: batch }, () => 2 * next() - 1),
  };
}

/**
 * Sets `backend` as tfjs's backend, builds the policy there with `weights` (the policy's own
 * seeded weights when null) and returns the step's loss and gradients; tfjs's backend is `backend`
 * afterwards. Throws when the backend cannot start.
 */
export async function stepOn(backend: string, weights: readonly WeightArray[] | null, config: PolicyConfig = checkConfig, { batch, seq } = checkBatch): Promise<BackendStep & { weights: WeightArray[] }> {
  if (!(await tf.setBackend(backend))) throw new Error(`tfjs backend ${backend} did not start`);
  await tf.ready();
  const policy = new TransformerPolicy(config, 1);
  try {
    if (weights) policy.setWeights(weights);
    const data = checkData(config, batch, seq);
    const { value, grads } = tf.tidy(() => {
      const tokens = tf.tensor2d(data.tokens, [batch, seq], 'int32');
      const inputs = tokens.slice([0, 0], [batch, seq - 1]) as tf.Tensor2D;
      const targets = tf.oneHot(tokens.slice([0, 1], [batch, seq - 1]).reshape([batch * (seq - 1)]), config.vocabSize);
      const advantage = tf.tensor2d(data.advantages, [batch, 1]);
      return tf.variableGrads(() => {
        const logits = policy.forward(inputs).reshape([batch * (seq - 1), config.vocabSize]);
        const taken = tf.logSoftmax(logits).mul(targets).sum(1).reshape([batch, seq - 1]);
        return taken.sum(1, true).mul(advantage).mean().neg() as tf.Scalar;
      }, policy.variables);
    });
    const names = policy.weightNames();
    const result = {
      backend,
      loss: (await value.data())[0],
      grads: await Promise.all(policy.variables.map(async (v, i) => ({ name: names[i], values: (await grads[v.name].data()) as Float32Array }))),
      weights: policy.getWeights().map((w) => ({ ...w, data: Float32Array.from(w.data) })),
    };
    tf.dispose([value, ...Object.values(grads)]);
    return result;
  } finally {
    policy.dispose();
  }
}

export interface StepDifference {
  /** |loss a - loss b| / max(|loss b|, 1e-6). */
  lossRelative: number;
  /** The gradient that differs most: its name and max |a - b| / max |b| over its elements. */
  worstGradient: { name: string; relative: number };
}

/** How far step `a` lies from step `b` (the reference). */
export function stepDifference(a: BackendStep, b: BackendStep): StepDifference {
  let worstGradient = { name: '', relative: 0 };
  for (const [i, reference] of b.grads.entries()) {
    const other = a.grads[i];
    if (other?.name !== reference.name || other.values.length !== reference.values.length) throw new Error(`gradient ${reference.name} is missing or mis-shaped in ${a.backend}'s step`);
    let scale = 1e-12;
    let diff = 0;
    for (let j = 0; j < reference.values.length; j++) {
      scale = Math.max(scale, Math.abs(reference.values[j]));
      diff = Math.max(diff, Math.abs(other.values[j] - reference.values[j]));
    }
    const relative = Number.isNaN(diff) ? Infinity : diff / scale;
    if (relative >= worstGradient.relative) worstGradient = { name: reference.name, relative };
  }
  return { lossRelative: Math.abs(a.loss - b.loss) / Math.max(Math.abs(b.loss), 1e-6), worstGradient };
}

/**
 * The tolerances of a step against wasm's. Both backends compute in float32 but sum in
 * different orders (a GPU's tiled products and reductions against our kernels' sequential
 * per-lane sums) and with their own exp, log and tanh, so results agree to a few float32 ulps per
 * operation, amplified where a gradient subtracts nearly equal terms (LayerNorm's, softmax's).
 * Measured on wasm against cpu: ~1e-7 (loss) and ~5e-7 (gradients). These bounds leave a GPU
 * 100-1000x more and still fail a real error (weights off by 0.05 at every seventh element move
 * the gradients by more than 0.1 relative: backendStep.test.ts checks).
 */
export const stepTolerance = { lossRelative: 1e-4, gradientRelative: 1e-3 };
