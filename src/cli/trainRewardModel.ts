/**
 * `npm run train-reward-model -- --init-from WARMSTART --data-path PAIRS.jsonl --output-dir DIR`:
 * a reward model (core/algorithms/rewardModel.ts) trained on preference pairs with the
 * Bradley-Terry loss, the Q-language system's `train_reward_model.py`. The trunk starts from the
 * warm start's weights; `--eval-data-path` pairs (never trained on) give its held-out accuracy.
 *
 * Without a pair file, `--data ITEMS [--eval-data ITEMS]` makes the pairs from the warm start's own
 * samples (`--samples` per item, the first greedy): per item the best-rewarded correct program over
 * the worst one it beats, in tokens, so every task has pairs (the functions task's programs have no
 * text parser).
 *
 * Writes DIR/reward_model.prl (use it with `npm run train -- --use-reward-model FILE`),
 * DIR/metrics.jsonl (`{step, name, value}`: loss, accuracy, margin, eval_accuracy) and
 * DIR/eval_results.json.
 */
import * as tf from '@tensorflow/tfjs';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RewardModel, defaultRewardModelSettings } from '../core/algorithms/rewardModel';
import { decodeCheckpoint, tensorArrays } from '../core/checkpoint';
import { Rng } from '../core/rng';
import { checkOutputs } from './outputs';
import { parseArgs, positiveFlag, runMain, usage, type ExtraFlag } from './args';
import { loadKolmogorovFile, loadPreferencesFile, loadProblemsFile, namingCheckpoint, readCheckpointFile, writeAtomic } from './data';
import type { TokenPair } from '../core/algorithms/dpo';
import type { LabConfig } from '../core/config';
import { TransformerPolicy, type WeightArray } from '../core/model/transformer';
import { taskPreludes, programTask } from '../core/runner';
import type { Scored, Task } from '../core/task';
import { sandboxLimits } from './report';
import { samplePairs } from './rollouts';
import { createNodeSandboxPool } from './sandboxHost';
import { initTensorflow } from './tfBackend';
import { clearRun, holdsRun, lockRunDir, refuseClearingInputs } from './runDir';
import { newRunRecord, recordFile, writeRunRecord } from './runRecord';

const extras: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'init-from', doc: 'the policy checkpoint whose trunk the reward model starts from (its task and model shape)' },
  { name: 'data-path', doc: 'JSONL of {prompt, chosen, rejected} to train on (`npm run rollouts -- --pairs`)' },
  { name: 'eval-data-path', doc: 'JSONL of pairs never trained on: the held-out accuracy' },
  { name: 'data', doc: 'instead of a pair file: items (sequences JSONL, or a problems file) whose sampled programs make the pairs' },
  { name: 'eval-data', doc: 'items never trained on whose sampled programs make the held-out pairs' },
  { name: 'samples', doc: 'with --data: programs sampled per item (the first greedy)', defaultValue: '8' },
  { name: 'temperature', doc: 'with --data: sampling temperature', defaultValue: '1' },
  { name: 'limit', doc: 'with --data: at most this many items of each file' },
  { name: 'output-dir', doc: 'where reward_model.prl, metrics.jsonl and eval_results.json go', defaultValue: 'runs/reward-model' },
  { name: 'steps', doc: 'updates', defaultValue: '200' },
  { name: 'batch-size', doc: 'pairs per update', defaultValue: '16' },
  { name: 'learning-rate', doc: 'Adam learning rate', defaultValue: String(defaultRewardModelSettings.learningRate) },
  { name: 'margin', doc: 'subtracted from r_chosen - r_rejected in the loss', defaultValue: '0' },
  { name: 'center-rewards-coefficient', doc: 'weight of (r_chosen + r_rejected)^2, keeping rewards near 0 (TRL\'s center_rewards_coefficient)', defaultValue: '0' },
  { name: 'eval-every', doc: 'held-out accuracy every N updates (0: at the end only)', defaultValue: '50' },
  { name: 'seed', doc: 'seed of the pair order', defaultValue: '1' },
  { name: 'overwrite', doc: 'replace a reward model (or a run) already in --output-dir (without it, such a folder is refused)', boolean: true },
];

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage('train-reward-model', 'A reward model (the policy trunk with a scalar head) trained on preference pairs with the Bradley-Terry loss.', extras, false));
    return;
  }
  const { extra } = parseArgs(argv, extras, false);
  if (typeof extra['init-from'] !== 'string') throw new Error('--init-from FILE is required: the policy checkpoint the reward model starts from');
  if (typeof extra['data-path'] !== 'string' && typeof extra.data !== 'string') throw new Error('give --data-path PAIRS.jsonl, or --data ITEMS to make pairs from the warm start\'s samples');
  const steps = positiveFlag('steps', extra.steps, true);
  const batchSize = positiveFlag('batch-size', extra['batch-size'], true);
  const settings = {
    ...defaultRewardModelSettings,
    learningRate: positiveFlag('learning-rate', extra['learning-rate']),
    margin: Number(extra.margin),
    centerRewardsCoefficient: Number(extra['center-rewards-coefficient']),
  };
  if (!Number.isFinite(settings.margin)) throw new Error(`--margin: expected a number, got "${String(extra.margin)}"`);
  if (!(settings.centerRewardsCoefficient >= 0) || !Number.isFinite(settings.centerRewardsCoefficient)) throw new Error(`--center-rewards-coefficient: expected a number >= 0, got "${String(extra['center-rewards-coefficient'])}"`);
  const evalEvery = Number(extra['eval-every']);
  if (!Number.isInteger(evalEvery) || evalEvery < 0) throw new Error(`--eval-every: expected a whole number, got "${String(extra['eval-every'])}"`);

  // The folder first: one process at a time, and a reward model already there is replaced only when asked.
  const out = String(extra['output-dir']);
  const inputs = (['init-from', 'data-path', 'eval-data-path', 'data', 'eval-data'] as const).flatMap((flag) => (typeof extra[flag] === 'string' ? [{ flag, path: extra[flag] }] : []));
  checkOutputs([{ flag: 'output-dir', path: out, kind: 'folder' }], inputs);
  mkdirSync(out, { recursive: true });
  const releaseLock = lockRunDir(out);
  try {
    if (holdsRun(out)) {
      if (!extra.overwrite) throw new Error(`--output-dir ${out} already holds a reward model or a run: give another --output-dir, or --overwrite to replace it`);
      refuseClearingInputs(out, inputs);
      clearRun(out);
    }
    await trainInto(out, argv, extra, inputs, { steps, batchSize, settings, evalEvery });
  } finally {
    releaseLock();
  }
}

interface Schedule {
  steps: number;
  batchSize: number;
  settings: typeof defaultRewardModelSettings;
  evalEvery: number;
}

/** Makes or reads the pairs, trains the reward model into `out` (locked, cleared) and writes its record. */
async function trainInto(out: string, argv: readonly string[], extra: Record<string, string | boolean | undefined>, inputs: readonly { flag: string; path: string }[], { steps, batchSize, settings, evalEvery }: Schedule): Promise<void> {
  const backend = await initTensorflow();
  console.error(`tfjs backend: ${backend.backend}`);
  const initFrom = String(extra['init-from']);
  const { meta, tensors } = await namingCheckpoint('init-from', initFrom, () => decodeCheckpoint(readCheckpointFile(initFrom, 'init-from')));
  const config = meta.config;
  if (config.task.name !== 'kolmogorov' && config.task.name !== 'functions') throw new Error(`--init-from: a ${config.task.name} checkpoint; reward models are trained for kolmogorov and functions`);
  const task = programTask(config);
  let train: TokenPair[];
  let heldout: TokenPair[] = [];
  if (typeof extra['data-path'] === 'string') {
    train = await loadPreferencesFile(extra['data-path'], task);
    if (typeof extra['eval-data-path'] === 'string') heldout = await loadPreferencesFile(extra['eval-data-path'], task);
  } else {
    const made = await selfMadePairs(config, task, tensorArrays(tensors, 'weights'), extra);
    [train, heldout] = [made.train, made.heldout];
  }
  if (train.length === 0) throw new Error('no training pair: every item\'s samples earned the same reward (try more --samples or a higher --temperature)');
  // What the model was made from, as train's run.json says it (the files by hash).
  const record = newRunRecord(['npm', 'run', 'train-reward-model', '--', ...argv], backend.backend, config, inputs.map(({ flag, path }) => recordFile(flag, path)));
  writeRunRecord(out, record);
  const metricsPath = join(out, 'metrics.jsonl');
  const events: string[] = [];
  const log = (step: number, values: Record<string, number>) => events.push(...Object.entries(values).map(([name, value]) => JSON.stringify({ step, name, value })));

  const model = new RewardModel(task.policyConfig(config), config.run.seed);
  try {
    model.setWeights(tensorArrays(tensors, 'weights'));
    const rng = new Rng(positiveFlag('seed', Number(extra.seed) + 1, true));
    let order: number[] = [];
    const started = performance.now();
    const evaluate = async (step: number) => {
      if (!heldout.length) return null;
      const result = await model.evaluate(heldout);
      log(step, { eval_accuracy: result.accuracy, eval_margin: result.margin });
      console.error(`eval @${step}: accuracy ${result.accuracy.toFixed(3)} on ${result.n} held-out pairs, margin ${result.margin.toFixed(3)}`);
      return result;
    };
    const before = await evaluate(0);
    for (let step = 1; step <= steps; step++) {
      const batch = Array.from({ length: Math.min(batchSize, train.length) }, () => {
        if (order.length === 0) order = rng.shuffle(train.map((_, i) => i));
        return train[order.pop()!];
      });
      const stats = await model.trainStep(batch, settings);
      log(step, { loss: stats.loss, accuracy: stats.accuracy, margin: stats.margin, grad_norm: stats.gradNorm });
      if (stats.skipped) console.error(`step ${step}: update skipped (${stats.reason})`);
      if (step % 10 === 0 || step === steps) {
        const perStep = (performance.now() - started) / 1000 / step;
        console.error(`step ${step}/${steps}  loss ${stats.loss.toFixed(4)}  accuracy ${stats.accuracy.toFixed(3)}  margin ${stats.margin.toFixed(3)}  ${perStep.toFixed(2)} s/step`);
      }
      if (evalEvery > 0 && step % evalEvery === 0 && step < steps) await evaluate(step);
    }
    const after = await evaluate(steps);
    writeFileSync(metricsPath, events.join('\n') + '\n');
    writeAtomic(join(out, 'reward_model.prl'), await model.save({ config, step: steps, vocab: task.vocab, extra: { trainedOn: extra['data-path'] ?? extra.data, pairs: train.length } }));
    const result = { n_train: train.length, steps, ...(after ? { n: after.n, accuracy: after.accuracy, margin: after.margin, accuracy_before: before!.accuracy } : {}) };
    writeFileSync(join(out, 'eval_results.json'), JSON.stringify(result, null, 2) + '\n');
    writeRunRecord(out, { ...record, ended: new Date().toISOString(), steps, stopped: 'step budget' });
    console.error(`wrote ${join(out, 'reward_model.prl')}`);
    console.log(JSON.stringify(result));
  } finally {
    model.dispose();
    tf.disposeVariables();
  }
}

/** Pairs from the warm start's samples on --data (training) and --eval-data (held out). */
async function selfMadePairs(config: LabConfig, task: Task<unknown, Scored>, weights: WeightArray[], extra: Record<string, string | boolean | undefined>): Promise<{ train: TokenPair[]; heldout: TokenPair[] }> {
  const samples = positiveFlag('samples', extra.samples, true);
  const temperature = positiveFlag('temperature', extra.temperature);
  const limit = extra.limit === undefined ? Infinity : positiveFlag('limit', extra.limit, true);
  const pool = createNodeSandboxPool({ size: config.sandbox.workers, limits: sandboxLimits(config), preludes: taskPreludes() });
  const functions = config.task.name === 'functions';
  const policy = new TransformerPolicy(task.policyConfig(config), config.run.seed);
  try {
    policy.setWeights(weights);
    const make = async (path: string, seed: number) => {
      const items: unknown[] = functions ? loadProblemsFile(path, { quiet: true }) : await loadKolmogorovFile(path, { quiet: true });
      const pairs = await samplePairs(config, task, policy, items.slice(0, limit), { samples, temperature, seed, pool });
      console.error(`${path}: ${pairs.length} pairs from ${Math.min(limit, items.length)} items x ${samples} samples`);
      return pairs;
    };
    return { train: await make(String(extra.data), 1), heldout: typeof extra['eval-data'] === 'string' ? await make(extra['eval-data'], 2) : [] };
  } finally {
    policy.dispose();
    await pool.close();
  }
}

runMain(main);
