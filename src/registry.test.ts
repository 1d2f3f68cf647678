/**
 * A task and an algorithm defined here, in this file alone, and registered at run time: each
 * trains, evaluates and checkpoints through the loop (runner.ts), the trainer worker's service
 * and the train command, with no other file of the lab touched. This is the registries' promise
 * (registry.ts): a new task is one folder and a new algorithm one file.
 *
 * The toy task: the prompt names a letter (A or B), the policy writes one line holding a letter
 * (the toy grammar of model/testGrammar.ts), and is right when it wrote the named one. Scored on
 * the host, no sandbox.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { asPolicyAlgorithm, type AlgorithmDefinition } from './core/algorithm';
import { SupervisedTrainer } from './core/algorithms/supervised';
import { decodeCheckpoint } from './core/checkpoint';
import { configFromSearchParams } from './core/config';
import { sampleBatch } from './core/model/sampler';
import { TOY, ToyGrammar } from './core/model/testGrammar';
import { registerAlgorithm, registerTask } from './core/registry';
import { createRunner } from './core/runner';
import type { Scored, TaskDefinition } from './core/task';
import { trainCommand } from './cli/train';
import { createNodeSandboxPool } from './cli/sandboxHost';
import type { TrainerEvent } from './worker/protocol';
import { createTrainerService } from './worker/trainerService';

interface Letter {
  want: 'A' | 'B';
  /** Which item it is: two items of one letter are still two items (a held-out one is not a training one). */
  id: number;
}

const letterToken = (want: Letter['want']) => (want === 'A' ? TOY.A : TOY.B);
const prompt = (item: Letter) => [TOY.BOS, want(item)];
const want = (item: Letter) => 6 + (item.want === 'A' ? 0 : 1);

const toyTask: TaskDefinition = {
  name: 'toy_letters',
  doc: 'write the letter the prompt names',
  sandboxed: false,
  policyConfig: (config) => ({ vocabSize: TOY.vocabSize, layers: config.model.layers, dModel: config.model.dModel, heads: config.model.heads, context: config.model.context }),
  createTask: () => ({
    vocab: { name: 'toy_letters', size: TOY.vocabSize },
    grammar: new ToyGrammar(),
    grammarSpec: { task: 'toy_letters' },
    maxTokens: 5,
    policyConfig: (config) => toyTask.policyConfig(config),
    trainingItems: (items) => [...(items as Letter[])],
    prompt: (item) => prompt(item as Letter),
    async score(items, samples) {
      return samples.map((sample, i): Scored => {
        const correct = sample.tokens[0] === letterToken((items[i] as Letter).want);
        return { text: sample.tokens.join(' '), outcome: correct ? 'ok' : 'wrong', reward: correct ? 1 : 0, correct };
      });
    },
    metrics: (_items, scored) => ({ wrote_a_letter: scored.filter((s) => s.text.length > 0).length / scored.length }),
    sampleRecord: (item) => ({ target: [letterToken((item as Letter).want)], bits: 0, label: (item as Letter).want }),
  }),
  grammarSpec: () => ({ task: 'toy_letters' }),
  grammarFromSpec: () => new ToyGrammar(),
  tokenText: (token) => ['PAD', 'BOS', 'A', 'B', 'EOL', 'DONE', 'wantA', 'wantB', '8', '9'][token],
  data: {
    kind: 'file',
    itemName: 'letters',
    format: 'jsonl',
    sniff: (head) => head.includes('"want"'),
    parseRecord(value) {
      const record = value as Letter;
      if (record?.want !== 'A' && record?.want !== 'B') throw new Error('"want" must be "A" or "B"');
      if (!Number.isInteger(record.id)) throw new Error('"id" must be an integer');
      return { want: record.want, id: record.id };
    },
    shipped: { train: 'unused', heldout: 'unused' },
    preview: (item) => ({ label: (item as Letter).want, detail: '' }),
    identity: (item) => String((item as Letter).id),
  },
  searches: [{ name: 'greedy', k: 1 }],
  async evaluate({ policy }, items, { limit }) {
    const selected = (items as Letter[]).slice(0, limit ?? items.length);
    const samples = await sampleBatch(policy, new ToyGrammar(), selected.map(prompt), { maxTokens: 5, temperature: 1, greedy: true });
    const correct = samples.map((sample, i) => sample.tokens[0] === letterToken(selected[i].want));
    const accuracy = correct.filter(Boolean).length / Math.max(1, selected.length);
    return {
      n: selected.length,
      score: accuracy,
      metrics: { accuracy },
      items: selected.map((item, index) => ({ index, target: item.want, output: String(samples[index].tokens[0]), program: samples[index].tokens.join(' '), correct: correct[index], detail: '' })),
      json: { n: selected.length, accuracy },
      summary: `accuracy ${accuracy.toFixed(3)}`,
    };
  },
  charts: [{ name: 'wrote_a_letter', title: 'wrote a letter', caption: 'Share of programs with a letter.' }],
};

/** The toy algorithm: cross-entropy on the batch's correct programs (rejection sampling), nothing else. */
const toyAlgorithm: AlgorithmDefinition = {
  name: 'toy_keep_correct',
  doc: 'supervised steps on the correct programs of each batch',
  accumulates: false,
  needsReference: () => false,
  create({ config, policy, grammar }) {
    const trainer = new SupervisedTrainer(policy, grammar, { learningRate: config.algorithm.learningRate, gradClip: config.algorithm.gradClip });
    return asPolicyAlgorithm(
      {
        optimizer: trainer.optimizer,
        baseline: undefined,
        setBaseline: () => undefined,
        optimizerWeights: () => trainer.optimizer.getState(policy.weightNames()),
        setOptimizerWeights: (state) => trainer.optimizer.setState(state, policy.weightNames()),
        dispose: () => trainer.dispose(),
        step: async (episodes) => {
          const kept = episodes.filter((e) => e.correct);
          if (kept.length === 0) return { loss: NaN, skipped: true, reason: 'no correct program', kept: 0 };
          const { loss, skipped, reason } = await trainer.step(kept.map((e) => ({ prompt: e.prompt, tokens: e.tokens })));
          return { loss, skipped, reason, kept: kept.length };
        },
      },
      ({ loss, skipped, reason, kept }) => ({ loss, gradNorm: NaN, skipped, reason, metrics: { kept } }),
    );
  },
};

/** n letters, A and B in turn, numbered from `first` (held-out ones apart from the training ones). */
const items = (n: number, first = 0) => Array.from({ length: n }, (_, i): Letter => ({ want: i % 2 ? 'B' : 'A', id: first + i }));
const jsonl = (n: number, first = 0) => items(n, first).map((item) => JSON.stringify(item)).join('\n') + '\n';
const pool = createNodeSandboxPool({ size: 1, limits: { deadlineMs: 100, watchdogMs: 1000, memoryBytes: 32 << 20, stackBytes: 128 << 10, maxSourceBytes: 1 << 16, maxOutputLength: 4096 } });
const unregister: (() => void)[] = [];
const dir = mkdtempSync(join(tmpdir(), 'prl-registry-'));

beforeAll(async () => {
  await tf.setBackend('wasm');
  unregister.push(registerTask(toyTask), registerAlgorithm(toyAlgorithm));
});
afterAll(async () => {
  unregister.forEach((undo) => undo());
  await pool.close();
  rmSync(dir, { recursive: true, force: true });
});

const flags = 'task=toy_letters&layers=1&d-model=16&heads=2&context=16&batch-size=8&learning-rate=0.01&seed=3';

describe('a task and an algorithm registered from this file alone', () => {
  it('train, evaluate and checkpoint through the loop, and the toy algorithm learns the task', async () => {
    for (const algorithm of ['reinforce', 'toy_keep_correct']) {
      const config = configFromSearchParams(`${flags}&algorithm=${algorithm}`);
      expect(config.task.name).toBe('toy_letters');
      const runner = await createRunner(config, { train: items(16), heldout: items(8, 100) }, { pool });
      try {
        const before = await runner.evaluate(items(8));
        let last = await runner.step();
        for (let i = 0; i < 24; i++) last = await runner.step();
        expect(last.metrics.wrote_a_letter).toBe(1); // the task's own figure
        if (algorithm === 'toy_keep_correct') expect(last.metrics.kept).toBeGreaterThan(0); // the algorithm's own figure
        const after = await runner.evaluate(items(8));
        if (algorithm === 'toy_keep_correct') expect(after.score).toBeGreaterThanOrEqual(Math.max(before.score, 0.75));
        const bytes = await runner.saveCheckpoint();
        expect((await decodeCheckpoint(bytes)).meta.config.algorithm.name).toBe(algorithm);
        const again = await createRunner(config, { train: items(16), heldout: items(8, 100) }, { pool });
        await again.loadCheckpoint(bytes);
        expect(again.globalStep).toBe(25);
        expect((await again.evaluate(items(8))).score).toBe(after.score);
        again.dispose();
      } finally {
        runner.dispose();
      }
    }
  }, 120_000);

  it('the worker service loads its files by their look, trains, evaluates and hands a checkpoint back', async () => {
    const events: TrainerEvent[] = [];
    const api = createTrainerService({
      initBackend: async () => ({ backend: 'wasm', skipped: [] }),
      createPool: createNodeSandboxPool,
      transfer: (bytes) => bytes,
    }, { dbName: 'registry-test' });
    await api.init((batch) => void events.push(...batch), { autosave: false });
    const train = await api.loadDataset('train', 'letters.jsonl', new Blob([jsonl(16)]));
    expect(train).toMatchObject({ task: 'toy_letters', itemName: 'letters', records: 16 });
    await api.loadDataset('heldout', 'held.jsonl', new Blob([jsonl(6, 100)]));
    await api.configure(configFromSearchParams(`${flags}&algorithm=toy_keep_correct`));
    for (let i = 0; i < 3; i++) await api.step();
    const row = await api.evaluate({ limit: 6, search: 'greedy' });
    expect(row).toMatchObject({ task: 'toy_letters', n: 6, step: 3, search: 'greedy' });
    const bytes = await api.getCheckpoint();
    expect((await decodeCheckpoint(bytes)).meta.step).toBe(3);
    expect((await api.loadCheckpoint(bytes)).step).toBe(3);
  }, 120_000);

  it('the train command writes its run: config, metrics, checkpoints and the held-out evaluation', async () => {
    writeFileSync(join(dir, 'train.jsonl'), jsonl(16));
    writeFileSync(join(dir, 'heldout.jsonl'), jsonl(6, 100));
    const out = join(dir, 'run');
    await trainCommand(['--task', 'toy_letters', '--algorithm', 'toy_keep_correct', '--layers', '1', '--d-model', '16', '--heads', '2', '--context', '16', '--batch-size', '8', '--learning-rate', '0.01',
      '--data-path', join(dir, 'train.jsonl'), '--eval-data-path', join(dir, 'heldout.jsonl'), '--output-dir', out, '--max-steps', '3', '--checkpoint-freq', '0', '--quiet']);
    const metrics = readFileSync(join(out, 'metrics.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { step: number; name: string });
    expect(metrics.filter((m) => m.name === 'kept').map((m) => m.step)).toEqual([1, 2, 3]);
    expect(metrics.some((m) => m.name === 'eval_accuracy')).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 'logs', 'eval_results.json'), 'utf8'))).toMatchObject({ step: 3, n: 6 });
    expect((await decodeCheckpoint(new Uint8Array(readFileSync(join(out, 'latest.prl'))))).meta.config.task.name).toBe('toy_letters');
  }, 120_000);
});
