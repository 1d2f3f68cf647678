/**
 * A saved run's record names the files behind it (provenance.ts): its data and the weights file it
 * came from, and none that another run of the session read.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { configFromSearchParams } from '../core/config';
import { generateDataset } from '../core/kolmogorov/generator';
import { RunStore } from './runStore';
import { serviceInNode } from './testService';

const DB = 'provenance-test';
const jsonl = (n: number, seed: number) => generateDataset(seed, n).map((e) => JSON.stringify(e)).join('\n') + '\n';
const tiny = 'layers=1&d-model=16&heads=2&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1';

describe('the files a saved run names', () => {
  it('a resumed run names its own weights file, not the one the session loaded last; a refused Apply keeps the live run\'s, and its training set comes back', async () => {
    const { api } = await serviceInNode(DB, { autosave: true });
    await api.loadDataset('train', 'train.jsonl', new Blob([jsonl(16, 1)]));
    await api.loadDataset('heldout', 'heldout.jsonl', new Blob([jsonl(5, 2)]));
    const store = await RunStore.open(DB);
    const names = async (seed: number) => (await store.list()).find((run) => run.config.run.seed === seed)?.provenance?.files.map((file) => file.name);
    // A run from fresh weights: no weights file behind it.
    await api.configure(configFromSearchParams(`${tiny}&seed=1`), { start: 'fresh' });
    await api.step();
    await expect.poll(() => names(1), { timeout: 10_000 }).toEqual(['train.jsonl', 'heldout.jsonl']);
    const fresh = (await store.list()).find((run) => run.config.run.seed === 1)!;
    // Another run starts from a policy file; then the first is opened again and steps on.
    await api.configure(configFromSearchParams(`${tiny}&seed=2`), { start: 'fresh' });
    await api.loadCheckpoint(await api.getCheckpoint(), { source: 'policy.prl', warmStart: true });
    await api.resumeRun(fresh.id);
    await api.step();
    await expect.poll(async () => (await store.get(fresh.id))?.step, { timeout: 10_000 }).toBe(2);
    expect(await names(1)).toEqual(['train.jsonl', 'heldout.jsonl']);
    // A run from policy.prl, then an Apply its new data refuses: the live run still names policy.prl.
    await api.configure(configFromSearchParams(`${tiny}&seed=3`), { start: 'fresh' });
    await api.loadCheckpoint(await api.getCheckpoint(), { source: 'policy.prl', warmStart: true });
    await api.loadDataset('train', 'same-as-heldout.jsonl', new Blob([jsonl(5, 2)]));
    await expect(api.configure(configFromSearchParams(`${tiny}&seed=4&d-model=32`))).rejects.toThrow(/held-out/);
    await api.step();
    await expect.poll(async () => (await store.list()).find((run) => run.config.run.seed === 3)?.step, { timeout: 10_000 }).toBe(1);
    expect(await names(3)).toEqual(['train.jsonl', 'heldout.jsonl', 'policy.prl']); // not the refused training file
    // The page then puts the run's own training set back: the next Apply is not refused again.
    await api.keepRunTraining();
    await api.configure(configFromSearchParams(`${tiny}&seed=5`));
    await api.step();
    await expect.poll(() => names(5), { timeout: 10_000 }).toEqual(['train.jsonl', 'heldout.jsonl', 'policy.prl']);
    store.close();
  }, 60_000);
});
