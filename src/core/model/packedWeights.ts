/**
 * Weights in one buffer, to transfer (not copy) between threads: their names and shapes beside
 * one Float32Array, tagged with a version (generators' weight sync, gradient shards' requests).
 */
import type { WeightArray } from './transformer';

export interface WeightsMessage {
  type: 'weights';
  version: number;
  specs: { name: string; shape: number[] }[];
  buffer: ArrayBuffer;
}

/** Packs weights into one buffer (to transfer) plus their names and shapes. */
export function packWeights(weights: readonly WeightArray[], version: number): WeightsMessage {
  const total = weights.reduce((sum, w) => sum + w.data.length, 0);
  const data = new Float32Array(total);
  let offset = 0;
  for (const w of weights) {
    data.set(w.data, offset);
    offset += w.data.length;
  }
  return { type: 'weights', version, specs: weights.map((w) => ({ name: w.name, shape: [...w.shape] })), buffer: data.buffer };
}

export function unpackWeights(message: WeightsMessage): WeightArray[] {
  const data = new Float32Array(message.buffer);
  let offset = 0;
  return message.specs.map((spec) => {
    const size = spec.shape.reduce((a, b) => a * b, 1);
    const view = data.subarray(offset, offset + size);
    offset += size;
    return { name: spec.name, shape: spec.shape, data: view };
  });
}
