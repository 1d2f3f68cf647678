/** The browser's run store (IndexedDB through idb), on fake-indexeddb. */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../core/config';
import type { MetricEvent } from '../core/runnerTypes';
import type { EvaluationRow } from './protocol';
import { openDB } from 'idb';
import { RunStore, StorageFullError, newRunRecord } from './runStore';

let dbCount = 0;
const fresh = () => RunStore.open(`test-${dbCount++}`);
/** The references IndexedDB holds, read past the store. */
const referencesHeld = async (name: string) => {
  const db = await openDB(name);
  const all = await db.getAll('references');
  db.close();
  return all.map((entry) => [...entry.bytes]);
};
const events = (from: number, to: number): MetricEvent[] => Array.from({ length: to - from + 1 }, (_, i) => ({ step: from + i, name: 'avg_reward', value: (from + i) / 10, wallMs: 0 }));
const row = (step: number, accuracy: number): EvaluationRow => ({ label: `greedy @ step ${step}`, step, task: 'kolmogorov', search: 'greedy', k: 1, n: 1, score: accuracy, metrics: { accuracy } });

describe('run store', () => {
  it('saves checkpoints with their metrics, rows and samples, lists runs newest first, loads a run back whole', async () => {
    const store = await fresh();
    const a = newRunRecord(defaultConfig(), 'first');
    const b = newRunRecord({ ...defaultConfig(), algorithm: { ...defaultConfig().algorithm, name: 'grpo' } });
    expect(b.name).toMatch(/^kolmogorov grpo /);
    expect(await store.list()).toEqual([]); // a record is written with its first checkpoint, not before
    await store.save(b, { step: 1, bytes: new Uint8Array([0]), events: [], status: 'training' });
    await store.save(a, { step: 5, bytes: new Uint8Array([1, 2, 3]), events: events(1, 5), status: 'training', reference: new Uint8Array([42, 43]) });
    await store.save(a, { step: 10, bytes: new Uint8Array([4, 5]), events: events(6, 10), evaluations: [row(10, 0.5)], samples: [{ step: 10 } as never], status: 'paused', best: 0.5 });
    expect((await store.list()).map((r) => r.id)).toEqual([a.id, b.id]);
    const loaded = await store.load(a.id);
    expect(loaded.run).toMatchObject({ name: 'first', step: 10, status: 'paused', best: 0.5, chunks: 2, checkpointBytes: 2, referenceBytes: 2 });
    expect([...loaded.bytes!]).toEqual([4, 5]); // the latest checkpoint replaced the previous one
    expect([...loaded.reference!]).toEqual([42, 43]); // written once, kept
    expect(loaded.events.map((e) => e.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(loaded.evaluations.map((r) => r.metrics.accuracy)).toEqual([0.5]);
    expect(loaded.samples).toHaveLength(1);
    expect((await store.events(a.id)).events).toHaveLength(10);
    expect((await store.load(b.id)).reference).toBeNull();
    store.close();
  });

  it('a reference equal to the checkpoint (Pretrain\'s saves) is held once, and kept when later weights replace the checkpoint', async () => {
    const name = `test-${dbCount++}`;
    const store = await RunStore.open(name);
    const run = newRunRecord(defaultConfig(), 'pretrained');
    const first = new Uint8Array([1, 1]);
    await store.save(run, { step: 0, bytes: first, reference: first, pretrainSteps: 50, events: [], status: 'training' });
    const second = new Uint8Array([2, 2, 2]);
    await store.save(run, { step: 0, bytes: second, reference: second.slice(), pretrainSteps: 100, events: [], status: 'stopped' });
    expect(await referencesHeld(name)).toEqual([]); // not written beside the checkpoint
    let loaded = await store.load(run.id);
    expect([...loaded.bytes!]).toEqual([2, 2, 2]);
    expect([...loaded.reference!]).toEqual([2, 2, 2]);
    expect(loaded.run.referenceBytes).toBe(3);
    // RL from there: its saves pass no reference, and the pretrained weights stay the reference.
    await store.save(run, { step: 5, bytes: new Uint8Array([5]), events: events(1, 5), status: 'training' });
    await store.save(run, { step: 10, bytes: new Uint8Array([10]), events: events(6, 10), status: 'paused' });
    loaded = await store.load(run.id);
    expect([...loaded.bytes!]).toEqual([10]);
    expect([...loaded.reference!]).toEqual([2, 2, 2]);
    expect(await referencesHeld(name)).toEqual([[2, 2, 2]]);
    // A reference of its own again (another warm start) replaces it.
    await store.save(run, { step: 11, bytes: new Uint8Array([11]), reference: new Uint8Array([7]), events: [], status: 'paused' });
    expect([...(await store.load(run.id)).reference!]).toEqual([7]);
    store.close();
  });

  it('a run not stopped when the page opens is the interrupted one; rename and delete', async () => {
    const store = await fresh();
    const run = newRunRecord(defaultConfig());
    expect(await store.interrupted()).toBeUndefined(); // nothing saved yet: nothing to resume
    await store.save(run, { step: 3, bytes: new Uint8Array([9]), events: events(1, 3), status: 'training', reference: new Uint8Array([1]) });
    expect((await store.interrupted())?.id).toBe(run.id);
    await store.setStatus(run.id, 'stopped');
    expect(await store.interrupted()).toBeUndefined();
    await store.rename(run.id, '  my run ');
    expect((await store.get(run.id))?.name).toBe('my run');
    await expect(store.rename(run.id, ' ')).rejects.toThrow('a run needs a name');
    await store.delete(run.id);
    expect(await store.list()).toEqual([]);
    await expect(store.load(run.id)).rejects.toThrow(/no run/);
    store.close();
  });

  it('a save that fails leaves the previous checkpoint and metrics as they were (one transaction)', async () => {
    const store = await fresh();
    const run = newRunRecord(defaultConfig());
    await store.save(run, { step: 4, bytes: new Uint8Array([1]), events: events(1, 4), status: 'training' });
    // Metrics IndexedDB cannot clone (a function) fail the save after the new checkpoint was queued.
    const broken = { step: 8, bytes: new Uint8Array([2]), events: [{ ...events(5, 5)[0], value: (() => 0) as unknown as number }], status: 'training' as const };
    await expect(store.save(run, broken)).rejects.toThrow();
    const loaded = await store.load(run.id);
    expect(loaded.run.step).toBe(4);
    expect([...loaded.bytes!]).toEqual([1]);
    expect(loaded.events.map((e) => e.step)).toEqual([1, 2, 3, 4]);
    store.close();
  });

  it('a transaction held open commits once the hold ends', async () => {
    const store = await fresh();
    const run = newRunRecord(defaultConfig());
    const started = Date.now();
    await store.save(run, { step: 2, bytes: new Uint8Array([3]), events: [], status: 'training' }, 50);
    expect(Date.now() - started).toBeGreaterThanOrEqual(50);
    expect((await store.get(run.id))?.step).toBe(2);
    store.close();
  });

  it('a full quota is said as such, and the previous checkpoint stays', async () => {
    const store = await fresh();
    const run = newRunRecord(defaultConfig());
    await store.save(run, { step: 2, bytes: new Uint8Array([7]), events: [], status: 'training' });
    const db = (store as unknown as { db: { transaction: (...args: unknown[]) => unknown } }).db;
    const original = db.transaction.bind(db);
    db.transaction = () => {
      throw new DOMException('quota', 'QuotaExceededError');
    };
    await expect(store.save(run, { step: 3, bytes: new Uint8Array([8]), events: [], status: 'training' })).rejects.toThrow(StorageFullError);
    db.transaction = original;
    expect([...(await store.load(run.id)).bytes!]).toEqual([7]);
    store.close();
  });
});
