/**
 * A batch drawn for one step of the loop (loop.ts), and the form a checkpoint keeps it in: with
 * parallel generators and overlap, the next batch is drawn before the update, and a resume must
 * take it as drawn (with the weights before that update) to go on as the straight run.
 */
import type { SampledSequence } from './model/sampler';

/** A batch drawn for one step: its items, prompts and samples (from this thread or the generators). */
export interface Drawn<Item> {
  itemIndices: number[];
  batch: Item[];
  prompts: number[][];
  samples: SampledSequence[];
  /** Weights version each sample was written with (generators only). */
  versions?: number[];
  generationsPerSecond?: number;
  sampleMs: number;
}

/** A batch drawn ahead as a checkpoint keeps it: items by index, or themselves when the task samples them (they are plain data). */
export interface SavedDraw<Item> {
  itemIndices: number[];
  items?: Item[];
  prompts: number[][];
  samples: { tokens: number[]; logProbs: number[]; lineEnds: number[]; complete: boolean }[];
  versions?: number[];
}

export function savedDraw<Item>(drawn: Drawn<Item>, sampled: boolean): SavedDraw<Item> {
  const samples = drawn.samples.map(({ tokens, logProbs, lineEnds, complete }) => ({ tokens, logProbs, lineEnds, complete }));
  return { itemIndices: drawn.itemIndices, ...(sampled ? { items: drawn.batch } : {}), prompts: drawn.prompts, samples, ...(drawn.versions ? { versions: drawn.versions } : {}) };
}

export function restoredDraw<Item>(saved: SavedDraw<Item>, items: readonly Item[]): Drawn<Item> {
  return { ...saved, batch: saved.items ?? saved.itemIndices.map((index) => items[index]), sampleMs: 0 };
}
