/**
 * `npm run bench`: the engine's speed, one JSON line per figure (median, min, max and run
 * count after warm-up). The policy figures use the same model and batch as the Python
 * reference (shared/bench/policy_bench.py: vocab 64, d_model 128, 4 heads, 2 layers, context
 * 64, batch 32 x 64 tokens; and d_model 256 x 4 layers), so the ratio to PyTorch is fair.
 * Run the Python reference in the same session, never at the same time (docs/performance.md).
 *
 * Flags: --only policy,fma,threads,warmstart,sandbox,repair,split,jsonl,checkpoint,soak,page,bundle  --runs N  --quick (fewer runs, small model only)
 * (`--only=a,b` and `--only a,b` both work.) Only when named: `bundle` (the page's chunks from a
 * fresh build, raw and gzipped, bench/bundle.ts); and, since they take minutes, `fma`, `threads`
 * and `page` (the FMA on/off comparison and products split with a helper thread against one thread,
 * both in this process, and the page trained in headless Chromium beside this process's figures,
 * bench/page.ts); `expert_iteration` and `dqn` (bench/learning.ts); and `fsearch`: the functions
 * search at k = 256 (distinct draws, `likely`, early stop) over 200 problems with --checkpoint=FILE (default the
 * shipped policy): handwritten_dev.jsonl, dev.jsonl, then validation.jsonl to 200; wall time and solved.
 *
 * Every figure carries `load`: the cores this process and all other processes used while it was
 * measured (/proc/stat), since the machine is shared and a busy neighbour halves a figure.
 */
import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { decodeCheckpoint, encodeCheckpoint } from '../src/core/checkpoint';
import { defaultConfig } from '../src/core/config';
import { loadJsonl } from '../src/core/data/jsonl';
import { parseKolmogorovRecord } from '../src/core/data/records';
import { kolmogorovPreludeModules } from '../src/core/kolmogorov/prelude';
import { Adam } from '../src/core/model/adam';
import type { SequencePair } from '../src/core/model/training';
import { TransformerPolicy, type PolicyConfig } from '../src/core/model/transformer';
import { SupervisedTrainer } from '../src/core/algorithms/supervised';
import { PairStream } from '../src/core/kolmogorov/pairs';
import { generateProgram } from '../src/core/kolmogorov/generator';
import { REF0, VALUE0, isValue, programToTokens, tokensToProgram } from '../src/core/kolmogorov/grammar';
import { printProgram } from '../src/core/kolmogorov/program';
import { oneEditAway } from '../src/core/kolmogorov/repair';
import { splitSearch } from '../src/core/kolmogorov/split';
import { kolmogorovPolicyConfig } from '../src/core/kolmogorov/task';
import { openCheckpointRunner } from '../src/cli/checkpointRunner';
import { loadKolmogorovFile } from '../src/cli/data';
import { createNodeGradientShards } from '../src/cli/gradientHost';
import type { GrammarSpec } from '../src/core/grammar';
import { shardGrammar } from '../src/core/gradientShardWorker';
import { Sandbox } from '../src/core/sandbox/sandbox';
import { createNodeSandboxPool } from '../src/cli/sandboxHost';
import { initTensorflow } from '../src/cli/tfBackend';
import { multiplyAddChoice, setFusedMultiplyAdd } from '../src/core/model/wasmKernelModule';
import { setProductThreads } from '../src/core/model/wasmBatchMatMul';
import { startNodeProductThreads } from '../src/cli/productThreads';
import { LoadMonitor } from './load';
import { pageFigures } from './page';
import { Rng } from '../src/core/rng';
import { dqnFigures, expertIterationFigures } from './learning';
import { soakFigures } from './soak';
import { functionSearchFigures } from './functionSearch';
import { bundleFigures } from './bundle';
import { median, summary } from './stats';

const args = process.argv.slice(2);
/** Every benchmark --only can name: the first group runs by default, the second only when named. */
const BENCHMARKS = ['policy', 'warmstart', 'sandbox', 'jsonl', 'checkpoint', 'repair', 'split', 'soak', 'fma', 'threads', 'page', 'dqn', 'expert_iteration', 'fsearch', 'bundle'];
// Node's own parser: `--only a,b` and `--only=a,b`, `--runs N` and `--runs=N`, and an unknown flag refused.
function readFlags() {
  const { values } = parseArgs({ args, strict: true, options: { only: { type: 'string' }, runs: { type: 'string' }, quick: { type: 'boolean' }, checkpoint: { type: 'string' }, help: { type: 'boolean', short: 'h' } } });
  const only = values.only === undefined ? undefined : values.only.split(',').filter(Boolean);
  if (only && only.length === 0) throw new Error('--only: name the benchmarks to run, e.g. --only=policy,sandbox');
  const unknown = only?.filter((name) => !BENCHMARKS.includes(name)) ?? [];
  if (unknown.length) throw new Error(`--only: no benchmark ${unknown.join(', ')} (there are ${BENCHMARKS.join(', ')})`);
  if (values.runs !== undefined && !(Number.isInteger(Number(values.runs)) && Number(values.runs) >= 1)) throw new Error(`--runs: expected a whole number of runs, at least 1, got "${values.runs}"`);
  return { only, quick: values.quick === true, runsArg: values.runs, checkpoint: values.checkpoint, help: values.help === true };
}
let flags: ReturnType<typeof readFlags>;
try {
  flags = readFlags();
} catch (error) {
  console.error(`error: ${(error as Error).message} (npm run bench -- --help)`);
  process.exit(1);
}
const { only, quick, runsArg } = flags;
const wanted = (name: string) => !only || only.includes(name);
/** Figures that run only when --only names them. */
const wantedExplicitly = (name: string) => only?.includes(name) ?? false;

interface Figure {
  name: string;
  unit: string;
  median: number;
  min: number;
  max: number;
  runs: number;
  [extra: string]: unknown;
}

let load = new LoadMonitor();

/** The product helper thread PRL_KERNEL_THREADS=2 starts (tfBackend.ts) in this process: every figure says whether it ran beside the threads it names. */
const productHelper = Number(process.env.PRL_KERNEL_THREADS ?? 1) >= 2;

/** Prints a figure with the load since the previous one (or since the start), unless it carries its own. */
function report(figure: Figure): void {
  console.log(JSON.stringify({ ...figure, ...(productHelper ? { product_helper_thread: true } : {}), load: figure.load ?? load.read() }));
  load = new LoadMonitor();
}

/** Times `fn` after `warmup` calls; returns per-run durations in ms. */
async function time(fn: () => Promise<void> | void, runs: number, warmup: number): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await fn();
  const durations: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    await fn();
    durations.push(performance.now() - start);
  }
  return durations;
}

/** A throughput figure from durations: `work` units per run, reported per second. */
function rate(name: string, unit: string, work: number, durations: number[], extra: Record<string, unknown> = {}): Figure {
  const perSecond = durations.map((ms) => work / (ms / 1000));
  return { name, unit, ...summary(perSecond), ...extra };
}

/** The reference policy's REINFORCE training step on random tokens, as policy_bench.py: loss = -(sum of taken log-probs * advantage).mean(). */
function referenceTrainer(config: PolicyConfig, batch: number, seq: number): { policy: TransformerPolicy; trainStep: () => Promise<void>; dispose: () => void } {
  const policy = new TransformerPolicy(config, 0);
  const adam = new Adam(policy.variables, { learningRate: 3e-4 });
  const tokens = tf.randomUniform([batch, seq], 0, config.vocabSize, 'int32', 1) as tf.Tensor2D;
  const inputs = tokens.slice([0, 0], [batch, seq - 1]) as tf.Tensor2D;
  const targets = tf.oneHot(tokens.slice([0, 1], [batch, seq - 1]).reshape([batch * (seq - 1)]), config.vocabSize);
  const advantage = tf.randomNormal([batch, 1], 0, 1, 'float32', 2);
  const trainStep = async () => {
    const { value, grads } = tf.variableGrads(() => {
      const logits = policy.forward(inputs).reshape([batch * (seq - 1), config.vocabSize]);
      const taken = tf.logSoftmax(logits).mul(targets).sum(1).reshape([batch, seq - 1]);
      return taken.sum(1, true).mul(advantage).mean().neg() as tf.Scalar;
    }, policy.variables);
    adam.apply(policy.variables.map((v) => grads[v.name]));
    await value.data();
    tf.dispose([value, ...Object.values(grads)]);
  };
  const dispose = () => {
    tf.dispose([tokens, inputs, targets, advantage]);
    adam.dispose();
    policy.dispose();
  };
  return { policy, trainStep, dispose };
}

const referenceConfig: PolicyConfig = { vocabSize: 64, dModel: 128, heads: 4, layers: 2, context: 64 };

async function policyFigures(label: string, config: PolicyConfig, batch: number, seq: number, runs: number): Promise<void> {
  const { policy, trainStep, dispose } = referenceTrainer(config, batch, seq);
  const train = await time(trainStep, runs, 2);
  report(rate(`train_tokens_per_s/${label}`, 'tokens/s', batch * seq, train, { step_ms: median(train), backend: tf.getBackend(), multiply_add: multiplyAddChoice().build }));

  // Sampling 64 new tokens for `batch` sequences from a 1-token prompt, reading logits each step.
  const newTokens = Math.min(64, config.context);
  const pick = async (logits: tf.Tensor2D) => {
    const next = tf.tidy(() => tf.argMax(logits, 1).cast('int32')) as tf.Tensor1D;
    await next.data();
    logits.dispose();
    return next;
  };
  const kvSample = async () => {
    const prompt = tf.zeros([batch, 1], 'int32') as tf.Tensor2D;
    const { cache, logits } = policy.prefill(prompt, new Array(batch).fill(0));
    prompt.dispose();
    let next = await pick(logits);
    for (let t = 1; t < newTokens; t++) {
      const step = policy.decodeStep(cache, next);
      next.dispose();
      next = await pick(step);
    }
    next.dispose();
    policy.disposeCache(cache);
  };
  const kv = await time(kvSample, Math.max(3, Math.floor(runs / 2)), 1);
  report(rate(`sample_kv_tokens_per_s/${label}`, 'tokens/s', batch * newTokens, kv));

  const naiveSample = async () => {
    let sequence = tf.zeros([batch, 1], 'int32') as tf.Tensor2D;
    for (let t = 1; t < newTokens; t++) {
      const logits = tf.tidy(() => {
        const all = policy.forward(sequence);
        return all.slice([0, t - 1, 0], [batch, 1, config.vocabSize]).reshape([batch, config.vocabSize]) as tf.Tensor2D;
      });
      const next = await pick(logits);
      const grown = tf.concat([sequence, next.reshape([batch, 1])], 1) as tf.Tensor2D;
      tf.dispose([sequence, next]);
      sequence = grown;
    }
    sequence.dispose();
  };
  if (!quick) {
    const naive = await time(naiveSample, 2, 1);
    // The loop above draws newTokens - 1 tokens (the KV-cache sampler's prefill draws one more).
    report(rate(`sample_naive_tokens_per_s/${label}`, 'tokens/s', batch * (newTokens - 1), naive));
  }
  dispose();
}

/**
 * Training tokens/s of the reference policy under two settings, in this process: `rounds` rounds
 * of `steps` steps each way, the order alternating every round so that drift of the machine falls
 * on both. Reports both, the ratio of their medians (`on` over `off`) and the per-round ratios.
 */
async function alternatingFigure(name: string, rounds: number, on: { label: string; apply: () => void }, off: { label: string; apply: () => void }, extra: Record<string, unknown>, steps = 4): Promise<void> {
  const { trainStep, dispose } = referenceTrainer(referenceConfig, 32, 64);
  const rates: Record<string, number[]> = { [on.label]: [], [off.label]: [] };
  const roundRatios: number[] = [];
  try {
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 ? [off, on] : [on, off];
      const perRound: Record<string, number> = {};
      for (const setting of order) {
        setting.apply();
        const durations = await time(trainStep, steps, 1);
        perRound[setting.label] = (32 * 64) / (median(durations) / 1000);
        rates[setting.label].push(perRound[setting.label]);
      }
      roundRatios.push(perRound[on.label] / perRound[off.label]);
    }
  } finally {
    dispose();
  }
  const [a, b, ratios] = [summary(rates[on.label]), summary(rates[off.label]), summary(roundRatios)];
  report({ name, unit: 'ratio', median: a.median / b.median, min: ratios.min, max: ratios.max, runs: rounds, [on.label]: a, [off.label]: b, round_ratios: ratios, steps_per_round: steps, ...extra });
}

/** The kernels' fused multiply-add build against their plain SIMD build, one thread. */
async function fmaFigures(rounds: number): Promise<void> {
  const fma = { label: 'fma_on', apply: () => {
    setFusedMultiplyAdd(true);
    if (multiplyAddChoice().build !== 'fma') throw new Error(`the fused build cannot run: ${multiplyAddChoice().reason}`);
  } };
  try {
    await alternatingFigure('train_tokens_per_s/reference_d128_l2/fma_on_vs_off', rounds, fma, { label: 'fma_off', apply: () => setFusedMultiplyAdd(false) }, { threads: 1 });
  } finally {
    setFusedMultiplyAdd(true);
  }
}

/** Threads inside a step: products split with a helper thread (PRL_KERNEL_THREADS=2) against one thread. */
async function productThreadFigures(rounds: number): Promise<void> {
  const threads = await startNodeProductThreads();
  try {
    await alternatingFigure('train_tokens_per_s/reference_d128_l2/product_threads_2_vs_1', rounds,
      { label: 'two_threads', apply: () => setProductThreads(threads) }, { label: 'one_thread', apply: () => setProductThreads(null) },
      { multiply_add: multiplyAddChoice().build, min_macs: threads.minMacs });
  } finally {
    setProductThreads(null);
    await threads.close();
  }
}

const limits = { deadlineMs: 100, watchdogMs: 2000, memoryBytes: 32 << 20, stackBytes: 128 << 10, maxSourceBytes: 64 << 10, maxOutputLength: 4096 };
const shortProgram = { source: 'sequence_1 = range_func_up(3, 9)\noutput = sequence_1', prelude: 'kolmogorov', expected: [3, 4, 5, 6, 7, 8, 9] };

/**
 * Evaluations per second of CPU time of the whole process (all threads) since `since`: less
 * sensitive than wall-clock rates to other processes on a shared machine; on an idle machine a
 * pool's wall-clock rate approaches `evals_per_cpu_s` x cores.
 */
function cpuFigure(evaluations: number, since: NodeJS.CpuUsage): { evals_per_cpu_s: number; cpu_ms: number } {
  const used = process.cpuUsage(since);
  const cpuMs = (used.user + used.system) / 1000;
  return { evals_per_cpu_s: Math.round(evaluations / (cpuMs / 1000)), cpu_ms: Math.round(cpuMs) };
}

/**
 * Sandbox evaluations/s of one short DSL program with every limit on and a pristine QuickJS
 * state per program: in this thread (one_worker: the Sandbox alone, no messages), and through
 * pools of 1 and 2 worker threads (batches of 2,000, chunks of 64). Each figure is measured after
 * at least `warmupMs` of evaluations (the wasm engine optimises the interpreter in the background;
 * cold code is 3-5x slower); `first_batch_evals_per_s` is the first batch of a fresh pool.
 */
async function sandboxFigures(runs: number): Promise<void> {
  const warmupMs = 1500;
  const preludes = { kolmogorov: kolmogorovPreludeModules };
  const sandbox = await Sandbox.create({ limits, preludes });
  const perRun = 2000;
  const notOkInThread: Record<string, number> = {};
  const inThread = () => {
    for (let i = 0; i < perRun; i++) {
      const outcome = sandbox.evaluate(shortProgram);
      if (outcome.kind !== 'ok') {
        notOkInThread[outcome.kind] = (notOkInThread[outcome.kind] ?? 0) + 1;
        console.error(`bench program: ${outcome.kind} ${outcome.message ?? ''} after ${outcome.elapsedMs.toFixed(1)} ms`);
      }
    }
  };
  for (const start = performance.now(); performance.now() - start < warmupMs; ) inThread();
  let cpu = process.cpuUsage();
  const single = await time(inThread, runs, 0);
  report(rate('sandbox_evals_per_s/one_worker', 'evals/s', perRun, single, { fresh_state_per_program: true, in_thread: true, warmup_ms: warmupMs, ...cpuFigure(perRun * runs, cpu), not_ok: notOkInThread }));
  sandbox.dispose();
  for (const size of [1, 2]) {
    const pool = createNodeSandboxPool({ size, limits, preludes, chunkSize: 64 });
    const batch = Array.from({ length: 2000 }, () => shortProgram);
    const notOk: Record<string, number> = {};
    const evaluate = async () => {
      for (const outcome of await pool.evaluateBatch(batch)) if (outcome.kind !== 'ok') notOk[outcome.kind] = (notOk[outcome.kind] ?? 0) + 1;
    };
    const first = await time(evaluate, 1, 0);
    for (const start = performance.now(); performance.now() - start < warmupMs; ) await evaluate();
    cpu = process.cpuUsage();
    const durations = await time(evaluate, runs, 0);
    report(
      rate(`sandbox_evals_per_s/pool_${size}`, 'evals/s', batch.length, durations, {
        fresh_state_per_program: true,
        chunk_size: 64,
        warmup_ms: warmupMs,
        first_batch_evals_per_s: Math.round(batch.length / (first[0] / 1000)),
        ...cpuFigure(batch.length * runs, cpu),
        not_ok: notOk,
      }),
    );
    await pool.close();
  }
}

/**
 * The repair search's side of the host: programs one edit away from 200 generated programs,
 * each token with 8 runner-ups (the next 8 numbers, or the other line references), turned into
 * checked programs and printed, as runner.ts does before the sandbox runs them. Edits the
 * grammar refuses count as work too: the search pays for them.
 */
async function repairFigures(runs: number): Promise<void> {
  const rng = new Rng(1);
  const programs = Array.from({ length: 200 }, () => {
    const tokens = programToTokens(generateProgram(rng));
    const alternatives = tokens.map((token) =>
      isValue(token)
        ? Array.from({ length: 8 }, (_, j) => VALUE0 + ((token - VALUE0 + j + 1) % 256))
        : token >= REF0
          ? Array.from({ length: 8 }, (_, j) => REF0 + j).filter((ref) => ref !== token)
          : [],
    );
    return { tokens, alternatives };
  });
  let edits = 0;
  let parsed = 0;
  const durations = await time(() => {
    edits = 0;
    parsed = 0;
    for (const program of programs) {
      for (const edit of oneEditAway(program)) {
        edits += 1;
        try {
          printProgram(tokensToProgram(edit.tokens));
          parsed += 1;
        } catch {
          // refused by the grammar
        }
      }
    }
  }, runs, 1);
  report(rate('repair_edits_prepared_per_s', 'edits/s', edits, durations, { edits, well_formed: parsed }));
}

/**
 * Split search as the recipe's evaluation runs it (greedy + split, 24 rounds, then literal bridges where it failed): the shipped
 * checkpoint on the first held-out sequences, policy decoding and sandbox checks together. Each
 * run is a fresh evaluation, so no piece is remembered from an earlier run.
 */
async function splitFigures(runs: number): Promise<void> {
  const records = (await loadKolmogorovFile('datasets/heldout.jsonl')).slice(0, 16);
  const { runner, close } = await openCheckpointRunner(new Uint8Array(readFileSync('public/pretrained.prl')), records);
  try {
    let accuracy = 0;
    let compressionRate = 0;
    let bridged = 0;
    const durations = await time(async () => {
      const result = await runner.evaluate(records, { split: 24 });
      accuracy = result.accuracy;
      compressionRate = result.compressionRate;
      bridged = result.rows.filter((row) => row.outcome === 'ok' && row.foundBy === 'bridge').length;
    }, runs, 1);
    report(
      rate('split_search_sequences_per_s/shipped_checkpoint', 'sequences/s', records.length, durations, {
        sequences: records.length,
        data: 'first 16 of datasets/heldout.jsonl',
        accuracy,
        compression_rate: compressionRate,
        solved_with_bridges: bridged,
        bridge_above: splitSearch.bridgeAbove,
      }),
    );
  } finally {
    await close();
  }
}

async function jsonlFigures(runs: number): Promise<void> {
  const bytes = new Uint8Array(readFileSync('datasets/train.jsonl'));
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += 64 << 10) yield bytes.subarray(i, i + (64 << 10));
  }
  const durations = await time(async () => void (await loadJsonl(chunks(), parseKolmogorovRecord)), runs, 1);
  report(rate('jsonl_parse_mb_per_s', 'MB/s', bytes.length / 1e6, durations, { file: 'datasets/train.jsonl' }));
}

async function checkpointFigures(runs: number): Promise<void> {
  const config = { vocabSize: 64, layers: 2, dModel: 128, heads: 4, context: 64 };
  const policy = new TransformerPolicy(config, 0);
  const adam = new Adam(policy.variables, { learningRate: 3e-4 });
  const meta = { config: defaultConfig(), step: 1, rngState: [1, 2, 3, 4] as [number, number, number, number] };
  let bytes: Uint8Array = new Uint8Array();
  const save = await time(async () => {
    const tensors = [
      ...policy.getWeights().map((w) => ({ ...w, group: 'weights' as const, dtype: 'float32' as const })),
      ...adam.getState(policy.weightNames()).map((w) => ({ ...w, group: 'optimizer' as const, dtype: 'float32' as const })),
    ];
    bytes = await encodeCheckpoint(meta, tensors);
  }, runs, 1);
  report({ name: 'checkpoint_save_ms/reference_policy', unit: 'ms', ...summary(save), bytes: bytes.length });
  const load = await time(async () => void (await decodeCheckpoint(bytes)), runs, 1);
  report({ name: 'checkpoint_load_ms/reference_policy', unit: 'ms', ...summary(load), bytes: bytes.length });
  adam.dispose();
  policy.dispose();
}

/**
 * The Kolmogorov warm start as the recipe runs it (d 64, 2 layers, previous-token embedding,
 * number code; a length-bucketed batch of 32 generated pairs of at most 64 values), on one
 * thread and split with a gradient worker thread (data parallelism), on the same batch.
 */
/**
 * The reference policy trained on random tokens through the supervised (data-parallel) path,
 * on 1 and 2 threads: how the CLI uses both cores (the Python reference uses 2 threads too).
 * Same model and tokens per step as train_tokens_per_s/reference_d128_l2; the loss is
 * cross-entropy instead of the REINFORCE-weighted log-probs, the same forward and backward work.
 */
async function dataParallelFigures(runs: number): Promise<void> {
  const config: PolicyConfig = { vocabSize: 64, dModel: 128, heads: 4, layers: 2, context: 64 };
  const rng = new Rng(11);
  const pairs = Array.from({ length: 32 }, () => ({ prompt: [1], tokens: Array.from({ length: 63 }, () => rng.int(1, 63)) }));
  for (const threads of [1, 2]) {
    const durations = await supervisedStepDurations(config, { task: 'open' }, pairs, threads, 3e-4, runs);
    report(rate(`train_tokens_per_s/reference_d128_l2/data_parallel_${threads}_threads`, 'tokens/s', 32 * 64, durations, { threads, step_ms: median(durations), loss: 'cross-entropy' }));
  }
}

async function warmStartFigures(runs: number): Promise<void> {
  const config = defaultConfig();
  config.model = { ...config.model, dModel: 64, layers: 2, heads: 4 };
  const policyConfig = kolmogorovPolicyConfig(config);
  const stream = new PairStream({ maxSequenceLength: 128, context: 256, maxProgramTokens: 96, seed: 5, exclude: new Set(), maxTrainLength: 64 });
  // One batch of the median length, so every run does the same work (bucketed batches differ 5x).
  const batches = Array.from({ length: 9 }, () => stream.batch(32));
  const tokensOf = (batch: (typeof batches)[number]) => batch.reduce((sum, pair) => sum + pair.prompt.length + pair.tokens.length, 0);
  const batch = [...batches].sort((a, b) => tokensOf(a) - tokensOf(b))[4];
  const tokens = tokensOf(batch);
  for (const threads of [1, 2]) {
    const durations = await supervisedStepDurations(policyConfig, { task: 'kolmogorov' }, batch, threads, 1e-3, runs);
    report(rate(`warm_start_pairs_per_s/${threads}_threads`, 'pairs/s', 32, durations, { threads, tokens_per_batch: Math.round(tokens), model: 'd64 l2, previous token, number code' }));
  }
}

/** Durations of supervised steps on `pairs` with `threads` threads (gradient workers beside this one). */
async function supervisedStepDurations(config: PolicyConfig, grammar: GrammarSpec, pairs: SequencePair[], threads: number, learningRate: number, runs: number): Promise<number[]> {
  const host = threads > 1 ? await createNodeGradientShards(threads - 1, config, 'wasm', grammar) : null;
  const policy = new TransformerPolicy(config, 0);
  const trainer = new SupervisedTrainer(policy, shardGrammar(grammar, config.vocabSize), { learningRate, gradClip: 1 }, host?.shards);
  try {
    return await time(async () => {
      const result = await trainer.step(pairs);
      if (result.threads !== threads) throw new Error(`a supervised step ran on ${result.threads} thread(s), not ${threads}: a gradient worker failed`);
    }, runs, 2);
  } finally {
    trainer.dispose();
    policy.dispose();
    await host?.close();
  }
}

/** `--help`: this file's header, which says every flag. */
function help(): string {
  const source = readFileSync(new URL(import.meta.url), 'utf8');
  const header = source.slice(source.indexOf('/**') + 3, source.indexOf('*/'));
  return header.split('\n').map((line) => line.replace(/^ \* ?/, '')).join('\n').trim();
}

async function main(): Promise<void> {
  if (flags.help) return void console.log(help());
  const backend = await initTensorflow('auto');
  console.error(`tfjs backend: ${backend.backend} (${backend.detail})`);
  const runs = Number(runsArg ?? (quick ? 3 : 10));
  if (wanted('policy')) {
    await policyFigures('reference_d128_l2', referenceConfig, 32, 64, runs);
    await dataParallelFigures(runs);
    if (!quick) await policyFigures('d256_l4', { vocabSize: 64, dModel: 256, heads: 4, layers: 4, context: 64 }, 32, 64, Math.max(3, Math.floor(runs / 2)));
  }
  if (wanted('warmstart')) await warmStartFigures(runs);
  if (wanted('sandbox')) await sandboxFigures(Math.max(3, Math.floor(runs / 2)));
  if (wanted('repair')) await repairFigures(Math.max(3, Math.floor(runs / 2)));
  if (wanted('split')) await splitFigures(Math.max(3, Math.floor(runs / 3)));
  if (wanted('jsonl')) await jsonlFigures(runs);
  if (wanted('checkpoint')) await checkpointFigures(runs);
  if (wanted('soak')) await soakFigures(quick ? 200 : 1000, report);
  if (wantedExplicitly('expert_iteration')) await expertIterationFigures(quick ? 3 : 10, report);
  if (wantedExplicitly('dqn')) await dqnFigures(quick ? 5 : 20, report);
  if (wantedExplicitly('fsearch')) await functionSearchFigures(flags.checkpoint ?? 'public/functions.prl', report);
  if (wantedExplicitly('fma')) await fmaFigures(quick ? 4 : Number(runsArg ?? 8));
  if (wantedExplicitly('threads')) await productThreadFigures(quick ? 4 : Number(runsArg ?? 8));
  if (wantedExplicitly('bundle')) await bundleFigures(report);
  if (wantedExplicitly('page')) await pageFigures({ quick, report, cliFigures: () => policyFigures('reference_d128_l2', referenceConfig, 32, 64, runs) });
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`bench failed: ${error instanceof Error ? error.stack : String(error)}`);
    process.exit(1);
  },
);
