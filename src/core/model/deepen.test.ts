import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { CheckpointError, decodeCheckpoint, encodeCheckpoint, tensorArrays } from '../checkpoint';
import { defaultConfig, type LabConfig } from '../config';
import { kolmogorovPolicyConfig } from '../kolmogorov/task';
import { deepenCheckpoint } from './deepen';
import { TransformerPolicy } from './transformer';
import { installWasmKernels } from './wasmKernels';

beforeAll(async () => {
  await tf.setBackend('wasm');
  installWasmKernels();
});

const withLayers = (layers: number, dModel = 16): LabConfig => {
  const config = defaultConfig();
  return { ...config, model: { ...config.model, layers, dModel, heads: 2, context: 48 } } as LabConfig;
};

/** A trained-looking shallow checkpoint: random weights, and biases that are not zero (as trained ones are not). */
async function shallowCheckpoint(layers: number): Promise<{ bytes: Uint8Array; policy: TransformerPolicy }> {
  const config = withLayers(layers);
  const policy = new TransformerPolicy(kolmogorovPolicyConfig(config as never), 3);
  const bytes = await encodeCheckpoint(
    { config, step: 40, rngState: [1, 2, 3, 4] },
    policy.getWeights().map((w) => ({ name: w.name, group: 'weights', dtype: 'float32', shape: w.shape, data: /\/b$/.test(w.name) ? w.data.map((_, i) => 0.01 * ((i % 7) - 3)) : Float32Array.from(w.data) })),
  );
  policy.setWeights(tensorArrays((await decodeCheckpoint(bytes)).tensors, 'weights'));
  return { bytes, policy };
}

describe('deepenCheckpoint', () => {
  it('gives a deeper policy the same logits as the shallow one it grew from', async () => {
    const { bytes, policy } = await shallowCheckpoint(1);
    const { bytes: deeper, fromLayers } = await deepenCheckpoint(await decodeCheckpoint(bytes), kolmogorovPolicyConfig(withLayers(3) as never), 9);
    expect(fromLayers).toBe(1);
    const { meta, tensors } = await decodeCheckpoint(deeper);
    expect(meta.config.model.layers).toBe(3);
    expect(meta.step).toBe(0);
    expect(tensors.every((t) => t.group === 'weights')).toBe(true);
    const grown = new TransformerPolicy(kolmogorovPolicyConfig(meta.config as never), 0);
    grown.setWeights(tensorArrays(tensors, 'weights'));
    // The new blocks' attention and MLP inputs are not zero (they will learn), only their outputs; the old block is kept as it was.
    const weight = (name: string) => tensorArrays(tensors, 'weights').find((w) => w.name === name)!.data;
    expect(weight('b2/fc1/w').some((x) => x !== 0)).toBe(true);
    for (const name of ['b1/proj/w', 'b1/proj/b', 'b2/fc2/w', 'b2/fc2/b']) expect(weight(name).every((x) => x === 0)).toBe(true);
    expect(weight('b0/fc2/b').some((x) => x !== 0)).toBe(true);
    const tokens = tf.tensor2d([[1, 5, 9, 12, 30, 2, 7, 7], [4, 4, 4, 60, 61, 62, 3, 1]], [2, 8], 'int32');
    const [a, b] = [policy.forward(tokens), grown.forward(tokens)];
    const [x, y] = [a.dataSync(), b.dataSync()];
    expect(y.length).toBe(x.length);
    for (let i = 0; i < x.length; i++) expect(Math.abs(x[i] - y[i])).toBeLessThan(1e-5);
    tf.dispose([tokens, a, b]);
    policy.dispose();
    grown.dispose();
  });

  it('refuses a checkpoint that is as deep already, or differs in more than depth', async () => {
    const { bytes, policy } = await shallowCheckpoint(2);
    policy.dispose();
    await expect(deepenCheckpoint(await decodeCheckpoint(bytes), kolmogorovPolicyConfig(withLayers(2) as never), 0)).rejects.toThrow(CheckpointError);
    await expect(deepenCheckpoint(await decodeCheckpoint(bytes), kolmogorovPolicyConfig(withLayers(3, 32) as never), 0)).rejects.toThrow(/only the depth may differ/);
  });
});
