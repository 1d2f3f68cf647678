/**
 * Gradient accumulation (algorithm.gradientAccumulationSteps): an update computed in 4
 * micro-batches moves the weights exactly as the one batch does, for every algorithm that has it.
 */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../config';
import { TOY, ToyGrammar } from '../model/testGrammar';
import { microBatches } from '../model/training';
import { TransformerPolicy, type WeightArray } from '../model/transformer';
import { Dpo, type TokenPair } from './dpo';
import { Grpo } from './grpo';
import { Reinforce, type Episode } from './reinforce';
import { Rloo } from './rloo';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const grammar = new ToyGrammar();
const policyConfig = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };
const programs = [[TOY.A, TOY.EOL, TOY.DONE], [TOY.B, TOY.EOL, TOY.DONE], [TOY.A, TOY.EOL, TOY.B, TOY.EOL, TOY.DONE], [TOY.B, TOY.EOL, TOY.A, TOY.EOL, TOY.DONE]];

/** 16 episodes in 8 groups of 2, of different lengths and rewards, with made-up sampling log-probabilities. */
const episodes: Episode[] = Array.from({ length: 16 }, (_, i) => {
  const tokens = programs[(i * 3) % 4];
  return { prompt: [TOY.BOS, 6 + (i % 4)], tokens, lineEnds: tokens.flatMap((t, j) => (t === TOY.EOL || t === TOY.DONE ? [j] : [])), reward: ((i * 7) % 5) / 4, group: Math.floor(i / 2), behaviourLogProbs: tokens.map((_, j) => -0.5 - 0.1 * ((i + j) % 3)) };
});

/** The weights after one update of a fresh policy (and a fresh reference) with `accumulation` micro-batches. */
async function weightsAfter(make: (policy: TransformerPolicy, reference: TransformerPolicy, accumulation: number) => { step(): Promise<{ skipped: boolean; loss: number; gradNorm: number }>; dispose(): void }, accumulation: number): Promise<{ weights: WeightArray[]; loss: number; gradNorm: number }> {
  const policy = new TransformerPolicy(policyConfig, 9);
  const reference = new TransformerPolicy(policyConfig, 10);
  const algorithm = make(policy, reference, accumulation);
  const stats = await algorithm.step();
  expect(stats.skipped).toBe(false);
  const weights = policy.getWeights().map((w) => ({ ...w, data: w.data.slice() }));
  [algorithm, policy, reference].forEach((d) => d.dispose());
  return { weights, loss: stats.loss, gradNorm: stats.gradNorm };
}

async function expectSameStep(make: Parameters<typeof weightsAfter>[0]): Promise<void> {
  const start = new TransformerPolicy(policyConfig, 9).getWeights();
  const whole = await weightsAfter(make, 1);
  const split = await weightsAfter(make, 4);
  // The gradient itself (Adam's first step hides its scale, its norm does not) and the loss.
  expect(split.gradNorm).toBeCloseTo(whole.gradNorm, 5);
  expect(split.loss).toBeCloseTo(whole.loss, 5);
  let moved = 0;
  whole.weights.forEach((w, i) => {
    w.data.forEach((value, j) => {
      expect(split.weights[i].data[j]).toBeCloseTo(value, 6);
      moved = Math.max(moved, Math.abs(value - start[i].data[j]));
    });
  });
  expect(moved).toBeGreaterThan(1e-4); // the step did something
}

const base = defaultConfig().algorithm;

describe('gradient accumulation over 4 micro-batches equals one batch of 4x', () => {
  it('cuts whole groups into contiguous micro-batches', () => {
    const parts = microBatches(episodes, 4);
    expect(parts.map((p) => p.length)).toEqual([4, 4, 4, 4]);
    expect(parts.flat()).toEqual(episodes);
    for (const part of parts) expect(part.length % 2).toBe(0);
    expect(microBatches(episodes.slice(0, 3), 8).flat()).toHaveLength(3);
  });

  it('REINFORCE (a mean over tokens, with entropy and KL)', async () => {
    await expectSameStep((policy, reference, k) => {
      const algorithm = new Reinforce(policy, grammar, { ...base, groupSize: 2, klCoef: 0.1, entropyCoef: 0.01, gradientAccumulationSteps: k }, reference);
      return { step: () => algorithm.step(episodes), dispose: () => algorithm.dispose() };
    });
  });

  for (const lossType of ['grpo', 'dr_grpo', 'dapo'] as const) {
    it(`GRPO, loss_type ${lossType}`, async () => {
      await expectSameStep((policy, reference, k) => {
        const algorithm = new Grpo(policy, grammar, { ...base, groupSize: 2, beta: 0.05, lossType, gradientAccumulationSteps: k }, 5, reference);
        return { step: () => algorithm.step(episodes), dispose: () => algorithm.dispose() };
      });
    });
  }

  it('RLOO (KL folded into the reward)', async () => {
    await expectSameStep((policy, reference, k) => {
      const algorithm = new Rloo(policy, grammar, { ...base, groupSize: 2, beta: 0.05, gradientAccumulationSteps: k }, reference);
      return { step: () => algorithm.step(episodes), dispose: () => algorithm.dispose() };
    });
  });

  it('DPO (a mean over pairs)', async () => {
    const pairs: TokenPair[] = Array.from({ length: 8 }, (_, i) => ({ prompt: [TOY.BOS, 6 + (i % 4)], chosen: programs[i % 2], rejected: programs[2 + ((i >> 1) % 2)] }));
    await expectSameStep((policy, reference, k) => {
      const algorithm = new Dpo(policy, grammar, { ...base, beta: 0.1, gradientAccumulationSteps: k }, reference);
      return { step: () => algorithm.stepPairs(pairs), dispose: () => algorithm.dispose() };
    });
  });
});
