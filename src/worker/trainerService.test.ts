/**
 * The trainer's message protocol end to end in Node: the same service the page's worker runs,
 * exposed with Comlink on one end of a MessageChannel and driven through `wrap<TrainerApi>` on
 * the other, with events coming back through a proxied callback, buffers transferred.
 */
import * as Comlink from 'comlink';
// @ts-expect-error -- comlink ships this adapter without a declaration for the .mjs path
import nodeEndpoint from 'comlink/dist/esm/node-adapter.mjs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { decodeCheckpoint, encodeCheckpoint, sha256Hex } from '../core/checkpoint';
import { configFromSearchParams } from '../core/config';
import { generateDataset } from '../core/kolmogorov/generator';
import { createNodeSandboxPool } from '../cli/sandboxHost';
import type { TrainerApi, TrainerEvent } from './protocol';
import { createTrainerService } from './trainerService';

const channel = new MessageChannel();
const service = createTrainerService({
  initBackend: async () => {
    await tf.setBackend('wasm');
    return { backend: 'wasm', skipped: ['webgpu: not in Node', 'webgl: not in Node'] };
  },
  createPool: createNodeSandboxPool,
  transfer: (bytes) => Comlink.transfer(bytes, [bytes.buffer]),
});
Comlink.expose(service, nodeEndpoint(channel.port1 as any));
const api = Comlink.wrap<TrainerApi>(nodeEndpoint(channel.port2 as any));
const events: TrainerEvent[] = [];
afterAll(() => {
  api[Comlink.releaseProxy]();
  channel.port1.close();
  channel.port2.close();
});

const jsonl = (n: number, seed: number) => generateDataset(seed, n).map((e) => JSON.stringify(e)).join('\n') + '\n';
const config = configFromSearchParams('layers=1&d-model=16&heads=2&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1');

describe('trainer protocol', () => {
  it('initialises, loads datasets with per-line errors, trains a step, and reports events', async () => {
    const info = await api.init(Comlink.proxy((batch: TrainerEvent[]) => void events.push(...batch)));
    expect(info.backend).toBe('wasm');
    const train = await api.loadDataset('train', 'train.jsonl', new Blob([jsonl(12, 1) + '{"sequence": [1,\n']));
    expect(train).toMatchObject({ records: 12, errorCount: 1 });
    expect(train.errors[0]).toMatchObject({ line: 13 });
    await api.loadDataset('heldout', 'heldout.jsonl', new Blob([jsonl(3, 2)]));
    await api.configure(config);
    await api.step();
    await expect.poll(() => events.filter((e) => e.type === 'metrics').length).toBeGreaterThan(0);
    expect(events.some((e) => e.type === 'phase' && e.phase === 'idle')).toBe(true);
    const metrics = events.flatMap((e) => (e.type === 'metrics' ? e.events : []));
    expect(metrics.map((m) => m.name)).toContain('avg_reward');
    expect(events.some((e) => e.type === 'step' && e.step === 1)).toBe(true);
  });

  it('hands over a checkpoint as bytes and loads it back at its step; refuses a damaged one', async () => {
    const bytes = await api.getCheckpoint();
    expect((await decodeCheckpoint(bytes)).meta.step).toBe(1);
    await api.step();
    const loaded = await api.loadCheckpoint(bytes, { source: 'saved.prl' });
    expect(loaded.step).toBe(1);
    // A checkpoint does not carry its warm start: with no warm start of this model in the session, its KL is measured from its own weights, and said.
    await expect.poll(() => events.some((e) => e.type === 'phase' && e.phase === 'idle' && e.message.startsWith('loaded saved.prl, step 1; its KL is measured from these weights'))).toBe(true);
    await expect(api.loadCheckpoint(bytes.slice(0, 64))).rejects.toThrow(/truncated|checksum|not a checkpoint/);
    // A warm start: the weights only, at step 0 (a shipped pretrained checkpoint).
    const warm = await api.loadCheckpoint(await api.getCheckpoint(), { source: 'pretrained checkpoint', warmStart: true });
    expect(warm.step).toBe(0);
    expect((await decodeCheckpoint(await api.getCheckpoint())).meta.step).toBe(0);
    await expect.poll(() => events.some((e) => e.type === 'phase' && /^loaded pretrained checkpoint, step 1; Train starts RL at step 0/.test(e.message))).toBe(true);
    await api.loadCheckpoint(bytes); // back to step 1 for the tests below
  });

  it('a checkpoint names the warm start it began from by hash: loaded by hand, its KL is measured from that warm start only when the session has it', async () => {
    const back = await api.getCheckpoint();
    const first = await api.getCheckpoint();
    await api.loadCheckpoint(first, { source: 'first.prl', warmStart: true });
    await api.step();
    const trained = await api.getCheckpoint();
    expect((await decodeCheckpoint(trained)).meta.extra).toMatchObject({ warmStartSha256: await sha256Hex(first) });
    await api.step();
    // Another warm start of the same model: not the one the checkpoint began from.
    await api.loadCheckpoint(await api.getCheckpoint(), { source: 'second.prl', warmStart: true });
    const said = (pattern: RegExp) => expect.poll(() => events.some((e) => e.type === 'phase' && pattern.test(e.message))).toBe(true);
    await api.loadCheckpoint(trained, { source: 'trained.prl' });
    await said(/^loaded trained\.prl, step \d+; its KL is measured from these weights \(it began from a warm start this session has not loaded\)/);
    await api.loadCheckpoint(first, { source: 'first.prl', warmStart: true });
    await api.loadCheckpoint(trained, { source: 'trained.prl' });
    await said(/^loaded trained\.prl, step \d+; its KL is measured from the warm start \(first\.prl, step \d+\), the one it began from/);
    await api.loadCheckpoint(back); // as it was for the tests below
  });

  it('a checkpoint of another algorithm says the run is now that algorithm', async () => {
    const back = await api.getCheckpoint();
    const { meta, tensors } = await decodeCheckpoint(back);
    const grpo = await encodeCheckpoint({ ...meta, config: { ...meta.config, algorithm: { ...meta.config.algorithm, name: 'grpo' } } }, tensors);
    events.length = 0;
    await api.loadCheckpoint(grpo, { source: 'grpo.prl' });
    await expect.poll(() => events.some((e) => e.type === 'phase' && /^loaded grpo\.prl, step \d+; the run is now the checkpoint's \(algorithm reinforce -> grpo\)/.test(e.message))).toBe(true);
    await api.loadCheckpoint(back);
  });

  it('a checkpoint that decodes but fails later leaves the live run as it was (its step and learning rate)', async () => {
    const bytes = await api.getCheckpoint();
    const { meta, tensors } = await decodeCheckpoint(bytes);
    // Another configuration (a learning rate of 0.5), and a weight missing: it passes the checksum, not the model.
    const forged = await encodeCheckpoint({ ...meta, config: { ...meta.config, algorithm: { ...meta.config.algorithm, learningRate: 0.5 } } }, tensors.slice(1));
    await expect(api.loadCheckpoint(forged)).rejects.toThrow(/weights lack|weights have/);
    events.length = 0;
    await api.step();
    const metrics = () => events.flatMap((e) => (e.type === 'metrics' ? e.events : []));
    await expect.poll(() => metrics().some((m) => m.name === 'learning_rate')).toBe(true);
    expect(metrics().find((m) => m.name === 'learning_rate')).toMatchObject({ step: 2, value: config.algorithm.learningRate });
    await api.loadCheckpoint(bytes); // back to step 1 for the tests below
  });

  it('a checkpoint imported while training is swapped in between two steps, and training goes on from it', async () => {
    const bytes = await api.getCheckpoint();
    const at = (await decodeCheckpoint(bytes)).meta.step;
    await api.train();
    const steps = () => events.flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.name === 'avg_reward').map((m) => m.step);
    await expect.poll(() => steps().some((s) => s > at + 1), { timeout: 30_000 }).toBe(true);
    events.length = 0;
    expect((await api.loadCheckpoint(bytes, { source: 'mid-run.prl' })).step).toBe(at);
    const loaded = () => events.findIndex((e) => e.type === 'phase' && e.phase === 'training' && /loaded mid-run.prl, step \d+.*; training goes on from it/.test(e.message));
    await expect.poll(loaded).toBeGreaterThanOrEqual(0);
    // The first step after the swap continues from the file's step (events before it are the steps before the swap).
    const after = () => events.slice(loaded()).flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.name === 'avg_reward').map((m) => m.step);
    await expect.poll(() => after().length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(after()[0]).toBe(at + 1);
    // A download while training leaves the phase alone, so the train loop goes on (a 'saving' phase ended it).
    const downloaded = (await decodeCheckpoint(await api.getCheckpoint())).meta.step;
    await expect.poll(() => steps().some((s) => s > downloaded + 2), { timeout: 30_000 }).toBe(true);
    await api.stop();
    await api.loadCheckpoint(bytes); // back to its step for the tests below
  });

  it('evaluates on the held-out set and refuses to step while training', async () => {
    const row = await api.evaluate({ limit: 3, search: 'greedy' });
    expect(row).toMatchObject({ n: 3, k: 1 });
    await api.train();
    await expect(api.step()).rejects.toThrow(/pause training/);
    await api.stop();
  });

  it('pretrains on generated pairs with held-out loss and accuracy, then RL starts at step 0 from those weights', async () => {
    events.length = 0;
    const before = await decodeCheckpoint(await api.getCheckpoint());
    await api.pretrain({ steps: 4, evalEvery: 2, evalLimit: 3 });
    await expect(api.step()).rejects.toThrow(/pretraining is in progress/);
    await expect.poll(() => events.some((e) => e.type === 'phase' && e.phase === 'idle' && /pretraining done after 4 steps/.test(e.message)), { timeout: 30_000 }).toBe(true);
    const metrics = events.flatMap((e) => (e.type === 'metrics' ? e.events : []));
    expect(metrics.filter((m) => m.name === 'pretrain_loss').map((m) => m.step)).toEqual([1, 2, 3, 4]);
    expect(metrics.filter((m) => m.name === 'pretrain_token_accuracy')).toHaveLength(4);
    expect(metrics.filter((m) => m.name === 'heldout_loss').map((m) => m.step)).toEqual([2, 4]);
    expect(metrics.filter((m) => m.name === 'heldout_accuracy').every((m) => m.value >= 0 && m.value <= 1)).toBe(true);
    const after = await decodeCheckpoint(await api.getCheckpoint());
    expect(after.meta.step).toBe(0);
    const weight = (c: typeof before) => c.tensors.find((t) => t.group === 'weights')!.data;
    expect(weight(after)).not.toEqual(weight(before));
    // A second Pretrain before RL goes on from the first one's steps: its curve does not run back over the first.
    events.length = 0;
    await api.pretrain({ steps: 2, evalEvery: 2, evalLimit: 3 });
    await expect.poll(() => events.some((e) => e.type === 'phase' && e.phase === 'idle' && /pretraining done after 2 steps/.test(e.message)), { timeout: 30_000 }).toBe(true);
    const again = events.flatMap((e) => (e.type === 'metrics' ? e.events : []));
    expect(again.filter((m) => m.name === 'pretrain_loss').map((m) => m.step)).toEqual([5, 6]);
    expect(again.filter((m) => m.name === 'heldout_loss').map((m) => m.step)).toEqual([6]);
    await api.step();
    await expect.poll(() => events.some((e) => e.type === 'step' && e.step === 1)).toBe(true);
  });

  it('pauses, resumes and stops pretraining; a stopped warm start keeps its weights for RL', async () => {
    events.length = 0;
    await api.pretrain({ steps: 1000, evalEvery: 1000, evalLimit: 1 });
    await expect.poll(() => events.filter((e) => e.type === 'metrics').length, { timeout: 30_000 }).toBeGreaterThan(0);
    await api.pause();
    await new Promise((resolve) => setTimeout(resolve, 500)); // the last step's batched events arrive
    const paused = events.filter((e) => e.type === 'progress').length;
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(events.filter((e) => e.type === 'progress').length).toBe(paused);
    await api.resume();
    await expect.poll(() => events.filter((e) => e.type === 'progress').length, { timeout: 30_000 }).toBeGreaterThan(paused);
    await api.stop();
    await expect.poll(() => events.some((e) => e.type === 'phase' && e.phase === 'stopped' && /pretraining stopped/.test(e.message))).toBe(true);
    expect((await decodeCheckpoint(await api.getCheckpoint())).meta.step).toBe(0);
    await api.step();
  });

  it('a new configuration of the same model keeps the trained weights; a reset is said first; a bad one is refused and the run stays', async () => {
    const weightsOf = async () => (await decodeCheckpoint(await api.getCheckpoint())).tensors.filter((t) => t.group === 'weights').map((t) => [...t.data]);
    const trained = await weightsOf();
    const slower = configFromSearchParams('layers=1&d-model=16&heads=2&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1&learning-rate=0.0001');
    expect(await api.weightsResetBy(slower)).toBeNull();
    events.length = 0;
    expect(await api.configure(slower)).toEqual({ weightsKept: true });
    expect(await weightsOf()).toEqual(trained);
    const said = events.filter((e) => e.type === 'weights').at(-1);
    expect(said).toMatchObject({ type: 'weights', trained: true, atStep: 0 });
    // Pretrain went on from the run's trained weights, and the origin says so.
    expect((said as { origin: string }).origin).toMatch(/^checkpoint, step 1 \+ \d+ RL steps?(, then pretrained here \d+ steps( \+ 1 RL step)?)+$/);
    // Another width: the weights cannot carry over, and the page is told before it applies.
    const wider = configFromSearchParams('layers=1&d-model=32&heads=2&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1');
    expect(await api.weightsResetBy(wider)).toMatch(/dModel 16 -> 32.*would be replaced$/);
    // heads must divide d_model: refused before anything is made; the live run and its weights stay.
    const broken = configFromSearchParams('layers=1&d-model=16&heads=3&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1');
    await expect(api.configure(broken)).rejects.toThrow(/not applied \(the run is unchanged\): model.dModel \(16\) must be divisible by model.heads \(3\)/);
    expect(await weightsOf()).toEqual(trained);
    // A file with no valid record keeps the training set it would have replaced.
    const binary = new Uint8Array(4096).map((_, i) => (i * 7919) % 256);
    await expect(api.loadDataset('train', 'photo.png', new Blob([binary]))).rejects.toThrow(/photo.png holds no valid sequences \(\d+ rejected, the first: line 1: .*\); the training set is unchanged \(12 sequences\)/);
    await expect.poll(() => events.filter((e) => e.type === 'phase').at(-1)).toMatchObject({ phase: 'idle', message: 'photo.png was not loaded' });
    // Blank lines are not an empty file: the message says which.
    await expect(api.loadDataset('train', 'blank.jsonl', new Blob(['\n  \n\n']))).rejects.toThrow(/blank.jsonl holds no valid sequences \(the file has only blank lines\)/);
    await expect(api.loadDataset('train', 'empty.jsonl', new Blob([]))).rejects.toThrow(/empty.jsonl holds no valid sequences \(the file is empty\)/);
    await api.step();
    await expect.poll(() => events.some((e) => e.type === 'step' && e.step === 1)).toBe(true);
  });

  it('a checkpoint, a downloaded run, a broken JSON array or a DPO pair file given as a dataset is said as what it is, and nothing is replaced', async () => {
    // A checkpoint under another name, and DPO's pair file, are said as what they are.
    const checkpoint = await api.getCheckpoint();
    await expect(api.loadDataset('train', 'policy.txt', new Blob([new Uint8Array(checkpoint)]))).rejects.toThrow(/^policy.txt is a checkpoint, not a dataset \(its first bytes say so\): load it with Load checkpoint, or drop it named .prl .*; the training set is unchanged$/);
    await expect(api.loadDataset('train', 'x.run (1).json', new Blob([JSON.stringify({ format: 'program-rl-lab-run', version: 1 })]))).rejects.toThrow(/^x.run \(1\).json is a downloaded run, not a dataset: bring it back with Import run/);
    // A JSON array of problems with a trailing comma: where, why, and that nothing was replaced.
    const problem = JSON.stringify({ function_name: 'double', docstring: 'Double x.', test_cases: [[1, 2]], starter_code: 'def double(x):' });
    await expect(api.loadDataset('train', 'broken.json', new Blob([`[\n  ${problem},\n]\n`]))).rejects.toThrow(/^broken.json: not valid JSON at line 3, column 1: Unexpected token '\]' \(a comma before the end of a list or object\); the training set is unchanged$/);
    const pairs = '{"prompt": "[1, 2, 3]", "chosen": "range(1, 4)", "rejected": "set_list([1, 2, 3])"}\n';
    await expect(api.loadDataset('heldout', 'pairs.jsonl', new Blob([pairs]))).rejects.toThrow(/^pairs.jsonl holds preference pairs \(\{prompt, chosen, rejected\}\), which the page does not read: .* npm run train -- --algorithm dpo --preferences pairs.jsonl; the held-out set is unchanged$/);
  });

  it('Stop names the step the run stopped at once the step in flight is done: a download then holds that step', async () => {
    await api.train();
    await expect.poll(() => events.some((e) => e.type === 'step' && e.step >= 3), { timeout: 30_000 }).toBe(true);
    // A dataset dropped while training is refused, and training goes on.
    await expect(api.loadDataset('heldout', 'late.jsonl', new Blob([jsonl(2, 9)]))).rejects.toThrow('late.jsonl was not loaded: pause or stop training first');
    const steps = events.filter((e) => e.type === 'step').length;
    await expect.poll(() => events.filter((e) => e.type === 'step').length, { timeout: 30_000 }).toBeGreaterThan(steps);
    events.length = 0;
    await api.stop();
    const stopped = () => events.find((e) => e.type === 'phase' && /^stopped at step \d+$/.test(e.message)) as { message: string } | undefined;
    await expect.poll(stopped).toBeDefined();
    const said = Number(/\d+$/.exec(stopped()!.message)![0]);
    expect((await decodeCheckpoint(await api.getCheckpoint())).meta.step).toBe(said);
    // A single Step after it: the status line stands a step further, not at the step it stopped at.
    await api.step();
    await expect.poll(() => events.filter((e) => e.type === 'phase').at(-1)).toMatchObject({ phase: 'stopped', message: `stopped at step ${said + 1}` });
  });

  it('a digit task (sum_digits) steps, trains to its end and evaluates, with accuracy and format_compliance metrics', async () => {
    events.length = 0;
    const digits = 'task=sum_digits&layers=1&d-model=16&heads=2&context=40&batch-size=8&num-steps=3&num-generators=2&warm-start-steps=2&warm-start-examples=16&eval-samples=10';
    await api.configure(configFromSearchParams(digits));
    await expect.poll(() => events.some((e) => e.type === 'phase' && /^ready to train sum_digits/.test(e.message))).toBe(true);
    await api.step(); // the warm start, then RL step 1
    const metrics = () => events.flatMap((e) => (e.type === 'metrics' ? e.events : []));
    // Events come back through the proxied callback's own port: they may land after step() resolves.
    await expect.poll(() => metrics().some((m) => m.name === 'format_compliance')).toBe(true);
    const names = metrics().map((m) => m.name);
    for (const name of ['accuracy', 'format_compliance', 'avg_reward', 'policy_loss', 'generations_per_s', 'generator_0_version', 'generator_1_version', 'eval_accuracy']) expect(names).toContain(name);
    expect(metrics().filter((m) => m.name === 'format_compliance').map((m) => m.step)).toEqual([1]);
    await api.train(); // continues the same run to num-steps
    await expect.poll(() => events.some((e) => e.type === 'phase' && e.phase === 'stopped' && /sum_digits done after 3 RL steps/.test(e.message)), { timeout: 30_000 }).toBe(true);
    expect(metrics().filter((m) => m.name === 'format_compliance').map((m) => m.step)).toEqual([1, 2, 3]);
    expect(metrics().filter((m) => m.name === 'generator_0_version').map((m) => m.value)).toEqual([1, 2, 3]);
    const row = await api.evaluate({ limit: 5, search: 'greedy' });
    expect(row).toMatchObject({ n: 5, step: 3 });
    expect(row.metrics.format_compliance).toBeGreaterThanOrEqual(0);
    // On the one loop a digit run checkpoints like any other, and loads back at its step.
    const bytes = await api.getCheckpoint();
    expect((await api.loadCheckpoint(bytes)).step).toBe(3);
    // A run that reached its last step starts afresh on Train: its warm start, then step 1.
    events.length = 0;
    await api.train();
    await expect.poll(() => metrics().some((m) => m.name === 'format_compliance' && m.step === 1), { timeout: 30_000 }).toBe(true);
    await api.stop();
  });

  it('pauses, resumes and stops a digit run between RL steps, and during its warm start; Train then continues it', async () => {
    await api.configure(configFromSearchParams('task=reverse_digits&layers=1&d-model=16&heads=2&context=40&batch-size=4&num-steps=100000&num-generators=1&warm-start-steps=1&warm-start-examples=8&eval-samples=4'));
    events.length = 0;
    const steps = () => events.flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.name === 'format_compliance').length;
    await api.train();
    await expect.poll(steps, { timeout: 30_000 }).toBeGreaterThan(0);
    await api.pause();
    await new Promise((resolve) => setTimeout(resolve, 800)); // the step in flight and its batched events
    const paused = steps();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(steps()).toBe(paused);
    // A file loaded while paused (another task's, which the page then asks about) leaves the run paused: Resume still works.
    await api.loadDataset('heldout', 'heldout.jsonl', new Blob([jsonl(3, 2)]));
    await expect.poll(() => events.filter((e) => e.type === 'phase').at(-1)).toMatchObject({ phase: 'paused' });
    await api.resume();
    await expect.poll(steps, { timeout: 30_000 }).toBeGreaterThan(paused);
    await api.stop();
    await expect.poll(() => events.some((e) => e.type === 'phase' && e.phase === 'stopped' && /^stopped at step \d+/.test(e.message))).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 600));
    const stoppedAt = Math.max(...events.flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.name === 'format_compliance').map((m) => m.step));
    events.length = 0;
    await api.train();
    const next = () => events.flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.name === 'format_compliance').map((m) => m.step);
    await expect.poll(() => next().length, { timeout: 30_000 }).toBeGreaterThan(0);
    expect(Math.min(...next())).toBe(stoppedAt + 1);
    await api.stop();

    // The warm start is a phase of its own: Pause holds it between its steps, and Stop ends it keeping its weights.
    await api.configure(configFromSearchParams('task=reverse_digits&layers=1&d-model=24&heads=2&context=40&batch-size=4&num-steps=100000&num-generators=1&warm-start-steps=100000&warm-start-examples=8&eval-samples=4'));
    events.length = 0;
    await api.train();
    await expect.poll(() => events.some((e) => e.type === 'phase' && e.phase === 'pretraining')).toBe(true);
    const warm = () => events.flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.name === 'pretrain_loss').length;
    await expect.poll(warm, { timeout: 30_000 }).toBeGreaterThan(0);
    await api.pause();
    await new Promise((resolve) => setTimeout(resolve, 600));
    const held = warm();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(warm()).toBe(held);
    await api.resume();
    await api.stop();
    await expect.poll(() => events.some((e) => e.type === 'phase' && e.phase === 'stopped' && /^warm start stopped after \d+ steps/.test(e.message)), { timeout: 30_000 }).toBe(true);
  });

  it('a run that spent its steps starts again from the same start on Train, as a new run; its clock stands while it is not training', async () => {
    await api.configure(configFromSearchParams('layers=1&d-model=16&heads=2&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1&max-steps=2&kl-coef=0.05'), { start: 'fresh' });
    await api.loadCheckpoint(await api.getCheckpoint(), { source: 'warm.prl', warmStart: true });
    events.length = 0;
    await api.train();
    await expect.poll(() => events.some((e) => e.type === 'phase' && e.phase === 'stopped' && /reached 2 steps/.test(e.message)), { timeout: 30_000 }).toBe(true);
    const metricsOf = (name: string) => events.flatMap((e) => (e.type === 'metrics' ? e.events : [])).filter((m) => m.name === name);
    const lastWall = metricsOf('avg_reward').at(-1)!.wallMs;
    await new Promise((resolve) => setTimeout(resolve, 600));
    await api.evaluate({ limit: 2, search: 'greedy' });
    // Stopped: the evaluation is stamped with the run's time at its last step (and the save after
    // it), not with the 600 ms the page then stood idle.
    await expect.poll(() => metricsOf('eval_accuracy').length).toBeGreaterThan(0);
    const evaluatedAt = metricsOf('eval_accuracy').at(-1)!.wallMs;
    expect(evaluatedAt).toBeGreaterThanOrEqual(lastWall);
    expect(evaluatedAt).toBeLessThan(lastWall + 300);
    events.length = 0;
    await Promise.all([api.train(), api.train()]); // a double click makes one new run, not two
    await expect.poll(() => events.some((e) => e.type === 'step' && e.step === 1), { timeout: 30_000 }).toBe(true);
    await api.stop();
    expect(events.filter((e) => e.type === 'newRun')).toHaveLength(1);
    const newRun = events.findIndex((e) => e.type === 'newRun');
    expect(newRun).toBeGreaterThanOrEqual(0);
    expect(events.findIndex((e) => e.type === 'step')).toBeGreaterThan(newRun);
    expect(events.filter((e) => e.type === 'weights').at(0)).toMatchObject({ origin: 'warm.prl, step 0', trained: true, atStep: 0 });
    expect(events.some((e) => e.type === 'phase' && /spent its 2 steps \(Saved runs keeps it\): a new run from warm\.prl, step 0/.test(e.message))).toBe(true);
  });
});
