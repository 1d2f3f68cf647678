/**
 * A shipped policy file keeps the weights and the config to train with, and nothing of the run
 * that made it: an RL stage's checkpoint (step 50, Adam's state, --max-steps 50, its own output
 * directory and evaluation size) ships at step 0, weights only, with the lab's default run settings.
 */
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint, type NamedTensor } from '../core/checkpoint';
import { defaultConfig } from '../core/config';
import { asShippedPolicy } from './functionsRecipe';
import { shippedPolicy } from './shippedPolicy';

const base = defaultConfig('functions');
const stage = { ...base, algorithm: { ...base.algorithm, learningRate: 1e-3 }, run: { ...base.run, seed: 6, maxSteps: 50, timeLimit: 300, evalSamples: 20, outputDir: 'runs/x/rl', initFrom: 'runs/x/pretrained.prl' } };
const tensors: NamedTensor[] = [
  { name: 'w', group: 'weights', dtype: 'float32', shape: [2], data: new Float32Array([0.5, -1]) },
  { name: 'adam/m/w', group: 'optimizer', dtype: 'float32', shape: [2], data: new Float32Array([0.1, 0.2]) },
];

describe('a shipped policy file', () => {
  it('is an RL stage\'s weights at step 0, without its optimizer state or its run\'s budget, paths and sizes', async () => {
    const bytes = await encodeCheckpoint({ config: stage, step: 50, rngState: [1, 2, 3, 4], extra: { baseline: 0.3 } }, tensors);
    const shipped = await decodeCheckpoint(await asShippedPolicy(bytes, 1e-4));
    expect(shipped.meta.step).toBe(0);
    expect(shipped.tensors.map((t) => [t.name, [...t.data]])).toEqual([['w', [0.5, -1]]]);
    expect(shipped.meta.config.algorithm.learningRate).toBe(1e-4);
    expect(shipped.meta.config.run).toEqual({ ...base.run, seed: 6 });
    expect(shipped.meta.extra).toBeUndefined();
    // The Kolmogorov recipe gives the RL stage's config and records the warm start's length.
    const kolmogorov = await decodeCheckpoint(await shippedPolicy(bytes, () => ({ ...defaultConfig(), run: { ...defaultConfig().run, maxSteps: 600 } }), { warmStartSteps: 12000 }));
    expect(kolmogorov.meta).toMatchObject({ step: 0, extra: { warmStartSteps: 12000 } });
    expect(kolmogorov.meta.config.run.maxSteps).toBe(0);
  });
});
