/**
 * The digit-task recipe, end to end, as the CLI and a page worker drive it: held-out prompts
 * from a fixed seed; a brief supervised warm start on a small labelled set (a from-scratch
 * policy almost never writes a right 7-digit reversal, so RL alone would see only -1); greedy
 * evaluation; REINFORCE with N parallel generators and versioned weight sync; greedy
 * evaluation again.
 *
 * Each RL step: the trainer takes the batch the generators produced, scores the answers,
 * updates, and broadcasts the new version; generators apply it before their next request (their
 * messages are handled in order). With `digits.overlap` (off by default) the request for the next
 * batch goes out before the update, so the generators sample batch n+1 while the trainer learns
 * from batch n: that batch comes from the weights one version behind the trainer's (as in the
 * Monarch example's asynchronous generators; each trajectory records its version, and the
 * update weights its tokens by min(1, p/mu)). Without it, every step is on-policy and generation
 * waits for the update. Measured (docs/digits.md): overlap raises the RL loop's throughput
 * ~1.5x with one generator, but on sum_digits the on-policy run learned more per step.
 */
import { SupervisedTrainer } from '../algorithms/supervised';
import type { LabConfig } from '../config';
import { scheduledRate } from '../model/schedule';
import type { GeneratorPool, GeneratorStatus } from '../generators';
import { createTrainingLoop } from '../loop';
import { algorithmDefinition } from '../registry';
import type { TransformerPolicy } from '../model/transformer';
import { Rng } from '../rng';
import type { SandboxPool } from '../sandbox/pool';
import { evaluateDigits, type DigitEvalResult } from './evaluate';
import { heldOutItems, isDigitTask, questionKey, type DigitItem, type DigitTaskName } from './tasks';
import { digitTask, digitWarmStartBatches } from './task';
import { DigitGrammar } from './vocab';

export { digitPolicyConfig } from './task';

export interface DigitStepMetrics {
  step: number;
  reward: number;
  /** Accuracy and tag use of this step's sampled (not greedy) answers. */
  accuracy: number;
  formatCompliance: number;
  loss: number;
  baseline: number;
  /** Mean truncated importance weight of the batch's tokens (1 on-policy; below with overlap). */
  importanceWeight: number;
  /** The step's learning rate (it decays with `digits.lrDecay`). */
  learningRate: number;
  /** Answers the generator workers sampled per second of this step's sampling (undefined when the trainer samples: dqn). */
  generationsPerSecond: number | undefined;
  /** The algorithm's own charted metrics of this step (dqn: losses/td_loss, losses/q_values, ...), where it reported them. */
  algorithm: Record<string, number>;
  trainerVersion: number;
  generators: GeneratorStatus[];
  skipped: boolean;
  reason?: string;
  samples: { question: string; answer: number; text: string; reward: number; version: number }[];
}

export interface DigitRunEvents {
  log(line: string): void;
  step?(metrics: DigitStepMetrics): void;
  evaluation?(phase: 'warm start' | 'after RL' | 'during RL', step: number, result: DigitEvalResult): void;
  /** Asked before every RL step: true ends RL there (a Ctrl-C), and the run is evaluated as it stands. */
  shouldStop?(): boolean;
}

export interface DigitRunResult {
  task: DigitTaskName;
  /** RL steps taken: numSteps, or fewer when run.maxSteps is below it or the time budget (run.timeLimit) ended the run. */
  steps: number;
  stoppedBy: 'step budget' | 'time budget' | 'interrupted';
  before: DigitEvalResult;
  after: DigitEvalResult;
  warmStartSeconds: number;
  rlSeconds: number;
  /** Trajectories the RL loop consumed per second of its wall time (evaluations excluded): generation and updates together. */
  generationsPerSecond: number;
  totalSeconds: number;
}

/** The held-out questions of a digit run (a fixed seed), never trained on. */
export function digitHeldOut(config: LabConfig): DigitItem[] {
  return heldOutItems(config.task.name as DigitTaskName, config.run.evalSamples, new Rng(config.digits.evalSeed));
}

/**
 * The digit tasks' supervised warm start on the run's policy: `warmStartSteps` batches drawn from
 * `warmStartExamples` labelled questions (never a held-out one), at the warm start's own rate.
 */
export async function digitWarmStart(config: LabConfig, policy: TransformerPolicy, excluded: ReadonlySet<string>, log: (line: string) => void, shouldStop?: () => boolean): Promise<void> {
  const d = config.digits;
  const batches = digitWarmStartBatches(config, excluded);
  if (!batches || !d.warmStartSteps) return;
  const trainer = new SupervisedTrainer(policy, new DigitGrammar(d.maxResponseTokens), { learningRate: d.warmStartLearningRate, gradClip: config.algorithm.gradClip });
  try {
    for (let step = 1; step <= d.warmStartSteps; step++) {
      if (shouldStop) {
        // A turn of the event loop a step, so that a signal's handler runs: an update alone never leaves the microtask queue.
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (shouldStop()) {
          log(`warm start stopped at step ${step - 1}/${d.warmStartSteps}`);
          return;
        }
      }
      const stats = await trainer.step(batches(config.algorithm.batchSize));
      if (step % 50 === 0 || step === d.warmStartSteps) log(`warm start ${step}/${d.warmStartSteps}  loss ${stats.loss.toFixed(3)}  token acc ${stats.tokenAccuracy.toFixed(3)}`);
    }
  } finally {
    trainer.dispose();
  }
}

/**
 * The digit recipe on the one training loop (loop.ts) with the digit task (task.ts): warm start,
 * greedy evaluation, REINFORCE as the Monarch example writes it with the pool's generators and
 * versioned weight sync (`digits.overlap`: one version behind, importance-weighted), greedy
 * evaluation again.
 */
export async function runDigitTask(config: LabConfig, pool: GeneratorPool | undefined, events: DigitRunEvents, samplesPerStep = 0, sandbox?: SandboxPool): Promise<DigitRunResult> {
  const task = config.task.name;
  if (!isDigitTask(task)) throw new Error(`task ${task} is not a digit task`);
  const d = config.digits;
  const started = performance.now();
  const evalItems = digitHeldOut(config);
  const excluded = new Set(evalItems.map(questionKey));
  if (config.algorithm.batchSize % config.algorithm.groupSize !== 0) throw new Error(`--batch-size ${config.algorithm.batchSize} is not a multiple of --group-size ${config.algorithm.groupSize}`);
  const loop = await createTrainingLoop(config, digitTask(config, excluded), [], { pool: sandbox ?? hostScored, generators: pool && { pool, overlap: d.overlap } });
  // A run that is stopped (the page's Stop ends it by throwing from the pool) frees its policy too.
  try {
    await digitWarmStart(config, loop.policy, excluded, events.log, events.shouldStop);
    loop.startFromHere();
    const warmStartSeconds = (performance.now() - started) / 1000;
    const before = await evaluateDigits(loop.policy, evalItems, d.maxResponseTokens);
    events.evaluation?.('warm start', 0, before);
    const rlStarted = performance.now();
    let loopSeconds = 0; // RL wall time without the periodic evaluations
    let generations = 0;
    // run.timeLimit (--time-limit): RL stops at the first step boundary past it, evaluations included.
    const timeLimit = config.run.timeLimit > 0 ? config.run.timeLimit : Infinity;
    // run.maxSteps (a rerun of a run its time budget stopped sets it) ends RL early; the learning-rate schedule still spans numSteps, as in the run it repeats.
    const stepBudget = config.run.maxSteps > 0 ? Math.min(config.run.maxSteps, d.numSteps) : d.numSteps;
    let steps = 0;
    const ownCharts = (algorithmDefinition(config.algorithm.name).charts ?? []).map((chart) => chart.name);
    let interrupted = false;
    for (let step = 1; step <= stepBudget && (performance.now() - rlStarted) / 1000 < timeLimit; step++) {
      if (events.shouldStop?.()) {
        interrupted = true;
        break;
      }
      steps = step;
      const stepStarted = performance.now();
      if (d.lrDecay) loop.setLearningRate(scheduledRate(config.algorithm.learningRate, step, d.numSteps, 0));
      const result = await loop.step();
      loopSeconds += (performance.now() - stepStarted) / 1000;
      generations += result.samples.length;
      const m = result.metrics;
      events.step?.({
        step,
        reward: m.avg_reward,
        accuracy: m.accuracy,
        formatCompliance: m.format_compliance,
        loss: m.policy_loss,
        baseline: m.baseline,
        importanceWeight: m.importance_weight,
        learningRate: m.learning_rate,
        generationsPerSecond: m.generations_per_s,
        algorithm: Object.fromEntries(ownCharts.filter((name) => Number.isFinite(m[name])).map((name) => [name, m[name]])),
        trainerVersion: m.weights_version,
        generators: result.generators ?? [],
        skipped: result.skipped,
        reason: result.reason,
        samples: result.samples.slice(0, samplesPerStep).map((s, i) => ({ question: s.label ?? '', answer: s.target[0], text: s.program, reward: s.reward, version: result.versions?.[i] ?? 0 })),
      });
      if (config.run.evalFreq && step % config.run.evalFreq === 0 && step < d.numSteps) {
        events.evaluation?.('during RL', step, await evaluateDigits(loop.policy, evalItems, d.maxResponseTokens));
      }
    }
    const rlSeconds = (performance.now() - rlStarted) / 1000;
    const after = await evaluateDigits(loop.policy, evalItems, d.maxResponseTokens);
    events.evaluation?.('after RL', steps, after);
    return { task, before, after, steps, stoppedBy: interrupted ? 'interrupted' : steps < stepBudget ? 'time budget' : 'step budget', warmStartSeconds, rlSeconds, generationsPerSecond: loopSeconds ? generations / loopSeconds : 0, totalSeconds: (performance.now() - started) / 1000 };
  } finally {
    loop.dispose();
  }
}

/** The digit tasks score answers on the host: the sandbox pool they are given is never called. */
export const hostScored: SandboxPool = {
  evaluateBatch: () => Promise.reject(new Error('the digit tasks score answers without the sandbox')),
  close: () => Promise.resolve(),
} as unknown as SandboxPool;
