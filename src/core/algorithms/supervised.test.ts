import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { KolmogorovGrammar, encodePrompt, programToTokens, vocabSize } from '../kolmogorov/grammar';
import { generateDataset } from '../kolmogorov/generator';
import { parseProgram } from '../kolmogorov/program';
import { TransformerPolicy } from '../model/transformer';
import { SupervisedTrainer } from './supervised';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

describe('supervised warm start', () => {
  it('lowers held-out loss on a tiny configuration', async () => {
    const toPairs = (seed: number, count: number) =>
      generateDataset(seed, count, { maxBase: 1, maxLength: 8, listUpdateProbability: 0, mathProbability: 0 }).map((e) => ({
        prompt: encodePrompt(e.sequence, 16),
        tokens: programToTokens(parseProgram(e.program)),
      }));
    const train = toPairs(1, 64);
    const heldout = toPairs(2, 32);
    const policy = new TransformerPolicy({ vocabSize, layers: 1, dModel: 32, heads: 2, context: 48 }, 1);
    const trainer = new SupervisedTrainer(policy, new KolmogorovGrammar(), { learningRate: 3e-3, gradClip: 1 });
    const before = await trainer.loss(heldout);
    for (let step = 0; step < 40; step++) await trainer.step(train.slice((step * 16) % 64, ((step * 16) % 64) + 16));
    const after = await trainer.loss(heldout);
    // Measured: 2.75 -> 2.54 after 40 steps; an untrained policy stays at 2.75.
    expect(after).toBeLessThan(before - 0.15);
    trainer.dispose();
    policy.dispose();
  });
});
