/**
 * The training runner end to end with the real sandbox pool: resuming from a checkpoint
 * continues exactly where a straight run would be, and checkpoints of another architecture
 * are refused with a clear message before anything is touched.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFromSearchParams, defaultConfig, type LabConfig } from '../core/config';
import { generateDataset } from '../core/kolmogorov/generator';
import { createKolmogorovRunner as createRunner } from '../core/kolmogorov/runner';
import { bestOfK, kolmogorovReward, trainingRecords } from '../core/kolmogorov/task';
import { taskPreludes } from '../core/runner';
import { sandboxLimits } from './report';
import { createNodeSandboxPool } from './sandboxHost';

const config: LabConfig = defaultConfig();
config.model = { ...config.model, layers: 1, dModel: 16, heads: 2, context: 128, maxProgramTokens: 40 };
config.algorithm = { ...config.algorithm, batchSize: 4, learningRate: 0.01 };
config.task = { ...config.task, maxSequenceLength: 48 };
const data = { train: generateDataset(3, 20), heldout: generateDataset(4, 6) };
const pool = createNodeSandboxPool({ size: 1, limits: sandboxLimits(config), preludes: taskPreludes() });

beforeAll(async () => {
  await tf.setBackend('wasm');
});
afterAll(() => pool.close());

describe('trainingRecords (task.maxTrainLength)', () => {
  it('keeps the sequences within the limit, all with 0, and says so when none is short enough', () => {
    const records = [3, 10, 64, 65, 200].map((length, i) => ({ id: `r${i}`, sequence: Array.from({ length }, (_, j) => j) }));
    const config = configFromSearchParams('max-train-length=0&train-pieces=0');
    expect(trainingRecords(config, records)).toBe(records);
    config.task.maxTrainLength = 64;
    expect(trainingRecords(config, records).map((r) => r.sequence.length)).toEqual([3, 10, 64]);
    config.task.maxTrainLength = 2;
    expect(() => trainingRecords(config, records)).toThrow(/maxTrainLength 2: none of the 5 training sequences/);
  });

  it('adds pieces of the longer sequences, cut where split search cuts, within the limit', () => {
    const records = [3, 10, 64, 65, 200].map((length, i) => ({ id: `r${i}`, sequence: Array.from({ length }, (_, j) => (j * 7) % 256) }));
    const config = configFromSearchParams('max-train-length=0&train-pieces=3');
    expect(() => trainingRecords(config, records)).toThrow(/trainPieces needs task.maxTrainLength/);
    config.task.maxTrainLength = 32;
    const kept = trainingRecords(config, records);
    expect(kept.slice(0, 2).map((r) => r.sequence.length)).toEqual([3, 10]);
    const pieces = kept.slice(2);
    expect(pieces).toHaveLength(9);
    for (const { sequence } of pieces) {
      expect(sequence.length).toBeGreaterThanOrEqual(5);
      expect(sequence.length).toBeLessThanOrEqual(32);
      // Each piece is a stretch of one of the longer sequences, and the first of each starts at its start.
      const from = records.slice(2).find((r) => `,${r.sequence.join(',')},`.includes(`,${sequence.join(',')},`));
      expect(from).toBeDefined();
    }
    expect(pieces.filter((r) => r.sequence[0] === 0).length).toBeGreaterThanOrEqual(3);
    // The same seed cuts the same pieces.
    expect(trainingRecords(config, records)).toEqual(kept);
  });
});

describe('kolmogorovReward', () => {
  const target = [1, 2, 3, 4];
  const algorithm = { rewardConstant: 1, lengthPenalty: 0.01, prefixCredit: 0 };
  it('pays C - penalty * bits for a correct program and nothing for a wrong one by default', () => {
    expect(kolmogorovReward(algorithm, { kind: 'ok', output: target }, 30, target)).toBeCloseTo(0.7, 12);
    expect(kolmogorovReward(algorithm, { kind: 'wrong', output: [1, 2, 9] }, 10, target)).toBe(0);
  });
  it('with prefixCredit, pays for the share of the sequence a wrong output gets right from the start', () => {
    const credit = { ...algorithm, prefixCredit: 0.4 };
    expect(kolmogorovReward(credit, { kind: 'wrong', output: [1, 2, 9, 4] }, 10, target)).toBeCloseTo(0.2, 12);
    expect(kolmogorovReward(credit, { kind: 'wrong', output: [1, 2, 3, 4, 5] }, 10, target)).toBeCloseTo(0.4, 12);
    expect(kolmogorovReward(credit, { kind: 'wrong', output: [7] }, 10, target)).toBe(0);
    expect(kolmogorovReward(credit, { kind: 'runtime_error' }, 10, target)).toBe(0);
    expect(kolmogorovReward(credit, { kind: 'ok', output: target }, 30, target)).toBeCloseTo(0.7, 12);
  });
});

describe('runner', () => {
  it('keeps the shortest correct program of k samples, else the first', () => {
    expect(bestOfK([{ correct: false, bits: 5 }, { correct: true, bits: 40 }, { correct: true, bits: 30 }, { correct: true, bits: 35 }])).toBe(2);
    expect(bestOfK([{ correct: false, bits: 5 }, { correct: false, bits: 1 }])).toBe(0);
  });

  it('resumes bit-exactly: N + M steps straight equal N steps, save, load, M steps', async () => {
    const straight = await createRunner(config, data, { pool });
    for (let i = 0; i < 3; i++) await straight.step();
    const expected = straight.policy.getWeights();

    const first = await createRunner(config, data, { pool });
    for (let i = 0; i < 2; i++) await first.step();
    const bytes = await first.saveCheckpoint();
    first.dispose();
    const resumed = await createRunner(config, data, { pool });
    await resumed.loadCheckpoint(bytes);
    expect(resumed.globalStep).toBe(2);
    const last = await resumed.step();
    expect(last.step).toBe(3);
    resumed.policy.getWeights().forEach((w, i) => expect(w.data).toEqual(expected[i].data));
    straight.dispose();
    resumed.dispose();
  });

  it('keeps the tensor count flat across steps, saves and evaluations', async () => {
    const runner = await createRunner(config, data, { pool });
    await runner.step();
    await runner.saveCheckpoint();
    await runner.evaluate(data.heldout, { limit: 2 });
    const count = tf.memory().numTensors;
    for (let i = 0; i < 4; i++) {
      await runner.step();
      await runner.saveCheckpoint();
    }
    await runner.evaluate(data.heldout, { limit: 2, k: 2 });
    expect(tf.memory().numTensors).toBe(count);
    runner.dispose();
  });

  it('refuses a checkpoint of another architecture before touching the model', async () => {
    const runner = await createRunner(config, data, { pool });
    const bytes = await runner.saveCheckpoint();
    const other = await createRunner({ ...config, model: { ...config.model, dModel: 32 } }, data, { pool });
    const before = other.policy.getWeights();
    await expect(other.loadCheckpoint(bytes)).rejects.toThrow(/architecture differs: dModel 16 \(this model 32\)/);
    other.policy.getWeights().forEach((w, i) => expect(w.data).toEqual(before[i].data));
    runner.dispose();
    other.dispose();
  });
});
