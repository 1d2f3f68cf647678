/**
 * A lost GPU device, in Node: the platform reports GPU backends (their tensors live on wasm here)
 * and then the loss of its device. Training pauses, tfjs starts again without that backend, the
 * run comes back to its last checkpoint (kept in memory every AUTOSAVE_EVERY steps, saving off),
 * the page is told to drop the metrics of the lost steps, and Resume goes on from there.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../core/checkpoint';
import { configFromSearchParams } from '../core/config';
import { generateDataset } from '../core/kolmogorov/generator';
import { createNodeSandboxPool } from '../cli/sandboxHost';
import type { TrainerEvent } from './protocol';
import { AUTOSAVE_EVERY } from './savedRuns';
import { createTrainerService } from './trainerService';

let loseDevice: (reason: string) => void = () => undefined;
const starts: string[][] = [];
const api = createTrainerService({
  initBackend: async (skip = []) => {
    starts.push(skip);
    await tf.setBackend('wasm');
    // Two GPU backends, so that a second loss has a device to lose too.
    return { backend: skip.includes('webgpu') ? 'webgl' : 'webgpu', skipped: skip.map((name) => `${name}: its device was lost`) };
  },
  onDeviceLost: (handler) => (loseDevice = handler),
  createPool: createNodeSandboxPool,
  transfer: (bytes) => bytes,
});
const events: TrainerEvent[] = [];
const jsonl = (n: number, seed: number) => generateDataset(seed, n).map((e) => JSON.stringify(e)).join('\n') + '\n';
const config = configFromSearchParams('layers=1&d-model=16&heads=2&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1');
const stepOf = async () => (await decodeCheckpoint(await api.getCheckpoint())).meta.step;
const tensorsOf = async (bytes: Uint8Array) => new Map((await decodeCheckpoint(bytes)).tensors.map((t) => [t.name, [...t.data]]));
const lastPhase = () => events.filter((e): e is Extract<TrainerEvent, { type: 'phase' }> => e.type === 'phase').at(-1);

describe('a lost GPU device', () => {
  it('pauses, restarts tfjs on another backend and brings the run back to its last checkpoint', async () => {
    await api.init((batch) => void events.push(...batch), { autosave: false });
    await api.loadDataset('train', 'train.jsonl', new Blob([jsonl(16, 1)]));
    await api.configure(config);
    for (let i = 0; i < AUTOSAVE_EVERY; i++) await api.step();
    const checkpoint = await api.getCheckpoint();
    for (let i = 0; i < 3; i++) await api.step();
    events.length = 0;
    loseDevice('test: the device was reset');
    await expect.poll(() => lastPhase()?.message ?? '', { timeout: 30_000 }).toMatch(/back at step 10, its last checkpoint, on webgl/);
    expect(lastPhase()?.phase).toBe('paused');
    expect(starts.at(-1)).toEqual(['webgpu']);
    expect(events).toContainEqual({ type: 'rollback', step: AUTOSAVE_EVERY });
    expect(await stepOf()).toBe(AUTOSAVE_EVERY);
    // Weights and optimizer state are the checkpoint's, bit for bit.
    const restored = await tensorsOf(await api.getCheckpoint());
    for (const [name, data] of await tensorsOf(checkpoint)) expect(restored.get(name), name).toEqual(data);
    // And so is its wall time: the lost steps' time is gone with them (the clock stays stopped while paused).
    const wallOf = async (bytes: Uint8Array) => (await decodeCheckpoint(bytes)).meta.extra?.wallMs;
    expect(await wallOf(await api.getCheckpoint())).toBe(await wallOf(checkpoint));
  });

  it('a loss while training ends the loop without an error, and Resume goes on from the checkpoint', async () => {
    await api.resume();
    await expect.poll(stepOf, { timeout: 60_000 }).toBeGreaterThan(2 * AUTOSAVE_EVERY);
    events.length = 0;
    loseDevice('test: lost while training');
    await expect.poll(() => lastPhase()?.message ?? '', { timeout: 30_000 }).toMatch(/back at step \d+, its last checkpoint/);
    const rollback = events.find((e): e is Extract<TrainerEvent, { type: 'rollback' }> => e.type === 'rollback')!;
    expect(rollback.step % AUTOSAVE_EVERY).toBe(0);
    expect(rollback.step).toBeGreaterThanOrEqual(2 * AUTOSAVE_EVERY);
    expect(events.some((e) => e.type === 'phase' && e.phase === 'error')).toBe(false);
    expect(await stepOf()).toBe(rollback.step);
    await api.step();
    expect(await stepOf()).toBe(rollback.step + 1);
  });

  it('lost before a new run\'s first checkpoint: back to the weights it was made from (carried by Apply), or to the checkpoint loaded', async () => {
    const weightsOnly = (tensors: Map<string, number[]>) => [...tensors].filter(([name]) => !name.startsWith('optimizer'));
    // Apply carries the trained weights into a new run at step 0; one step, then the loss.
    await api.configure({ ...config, algorithm: { ...config.algorithm, learningRate: 5e-4 } });
    const carried = await tensorsOf(await api.getCheckpoint());
    await api.step();
    events.length = 0;
    loseDevice('test: lost after Apply');
    await expect.poll(() => lastPhase()?.message ?? '', { timeout: 30_000 }).toMatch(/back at step 0/);
    const back = await tensorsOf(await api.getCheckpoint());
    for (const [name, data] of weightsOnly(carried)) expect(back.get(name), name).toEqual(data);
    // A checkpoint of step 3 loaded, one step, then the loss: back at step 3.
    for (let i = 0; i < 3; i++) await api.step();
    const file = await api.getCheckpoint();
    await api.loadCheckpoint(file, { source: 'three.prl' });
    await api.step();
    const downloadedOnTheLostDevice = await api.getCheckpoint();
    events.length = 0;
    loseDevice('test: lost after a load');
    await expect.poll(() => lastPhase()?.message ?? '', { timeout: 30_000 }).toMatch(/back at step 3, its last checkpoint/);
    expect(await stepOf()).toBe(3);
    // A download of a lost step is not the past of the charts cut back to step 3: loaded, it starts them over.
    expect((await api.loadCheckpoint(downloadedOnTheLostDevice, { source: 'lost.prl' })).sameRun).toBe(false);
  });

  it('lost while pretraining: no false error, and the run waits for Train or Pretrain (Resume would have started RL)', async () => {
    await api.pretrain({ steps: 100_000, evalEvery: 100_000, evalLimit: 1 });
    await expect.poll(() => events.some((e) => e.type === 'metrics' && e.events.some((m) => m.name === 'pretrain_loss')), { timeout: 30_000 }).toBe(true);
    events.length = 0;
    loseDevice('test: lost while pretraining');
    await expect.poll(() => lastPhase()?.message ?? '', { timeout: 30_000 }).toMatch(/lost \(test: lost while pretraining\) while pretraining; the run is back at its last save/);
    expect(lastPhase()?.phase).toBe('idle');
    expect(events.some((e) => e.type === 'phase' && e.phase === 'error')).toBe(false);
    expect(events.some((e) => e.type === 'error')).toBe(false);
  });
});
