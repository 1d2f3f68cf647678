import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from './config';
import { hostScored } from './digits/experiment';
import { digitPrompt, digitTask } from './digits/task';
import { sampleDigitItem } from './digits/tasks';
import { decodeText, digitVocabSize } from './digits/vocab';
import { Generator, GeneratorPool, inProcessGenerator, packWeights, unpackWeights, type GeneratorInit } from './generators';
import { createTrainingLoop } from './loop';
import type { StepResult } from './runnerTypes';
import { TransformerPolicy } from './model/transformer';
import { Rng } from './rng';

beforeAll(async () => {
  await tf.setBackend('wasm');
});

const policyConfig = { vocabSize: digitVocabSize, layers: 1, dModel: 16, heads: 2, context: 40 };
const init: GeneratorInit = { type: 'init', id: 0, policy: policyConfig, grammar: { task: 'sum_digits', maxResponseTokens: 6 }, maxTokens: 6, temperature: 1, seed: 9 };
const start = { policy: policyConfig, grammar: { task: 'sum_digits', maxResponseTokens: 6 } as const, maxTokens: 6, temperature: 1, seed: 4 };

/** Prompts of `count` digit questions, each `groupSize` times in a row. */
function prompts(count: number, groupSize = 1, seed = 1): number[][] {
  const rng = new Rng(seed);
  return Array.from({ length: count / groupSize }, () => digitPrompt(sampleDigitItem('sum_digits', rng))).flatMap((p) => Array(groupSize).fill(p) as number[][]);
}

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
    const generator = new Generator(init);
    const v1 = weightsOf(11);
    const v2 = weightsOf(12);
    expect(generator.applyWeights(packWeights(v2, 2))).toBe(true);
    expect(generator.applyWeights(packWeights(v1, 1))).toBe(false); // stale: arrived late
    expect(generator.applyWeights(packWeights(v1, 2))).toBe(false); // not newer
    expect(generator.version).toBe(2);
    const { version, samples } = await generator.generate(prompts(4));
    expect(version).toBe(2);
    expect(samples).toHaveLength(4);
    // The policy really holds v2: its samples equal a fresh policy's loaded with v2 (same seed).
    const reference = new Generator({ ...init, seed: 9 });
    reference.applyWeights(packWeights(v2, 1));
    expect((await reference.generate(prompts(4))).samples.map((t) => decodeText(t.tokens))).toEqual(samples.map((t) => decodeText(t.tokens)));
    generator.dispose();
    reference.dispose();
  });

  it('keeps the tensor count flat over many syncs and generations', async () => {
    const generator = new Generator(init);
    const weights = weightsOf(31);
    let version = 0;
    const round = async () => {
      generator.applyWeights(packWeights(weights, ++version));
      await generator.generate(prompts(4));
    };
    await round();
    const count = tf.memory().numTensors;
    for (let i = 0; i < 10; i++) await round();
    expect(tf.memory().numTensors).toBe(count);
    generator.dispose();
  });

  it('splits a batch between generators in whole groups and returns the samples in the prompts\' order', async () => {
    const pool = new GeneratorPool([inProcessGenerator(), inProcessGenerator()]);
    await pool.start(start);
    pool.sync(weightsOf(23), 1);
    const asked = prompts(12, 4);
    const batch = await pool.generate(asked, 4);
    expect(batch.samples).toHaveLength(12);
    expect(pool.statuses().map((s) => s.generated)).toEqual([8, 4]); // whole groups: 2 and 1
    // In order: each sample answers its own prompt (a lone generator with the same weights and seed writes the first 8 the same).
    const alone = new Generator({ ...init, ...start, seed: 4 });
    alone.applyWeights(packWeights(weightsOf(23), 1));
    expect((await alone.generate(asked.slice(0, 8))).samples.map((s) => s.tokens)).toEqual(batch.samples.slice(0, 8).map((s) => s.tokens));
    alone.dispose();
    await expect(pool.generate(prompts(10), 4)).rejects.toThrow('cannot form groups of 4');
    pool.close();
  });

  it('through a pool, every generator samples with the newest version and counts skipped syncs', async () => {
    const pool = new GeneratorPool([inProcessGenerator(), inProcessGenerator()]);
    await pool.start({ ...start, seed: 3 });
    pool.sync(weightsOf(21), 1);
    pool.sync(weightsOf(22), 2);
    pool.syncOne(0, packWeights(weightsOf(21), 1)); // a stale sync after a newer one
    const batch = await pool.generate(prompts(6));
    expect(batch.samples).toHaveLength(6);
    expect(batch.versions).toEqual([2, 2, 2, 2, 2, 2]);
    const statuses = pool.statuses();
    expect(statuses.map((s) => s.version)).toEqual([2, 2]);
    expect(statuses.map((s) => s.generatedWith)).toEqual([2, 2]);
    expect(statuses.map((s) => s.skippedSyncs)).toEqual([1, 0]);
    expect(statuses.map((s) => s.generated)).toEqual([3, 3]);
    pool.close();
  });
});

describe('a run with generators resumes as the straight run', () => {
  // The digit task's loop with two in-process generators: steps 3 and 4 after a checkpoint at step 2 sample what the straight run's do.
  for (const overlap of [false, true]) {
    it(`its samples (and with overlap the batch drawn ahead) come from the checkpoint${overlap ? ', overlap on' : ''}`, async () => {
      const base = defaultConfig('sum_digits', 'reinforce_monarch');
      const config = parseConfig({ ...base, model: { ...base.model, layers: 1, dModel: 16, heads: 2, context: 40 }, algorithm: { ...base.algorithm, batchSize: 8, groupSize: 1, learningRate: 1e-3 } });
      const make = () => createTrainingLoop(config, digitTask(config, new Set()), [], { pool: hostScored, generators: { pool: new GeneratorPool([inProcessGenerator(), inProcessGenerator()]), overlap } });
      const seen = (result: StepResult) => result.samples.map((sample) => `${sample.target} <- ${sample.program}`);
      const straight = await make();
      const expected: string[][] = [];
      for (let step = 1; step <= 4; step++) expected.push(seen(await straight.step()));
      const first = await make();
      await first.step();
      await first.step();
      const resumed = await make();
      await resumed.loadCheckpoint(await first.saveCheckpoint());
      expect([seen(await resumed.step()), seen(await resumed.step())]).toEqual(expected.slice(2));
      for (const loop of [straight, first, resumed]) loop.dispose();
    }, 60_000);
  }
});
