/**
 * The page's data-parallel warm start (shards.ts), run by the same service the page's worker runs,
 * here with Node's gradient workers: it changes the weights as one thread does, says how many
 * threads each update used, and a shard that fails or never starts leaves the warm start going on
 * one thread, with a word, not a failed or hung run.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../../core/checkpoint';
import { configFromSearchParams } from '../../core/config';
import { ShardError, type GradientShardFactory } from '../../core/gradientShards';
import { generateDataset } from '../../core/kolmogorov/generator';
import { createNodeGradientShards } from '../../cli/gradientHost';
import { createNodeSandboxPool } from '../../cli/sandboxHost';
import type { TrainerEvent } from '../protocol';
import { createTrainerService } from '../trainerService';

const config = configFromSearchParams('layers=1&d-model=16&heads=2&batch-size=8&max-program-tokens=40&max-sequence-length=32&context=96&workers=1');
const jsonl = (n: number, seed: number) => generateDataset(seed, n).map((e) => JSON.stringify(e)).join('\n') + '\n';
const closers: (() => Promise<void>)[] = [];
afterAll(async () => void (await Promise.all(closers.map((close) => close()))));

/** Node's gradient workers, remembered so that the test ends them. */
const nodeShards: GradientShardFactory = async (count, policy, grammar) => {
  const host = await createNodeGradientShards(count, policy, 'wasm', grammar);
  closers.push(host.close);
  return host;
};

/** A service on wasm with these shards, its data loaded and the test's config applied; its events as they come. */
async function readyService(gradientShards: { start: GradientShardFactory; count: number } | undefined) {
  const events: TrainerEvent[] = [];
  const service = createTrainerService(
    {
      initBackend: async () => {
        await tf.setBackend('wasm');
        return { backend: 'wasm', skipped: [] };
      },
      createPool: createNodeSandboxPool,
      transfer: (bytes) => bytes,
      gradientShards,
    },
    { dbName: `shards-${Math.random()}` },
  );
  await service.init((batch) => void events.push(...batch), { autosave: false });
  await service.loadDataset('train', 'train.jsonl', new Blob([jsonl(12, 1)]));
  await service.loadDataset('heldout', 'heldout.jsonl', new Blob([jsonl(3, 2)]));
  await service.configure(config);
  return { service, events };
}

/** Such a service pretrains `steps` steps; its events and the weights it ends with. */
async function pretrained(gradientShards: { start: GradientShardFactory; count: number } | undefined, steps: number) {
  const { service, events } = await readyService(gradientShards);
  await service.pretrain({ steps, evalEvery: steps, evalLimit: 1 });
  await expect.poll(() => events.some((e) => e.type === 'phase' && /pretraining done/.test(e.message)), { timeout: 60_000 }).toBe(true);
  const metrics = events.flatMap((e) => (e.type === 'metrics' ? e.events : []));
  const weights = (await decodeCheckpoint(await service.getCheckpoint())).tensors.filter((t) => t.group === 'weights');
  return { events, metrics, weights };
}

const maxDifference = (a: { data: ArrayLike<number> }[], b: { data: ArrayLike<number> }[]) =>
  a.reduce((max, tensor, i) => Array.from(tensor.data).reduce((m, value, j) => Math.max(m, Math.abs(value - b[i].data[j])), max), 0);

describe('the page\'s data-parallel warm start', () => {
  it('splits each update with a gradient worker and trains the weights one thread would', async () => {
    const one = await pretrained(undefined, 3);
    const two = await pretrained({ start: nodeShards, count: 1 }, 3);
    expect(one.metrics.filter((m) => m.name === 'pretrain_threads').map((m) => m.value)).toEqual([1, 1, 1]);
    expect(two.metrics.filter((m) => m.name === 'pretrain_threads').map((m) => m.value)).toEqual([2, 2, 2]);
    expect(two.metrics.filter((m) => m.name === 'pretrain_tokens_per_s').every((m) => m.value > 0)).toBe(true);
    expect(two.events.some((e) => e.type === 'progress' && / tokens\/s on 2 threads\)$/.test(e.task))).toBe(true);
    expect(maxDifference(two.weights, one.weights)).toBeLessThan(1e-4);
    // The weights moved: the comparison is not between two untouched policies.
    const losses = one.metrics.filter((m) => m.name === 'pretrain_loss').map((m) => m.value);
    expect(losses).toHaveLength(3);
    expect(losses.every(Number.isFinite)).toBe(true);
    expect(two.metrics.filter((m) => m.name === 'pretrain_loss').map((m) => m.value)[0]).toBeCloseTo(losses[0], 4);
  }, 120_000);

  it('a shard that fails mid-step: the step is redone on one thread, the user is told, and the rest runs on one thread', async () => {
    let started = 0;
    const failing: GradientShardFactory = async () => {
      started += 1;
      return { shards: [{ compute: () => Promise.reject(new ShardError('gradient worker failed: it exited with code 1')) }], close: async () => undefined };
    };
    const one = await pretrained(undefined, 3);
    const run = await pretrained({ start: failing, count: 1 }, 3);
    expect(run.metrics.filter((m) => m.name === 'pretrain_threads').map((m) => m.value)).toEqual([1, 1, 1]);
    expect(run.events.filter((e) => e.type === 'error').map((e) => (e as { message: string }).message)).toEqual([
      'pretrain step 1: gradient worker failed: it exited with code 1; updates go on in one thread',
    ]);
    expect(started).toBe(1); // not restarted at every step
    expect(maxDifference(run.weights, one.weights)).toBeLessThan(1e-6);
  }, 120_000);

  it('shards that do not start: the warm start runs on one thread and says why', async () => {
    const run = await pretrained({ start: () => Promise.reject(new Error('Worker is not defined')), count: 1 }, 2);
    expect(run.metrics.filter((m) => m.name === 'pretrain_threads').map((m) => m.value)).toEqual([1, 1]);
    expect(run.events.some((e) => e.type === 'error' && e.message === 'the gradient workers did not start (Worker is not defined); updates run on one thread')).toBe(true);
  }, 120_000);

  it('an RL update whose shard fails: redone on one thread and said once; a new run of the same model does not ask the failed workers again', async () => {
    let started = 0;
    const failing: GradientShardFactory = async () => {
      started += 1;
      return { shards: [{ compute: () => Promise.reject(new ShardError('gradient worker failed: it exited with code 1')) }], close: async () => undefined };
    };
    const { service, events } = await readyService({ start: failing, count: 1 });
    await service.step();
    await service.configure({ ...config, algorithm: { ...config.algorithm, learningRate: 2e-4 } });
    await service.step();
    const threads = events.flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.name === 'update_threads');
    expect(threads.map((m) => m.value)).toEqual([1, 1]);
    expect(events.filter((e) => e.type === 'error').map((e) => (e as { message: string }).message)).toEqual(['gradient worker failed: it exited with code 1; updates go on in one thread']);
    expect(started).toBe(1);
  }, 120_000);
});

describe('gradient shards across runs of different models', () => {
  /** Shards that count, per model width, how many were started and closed. */
  function countingShards() {
    const started = new Map<number, number>();
    const closed = new Map<number, number>();
    const start: GradientShardFactory = async (_count, policy) => {
      started.set(policy.dModel, (started.get(policy.dModel) ?? 0) + 1);
      return { shards: [], close: async () => void closed.set(policy.dModel, (closed.get(policy.dModel) ?? 0) + 1) };
    };
    return { start, started, closed };
  }

  it('keeps the live run\'s shards while a run of another model is made, and ends them once it is in place', async () => {
    const shards = countingShards();
    const { service } = await readyService({ start: shards.start, count: 1 });
    expect(config.algorithm.name).toBe('reinforce'); // an algorithm that splits its updates: the run asks for shards
    expect(shards.started.get(16)).toBe(1);
    // Another model whose update cannot fit: it is refused after its shards were asked for, and the live run is kept with its own.
    const tooBig = { ...config, model: { ...config.model, dModel: 32 }, algorithm: { ...config.algorithm, batchSize: 1 << 20 } };
    await expect(service.configure(tooBig)).rejects.toThrow(/wasm heap/);
    await expect.poll(() => shards.closed.get(32)).toBe(1);
    expect(shards.closed.get(16)).toBeUndefined();
    await service.step(); // the live run trains on
    // A run of another model in place: the shards it does not use are ended.
    await service.configure({ ...config, model: { ...config.model, dModel: 24 } });
    await expect.poll(() => shards.closed.get(16)).toBe(1);
    expect(shards.started.get(24)).toBe(1);
    expect(shards.closed.get(24)).toBeUndefined();
  }, 120_000);
});
