import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { TransformerPolicy } from '../model/transformer';
import { DigitGenerator, GeneratorPool, inProcessGenerator, packWeights, unpackWeights, type GeneratorInit } from './generators';
import { digitVocabSize } from './vocab';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const policyConfig = { vocabSize: digitVocabSize, layers: 1, dModel: 16, heads: 2, context: 40 };
const init: GeneratorInit = { type: 'init', id: 0, policy: policyConfig, task: 'reverse_digits', maxResponseTokens: 6, temperature: 1, seed: 9, excluded: [] };

/** Weights of a fresh policy with the given seed (different seeds give different weights). */
function weightsOf(seed: number) {
  const policy = new TransformerPolicy(policyConfig, seed);
  const weights = policy.getWeights().map((w) => ({ ...w, data: w.data.slice() }));
  policy.dispose();
  return weights;
}

describe('versioned weight sync', () => {
  it('packs weights into one buffer and back without loss', () => {
    const weights = weightsOf(1);
    const message = packWeights(weights, 3);
    expect(message.buffer.byteLength).toBe(weights.reduce((s, w) => s + w.data.length * 4, 0));
    expect(unpackWeights(message).map((w) => [w.name, w.shape, Array.from(w.data)])).toEqual(weights.map((w) => [w.name, w.shape, Array.from(w.data)]));
  });

  it('a generator applies newer versions and ignores stale or repeated ones', async () => {
    const generator = new DigitGenerator(init);
    const v1 = weightsOf(11);
    const v2 = weightsOf(12);
    expect(generator.applyWeights(packWeights(v2, 2))).toBe(true);
    expect(generator.applyWeights(packWeights(v1, 1))).toBe(false); // stale: arrived late
    expect(generator.applyWeights(packWeights(v1, 2))).toBe(false); // not newer
    expect(generator.version).toBe(2);
    const { version, trajectories } = await generator.generate(4);
    expect(version).toBe(2);
    expect(trajectories).toHaveLength(4);
    // The policy really holds v2: its greedy samples equal a fresh policy loaded with v2.
    const reference = new DigitGenerator({ ...init, seed: 9 });
    reference.applyWeights(packWeights(v2, 1));
    expect((await reference.generate(4)).trajectories.map((t) => t.text)).toEqual(trajectories.map((t) => t.text));
    generator.dispose();
    reference.dispose();
  });

  it('keeps the tensor count flat over many syncs and generations', async () => {
    const generator = new DigitGenerator(init);
    const weights = weightsOf(31);
    let version = 0;
    const round = async () => {
      generator.applyWeights(packWeights(weights, ++version));
      await generator.generate(4);
    };
    await round();
    const count = tf.memory().numTensors;
    for (let i = 0; i < 10; i++) await round();
    expect(tf.memory().numTensors).toBe(count);
    generator.dispose();
  });

  it('samples groups of answers to one question, consecutive and never split between generators', async () => {
    const pool = new GeneratorPool([inProcessGenerator(), inProcessGenerator()]);
    await pool.start({ policy: policyConfig, task: 'sum_digits', maxResponseTokens: 6, temperature: 1, seed: 4, excluded: [] });
    pool.sync(weightsOf(23), 1);
    const batch = await pool.generate(12, 4);
    const questions = batch.trajectories.map((t) => t.question);
    expect(questions).toHaveLength(12);
    for (let g = 0; g < 3; g++) expect(new Set(questions.slice(4 * g, 4 * g + 4)).size).toBe(1);
    expect(new Set(questions).size).toBe(3);
    expect(pool.statuses().map((s) => s.generated)).toEqual([8, 4]); // whole groups: 2 and 1
    await expect(pool.generate(10, 4)).rejects.toThrow('cannot form groups of 4');
    pool.close();
  });

  it('through a pool, every generator samples with the newest version and counts skipped syncs', async () => {
    const pool = new GeneratorPool([inProcessGenerator(), inProcessGenerator()]);
    await pool.start({ policy: policyConfig, task: 'sum_digits', maxResponseTokens: 6, temperature: 1, seed: 3, excluded: [] });
    pool.sync(weightsOf(21), 1);
    pool.sync(weightsOf(22), 2);
    pool.syncOne(0, packWeights(weightsOf(21), 1)); // a stale sync after a newer one
    const batch = await pool.generate(6);
    expect(batch.trajectories).toHaveLength(6);
    expect(batch.versions).toEqual([2, 2, 2, 2, 2, 2]);
    const statuses = pool.statuses();
    expect(statuses.map((s) => s.version)).toEqual([2, 2]);
    expect(statuses.map((s) => s.generatedWith)).toEqual([2, 2]);
    expect(statuses.map((s) => s.skippedSyncs)).toEqual([1, 0]);
    expect(statuses.map((s) => s.generated)).toEqual([3, 3]);
    pool.close();
  });
});
