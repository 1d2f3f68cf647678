/**
 * Commands that arrive while other work is in flight, as a page can send them (the phase event
 * that disables a button reaches it a moment later): the work in flight ends as it should, the
 * command either waits its turn or is refused with why, and no phase, clock or Cancel is left
 * behind that the next command trips on.
 */
import 'fake-indexeddb/auto';
import { describe, expect, it } from 'vitest';
import { configFromSearchParams } from '../core/config';
import { generateDataset } from '../core/kolmogorov/generator';
import type { TrainerEvent } from './protocol';
import { serviceInNode } from './testService';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const jsonl = (n: number, seed: number) => generateDataset(seed, n).map((e) => JSON.stringify(e)).join('\n') + '\n';
const tiny = 'layers=1&d-model=16&heads=2&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1';

/** A file whose bytes arrive slowly: its load is still going when the next command comes. */
class SlowFile extends Blob {
  override stream() {
    return super.stream().pipeThrough(new TransformStream({ async transform(chunk, controller) { await sleep(400); controller.enqueue(chunk); } }));
  }
  override async arrayBuffer() {
    await sleep(400); // the load's hash pass, after its last progress report
    return super.arrayBuffer();
  }
}

async function service(db: string, extra = '') {
  const { api, events } = await serviceInNode(db, { autosave: false });
  await api.loadDataset('train', 'train.jsonl', new Blob([jsonl(16, 1)]));
  await api.loadDataset('heldout', 'heldout.jsonl', new Blob([jsonl(20, 2)]));
  await api.configure(configFromSearchParams(tiny + extra));
  const phase = () => events.filter((e): e is Extract<TrainerEvent, { type: 'phase' }> => e.type === 'phase').at(-1)!;
  return { api, events, phase };
}

describe('a command given while other work is in flight', () => {
  it('a file picked during an evaluation loads after it, and the phase ends idle (it was left at evaluating)', async () => {
    const { api, phase } = await service('order-a');
    const evaluation = api.evaluate({ limit: 4, search: 'greedy' });
    await expect.poll(() => phase().phase, { interval: 1 }).toBe('evaluating');
    const load = api.loadDataset('heldout', 'slow.jsonl', new SlowFile([jsonl(5, 3)]));
    await evaluation;
    expect((await load).records).toBe(5);
    expect(phase().phase).toBe('idle');
    await api.step(); // nothing is left disabled
  }, 60_000);

  it('Train during an evaluation is refused with why, and leaves no clock running', async () => {
    const { api, phase } = await service('order-b');
    const evaluation = api.evaluate({ limit: 8, search: 'greedy' });
    await expect.poll(() => phase().phase, { interval: 1 }).toBe('evaluating');
    await expect(api.train()).rejects.toThrow('wait for the evaluation to end (or cancel it) before training');
    await evaluation;
    expect(phase().phase).toBe('idle');
  }, 60_000);

  it('a Cancel the load did not consume is not kept: the next training evaluation runs (it ended training as "cancelled")', async () => {
    const { api, events, phase } = await service('order-c', '&eval-freq=1&eval-samples=2');
    const load = api.loadDataset('heldout', 'slow.jsonl', new SlowFile([jsonl(20, 4)]));
    await expect.poll(() => phase().phase, { interval: 1 }).toBe('loading');
    await sleep(600); // past its last progress report (the file's one chunk), in the hash pass
    await api.cancel();
    await load.catch(() => undefined); // cancelled, or done before the Cancel was read
    events.length = 0;
    await api.train();
    await expect.poll(() => events.filter((e) => e.type === 'step').length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2); // each step evaluates
    await api.stop();
    expect(phase().phase).toBe('stopped');
  }, 60_000);

  it('Stop pressed while a checkpoint loads into a training run stands: training does not go on from the file', async () => {
    const { api, events, phase } = await service('order-d');
    await api.step();
    await api.step();
    const bytes = await api.getCheckpoint();
    await api.train();
    await expect.poll(() => events.filter((e) => e.type === 'step').length, { timeout: 30_000 }).toBeGreaterThanOrEqual(4);
    // The load is taken between two steps; Stop comes while it waits or runs.
    await Promise.all([api.loadCheckpoint(bytes, { source: 'saved.prl' }), sleep(5).then(() => api.stop())]);
    await sleep(500);
    expect(['stopped', 'idle']).toContain(phase().phase);
    const stepsAfter = events.filter((e) => e.type === 'step').length;
    await sleep(1000);
    expect(events.filter((e) => e.type === 'step').length).toBe(stepsAfter); // no step after Stop
  }, 60_000);

  it('Stop during the warm start a single Step runs on a fresh digit run ends it there, its weights kept, and takes no RL step', async () => {
    const { api, events, phase } = await service('order-f');
    await api.configure(configFromSearchParams('task=reverse_digits&layers=1&d-model=16&heads=2&context=40&batch-size=4&num-generators=1&warm-start-steps=400&warm-start-examples=8&eval-samples=4'));
    events.length = 0;
    const stepping = api.step();
    const warmSteps = () => events.flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.name === 'pretrain_loss').length;
    await expect.poll(warmSteps, { timeout: 30_000 }).toBeGreaterThan(1);
    await api.stop();
    await stepping;
    expect(phase()).toMatchObject({ phase: 'stopped' });
    expect(events.some((e) => e.type === 'phase' && /^warm start stopped after \d+ steps/.test(e.message))).toBe(true);
    expect(events.some((e) => e.type === 'step')).toBe(false); // it ran all 400 warm-start steps, then stepped
  }, 60_000);

  it('Pretrain with a bad option on a run with RL steps refuses before anything changes', async () => {
    const { api, events } = await service('order-e');
    await api.step();
    events.length = 0;
    await expect(api.pretrain({ steps: 5, evalEvery: 0, evalLimit: 2 })).rejects.toThrow('pretrain evalEvery: expected a positive whole number, got 0');
    expect(events.map((e) => e.type)).not.toContain('newRun'); // the run and its charts stay
  }, 60_000);
});
