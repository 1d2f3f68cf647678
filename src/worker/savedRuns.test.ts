/**
 * The live run kept in the browser, from the trainer service in Node (IndexedDB from
 * fake-indexeddb): the worker saves every AUTOSAVE_EVERY steps and on pause, a resumed run
 * continues exactly as the run it was saved from, and a save that would not fit is not tried.
 */
import 'fake-indexeddb/auto';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { decodeCheckpoint } from '../core/checkpoint';
import { configFromSearchParams } from '../core/config';
import { generateDataset } from '../core/kolmogorov/generator';
import type { MetricEvent } from '../core/runnerTypes';
import { createNodeSandboxPool } from '../cli/sandboxHost';
import type { TrainerEvent } from './protocol';
import { RunStore, isInterrupted, newRunRecord } from './runStore';
import { AUTOSAVE_EVERY, SavedRuns, parseRunFile, quotaCheck } from './savedRuns';
import { PRETRAIN_SAVE_EVERY } from './service/warmStart';
import { createTrainerService } from './trainerService';

const DB = 'saved-runs-test';
const api = createTrainerService(
  {
    initBackend: async () => {
      await tf.setBackend('wasm');
      return { backend: 'wasm', skipped: [] };
    },
    createPool: createNodeSandboxPool,
    transfer: (bytes) => bytes,
  },
  { dbName: DB },
);
const events: TrainerEvent[] = [];
const jsonl = (n: number, seed: number) => generateDataset(seed, n).map((e) => JSON.stringify(e)).join('\n') + '\n';
// KL on, so the run has a reference (the warm start below) that must come back with it.
const config = configFromSearchParams('layers=1&d-model=16&heads=2&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1&kl-coef=0.05');
const runsEvents = () => events.filter((e): e is Extract<TrainerEvent, { type: 'runs' }> => e.type === 'runs');
const latestRuns = () => runsEvents().at(-1)?.runs ?? [];
// Timings (_ms, per second) differ between any two runs; every other figure is computed.
const metricsAfter = (from: number): MetricEvent[] => events.flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.step > from && !m.name.endsWith('_per_s') && !m.name.endsWith('_ms'));

describe('saved runs (the trainer worker keeps the live run in IndexedDB)', () => {
  it('saves every AUTOSAVE_EVERY steps and on pause, with the warm start as the KL reference', async () => {
    await api.init((batch) => void events.push(...batch), { autosave: true });
    await api.loadDataset('train', 'train.jsonl', new Blob([jsonl(16, 1)]));
    await api.loadDataset('heldout', 'heldout.jsonl', new Blob([jsonl(3, 2)]));
    await api.configure(config);
    for (let i = 0; i < 3; i++) await api.step();
    // A warm start from these weights: they become the run's KL reference, saved with it.
    await api.loadCheckpoint(await api.getCheckpoint(), { source: 'warm', warmStart: true });
    await api.train();
    await expect.poll(() => latestRuns()[0]?.step ?? 0, { timeout: 60_000 }).toBeGreaterThanOrEqual(AUTOSAVE_EVERY);
    await api.pause();
    const store = await RunStore.open(DB);
    await expect.poll(async () => (await store.list())[0]?.status, { timeout: 10_000 }).toBe('paused');
    const [run] = await store.list();
    const step = (await decodeCheckpoint(await api.getCheckpoint())).meta.step;
    expect(run.step).toBe(step); // the pause saved the step it stopped at
    const stored = await store.load(run.id);
    expect(stored.reference).not.toBeNull();
    expect(stored.run.referenceBytes).toBeGreaterThan(0);
    // The run's record: the files it read, each with its sha256, and the code and backend.
    const sha = (bytes: string | Uint8Array) => createHash('sha256').update(bytes).digest('hex');
    expect(stored.run.provenance).toEqual({
      code: { version: 'unknown', build: 'dev' },
      backend: 'wasm',
      files: [
        { role: 'train', name: 'train.jsonl', sha256: sha(jsonl(16, 1)), bytes: jsonl(16, 1).length, loaded: 16, rejected: 0 },
        { role: 'heldout', name: 'heldout.jsonl', sha256: sha(jsonl(3, 2)), bytes: jsonl(3, 2).length, loaded: 3, rejected: 0 },
        { role: 'warm start', name: 'warm', sha256: expect.stringMatching(/^[0-9a-f]{64}$/), bytes: stored.run.referenceBytes },
      ],
    });
    // Every step's metrics up to the save, once each.
    expect(stored.events.filter((e) => e.name === 'avg_reward').map((e) => e.step)).toEqual(Array.from({ length: step }, (_, i) => i + 1));
    store.close();
  });

  it('a held-out score taken after the run stopped is saved with it (Saved runs compares runs by it)', async () => {
    const store = await RunStore.open(DB);
    await api.stop().catch(() => undefined);
    const [before] = await store.list();
    const row = await api.evaluate({ limit: 3, search: 'greedy' });
    await expect.poll(async () => (await store.load(before.id)).evaluations.map((r) => r.label), { timeout: 10_000 }).toContain(row.label);
    store.close();
  });

  it('a resumed run continues exactly as the run it was saved from (weights, optimizer, RNG, reference)', async () => {
    const [run] = latestRuns();
    const saved = run.step;
    // The run as it goes on, never interrupted: two more steps (not saved, so the store keeps the step before them).
    events.length = 0;
    await api.setAutosave(false);
    await api.step();
    await api.step();
    const straight = metricsAfter(saved);
    // Another run in between (a new configuration), then the saved one brought back.
    await api.configure({ ...config, run: { ...config.run, seed: 99 } });
    await api.step();
    const resumed = await api.resumeRun(run.id);
    await api.setAutosave(true);
    expect(resumed.step).toBe(saved);
    expect(resumed.events.filter((e) => e.name === 'avg_reward')).toHaveLength(saved);
    events.length = 0;
    await api.step();
    await api.step();
    const again = metricsAfter(saved);
    expect(again.map((m) => m.name)).toEqual(straight.map((m) => m.name));
    // Wall time differs; everything the run computed is the same, bit for bit (kl included: the reference came back).
    expect(again.map((m) => [m.step, m.name, m.value])).toEqual(straight.map((m) => [m.step, m.name, m.value]));
    expect(straight.some((m) => m.name === 'kl' && m.value !== 0)).toBe(true);
  });

  it('a loaded checkpoint is a run of its own; rename, export and delete act on the store', async () => {
    const before = latestRuns().length;
    await api.loadCheckpoint(await api.getCheckpoint(), { source: 'by hand' });
    for (let i = 0; i < AUTOSAVE_EVERY; i++) await api.step();
    await expect.poll(() => latestRuns().length, { timeout: 10_000 }).toBe(before + 1);
    const [fresh] = latestRuns();
    // Each step is saved: the last one's write lands before the file is read.
    const last = (await decodeCheckpoint(await api.getCheckpoint())).meta.step;
    await expect.poll(() => latestRuns().find((r) => r.id === fresh.id)?.step, { timeout: 10_000 }).toBe(last);
    await api.renameRun(fresh.id, 'mine');
    expect(latestRuns().find((r) => r.id === fresh.id)?.name).toBe('mine');
    const file = JSON.parse(new TextDecoder().decode(await api.exportRun(fresh.id))) as { format: string; run: { step: number }; metrics: unknown[]; checkpoint: string };
    expect(file.format).toBe('program-rl-lab-run');
    expect((await decodeCheckpoint(new Uint8Array(Buffer.from(file.checkpoint, 'base64')))).meta.step).toBe(file.run.step);
    // Every figure with a value (JSON has no NaN: one reported without a value is not drawn, and not written).
    expect((await api.runEvents(fresh.id)).events.filter((e) => Number.isFinite(e.value)).length).toBe(file.metrics.length);
    await api.deleteRun(fresh.id);
    expect(latestRuns().length).toBe(before);
  });

  it('a downloaded run file comes back as a stopped run, reference included; a file that is none says why', async () => {
    const [run] = latestRuns();
    const bytes = await api.exportRun(run.id);
    const text = new TextDecoder().decode(bytes);
    const imported = await api.importRun(new Blob([text]), 'a.run.json');
    expect(imported).toMatchObject({ name: `${run.name} (imported)`, step: run.step, status: 'stopped' });
    expect(imported.id).not.toBe(run.id);
    const store = await RunStore.open(DB);
    const [original, copy] = await Promise.all([store.load(run.id), store.load(imported.id)]);
    expect([...copy.bytes!]).toEqual([...original.bytes!]);
    expect([...copy.reference!]).toEqual([...original.reference!]);
    expect(copy.events).toEqual(original.events.filter((e) => Number.isFinite(e.value)));
    // Its latest programs and the search its best held-out figure was measured with come back too.
    expect(original.samples.length).toBeGreaterThan(0);
    expect(copy.samples).toEqual(original.samples);
    expect(original.run.bestSearch).toBeTruthy();
    expect(copy.run.bestSearch).toBe(original.run.bestSearch);
    expect(latestRuns().map((r) => r.id)).toContain(imported.id);
    store.close();
    // Not a run file, another version, a damaged checkpoint, a bad metric: each said, naming the file.
    const file = JSON.parse(text);
    const refused = (body: string) => api.importRun(new Blob([body]), 'b.run.json');
    await expect(refused('{"sequence": [1, 2]}')).rejects.toThrow('b.run.json is not a run file: its "format" is not "program-rl-lab-run"');
    await expect(refused('not json')).rejects.toThrow('b.run.json is not a run file: it is not JSON');
    await expect(refused(JSON.stringify({ ...file, version: 7 }))).rejects.toThrow('b.run.json: run file version 7');
    await expect(refused(JSON.stringify({ ...file, metrics: [{ step: 1 }] }))).rejects.toThrow('b.run.json: metrics[0] is not a metric event');
    // A sample the page cannot draw is left out; the run comes in without it.
    expect(parseRunFile(JSON.stringify({ ...file, samples: [{ ...file.samples[0], outcome: 'fine' }, { ...file.samples[0], output: [null] }, file.samples[0]] }), 'c.run.json').samples).toHaveLength(1);
    const damaged = Buffer.from(file.checkpoint, 'base64');
    damaged[damaged.length - 9] ^= 0xff;
    await expect(refused(JSON.stringify({ ...file, checkpoint: damaged.toString('base64') }))).rejects.toThrow(/b.run.json: its checkpoint cannot be loaded/);
    // A KL reference of another model (the shipped policy's) is refused at import, not when the run is opened.
    const otherModel = readFileSync('public/pretrained.prl').toString('base64');
    await expect(refused(JSON.stringify({ ...file, reference: otherModel }))).rejects.toThrow(/b.run.json: its KL reference is of another model than its checkpoint \(.*dModel/);
    await api.deleteRun(imported.id);
  });

  it('a write that would not fit is not tried: the user is told, and the events wait for the next save', async () => {
    expect(quotaCheck({ usage: 900, quota: 1000 }, 50)).toEqual({ fits: true, share: 0.95 });
    expect(quotaCheck({ usage: 900, quota: 1000 }, 200).fits).toBe(false);
    expect(quotaCheck(null, 1e12).fits).toBe(true); // a browser that does not say: the write is tried, and its error said
    const estimate = { usage: 0, quota: 1 };
    Object.defineProperty(globalThis, 'navigator', { value: { storage: { estimate: async () => estimate } }, configurable: true });
    try {
      // The live run saves into a stored one again (the one brought back above).
      const [run] = latestRuns();
      await api.resumeRun(run.id);
      events.length = 0;
      const from = (await decodeCheckpoint(await api.getCheckpoint())).meta.step;
      const target = Math.ceil((from + 1) / AUTOSAVE_EVERY) * AUTOSAVE_EVERY;
      while ((await decodeCheckpoint(await api.getCheckpoint())).meta.step < target) await api.step();
      await expect.poll(() => events.some((e) => e.type === 'error' && /would not fit in this browser's storage/.test(e.message)), { timeout: 10_000 }).toBe(true);
      const store = await RunStore.open(DB);
      expect((await store.get(run.id))?.step).toBe(run.step); // the previous checkpoint stays
      // Room again: the next save carries the events the refused one held.
      estimate.quota = 1e12;
      await api.setAutosave(true);
      await expect.poll(async () => (await store.get(run.id))?.step, { timeout: 10_000 }).toBe(target);
      const steps = (await store.load(run.id)).events.filter((e) => e.name === 'avg_reward').map((e) => e.step);
      expect(steps).toEqual(Array.from({ length: target }, (_, i) => i + 1));
      store.close();
    } finally {
      Reflect.deleteProperty(globalThis, 'navigator');
    }
  });
});

/** A checkpoint's weights, as numbers (the rest, wall time among it, differs between two saves of the same weights). */
const weightsOf = async (bytes: Uint8Array) => (await decodeCheckpoint(bytes)).tensors.filter((t) => t.group === 'weights').map((t) => [t.name, Array.from(t.data)]);

describe('what the page does between training runs is kept too', () => {
  const current = () => runsEvents().at(-1)?.current ?? null;
  const phase = (pattern: RegExp) => events.some((e) => e.type === 'phase' && pattern.test(e.message));

  it('each single step is saved, not only every AUTOSAVE_EVERY-th', async () => {
    const store = await RunStore.open(DB);
    await api.step();
    if ((await decodeCheckpoint(await api.getCheckpoint())).meta.step % AUTOSAVE_EVERY === 0) await api.step();
    const step = (await decodeCheckpoint(await api.getCheckpoint())).meta.step;
    await expect.poll(async () => (await store.get(current()!))?.step, { timeout: 10_000 }).toBe(step);
    expect((await store.get(current()!))?.status).toBe('paused');
    store.close();
  });

  it('Pretrain is a run of its own, saved at step 0 as it goes and at its end; opened again, its weights are the start and the KL reference', async () => {
    const store = await RunStore.open(DB);
    const before = current();
    await api.configure({ ...config, run: { ...config.run, seed: 5 } }); // a run at step 0: Pretrain saves as it goes
    events.length = 0;
    await api.pretrain({ steps: PRETRAIN_SAVE_EVERY + 10, evalEvery: 1000, evalLimit: 1 });
    // Saved once PRETRAIN_SAVE_EVERY steps are done, while it still pretrains: what a reload would offer back.
    await expect.poll(() => latestRuns().find((r) => r.id !== before && r.pretrainSteps === PRETRAIN_SAVE_EVERY), { timeout: 60_000 }).toBeTruthy();
    const midway = latestRuns().find((r) => r.pretrainSteps === PRETRAIN_SAVE_EVERY)!;
    expect(midway).toMatchObject({ step: 0, status: 'training' });
    expect(isInterrupted(midway)).toBe(true);
    await expect.poll(() => phase(/pretraining done after 60 steps/), { timeout: 60_000 }).toBe(true);
    await expect.poll(async () => (await store.get(midway.id))?.pretrainSteps, { timeout: 10_000 }).toBe(PRETRAIN_SAVE_EVERY + 10);
    const done = await store.load(midway.id);
    expect(done.run).toMatchObject({ step: 0, status: 'stopped' });
    expect(done.run.wallMs).toBeGreaterThan(0); // its training time, though its curves are not kept
    expect(done.events).toEqual([]); // the curves count pretraining steps, not RL's: not kept
    expect(await weightsOf(done.bytes!)).toEqual(await weightsOf(await api.getCheckpoint()));
    expect(await weightsOf(done.reference!)).toEqual(await weightsOf(done.bytes!));
    // RL from the pretrained weights saves into the same run.
    for (let i = 0; i < 2; i++) await api.step();
    await expect.poll(async () => (await store.get(midway.id))?.step, { timeout: 10_000 }).toBe(2);
    // Another run, then the pretrained one opened: its weights, at step 0 for RL.
    await api.configure({ ...config, run: { ...config.run, seed: 7 } });
    const opened = await api.resumeRun(midway.id);
    expect(opened.step).toBe(2);
    // Pretrain again on it (a run with RL steps): a new run at step 0, saved as it goes, its count on top of the first Pretrain's.
    await api.pretrain({ steps: PRETRAIN_SAVE_EVERY + 5, evalEvery: 1000, evalLimit: 1 });
    const total = PRETRAIN_SAVE_EVERY + 10 + PRETRAIN_SAVE_EVERY;
    await expect.poll(() => latestRuns().find((r) => r.pretrainSteps === total), { timeout: 60_000 }).toMatchObject({ step: 0, status: 'training' });
    await expect.poll(() => phase(/pretraining done after 55 steps/), { timeout: 60_000 }).toBe(true);
    // Its last save is written after the status says it is done: waited for.
    await expect.poll(() => latestRuns().find((r) => r.pretrainSteps === total + 5), { timeout: 10_000 }).toBeTruthy();
    const again = latestRuns().find((r) => r.pretrainSteps === total + 5)!;
    expect(again.id).not.toBe(midway.id);
    await api.deleteRun(again.id);
    await api.deleteRun(midway.id);
    store.close();
  });

  it('a downloaded checkpoint carries its pretraining steps: loaded back, or its weights carried to a new configuration, the saved run says them', async () => {
    const store = await RunStore.open(DB);
    await api.configure({ ...config, run: { ...config.run, seed: 21 } }, { start: 'fresh' });
    events.length = 0;
    await api.pretrain({ steps: 3, evalEvery: 1000, evalLimit: 1 });
    await expect.poll(() => phase(/pretraining done after 3 steps/), { timeout: 60_000 }).toBe(true);
    const file = await api.getCheckpoint();
    expect((await decodeCheckpoint(file)).meta.extra?.pretrainSteps).toBe(3);
    const pretrained = current()!;
    // Loaded back into a run of another seed: its next saves are listed as after 3 pretraining steps.
    await api.configure({ ...config, run: { ...config.run, seed: 22 } }, { start: 'fresh' });
    await api.loadCheckpoint(file, { source: 'pretrained.prl' });
    expect(phase(/loaded pretrained\.prl, step 0, pretrained 3 steps/)).toBe(true);
    await api.step();
    await expect.poll(() => latestRuns().find((r) => r.id === current() && r.step === 1)?.pretrainSteps, { timeout: 10_000 }).toBe(3);
    const loaded = current()!;
    // Apply with the same model carries the weights, and their pretraining with them.
    await api.configure({ ...config, run: { ...config.run, seed: 23 } });
    await api.step();
    await expect.poll(() => latestRuns().find((r) => r.config.run.seed === 23 && r.step === 1)?.pretrainSteps, { timeout: 10_000 }).toBe(3);
    const carried = latestRuns().find((r) => r.config.run.seed === 23)!.id;
    expect(new Set([pretrained, loaded, carried]).size).toBe(3);
    for (const id of [pretrained, loaded, carried]) await api.deleteRun(id);
    store.close();
  });

  it('Pause or Stop, then Apply before the step in flight ends: the run left is saved at the step it stopped at', async () => {
    const store = await RunStore.open(DB);
    for (const [seed, leave] of [[31, () => api.pause()], [32, () => api.stop()]] as const) {
      await api.configure({ ...config, run: { ...config.run, seed } }, { start: 'fresh' });
      events.length = 0;
      await api.train();
      await expect.poll(() => events.filter((e) => e.type === 'step').length, { timeout: 30_000 }).toBeGreaterThanOrEqual(3);
      // As a user who edited the form while it trained: Pause (or Stop), then Apply at once.
      await Promise.all([leave(), api.configure({ ...config, run: { ...config.run, seed: 33 } }, { start: 'fresh' })]);
      const at = Math.max(...events.flatMap((e) => (e.type === 'step' ? [e.step] : [])));
      // (When `at` is a multiple of AUTOSAVE_EVERY the run's own autosave saved it; the step checked is the same.)
      await expect.poll(async () => (await store.list()).find((r) => r.config.run.seed === seed)?.step, { timeout: 10_000 }).toBe(at);
    }
    for (const run of await store.list()) if ([31, 32].includes(run.config.run.seed)) await api.deleteRun(run.id);
    store.close();
  }, 90_000);

  /** A fresh run of `seed`, pretrained until its first save, then paused: its stored record as the list has it. */
  const pausedPretraining = async (seed: number) => {
    await api.configure({ ...config, run: { ...config.run, seed } }, { start: 'fresh' });
    await api.pretrain({ steps: 1000, evalEvery: 1000, evalLimit: 1 });
    await expect.poll(() => latestRuns().find((r) => r.pretrainSteps === PRETRAIN_SAVE_EVERY && r.config.run.seed === seed), { timeout: 60_000 }).toBeTruthy();
    await api.pause();
    return latestRuns().find((r) => (r.pretrainSteps ?? 0) >= PRETRAIN_SAVE_EVERY && r.config.run.seed === seed)!;
  };

  it('Apply during a paused Pretrain: the new run\'s figures are saved, and the pretraining run left behind is stopped, not offered as interrupted', async () => {
    const left = await pausedPretraining(12);
    await api.configure({ ...config, run: { ...config.run, seed: 13 } });
    await api.step();
    await api.stop();
    await api.step(); // after Stop: saved as stopped
    const store = await RunStore.open(DB);
    await expect.poll(async () => (await store.list()).find((r) => r.config.run.seed === 13)?.step, { timeout: 10_000 }).toBe(2);
    const fresh = (await store.list()).find((r) => r.config.run.seed === 13)!;
    expect((await store.load(fresh.id)).events.filter((e) => e.name === 'avg_reward').map((e) => e.step)).toEqual([1, 2]);
    expect(fresh.status).toBe('stopped');
    expect((await store.get(left.id))?.status).toBe('stopped');
    await api.deleteRun(left.id);
    await api.deleteRun(fresh.id);
    store.close();
  });

  it('a reload midway through Pretrain offers its run back, which opens with the weights of its last save at step 0', async () => {
    const paused = await pausedPretraining(8);
    const store = await RunStore.open(DB);
    await expect.poll(async () => (await store.get(paused.id))?.status, { timeout: 10_000 }).toBe('paused');
    const saved = await store.load(paused.id);
    store.close();
    // The page opened again (a second service on the same store): the run is offered, and opens.
    const seen: TrainerEvent[] = [];
    const reloaded = createTrainerService({ initBackend: async () => ({ backend: 'wasm', skipped: [] }), createPool: createNodeSandboxPool, transfer: (bytes) => bytes }, { dbName: DB });
    await reloaded.init((batch) => void seen.push(...batch), { autosave: true });
    await expect.poll(() => seen.find((e): e is Extract<TrainerEvent, { type: 'runs' }> => e.type === 'runs' && Boolean(e.interrupted))?.interrupted?.id, { timeout: 10_000 }).toBe(paused.id);
    const opened = await reloaded.resumeRun(paused.id);
    expect(opened.step).toBe(0);
    expect(await weightsOf(await reloaded.getCheckpoint())).toEqual(await weightsOf(saved.bytes!));
    expect(seen.some((e) => e.type === 'phase' && e.message.includes(`its weights after ${saved.run.pretrainSteps} pretraining steps; Train starts RL from them`))).toBe(true);
    await api.stop();
    await reloaded.deleteRun(paused.id);
  });
});

describe('the run list the page is sent', () => {
  it('a save still in flight when the page makes a new run lands in the run it was made for', async () => {
    const saved = new SavedRuns({ dbName: 'saved-runs-new-run-test', send: () => undefined });
    const store = (await saved.open())!;
    const loss = (value: number): TrainerEvent => ({ type: 'metrics', events: [{ step: 1, name: 'loss', value, wallMs: 1 }] });
    saved.observe(loss(1));
    const first = saved.save('paused', 1, new Uint8Array(8), config);
    saved.newRun(); // Apply, a loaded checkpoint, Pretrain: before the first write has begun
    saved.observe(loss(2));
    await saved.save('paused', 1, new Uint8Array(16), config);
    await first;
    const runs = await Promise.all((await store.list()).map((run) => store.load(run.id)));
    expect(runs.map((run) => [run.bytes!.length, run.events.map((e) => e.value)]).sort()).toEqual([[16, [2]], [8, [1]]]);
  });

  it('a run deleted while its last saves are queued stays deleted: the delete waits for them', async () => {
    const saved = new SavedRuns({ dbName: 'saved-runs-delete-test', send: () => undefined });
    const store = (await saved.open())!;
    saved.holdOpenMs = 50;
    await saved.save('training', 10, new Uint8Array(8), config);
    const [run] = await store.list();
    void saved.save('training', 20, new Uint8Array(8), config);
    void saved.save('stopped', 30, new Uint8Array(8), config); // Stop's save, queued behind the autosave
    saved.newRun(); // Apply: the page moves on; the old run's row can be deleted at once
    await saved.delete(run.id);
    await saved.settled();
    expect(await store.list()).toEqual([]);
  });

  it('comes in the order asked: a slow list read before a new run is stored never arrives after the list that has it', async () => {
    const sent: TrainerEvent[] = [];
    const saved = new SavedRuns({ dbName: 'saved-runs-order-test', send: (event) => sent.push(event) });
    const store = (await saved.open())!;
    // The first list read is slow (as an autosave's can be while the page imports a run file).
    const list = store.list.bind(store);
    let slow = true;
    store.list = async () => {
      const runs = await list();
      if (slow) {
        slow = false;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return runs;
    };
    const before = saved.publish();
    await store.save(newRunRecord(config, 'imported'), { step: 0, bytes: new Uint8Array(8), status: 'stopped', events: [] });
    const after = saved.publish();
    await Promise.all([before, after]);
    const lists = sent.filter((e): e is Extract<TrainerEvent, { type: 'runs' }> => e.type === 'runs');
    expect(lists.at(-1)!.runs.map((run) => run.name)).toEqual(['imported']);
  });
});

describe('two tabs on one store', () => {
  it('a run live in one tab cannot be deleted from another, nor is it offered there as interrupted', async () => {
    // Web Locks as browsers give them to every tab of an origin: a name held is held for all.
    const held = new Set<string>();
    const locks = {
      request: (name: string, _options: unknown, callback: (lock: object | null) => Promise<void> | undefined) => {
        if (held.has(name)) return Promise.resolve(callback(null));
        held.add(name);
        return Promise.resolve(callback({ name })).then(() => void held.delete(name));
      },
      query: async () => ({ held: [...held].map((name) => ({ name })) }),
    };
    Object.defineProperty(globalThis, 'navigator', { value: { locks }, configurable: true });
    try {
      const db = 'saved-runs-two-tabs-test';
      const sentB: TrainerEvent[] = [];
      const tabA = new SavedRuns({ dbName: db, send: () => undefined });
      const tabB = new SavedRuns({ dbName: db, send: (event) => sentB.push(event) });
      await tabA.open();
      await tabA.save('training', 10, new Uint8Array(8), config);
      const [run] = await (await RunStore.open(db)).list();
      await tabB.open();
      const offered = sentB.find((e): e is Extract<TrainerEvent, { type: 'runs' }> => e.type === 'runs');
      expect(offered?.interrupted ?? null).toBeNull(); // training in tab A: not interrupted
      await expect(tabB.delete(run.id)).rejects.toThrow('this run is open in another tab');
      expect(await (await RunStore.open(db)).get(run.id)).toBeDefined();
      // Once tab A has moved on to another run, tab B may delete it.
      tabA.newRun();
      await tabA.settled(); // the run left is marked stopped, then its lock let go
      await new Promise((resolve) => setTimeout(resolve, 0)); // (in a later task)
      await tabB.delete(run.id);
      expect(await (await RunStore.open(db)).get(run.id)).toBeUndefined();
    } finally {
      Reflect.deleteProperty(globalThis, 'navigator');
    }
  });
});
