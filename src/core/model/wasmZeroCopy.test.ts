import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { beforeAll, describe, expect, it } from 'vitest';
import { installWasmZeroCopy } from './wasmZeroCopy';

beforeAll(async () => {
  await tf.setBackend('wasm');
  await tf.ready();
  expect(installWasmZeroCopy().active).toBe(true);
});

describe('zero-copy Identity and Cast on wasm', () => {
  it('keeps a clone readable after its source is disposed, and frees the data with the last reference', () => {
    const buffers = () => tf.backend().numDataIds();
    const start = buffers();
    const a = tf.tensor([1, 2, 3, 4], [2, 2]);
    const clone = tf.clone(a);
    const cast = a.cast('float32');
    expect(buffers()).toBe(start + 1); // one buffer for all three
    a.dispose();
    expect(clone.dataSync()).toEqual(new Float32Array([1, 2, 3, 4]));
    clone.dispose();
    expect(cast.arraySync()).toEqual([[1, 2], [3, 4]]);
    cast.dispose();
    expect(buffers()).toBe(start);
  });

  it('still converts between dtypes', () => {
    const ints = tf.tensor([1, -2, 3], [3], 'int32');
    const floats = ints.cast('float32');
    expect(floats.dtype).toBe('float32');
    expect(floats.dataSync()).toEqual(new Float32Array([1, -2, 3]));
    const back = tf.tensor([1.7, -2.2]).cast('int32');
    expect(back.dtype).toBe('int32');
    expect(Array.from(back.dataSync())).toEqual([1, -2]);
    tf.dispose([ints, floats, back]);
  });

  it('leaves a variable assigned from a clone independent of later assignments', () => {
    const source = tf.tensor([5, 6]);
    const v = tf.variable(tf.clone(source));
    v.assign(tf.tensor([7, 8]));
    expect(source.dataSync()).toEqual(new Float32Array([5, 6]));
    expect(v.dataSync()).toEqual(new Float32Array([7, 8]));
    tf.dispose([source, v]);
  });

  it('gives the same gradients of products and sums as the cpu backend, with the tensor count flat', async () => {
    const loss = (x: tf.Tensor, y: tf.Tensor) => x.mul(y).add(x.square()).sum();
    const a = tf.tensor([[0.5, -1], [2, 3]]);
    const b = tf.tensor([[4, 0.25], [-2, 1]]);
    const before = tf.memory().numTensors;
    const grads = tf.grads(loss)([a, b]).map((g) => g.arraySync());
    expect(tf.memory().numTensors).toBe(before + 2);
    await tf.setBackend('cpu');
    try {
      expect(tf.grads(loss)([a, b]).map((g) => g.arraySync())).toEqual(grads);
    } finally {
      await tf.setBackend('wasm');
    }
  });
});
