/**
 * `npm run rollouts -- --checkpoint C --data D --out F.jsonl [--samples 4] [--pairs P.jsonl]`:
 * the policy's samples as the Hugging Face stack reads them. One line per sample
 * `{prompt, completion, reward, correct, outcome, item}` (TRL's prompt-completion format), and with
 * `--pairs` one preference pair per item `{prompt, chosen, rejected}` (TRL's DPO and reward
 * trainers' format): the best-rewarded correct sample over the worst-rewarded one, when the first
 * is correct and beats the second (a correct program over a failing one; for Kolmogorov, of two
 * correct ones the shorter, which earns more).
 *
 * Prompts are the task's text form: a sequence as comma-separated numbers (Kolmogorov), the
 * signature, docstring and shown tests (functions), the question (digits). Completions are the
 * program text the sandbox ran, or the answer text.
 */
import * as tf from '@tensorflow/tfjs';
import { decodeCheckpoint, tensorArrays } from '../core/checkpoint';
import type { LabConfig } from '../core/config';
import type { KolmogorovRecord } from '../core/data/records';
import { digitHeldOut } from '../core/digits/experiment';
import { digitTask } from '../core/digits/task';
import type { DigitItem } from '../core/digits/tasks';
import type { FunctionProblem, TestCase } from '../core/functions/problems';
import { functionsTask } from '../core/functions/task';
import { parameterNames } from '../core/functions/program';
import { kolmogorovTask } from '../core/kolmogorov/task';
import { toPair } from '../core/kolmogorov/pairs';
import { sampleBatch } from '../core/model/sampler';
import { pairsFromEpisodes, type TokenPair } from '../core/algorithms/dpo';
import { TransformerPolicy } from '../core/model/transformer';
import { Rng } from '../core/rng';
import { taskPreludes } from '../core/runner';
import type { SandboxPool } from '../core/sandbox/pool';
import type { Scored, Task } from '../core/task';
import { parseArgs, positiveFlag, runMain, usage, type ExtraFlag } from './args';
import { loadKolmogorovFile, loadProblemsFile, namingCheckpoint, readCheckpointFile } from './data';
import { checkOutputs, writeOutputFile } from './outputs';
import { sandboxLimits } from './report';
import { createNodeSandboxPool } from './sandboxHost';
import { initTensorflow } from './tfBackend';

const extras: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'checkpoint', doc: 'the lab checkpoint (.prl) whose policy samples' },
  { name: 'data', doc: 'the items: a sequences JSONL (kolmogorov) or a problems file (functions); the digit tasks use their held-out questions' },
  { name: 'out', doc: 'JSONL of {prompt, completion, reward, correct, outcome, item}, one line per sample' },
  { name: 'pairs', doc: 'also write preference pairs {prompt, chosen, rejected} to this JSONL' },
  { name: 'both-correct', doc: 'pairs of two correct programs only (for Kolmogorov: the shorter over the longer)', boolean: true },
  { name: 'with-reference', doc: 'kolmogorov: the record\'s own program (its "program" field) joins the samples as one more candidate', boolean: true },
  { name: 'samples', doc: 'samples per item (the first is greedy)', defaultValue: '4' },
  { name: 'limit', doc: 'at most this many items' },
  { name: 'temperature', doc: 'sampling temperature of the samples after the first', defaultValue: '1' },
  { name: 'seed', doc: 'seed of the sampling', defaultValue: '1' },
];

export interface Rollout {
  prompt: string;
  completion: string;
  reward: number;
  correct: boolean;
  outcome: string;
  item: number;
}

export interface PreferencePair {
  prompt: string;
  chosen: string;
  rejected: string;
}

const valueText = (value: unknown): string => JSON.stringify(value);
const callText = (name: string, test: TestCase) => `${name}(${test.args.map(valueText).join(', ')}) == ${valueText(test.expected)}`;

/** A problem as a person (or another model) reads it: signature, docstring, shown tests. */
export function problemPrompt(problem: FunctionProblem): string {
  const params = parameterNames(problem.signature.params.length, problem.parameters); // the names the policy's functions use
  return [`function ${problem.functionName}(${params.join(', ')})`, problem.docstring, ...problem.tests.map((test) => callText(problem.functionName, test))].join('\n');
}

/**
 * Per item, the best-rewarded correct rollout over the worst-rewarded one that it beats; with
 * `bothCorrect`, over the worst-rewarded correct one (for Kolmogorov: the shortest correct
 * program over the longest).
 */
export function preferencePairs(rollouts: readonly Rollout[], { bothCorrect = false }: { bothCorrect?: boolean } = {}): PreferencePair[] {
  const byItem = new Map<number, Rollout[]>();
  for (const rollout of rollouts) byItem.set(rollout.item, [...(byItem.get(rollout.item) ?? []), rollout]);
  const pairs: PreferencePair[] = [];
  for (const group of byItem.values()) {
    // An incomplete program has no text to pair (sampling ran out of tokens before it ended).
    const ranked = group.filter((r) => r.completion !== '' && (!bothCorrect || r.correct)).sort((a, b) => b.reward - a.reward);
    if (ranked.length < 2) continue;
    const chosen = ranked[0];
    const rejected = ranked[ranked.length - 1];
    if (!chosen.correct || chosen.completion === rejected.completion || chosen.reward <= rejected.reward) continue;
    pairs.push({ prompt: chosen.prompt, chosen: chosen.completion, rejected: rejected.completion });
  }
  return pairs;
}

type RolloutOptions<Item> = { samples: number; temperature: number; seed: number; pool: SandboxPool; reference?: (item: Item) => number[] | null };

/** Samples `samples` completions of each item (the first greedy) and scores them with the task. */
export async function rollouts<Item>(
  config: LabConfig,
  task: Task<Item, Scored>,
  policy: TransformerPolicy,
  items: readonly Item[],
  promptText: (item: Item) => string,
  options: RolloutOptions<Item>,
): Promise<Rollout[]> {
  const out: Rollout[] = [];
  for (const row of await scoredSamples(config, task, policy, items, options)) {
    out.push({ prompt: promptText(row.item), completion: row.scored.text, reward: row.scored.reward, correct: row.scored.correct, outcome: row.scored.outcome, item: row.index });
  }
  return out;
}

/**
 * Preference pairs in tokens from the policy's own samples (no text form needed, so for every
 * task): per item, the best-rewarded correct program over the worst one it beats (dpo.ts).
 */
export async function samplePairs<Item>(config: LabConfig, task: Task<Item, Scored>, policy: TransformerPolicy, items: readonly Item[], options: RolloutOptions<Item>): Promise<TokenPair[]> {
  const rows = await scoredSamples(config, task, policy, items, options);
  return pairsFromEpisodes(rows.map((row) => ({ prompt: row.prompt, tokens: row.tokens, lineEnds: [], reward: row.scored.reward, correct: row.scored.correct, group: row.index })));
}

/** Each item's samples (the first greedy), scored by the task. */
async function scoredSamples<Item>(
  config: LabConfig,
  task: Task<Item, Scored>,
  policy: TransformerPolicy,
  items: readonly Item[],
  options: RolloutOptions<Item>,
): Promise<{ item: Item; index: number; prompt: number[]; tokens: number[]; scored: Scored }[]> {
  const out: { item: Item; index: number; prompt: number[]; tokens: number[]; scored: Scored }[] = [];
  const rng = new Rng(options.seed);
  const chunk = Math.max(1, Math.floor(64 / options.samples));
  for (let start = 0; start < items.length; start += chunk) {
    const part = items.slice(start, start + chunk);
    const prompts = part.map((item) => task.prompt(item));
    const maxTokens = task.maxTokens ?? config.model.maxProgramTokens;
    const common = { maxTokens, padToken: task.padToken };
    const greedy = await sampleBatch(policy, task.grammar, prompts, { ...common, temperature: 1, greedy: true });
    const sampled = options.samples > 1
      ? await sampleBatch(policy, task.grammar, part.flatMap((_, i) => Array<number[]>(options.samples - 1).fill(prompts[i])), { ...common, temperature: options.temperature, rng })
      : [];
    const rows = part.flatMap((item, i) => {
      const own = options.reference?.(item);
      return [
        { item, index: start + i, sample: greedy[i] },
        ...sampled.slice(i * (options.samples - 1), (i + 1) * (options.samples - 1)).map((sample) => ({ item, index: start + i, sample })),
        // The dataset's own program, scored like a sample (it is one more candidate of the item's pairs).
        ...(own ? [{ item, index: start + i, sample: { tokens: own, logProbs: [], lineEnds: [], complete: true } }] : []),
      ];
    });
    const scored = await task.score(rows.map((r) => r.item), rows.map((r) => r.sample), { pool: options.pool, seed: options.seed });
    rows.forEach((row, i) => out.push({ item: row.item, index: row.index, prompt: prompts[row.index - start], tokens: row.sample.tokens, scored: scored[i] }));
  }
  return out;
}

const jsonl = (rows: readonly object[]) => rows.map((row) => JSON.stringify(row)).join('\n') + (rows.length ? '\n' : '');

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage('rollouts', 'Samples of a checkpoint\'s policy as prompt-completion JSONL with rewards, and preference pairs, for TRL.', extras, false));
    return;
  }
  const { extra } = parseArgs(argv, extras, false);
  if (typeof extra.checkpoint !== 'string') throw new Error('--checkpoint FILE is required');
  if (typeof extra.out !== 'string') throw new Error('--out FILE.jsonl is required');
  const samples = Number(extra.samples);
  const temperature = positiveFlag('temperature', extra.temperature);
  const seed = Number(extra.seed);
  if (!Number.isInteger(samples) || samples < 1 || samples > 64) throw new Error(`--samples: expected a whole number from 1 to 64, got "${extra.samples}"`);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed: expected a non-negative whole number, got "${extra.seed}"`);
  const limit = extra.limit === undefined ? Infinity : positiveFlag('limit', extra.limit, true);
  // Before any work: `--out d.jsonl --data d.jsonl` would replace the dataset with the rollouts.
  const pairsPath = typeof extra.pairs === 'string' ? extra.pairs : undefined;
  checkOutputs(
    [{ flag: 'out', path: extra.out, kind: 'file' }, ...(pairsPath !== undefined ? [{ flag: 'pairs', path: pairsPath, kind: 'file' as const }] : [])],
    [{ flag: 'checkpoint', path: extra.checkpoint }, ...(typeof extra.data === 'string' ? [{ flag: 'data', path: extra.data }] : [])],
  );

  await initTensorflow();
  const checkpoint = extra.checkpoint;
  const { meta, tensors } = await namingCheckpoint('checkpoint', checkpoint, () => decodeCheckpoint(readCheckpointFile(checkpoint, 'checkpoint')));
  const config = meta.config;
  const pool = createNodeSandboxPool({ size: config.sandbox.workers, limits: sandboxLimits(config), preludes: taskPreludes() });
  const needData = () => {
    if (typeof extra.data !== 'string') throw new Error(`--data FILE is required for the ${config.task.name} task`);
    return extra.data;
  };
  let policy: TransformerPolicy | null = null;
  try {
    const run = async <Item>(task: Task<Item, Scored>, items: Item[], text: (item: Item) => string, reference?: (item: Item) => number[] | null) => {
      policy = new TransformerPolicy(task.policyConfig(config), config.run.seed);
      policy.setWeights(tensorArrays(tensors, 'weights'));
      return rollouts(config, task, policy, items.slice(0, limit), text, { samples, temperature, seed, pool, reference });
    };
    const limits = { maxSequenceLength: config.task.maxSequenceLength, context: config.model.context, maxProgramTokens: config.model.maxProgramTokens };
    const written =
      config.task.name === 'kolmogorov'
        ? await run(kolmogorovTask(config) as Task<KolmogorovRecord, Scored>, await loadKolmogorovFile(needData(), { quiet: true }), (record) => record.sequence.join(', '), extra['with-reference'] ? (record) => toPair(record, limits)?.tokens ?? null : undefined)
        : config.task.name === 'functions'
          ? await run(functionsTask(config) as Task<FunctionProblem, Scored>, loadProblemsFile(needData(), { quiet: true }), problemPrompt)
          : await run(digitTask(config, new Set()) as Task<DigitItem, Scored>, digitHeldOut(config), (item) => item.question);
    writeOutputFile('out', extra.out, jsonl(written));
    const correct = written.filter((r) => r.correct).length;
    console.error(`wrote ${written.length} rollouts (${correct} correct) of ${new Set(written.map((r) => r.item)).size} items to ${extra.out}`);
    if (pairsPath !== undefined) {
      const pairs = preferencePairs(written, { bothCorrect: Boolean(extra['both-correct']) });
      writeOutputFile('pairs', pairsPath, jsonl(pairs));
      console.error(`wrote ${pairs.length} preference pairs to ${pairsPath}`);
    }
  } finally {
    (policy as TransformerPolicy | null)?.dispose();
    await pool.close();
    tf.disposeVariables();
  }
}

if (process.argv[1]?.endsWith('rollouts.ts')) runMain(main);
