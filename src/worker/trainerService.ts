/**
 * The trainer behind the page: dataset parsing, the supervised warm start (pretraining), the RL
 * training loop, evaluation and checkpoints, as the TrainerApi of protocol.ts. It is platform-neutral: the worker entry
 * (trainer.worker.ts) gives it the browser's tfjs backend choice and sandbox workers, and the
 * protocol test runs it in Node over a MessageChannel. Events go to the page in batches, at
 * most four times a second, so the main thread only renders.
 */
import { SupervisedTrainer } from '../core/algorithms/supervised';
import { decodeCheckpoint, modelDifference } from '../core/checkpoint';
import { configProblem, type LabConfig } from '../core/config';
import { isSafetensors } from '../core/safetensors';
import { MAX_DATASET_BYTES, loadJsonl, summarizeLoad } from '../core/data/jsonl';
import { evaluateDigits, type DigitEvalResult } from '../core/digits/evaluate';
import { digitHeldOut, digitRunConfig, digitWarmStartBatches, hostScored } from '../core/digits/experiment';
import { digitTask } from '../core/digits/task';
import { isDigitTask, type DigitItem } from '../core/digits/tasks';
import { DigitGrammar } from '../core/digits/vocab';
import { GeneratorPool, inProcessGenerator, type GeneratorHandle } from '../core/generators';
import { createTrainingLoop, type TrainingLoop } from '../core/loop';
import { parseKolmogorovRecord, type KolmogorovRecord } from '../core/data/records';
import { KolmogorovGrammar } from '../core/kolmogorov/grammar';
import { gzipBits, lzmaBits, sequencesText } from '../core/kolmogorov/metrics';
import { PairStream, sequenceKey, toPair, type Pair } from '../core/kolmogorov/pairs';
import { repairSearch } from '../core/kolmogorov/repair';
import { splitSearch } from '../core/kolmogorov/split';
import { scheduledRate } from '../core/model/schedule';
import { parseProblemsText, type FunctionProblem } from '../core/functions/problems';
import { createFunctionsRunner, createRunner, preludes, withEvaluation, type FunctionsRunner, type Runner } from '../core/runner';
import type { MetricEvent, RunPhase } from '../core/runnerTypes';
import type { SandboxLimits } from '../core/sandbox/outcome';
import type { SandboxPool } from '../core/sandbox/pool';
import type { Prelude } from '../core/sandbox/prelude';
import { AUTOSAVE_EVERY, SavedRuns } from './savedRuns';
import { CANCELLED, type BackendInfo, type DatasetSummary, type EvaluationRow, type PretrainOptions, type TrainerApi, type TrainerEvent } from './protocol';

export interface TrainerPlatform {
  /** Starts the best tfjs backend, skipping those named in `skip` (one whose device was lost). */
  initBackend(skip?: string[]): Promise<BackendInfo>;
  /** Calls `handler` when the backend's GPU device is lost (WebGPU's device.lost, WebGL's context loss). */
  onDeviceLost?(handler: (reason: string) => void): void;
  createPool(options: { size: number; limits: SandboxLimits; preludes: Record<string, Prelude> }): SandboxPool;
  /** Marks bytes for transfer (Comlink.transfer in a worker). */
  transfer(bytes: Uint8Array): Uint8Array;
  /** Digit-task generators, one handle each (Web Workers in the page); in-process when absent. */
  createDigitGenerators?(size: number): GeneratorHandle[];
}

// One service per worker: its state is module-level, like the worker's own globals.
let platform: TrainerPlatform;
let emit: (events: TrainerEvent[]) => void = () => {};
let queue: TrainerEvent[] = [];
let flushTimer: ReturnType<typeof setTimeout> | null = null;
function send(event: TrainerEvent, urgent = false): void {
  savedRuns?.observe(event);
  queue.push(event);
  if (urgent) flush();
  else flushTimer ??= setTimeout(flush, 250);
}
function flush(): void {
  if (flushTimer) clearTimeout(flushTimer);
  flushTimer = null;
  if (queue.length === 0) return;
  const events = queue;
  queue = [];
  emit(events);
}

/** The live run kept in the browser's storage as it trains (savedRuns.ts). */
let savedRuns: SavedRuns | undefined;
/** The backend tfjs runs on, and whether it has a GPU device to lose. */
let backendName = '';
const onGpu = () => backendName === 'webgpu' || backendName === 'webgl';
/** Set while the run recovers from a lost GPU device: the failing step is no error of its own. */
let recovering = false;

let phase: RunPhase = 'idle';
function setPhase(next: RunPhase, message: string): void {
  phase = next;
  send({ type: 'phase', phase: next, message }, true);
}

const data: { train: KolmogorovRecord[]; heldout: KolmogorovRecord[] } = { train: [], heldout: [] };
/** The functions task's problems, loaded beside the sequences (a file's kind decides where it goes). */
const problems: { train: FunctionProblem[]; heldout: FunctionProblem[] } = { train: [], heldout: [] };
let config: LabConfig | null = null;
/** A digit run's loop, evaluated greedily on its first `limit` held-out questions. */
type DigitRunner = TrainingLoop & { evaluate(limit: number): Promise<DigitEvalResult> };
let runner: Runner | FunctionsRunner | DigitRunner | null = null;
let pool: SandboxPool | null = null;
/**
 * The digit tasks' run state beside their runner: held-out questions (never trained on), the
 * generator workers, and whether the warm start is done (Train runs it first) or the RL steps.
 */
interface DigitState {
  heldout: DigitItem[];
  excluded: Set<string>;
  generators: GeneratorPool;
  warmStarted: boolean;
  before?: DigitEvalResult;
  after?: DigitEvalResult;
}
let digits: DigitState | null = null;

/**
 * What the live run's weights are, as the status says it ("weights: pretrained checkpoint, step
 * 40000 + 12 RL steps"): where they came from, the RL step they came in at, whether they were
 * trained at all (fresh random weights are not worth keeping), and the KL reference they drift
 * from. A new configuration of the same model carries trained weights over (carriedWeights).
 */
interface Weights {
  origin: string;
  trained: boolean;
  /** The run's step when the weights came: RL steps since are counted on top of the origin. */
  atStep: number;
  reference?: Uint8Array;
}
let weights: Weights = { origin: 'random', trained: false, atStep: 0 };
function setWeights(next: Weights): void {
  weights = next;
  send({ type: 'weights', origin: next.origin, trained: next.trained, atStep: next.atStep }, true);
}
/** The origin with the RL steps taken since. */
function weightsNow(): string {
  const steps = (runner?.globalStep ?? 0) - weights.atStep;
  return steps > 0 ? `${weights.origin} + ${steps} RL step${steps > 1 ? 's' : ''}` : weights.origin;
}

/** The config a run of `next` really gets (the digit recipe fills in its own defaults). */
function effectiveConfig(next: LabConfig): LabConfig {
  return isDigitTask(next.task.name) ? digitRunConfig(next) : next;
}

/** Why a run of `next` cannot start from the live weights, or null when it can. */
function weightsMismatch(next: LabConfig): string | null {
  if (!runner || !config) return 'there is no run yet';
  return modelDifference(config, effectiveConfig(next));
}

/** The live run's trained weights for a new run of `next`, when its model is the same. */
async function carriedWeights(next: LabConfig): Promise<{ bytes: Uint8Array; origin: string; reference?: Uint8Array } | null> {
  if (!runner || !weights.trained || weightsMismatch(next)) return null;
  return { bytes: await runner.saveCheckpoint(), origin: weightsNow(), reference: weights.reference };
}
let wallStart = performance.now();
let wallOffset = 0;
/**
 * Cancel of long work (an evaluation, a big file's parse): a flag read where the work reports
 * progress, between chunks, so it ends there with nothing half-done kept.
 */
let cancelRequested = false;
function progress(task: string, done: number, total: number): void {
  if (cancelRequested) {
    cancelRequested = false;
    throw new Error(CANCELLED);
  }
  send({ type: 'progress', task, done, total });
}

/**
 * An evaluation as a phase of its own: 'evaluating' with its progress bar from the start (before
 * the first chunk ends), then back to the phase before it ('paused' if it was training), saying
 * whether it ended or was cancelled.
 */
async function asEvaluation<T>(message: string, total: number, work: () => Promise<T>): Promise<T> {
  const previous = phase;
  setPhase('evaluating', message);
  send({ type: 'progress', task: 'evaluating', done: 0, total });
  let ended = 'evaluation done';
  try {
    return await work();
  } catch (error) {
    if ((error as Error).message === CANCELLED) ended = 'evaluation cancelled';
    throw error;
  } finally {
    setPhase(previous === 'training' ? 'paused' : previous, ended);
  }
}

/** Serialises everything that touches the runner: a checkpoint is swapped in only between steps. */
let exclusive: Promise<unknown> = Promise.resolve();
function serial<T>(task: () => Promise<T>): Promise<T> {
  const next = exclusive.then(task, task);
  exclusive = next.catch(() => undefined);
  return next;
}

/** Sequences compressed for a dataset's gzip and LZMA reference rates (LZMA of all 10,000 shipped ones takes ~9 s). */
export const REFERENCE_RECORDS = 1000;

function referenceRates(records: readonly KolmogorovRecord[]): { gzipRate?: number; lzmaRate?: number } {
  const sequences = records.slice(0, REFERENCE_RECORDS).map((record) => record.sequence);
  const rawBits = 8 * sequences.reduce((sum, sequence) => sum + sequence.length, 0);
  if (rawBits === 0) return {};
  const text = sequencesText(sequences);
  return { gzipRate: gzipBits(text) / rawBits, lzmaRate: lzmaBits(text) / rawBits };
}

function requireRunner(): Runner | FunctionsRunner | DigitRunner {
  if (!runner) throw new Error('no run is configured yet: load a dataset first');
  return runner;
}

/** The RL steps a run takes: the digit recipe's --num-steps, else --max-steps (0: no limit). */
function stepLimit(): number {
  if (!config) return 0;
  return digits ? config.digits.numSteps : config.run.maxSteps;
}

function describeDigits(next: LabConfig): string {
  const { model, algorithm, digits: d } = next;
  return `${next.task.name}: policy d_model ${model.dModel} x ${model.layers} layers, batch ${algorithm.batchSize}; warm start ${d.warmStartSteps} steps on ${d.warmStartExamples} examples, then ${d.numSteps} RL steps with ${d.numGenerators} generator worker(s)`;
}

/** A digit evaluation as a table row: accuracy and format compliance; the compression columns do not apply. */
function digitRow(label: string, step: number, result: DigitEvalResult): EvaluationRow {
  const none = { '16': NaN, '32': NaN, '64': NaN, '128': NaN };
  const items = result.samples.map((s, index) => ({ index, target: [s.answer], output: s.given === null ? null : [s.given], program: s.text, correct: s.correct, detail: s.question }));
  return { label, step, k: 1, n: result.n, accuracy: result.accuracy, formatCompliance: result.formatCompliance, accAtPrefix: none, compressionRate: NaN, precision: NaN, gzipRate: NaN, lzmaRate: NaN, items };
}

/** Greedy evaluation of a digit run, sent as metrics (eval_*) and a table row. */
async function evaluateDigitRun(active: DigitRunner, label: 'warm start' | 'during RL' | 'after RL' | null, limit: number): Promise<EvaluationRow> {
  const result = await active.evaluate(limit);
  if (digits && label === 'warm start') digits.before = result;
  if (digits && label === 'after RL') digits.after = result;
  const wallMs = wallOffset + performance.now() - wallStart;
  send({ type: 'metrics', events: [['eval_accuracy', result.accuracy], ['eval_format_compliance', result.formatCompliance]].map(([name, value]) => ({ step: active.globalStep, name: name as string, value: value as number, wallMs })) });
  const row = digitRow(`greedy${label ? ` (${label})` : ''} @ step ${active.globalStep}`, active.globalStep, result);
  send({ type: 'evaluation', row });
  return row;
}

/** The Kolmogorov runner, for what only that task has in the page (its warm start from generated pairs, its searches). */
function requireKolmogorov(): Runner {
  const active = requireRunner();
  if (config?.task.name !== 'kolmogorov') throw new Error(`Pretrain is the kolmogorov task's (this run: ${config?.task.name}); the digit tasks' Train runs their warm start first, and the functions warm start is \`npm run pretrain -- --task functions\``);
  return active as Runner;
}

/** Largest run file (a downloaded saved run: its checkpoint and reference in base64, its metrics) the page reads. */
const MAX_RUN_FILE_BYTES = 256 << 20;

/** Largest problems file the page reads (a JSON array is parsed whole). */
const MAX_PROBLEMS_BYTES = 64 << 20;

/** Whether a file holds function problems: the seed's field name in its first 4 KB. */
async function holdsProblems(file: Blob): Promise<boolean> {
  return (await file.slice(0, 4096).text()).includes('"function_name"');
}

async function loadProblems(role: 'train' | 'heldout', name: string, file: Blob): Promise<DatasetSummary> {
  if (file.size > MAX_PROBLEMS_BYTES) throw new Error(`${name} has ${file.size} bytes, more than the ${MAX_PROBLEMS_BYTES} a problems file may have`);
  const { problems: loaded, errors } = parseProblemsText(await file.text());
  if (loaded.length === 0) throw noRecords(name, role, problems[role].length, 'problem', errors[0] && `${errors[0].where} ${errors[0].index}: ${errors[0].reason}`, errors.length);
  problems[role] = loaded;
  const summary = `${loaded.length} problems loaded${errors.length ? `, ${errors.length} rejected` : ''}`;
  return {
    name,
    role,
    kind: 'problems',
    records: loaded.length,
    errorCount: errors.length,
    errors: errors.slice(0, 200).map((error) => ({ line: error.index, byteOffset: 0, reason: `${error.where} ${error.index}: ${error.reason}`, snippet: '' })),
    preview: [],
    problemPreview: loaded.slice(0, 10).map((p) => ({
      functionName: p.functionName,
      docstring: p.docstring,
      signature: `(${p.signature.params.join(', ')}) -> ${p.signature.ret}`,
      tests: p.tests.length,
      hiddenTests: p.hiddenTests.length,
    })),
    lines: loaded.length + errors.length,
    bytes: file.size,
    summary,
  };
}

/**
 * A file that yielded nothing keeps the set it would have replaced (a binary file dropped by
 * mistake must not empty the training set): the error says so, and why the file gave nothing.
 */
function noRecords(name: string, role: 'train' | 'heldout', kept: number, what: string, first: string | undefined, rejected: number): Error {
  const why = rejected ? `${rejected} rejected${first ? `, the first: ${first}` : ''}` : 'the file is empty';
  const set = role === 'train' ? 'training' : 'held-out';
  return new Error(`${name} holds no valid ${what} (${why}); the ${set} set is unchanged${kept ? ` (${kept} ${what}s)` : ''}`);
}

/** The supervised warm start in progress (also while paused), as `npm run pretrain` runs it. */
interface Pretraining {
  options: PretrainOptions;
  trainer: SupervisedTrainer;
  /** The next supervised batch: generated (sequence -> program) pairs, or the digit tasks' labelled answers. */
  batch(size: number): Pair[];
  /** The learning rate of a step (Kolmogorov: warm-up then cosine, as the CLI; digits: constant). */
  rate(step: number): number;
  /** Held-out figures every evalEvery steps (Kolmogorov only). */
  evaluate?(state: Pretraining): Promise<Record<string, number>>;
  /** Where the weights go when it ends. */
  finish(state: Pretraining, how: 'done' | 'stopped'): Promise<void>;
  /** Train continues with RL when it ends (the digit tasks' Train runs their warm start first). */
  thenTrain: boolean;
  step: number;
  wallMs: number;
  heldoutAccuracy?: number;
}
let pretraining: Pretraining | null = null;
/** What Resume continues after a pause. */
let pausedFrom: 'training' | 'pretraining' = 'training';

function dropPretraining(): void {
  pretraining?.trainer.dispose();
  pretraining = null;
}

/** A run made but not yet in place: what rebuildRunner installs once everything about it has worked. */
interface Built {
  config: LabConfig;
  runner: Runner | FunctionsRunner | DigitRunner;
  pool: SandboxPool | null;
  digits: DigitState | null;
}

/** Makes a run for `next` without touching the live one; a failure leaves nothing behind. */
async function buildRunner(next: LabConfig, initFrom?: Uint8Array, referenceFrom?: Uint8Array): Promise<Built> {
  if (isDigitTask(next.task.name)) {
    // The digit recipe's values for the fields left at their defaults; generated questions, host-scored answers.
    const run = digitRunConfig(next);
    const heldout = digitHeldOut(run);
    const excluded = new Set(heldout.map((item) => item.question));
    const handles = (platform.createDigitGenerators ?? ((n: number) => Array.from({ length: n }, inProcessGenerator)))(run.digits.numGenerators);
    const generators = new GeneratorPool(handles);
    try {
      const loop = await createTrainingLoop(run, digitTask(run, excluded), [], { pool: hostScored, generators: { pool: generators, overlap: run.digits.overlap }, initFrom, referenceFrom });
      const built = withEvaluation(loop, (limit: number) => evaluateDigits(loop.policy, heldout.slice(0, limit), run.digits.maxResponseTokens));
      return { config: run, runner: built, pool: null, digits: { heldout, excluded, generators, warmStarted: Boolean(initFrom) || run.digits.warmStartSteps === 0 } };
    } catch (error) {
      generators.close();
      throw error;
    }
  }
  const { deadlineMs, watchdogMs, memoryBytes, stackBytes, maxSourceBytes, maxOutputLength, workers } = next.sandbox;
  const created = platform.createPool({ size: workers, limits: { deadlineMs, watchdogMs, memoryBytes, stackBytes, maxSourceBytes, maxOutputLength }, preludes });
  try {
    const deps = { pool: created, initFrom, referenceFrom, onLog: (text: string) => send({ type: 'error', message: text }) };
    const built = next.task.name === 'functions' ? await createFunctionsRunner(next, problems.train, deps) : await createRunner(next, data, deps);
    return { config: next, runner: built, pool: created, digits: null };
  } catch (error) {
    await created.close();
    throw error;
  }
}

async function disposeBuilt(built: Built): Promise<void> {
  built.runner.dispose();
  await built.pool?.close();
  built.digits?.generators.close();
}

/** Puts a made run in place of the live one, which is disposed; a new run saves apart from the stored one (`newRun`). */
async function install(built: Built, newRun = true): Promise<void> {
  if (newRun) savedRuns?.newRun();
  dropPretraining();
  if (runner) {
    try {
      await disposeBuilt({ config: config!, runner, pool, digits });
    } catch (error) {
      // A lost GPU device may refuse to free what it held: the new run goes in all the same.
      console.warn(`disposing the previous run: ${(error as Error).message}`);
    }
  }
  ({ config, runner, pool, digits } = built);
  wallStart = performance.now();
  wallOffset = 0;
}

/** A new run for `next` (from `initFrom`'s weights): made first, then swapped in, so a failure keeps the live run. */
async function rebuildRunner(next: LabConfig, initFrom?: Uint8Array, referenceFrom?: Uint8Array): Promise<void> {
  await install(await buildRunner(next, initFrom, referenceFrom));
}

/**
 * A run of `next` that continues from `checkpoint` (weights, optimizer, RNG, data cursor), made
 * and loaded aside and swapped in only when all of it worked: a file that decodes but fails later
 * (a missing tensor) leaves the live run be. `reference` is the KL reference it drifts from.
 */
async function installCheckpoint(next: LabConfig, checkpoint: Uint8Array, { reference, newRun = true }: { reference?: Uint8Array; newRun?: boolean } = {}): Promise<void> {
  // The reference is made at build from the weights given then: the checkpoint's, replaced by its load.
  const built = await buildRunner(next, reference ? checkpoint : undefined, reference);
  try {
    await built.runner.loadCheckpoint(checkpoint);
  } catch (error) {
    await disposeBuilt(built);
    throw error;
  }
  await install(built, newRun);
}

async function runStep(): Promise<void> {
  const active = requireRunner();
  const started = performance.now();
  if (digits && config!.digits.lrDecay) active.setLearningRate(scheduledRate(config!.algorithm.learningRate, active.globalStep + 1, config!.digits.numSteps, 0));
  const result = await active.step();
  if (!weights.trained) setWeights({ ...weights, trained: true });
  const wallMs = wallOffset + performance.now() - wallStart;
  const values: Record<string, number> = { ...result.metrics };
  for (const g of result.generators ?? []) values[`generator_${g.id}_version`] = g.generatedWith;
  const events: MetricEvent[] = Object.entries(values).map(([name, value]) => ({ step: result.step, name, value, wallMs }));
  send({ type: 'metrics', events });
  send({ type: 'samples', samples: result.samples.slice(0, 16) });
  send({ type: 'step', step: result.step, stepsPerSecond: 1000 / (performance.now() - started) });
  if (result.skipped) send({ type: 'error', message: `step ${result.step}: ${result.reason}` });
  if (digits) {
    const evalFreq = config!.run.evalFreq;
    const end = result.step >= config!.digits.numSteps;
    if (end || (evalFreq > 0 && result.step % evalFreq === 0)) await evaluateDigitRun(active as DigitRunner, end ? 'after RL' : 'during RL', config!.run.evalSamples);
  }
}

/**
 * Saves the live run when it is due (savedRuns.ts): called between steps, so the checkpoint is
 * the step's; its write goes on in the background. On a GPU backend with saving off, the
 * checkpoint is kept in memory alone, for the run to come back to if the device is lost.
 */
async function keepRun(status: 'training' | 'paused' | 'stopped'): Promise<void> {
  if (!runner || !config || !savedRuns) return;
  const step = runner.globalStep;
  if (savedRuns.due(step, status)) {
    const bytes = savedRuns.needsCheckpoint(step) ? await runner.saveCheckpoint() : null;
    void savedRuns.save(status, step, bytes, config, weights.reference);
  } else if (!savedRuns.autosave && onGpu() && step > 0 && step % AUTOSAVE_EVERY === 0) {
    savedRuns.remember(step, await runner.saveCheckpoint());
  }
}

async function trainLoop(): Promise<void> {
  while (phase === 'training') {
    try {
      await serial(async () => {
        await runStep();
        await keepRun('training');
      });
    } catch (error) {
      if (recovering) return; // the lost device's recovery says what happened
      setPhase('error', `training stopped: ${(error as Error).message}`);
      send({ type: 'error', message: (error as Error).message }, true);
      return;
    }
    const limit = stepLimit();
    if (limit > 0 && (runner?.globalStep ?? 0) >= limit) {
      setPhase('stopped', finishedMessage(limit));
      await serial(() => keepRun('stopped'));
    }
    // Let pause/stop messages in between steps.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** What the status says when a run reaches its last step. */
function finishedMessage(limit: number): string {
  if (!digits?.before) return `reached ${limit} steps`;
  const last = digits.after;
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  return `${config!.task.name} done after ${limit} RL steps: greedy accuracy ${pct(digits.before.accuracy)} -> ${pct(last?.accuracy ?? NaN)}, format compliance ${pct(digits.before.formatCompliance)} -> ${pct(last?.formatCompliance ?? NaN)}`;
}

function startPretraining(active: Runner | FunctionsRunner | DigitRunner, options: PretrainOptions): Pretraining {
  const { model, task, algorithm, run } = active.config;
  if (task.name !== 'kolmogorov') throw new Error(`the page pretrains the kolmogorov task only (this run: ${task.name})`);
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`pretrain ${name}: expected a positive whole number, got ${value}`);
  }
  const limits = { maxSequenceLength: task.maxSequenceLength, context: model.context, maxProgramTokens: model.maxProgramTokens };
  // Never a held-out sequence; the same seed offset as the CLI, so both see the same pairs.
  const exclude = new Set(data.heldout.map((record) => sequenceKey(record.sequence)));
  const stream = new PairStream({ ...limits, seed: run.seed + 1_000_003, exclude });
  const heldoutPairs = data.heldout.map((record) => toPair(record, limits)).filter((pair): pair is Pair => pair !== null).slice(0, 256);
  const trainer = new SupervisedTrainer(active.policy, new KolmogorovGrammar(), { learningRate: algorithm.learningRate, gradClip: algorithm.gradClip });
  return {
    options,
    trainer,
    batch: (size) => stream.batch(size),
    // Linear warm-up then cosine decay, as the CLI (a tenth of the steps, at most 50, warm up).
    rate: (step) => scheduledRate(algorithm.learningRate, step, options.steps, Math.min(50, Math.floor(options.steps / 10))),
    async evaluate(state): Promise<Record<string, number>> {
      if (data.heldout.length === 0) return {};
      const evaluation = await requireKolmogorov().evaluate(data.heldout, { limit: options.evalLimit });
      state.heldoutAccuracy = evaluation.accuracy;
      return { heldout_loss: await trainer.loss(heldoutPairs), heldout_accuracy: evaluation.accuracy, heldout_compression_rate: evaluation.compressionRate };
    },
    // The pretrained weights become the run's starting point: step 0, fresh RL optimizer, KL reference.
    async finish(state, how) {
      const bytes = await requireRunner().saveCheckpoint();
      await rebuildRunner(active.config, bytes);
      setWeights({ origin: `pretrained here, ${state.step} steps`, trained: true, atStep: 0, reference: bytes });
      const heldout = state.heldoutAccuracy === undefined ? '' : `, held-out accuracy ${state.heldoutAccuracy.toFixed(3)}`;
      setPhase(how === 'done' ? 'idle' : 'stopped', `pretraining ${how} after ${state.step} steps${heldout}; Train continues with RL from these weights`);
    },
    thenTrain: false,
    step: 0,
    wallMs: 0,
  };
}

/**
 * The digit tasks' warm start, a step at a time so that Pause and Stop act on it: the labelled
 * batches the CLI draws (digitWarmStartBatches), then the warm start's greedy evaluation; RL
 * follows on the same loop (Train), unless it was stopped.
 */
function startDigitWarmStart(active: DigitRunner, thenTrain: boolean): Pretraining {
  const run = active.config;
  const batches = digitWarmStartBatches(run, digits!.excluded)!;
  const trainer = new SupervisedTrainer(active.policy, new DigitGrammar(run.digits.maxResponseTokens), { learningRate: run.digits.warmStartLearningRate, gradClip: run.algorithm.gradClip });
  return {
    options: { steps: run.digits.warmStartSteps, evalEvery: run.digits.warmStartSteps, evalLimit: run.run.evalSamples },
    trainer,
    batch: batches,
    rate: () => run.digits.warmStartLearningRate,
    async finish(state, how) {
      digits!.warmStarted = true;
      setWeights({ origin: `digit warm start, ${state.step} steps`, trained: true, atStep: 0 });
      await evaluateDigitRun(active, 'warm start', run.run.evalSamples);
      wallStart = performance.now();
      if (how === 'done' && state.thenTrain) {
        setPhase('training', `warm start done after ${state.step} steps; RL: ${describeDigits(run)}`);
        void trainLoop();
      } else {
        setPhase(how === 'done' ? 'idle' : 'stopped', `warm start ${how} after ${state.step} steps; Train continues with RL from these weights`);
      }
    },
    thenTrain,
    step: 0,
    wallMs: 0,
  };
}

/** One supervised update, and every evalEvery steps the held-out figures. */
async function pretrainStep(state: Pretraining): Promise<void> {
  const { steps, evalEvery } = state.options;
  const started = performance.now();
  const step = state.step + 1;
  state.trainer.optimizer.learningRate = state.rate(step);
  const result = await state.trainer.step(state.batch(requireRunner().config.algorithm.batchSize));
  state.step = step;
  if (!weights.trained) setWeights({ origin: `${weights.origin}, pretraining`, trained: true, atStep: weights.atStep });
  const values: Record<string, number> = { pretrain_loss: result.loss, pretrain_token_accuracy: result.tokenAccuracy, pretrain_learning_rate: state.trainer.optimizer.learningRate };
  if (result.skipped) send({ type: 'error', message: `pretrain step ${step}: update skipped (${result.reason})` });
  if ((step % evalEvery === 0 || step === steps) && state.evaluate) {
    send({ type: 'progress', task: `pretraining ${step}/${steps}: held-out evaluation`, done: step, total: steps });
    Object.assign(values, await state.evaluate(state));
  }
  const elapsed = performance.now() - started;
  state.wallMs += elapsed;
  send({ type: 'metrics', events: Object.entries(values).map(([name, value]) => ({ step, name, value, wallMs: state.wallMs })) });
  send({ type: 'progress', task: `${digits ? 'warm start' : 'pretraining'} ${step}/${steps} (${(1000 / elapsed).toFixed(1)} steps/s)`, done: step, total: steps });
}

async function pretrainLoop(): Promise<void> {
  while (phase === 'pretraining' && pretraining) {
    const state = pretraining;
    try {
      await serial(async () => {
        if (phase !== 'pretraining' || pretraining !== state) return; // paused or stopped while queued
        await pretrainStep(state);
        if (state.step >= state.options.steps) {
          pretraining = null;
          state.trainer.dispose();
          await state.finish(state, 'done');
        }
      });
    } catch (error) {
      dropPretraining();
      setPhase('error', `pretraining stopped: ${(error as Error).message}`);
      send({ type: 'error', message: (error as Error).message }, true);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

/** Parses a dataset file into the training or held-out set (sequences or problems), or throws leaving it as it was. */
async function parseDataset(role: 'train' | 'heldout', name: string, file: Blob): Promise<DatasetSummary> {
  if (await holdsProblems(file)) {
    const summary = await loadProblems(role, name, file);
    setPhase('idle', `${name}: ${summary.summary}`);
    return summary;
  }
  const result = await loadJsonl(file.stream(), parseKolmogorovRecord, {
    onProgress: (bytes) => progress(`parsing ${name}`, bytes, file.size),
  });
  if (result.records.length === 0) {
    const first = result.errors[0];
    throw noRecords(name, role, data[role].length, 'record', first && `line ${first.line}: ${first.reason}`, result.errorCount);
  }
  data[role] = result.records;
  const summary: DatasetSummary = {
    name,
    role,
    kind: 'sequences',
    records: result.records.length,
    errorCount: result.errorCount,
    errors: result.errors.slice(0, 200),
    preview: result.records.slice(0, 10),
    lines: result.lines,
    bytes: result.bytes,
    summary: summarizeLoad(result),
    ...referenceRates(result.records),
  };
  setPhase('idle', `${name}: ${summary.summary}`);
  return summary;
}

/** Held-out evaluation of the functions task: per problem, the first of k programs passing the shown tests, scored on all. */
async function evaluateFunctionsRow(active: FunctionsRunner, limit: number, k: number): Promise<EvaluationRow> {
  if (problems.heldout.length === 0) throw new Error('no held-out problems are loaded: drop a problems file as held-out, or pick a shipped one');
  const total = Math.min(limit, problems.heldout.length);
  return asEvaluation(`evaluating on ${total} held-out problems`, total, async () => {
    const result = await active.evaluate(problems.heldout, { limit, k, onProgress: (done, total) => progress('evaluating', done, total) });
    const none = { '16': NaN, '32': NaN, '64': NaN, '128': NaN };
    const row: EvaluationRow = {
      label: `${k > 1 ? `best-of-${k}` : 'greedy'} @ step ${active.globalStep}`,
      step: active.globalStep,
      k,
      n: result.n,
      accuracy: result.solved,
      accAtPrefix: none,
      compressionRate: NaN,
      precision: NaN,
      gzipRate: NaN,
      lzmaRate: NaN,
      functions: { passAt1: result.pass_at_1, successRate: result.success_rate, problems: result.per_problem },
    };
    send({ type: 'evaluation', row });
    return row;
  });
}

export function createTrainerService(host: TrainerPlatform, options: { dbName?: string } = {}): TrainerApi {
  platform = host;
  savedRuns = new SavedRuns({ send, dbName: options.dbName });
  const api: TrainerApi = {
  async init(onEvent, { autosave = true, saveHoldOpenMs = 0 } = {}) {
    emit = onEvent;
    setPhase('loading', 'starting tfjs');
    const info = await platform.initBackend();
    backendName = info.backend;
    platform.onDeviceLost?.((reason) => void recoverFromLostDevice(reason));
    savedRuns!.autosave = autosave;
    savedRuns!.holdOpenMs = saveHoldOpenMs;
    // Saving on: the store opens now, in this worker, and the page hears of a run a reload interrupted.
    if (autosave) void savedRuns!.open();
    setPhase('idle', `backend ${info.backend} ready${info.notes?.length ? ` (${info.notes.join('; ')})` : ''}`);
    return info;
  },

  async loadDataset(role, name, file) {
    if (file.size > MAX_DATASET_BYTES) throw new Error(`${name} has ${file.size} bytes, more than the ${MAX_DATASET_BYTES} a dataset may have`);
    // A parse would end the train loop (it runs while the phase is 'training'): refused, said.
    if (phase === 'training' || phase === 'pretraining') throw new Error(`${name} was not loaded: pause or stop training first (the run is using its data)`);
    const before = phase;
    cancelRequested = false;
    setPhase('loading', `parsing ${name}`);
    try {
      return await parseDataset(role, name, file);
    } catch (error) {
      const cancelled = (error as Error).message === CANCELLED;
      setPhase(before === 'loading' ? 'idle' : before, `${name} was not loaded${cancelled ? ' (cancelled)' : ''}`); // the run and its sets are as they were
      throw error;
    }
  },

  configure(next) {
    return serial(async () => {
      if (phase === 'training' || phase === 'pretraining') throw new Error('stop training before changing the configuration');
      const problem = configProblem(next);
      if (problem) throw new Error(`the configuration was not applied (the run is unchanged): ${problem}`);
      // Trained weights of the same model go on under the new configuration (RL restarts at step 0
      // from them); another model, or another task, starts from fresh weights.
      const carried = await carriedWeights(next);
      await rebuildRunner(next, carried?.bytes, carried?.reference);
      setWeights(carried ? { origin: carried.origin, trained: true, atStep: 0, reference: carried.reference } : { origin: `random (seed ${next.run.seed})`, trained: false, atStep: 0 });
      if (carried && digits) digits.warmStarted = true;
      const ready = digits ? `ready to train ${describeDigits(config!)}` : 'ready to train';
      setPhase('idle', carried ? `${ready}; the weights carry over (${carried.origin})` : ready);
      return { weightsKept: Boolean(carried) };
    });
  },

  async weightsResetBy(next) {
    if (!weights.trained) return null;
    const mismatch = weightsMismatch(next);
    return mismatch && `the model changes (${mismatch}), so its weights (${weightsNow()}) would be replaced by random ones`;
  },

  async train() {
    if (phase === 'training' || phase === 'pretraining') return;
    if (pretraining) throw new Error('pretraining is in progress: let it finish or stop it first');
    if (digits) {
      // A run that reached its last step starts afresh; one not warm-started yet runs its warm start first.
      if (stepLimit() > 0 && requireRunner().globalStep >= stepLimit()) await serial(() => rebuildRunner(config!));
      if (!digits!.warmStarted) {
        pretraining = startDigitWarmStart(requireRunner() as DigitRunner, true);
        setPhase('pretraining', `warm start ${config!.digits.warmStartSteps} steps, then RL: ${describeDigits(config!)}`);
        void pretrainLoop();
        return;
      }
      wallStart = performance.now();
      setPhase('training', `training ${describeDigits(config!)}`);
      void trainLoop();
      return;
    }
    requireRunner();
    const functions = config?.task.name === 'functions';
    if ((functions ? problems.train : data.train).length === 0) {
      throw new Error(functions ? 'no training problems are loaded: drop a problems file (JSON array or JSONL) or pick a shipped one' : 'the training set is empty: load a dataset with valid records');
    }
    wallStart = performance.now();
    setPhase('training', 'training');
    void trainLoop();
  },

  pretrain(options) {
    return serial(async () => {
      const active = requireRunner();
      if (phase === 'training' || phase === 'pretraining' || pretraining) throw new Error('stop training or pretraining before pretraining again');
      pretraining = startPretraining(active, options);
      setPhase('pretraining', `pretraining ${options.steps} steps on generated pairs`);
      void pretrainLoop();
    });
  },

  async pause() {
    if (phase === 'pretraining') {
      pausedFrom = 'pretraining';
      setPhase('paused', 'pausing pretraining after the step in flight');
      await exclusive; // a step with a held-out evaluation can take seconds
      if ((phase as RunPhase) === 'paused' && pretraining) setPhase('paused', `pretraining paused at step ${pretraining.step}`);
      return;
    }
    if (phase !== 'training') return;
    pausedFrom = 'training';
    wallOffset += performance.now() - wallStart;
    setPhase('paused', 'pausing after the step in flight');
    await exclusive;
    if ((phase as RunPhase) === 'paused') {
      setPhase('paused', `paused at step ${runner?.globalStep ?? 0}`);
      await serial(() => keepRun('paused'));
    }
  },

  async resume() {
    if (phase !== 'paused') return;
    if (pausedFrom === 'pretraining' && pretraining) {
      setPhase('pretraining', `pretraining from step ${pretraining.step}`);
      void pretrainLoop();
      return;
    }
    wallStart = performance.now();
    setPhase('training', 'training');
    void trainLoop();
  },

  async stop() {
    if (pretraining) {
      const state = pretraining;
      setPhase('paused', `stopping pretraining at step ${state.step}`); // ends the loop between steps
      return serial(async () => {
        if (pretraining !== state) return;
        pretraining = null;
        state.trainer.dispose();
        await state.finish(state, 'stopped');
      });
    }
    if (phase === 'training') wallOffset += performance.now() - wallStart;
    setPhase('stopped', 'stopping after the step in flight');
    await exclusive;
    // Said once the step in flight is done, so the step named is the one a download holds.
    if ((phase as RunPhase) === 'stopped') {
      setPhase('stopped', `stopped at step ${runner?.globalStep ?? 0}`);
      await serial(() => keepRun('stopped'));
    }
  },

  step() {
    if (phase === 'training') return Promise.reject(new Error('pause training to take single steps'));
    if (pretraining) return Promise.reject(new Error('pretraining is in progress: stop it (its weights are kept) to take RL steps'));
    return serial(async () => {
      if (digits && !digits.warmStarted) {
        // A fresh digit run's first Step runs its warm start to the end, then the step.
        const state = startDigitWarmStart(requireRunner() as DigitRunner, false);
        try {
          setPhase('pretraining', `warm start ${state.options.steps} steps before the first RL step`);
          while (state.step < state.options.steps) await pretrainStep(state);
        } finally {
          state.trainer.dispose();
        }
        await state.finish(state, 'done');
      }
      wallStart = performance.now();
      await runStep();
      wallOffset += performance.now() - wallStart;
      // Single steps are saved at the same multiples as a training run's.
      if (requireRunner().globalStep % AUTOSAVE_EVERY === 0) await keepRun('paused');
      flush();
    });
  },

  async cancel() {
    if (phase === 'evaluating' || phase === 'loading') cancelRequested = true;
  },

  evaluate({ limit, k, repair = false, split = false }) {
    cancelRequested = false;
    return serial(async () => {
      const active = requireRunner();
      if (digits) {
        const total = Math.min(limit, digits.heldout.length);
        return asEvaluation(`evaluating ${config!.task.name} greedily on ${total} held-out prompts`, total, () => evaluateDigitRun(active as DigitRunner, null, limit));
      }
      if (config?.task.name === 'functions') return evaluateFunctionsRow(active as FunctionsRunner, limit, k);
      if (data.heldout.length === 0) throw new Error('no held-out set is loaded');
      const total = Math.min(limit, data.heldout.length);
      return asEvaluation(`evaluating on ${total} held-out sequences`, total, async () => {
        const { rows, searches: _searches, byLength: _byLength, ...metrics } = await (active as Runner).evaluate(data.heldout, {
          limit,
          k,
          ...(repair ? { repair: repairSearch.runnersUp, repairRounds: repairSearch.rounds } : {}),
          ...(split ? { split: splitSearch.rounds } : {}),
          onProgress: (done, total) => progress('evaluating', done, total),
        });
        const items = rows.map((r, index) => ({
          index,
          target: data.heldout[index].sequence,
          output: r.output,
          program: r.program ?? '',
          correct: r.outcome === 'ok',
          detail: r.program ? `${r.bits.toFixed(1)} bits, found by ${r.foundBy}` : r.outcome,
        }));
        const row: EvaluationRow = { ...metrics, items, label: `${k > 1 ? `best-of-${k}` : 'greedy'}${repair ? ' + repair' : ''}${split ? ' + split' : ''} @ step ${active.globalStep}`, step: active.globalStep, k };
        send({ type: 'evaluation', row });
        return row;
      });
    });
  },

  getCheckpoint() {
    return serial(async () => {
      const active = requireRunner();
      // A download while training leaves the phase alone: the train loop runs while it is 'training', and a 'saving' phase would end it.
      if (phase === 'training') return platform.transfer(await active.saveCheckpoint());
      const previous = phase;
      setPhase('saving', `saving checkpoint at step ${active.globalStep}`);
      try {
        const bytes = await active.saveCheckpoint();
        return platform.transfer(bytes);
      } finally {
        setPhase(previous, `checkpoint of step ${active.globalStep} saved`);
      }
    });
  },

  loadCheckpoint(bytes, { source = 'checkpoint', warmStart = false } = {}) {
    return serial(async () => {
      // While training, this runs between two steps (serial): the run continues from the file.
      if (phase === 'pretraining' || pretraining) throw new Error('stop pretraining before loading a checkpoint');
      const wasTraining = phase === 'training';
      const done = (message: string) => setPhase(wasTraining ? 'training' : 'idle', wasTraining ? `${message}; training goes on from it` : message);
      // Validate fully before anything changes; the run takes the checkpoint's own configuration.
      // A run of another configuration is made and loaded aside, and swapped in only when all of
      // it worked: a file that decodes but fails later (a missing tensor) leaves the live run be.
      if (isSafetensors(bytes)) {
        // Weights a PyTorch user saved (modeling_prl.py): no config inside, so they start a run of
        // this configuration at step 0, and the model's check of every name and shape judges them.
        if (!config) throw new Error('configure a run before loading weights into it');
        await rebuildRunner(config, bytes);
        setWeights({ origin: `${source} (safetensors)`, trained: true, atStep: 0, reference: bytes });
        if (digits) digits.warmStarted = true;
        done(`loaded the weights of ${source}; Train starts RL at step 0 from them`);
        return { step: 0, checkpointStep: 0, config };
      }
      const { meta } = await decodeCheckpoint(bytes);
      // A file of another model or task switches the run to it: said, never silently.
      const change = config ? modelDifference(config, meta.config) : null;
      const switched = change ? `; the model is now the checkpoint's (${change})` : '';
      const origin = `${source}, step ${meta.step}`;
      if (warmStart) {
        await rebuildRunner(meta.config, bytes);
        setWeights({ origin, trained: true, atStep: 0, reference: bytes }); // the KL reference, should a later config turn KL on
        const reference = meta.config.algorithm.klCoef > 0 ? ', also the KL reference' : '';
        done(`loaded ${source}, step ${meta.step}; ${wasTraining ? 'RL restarts' : 'Train starts RL'} at step 0 from its weights${reference}${switched}`);
        return { step: 0, checkpointStep: meta.step, config: meta.config };
      }
      if (!runner || !config || JSON.stringify(meta.config) !== JSON.stringify(config)) {
        await installCheckpoint(meta.config, bytes);
      } else {
        await runner.loadCheckpoint(bytes); // validates everything, then swaps weights and optimizer, or neither
        savedRuns?.newRun(); // a file loaded by hand is a run of its own, not the stored one's next save
      }
      dropPretraining();
      if (digits) digits.warmStarted = true; // a checkpoint holds trained weights
      setWeights({ origin, trained: true, atStep: meta.step });
      done(`loaded ${source}, step ${meta.step}${switched}`);
      return { step: meta.step, checkpointStep: meta.step, config: meta.config };
    });
  },

  async setAutosave(on) {
    savedRuns!.autosave = on;
    if (!on) return;
    await savedRuns!.open();
    // A run with steps is saved at once (a paused or stopped one); a training one at its next save.
    if (phase !== 'training' && phase !== 'pretraining') await serial(() => keepRun(phase === 'stopped' ? 'stopped' : 'paused'));
  },

  async listRuns() {
    await savedRuns!.open();
    await savedRuns!.publish();
  },

  resumeRun(id) {
    return serial(async () => {
      if (phase === 'training' || phase === 'pretraining' || pretraining) throw new Error('pause or stop the live run before opening a saved one');
      const stored = await savedRuns!.claim(id);
      // The KL reference the run drifted from comes back with it.
      const reference = stored.reference ?? undefined;
      let meta: Awaited<ReturnType<typeof decodeCheckpoint>>['meta'];
      try {
        ({ meta } = await decodeCheckpoint(stored.bytes));
        await installCheckpoint(meta.config, stored.bytes, { reference });
      } catch (error) {
        savedRuns!.unclaim();
        throw error;
      }
      if (digits) digits.warmStarted = true;
      savedRuns!.adopt(stored);
      // Wall time goes on from the last saved event's.
      wallOffset = stored.events.reduce((most, event) => Math.max(most, event.wallMs), 0);
      setWeights({ origin: `saved run "${stored.run.name}", step ${meta.step}`, trained: true, atStep: meta.step, reference });
      setPhase('idle', `resumed ${stored.run.name} at step ${meta.step}; Train goes on from it`);
      return { run: stored.run, step: meta.step, config: meta.config, events: stored.events, evaluations: stored.evaluations, samples: stored.samples };
    });
  },

  renameRun: (id, name) => savedRuns!.rename(id, name),
  deleteRun: (id) => savedRuns!.delete(id),
  exportRun: async (id) => platform.transfer(await savedRuns!.export(id)),
  async importRun(file, name) {
    if (file.size > MAX_RUN_FILE_BYTES) throw new Error(`${name} has ${file.size} bytes, more than the ${MAX_RUN_FILE_BYTES} a run file may have`);
    return savedRuns!.import(await file.text(), name);
  },
  runEvents: (id) => savedRuns!.events(id),
};
  return api;
}

/**
 * A lost GPU device (a driver reset, the GPU process gone): training pauses, tfjs starts again on
 * the next backend, and the run is rebuilt there from its last checkpoint (kept in memory every
 * AUTOSAVE_EVERY steps on a GPU backend). The page drops the metric events of the steps lost, so
 * no figure of the dead device stays on a chart; Resume goes on from the checkpoint.
 */
export async function recoverFromLostDevice(reason: string): Promise<void> {
  if (recovering) return;
  recovering = true;
  const lost = backendName;
  try {
    if (phase === 'training') wallOffset += performance.now() - wallStart;
    pausedFrom = 'training';
    setPhase('paused', `the ${lost} device was lost (${reason}): pausing`);
    await serial(async () => {
      dropPretraining();
      const info = await platform.initBackend([lost]);
      backendName = info.backend;
      if (!config) return setPhase('idle', `the ${lost} device was lost (${reason}); tfjs runs on ${info.backend} now`);
      const saved = savedRuns?.lastCheckpoint ?? null;
      // No checkpoint yet: step 0, from the warm start (the reference) or the seed's initial weights.
      if (saved) await installCheckpoint(config, saved.bytes, { reference: weights.reference, newRun: false });
      else await install(await buildRunner(config, weights.reference, weights.reference), false);
      if (digits && (saved || weights.reference)) digits.warmStarted = true;
      const step = saved?.step ?? 0;
      savedRuns?.rollback(step);
      send({ type: 'rollback', step }, true);
      send({ type: 'step', step, stepsPerSecond: 0 }, true);
      setPhase('paused', `the ${lost} device was lost (${reason}); the run is back at step ${step}, its last checkpoint, on ${info.backend}: Resume goes on from it`);
    });
  } catch (error) {
    setPhase('error', `the ${lost} device was lost (${reason}) and the run could not be restored: ${(error as Error).message}`);
  } finally {
    recovering = false;
  }
}
