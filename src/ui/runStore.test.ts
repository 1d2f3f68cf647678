/** The browser's run store (IndexedDB through idb), on fake-indexeddb. */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../core/config';
import type { MetricEvent } from '../core/runnerTypes';
import { RunStore, StorageFullError } from './runStore';

let dbCount = 0;
const fresh = () => RunStore.open(`test-${dbCount++}`);
const events = (from: number, to: number): MetricEvent[] => Array.from({ length: to - from + 1 }, (_, i) => ({ step: from + i, name: 'avg_reward', value: (from + i) / 10, wallMs: 0 }));

describe('run store', () => {
  it('saves checkpoints with their metrics, lists runs newest first, loads a run back whole', async () => {
    const store = await fresh();
    const a = await store.create(defaultConfig(), 'first');
    const b = await store.create({ ...defaultConfig(), algorithm: { ...defaultConfig().algorithm, name: 'grpo' } });
    await store.save(a.id, { step: 5, bytes: new Uint8Array([1, 2, 3]), events: events(1, 5), status: 'training' });
    await store.save(a.id, { step: 10, bytes: new Uint8Array([4, 5]), events: events(6, 10), status: 'paused', best: 0.5 });
    expect((await store.list()).map((r) => r.id)).toEqual([a.id, b.id]);
    expect(b.name).toMatch(/^kolmogorov grpo /);
    const loaded = await store.load(a.id);
    expect(loaded.run).toMatchObject({ name: 'first', step: 10, status: 'paused', best: 0.5, chunks: 2 });
    expect([...loaded.bytes!]).toEqual([4, 5]); // the latest checkpoint replaced the previous one
    expect(loaded.events.map((e) => e.step)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    store.close();
  });

  it('a run not stopped when the page opens is the interrupted one; rename and delete', async () => {
    const store = await fresh();
    const run = await store.create(defaultConfig());
    expect(await store.interrupted()).toBeUndefined(); // nothing saved yet: nothing to resume
    await store.save(run.id, { step: 3, bytes: new Uint8Array([9]), events: events(1, 3), status: 'training' });
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
    const run = await store.create(defaultConfig());
    await store.save(run.id, { step: 4, bytes: new Uint8Array([1]), events: events(1, 4), status: 'training' });
    // Metrics IndexedDB cannot clone (a function) fail the save after the new checkpoint was queued.
    const broken = { step: 8, bytes: new Uint8Array([2]), events: [{ ...events(5, 5)[0], value: (() => 0) as unknown as number }], status: 'training' as const };
    await expect(store.save(run.id, broken)).rejects.toThrow();
    const loaded = await store.load(run.id);
    expect(loaded.run.step).toBe(4);
    expect([...loaded.bytes!]).toEqual([1]);
    expect(loaded.events.map((e) => e.step)).toEqual([1, 2, 3, 4]);
    store.close();
  });

  it('a full quota is said as such, and the previous checkpoint stays', async () => {
    const store = await fresh();
    const run = await store.create(defaultConfig());
    await store.save(run.id, { step: 2, bytes: new Uint8Array([7]), events: [], status: 'training' });
    const db = (store as unknown as { db: { transaction: (...args: unknown[]) => unknown } }).db;
    const original = db.transaction.bind(db);
    db.transaction = () => {
      throw new DOMException('quota', 'QuotaExceededError');
    };
    await expect(store.save(run.id, { step: 3, bytes: new Uint8Array([8]), events: [], status: 'training' })).rejects.toThrow(StorageFullError);
    db.transaction = original;
    expect([...(await store.load(run.id)).bytes!]).toEqual([7]);
    store.close();
  });
});
