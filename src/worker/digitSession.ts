/**
 * The digit tasks (sum_digits, reverse_digits) in the trainer service: core's runDigitTask (warm
 * start, RL with generators and versioned weight sync, greedy evaluations) driven by Train,
 * Pause, Resume, Stop and Step. runDigitTask is one async call, so control happens where it
 * awaits its generator pool: a GatedPool holds each RL step's generate request until the run
 * may go on (Pause, Step), and throws there on Stop. It also keeps a copy of the newest weights
 * it broadcasts, which Evaluate loads into a policy of its own.
 *
 * Deliberate simplifications: Pause and Stop take effect between RL steps, so during the warm
 * start they wait for its end (the phase message says so), and so does a new configuration;
 * there are no checkpoints of digit runs.
 */
import { configToSearchParams, type LabConfig } from '../core/config';
import { evaluateDigits, type DigitEvalResult } from '../core/digits/evaluate';
import { digitPolicyConfig, isDigitTask, runDigitTask, withDigitRecipe, type DigitStepMetrics } from '../core/digits/experiment';
import { GeneratorPool, type GeneratorHandle, type GeneratorInit } from '../core/generators';
import { heldOutItems } from '../core/digits/tasks';
import { TransformerPolicy, type WeightArray } from '../core/model/transformer';
import { Rng } from '../core/rng';
import type { MetricEvent, RunPhase } from '../core/runnerTypes';
import type { EvaluationRow, TrainerEvent } from './protocol';

export interface DigitHost {
  send(event: TrainerEvent, urgent?: boolean): void;
  setPhase(phase: RunPhase, message: string): void;
  /** One handle per generator: Web Workers in the page, in-process in tests. */
  createGenerators(size: number): GeneratorHandle[];
}

class Stopped extends Error {}

/**
 * The page's form sends every field; those still at their schema default take the digit
 * recipe's value (as the CLI does for flags not given), so a default digit run uses the
 * recipe's small policy and warm start.
 */
export function digitRunConfig(config: LabConfig): LabConfig {
  return withDigitRecipe(config, new Set(new URLSearchParams(configToSearchParams(config)).keys()));
}

/** The generator pool as the run sees it, with the session's gate in front of each step. */
class GatedPool extends GeneratorPool {
  constructor(handles: GeneratorHandle[], private readonly session: DigitSession) {
    super(handles);
  }

  override async start(init: Omit<GeneratorInit, 'type' | 'id'>): Promise<void> {
    this.session.rlStarting();
    return super.start(init);
  }

  override sync(weights: readonly WeightArray[], version: number): void {
    this.session.keepWeights(weights);
    super.sync(weights, version);
  }

  override async generate(prompts: readonly number[][], groupSize?: number) {
    await this.session.admit();
    return super.generate(prompts, groupSize);
  }
}

export class DigitSession {
  readonly config: LabConfig;
  private run: Promise<void> | null = null;
  private mode: 'run' | 'hold' = 'hold';
  /** Steps Step may still let through while holding. */
  private budget = 0;
  private stopped = false;
  private inRl = false;
  private wake: (() => void) | null = null;
  private stepWaiters: (() => void)[] = [];
  private weights: WeightArray[] | null = null;
  private step = 0;
  private started = 0;
  private pausedMs = 0;
  private pausedSince: number | null = null;

  constructor(config: LabConfig, private readonly host: DigitHost) {
    if (!isDigitTask(config.task.name)) throw new Error(`${config.task.name} is not a digit task`);
    this.config = digitRunConfig(config);
  }

  get task(): string {
    return this.config.task.name;
  }

  get running(): boolean {
    return this.run !== null;
  }

  describe(): string {
    const { model, algorithm, digits } = this.config;
    return `${this.task}: policy d_model ${model.dModel} x ${model.layers} layers, batch ${algorithm.batchSize}; warm start ${digits.warmStartSteps} steps on ${digits.warmStartExamples} examples, then ${digits.numSteps} RL steps with ${digits.numGenerators} generator worker(s)`;
  }

  /** Called by the gated pool before each RL step: waits while held, throws once stopped. */
  async admit(): Promise<void> {
    // A macrotask turn between steps: with in-process generators a step may never leave the
    // microtask queue, and Pause and Stop messages would never be handled.
    await new Promise((resolve) => setTimeout(resolve, 0));
    for (;;) {
      if (this.stopped) throw new Stopped('stopped');
      if (this.mode === 'run') return;
      if (this.budget > 0) {
        this.budget -= 1;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The warm start is over; a Stop during it ends the run here. */
  rlStarting(): void {
    if (this.stopped) throw new Stopped('stopped');
    this.inRl = true;
    if (this.pausedSince !== null) this.host.setPhase('paused', 'paused after the warm start, at step 0');
  }

  keepWeights(weights: readonly WeightArray[]): void {
    this.weights = weights.map((w) => ({ name: w.name, shape: [...w.shape], data: w.data.slice() }));
  }

  private release(): void {
    const wake = this.wake;
    this.wake = null;
    wake?.();
  }

  private wallMs(): number {
    const paused = this.pausedMs + (this.pausedSince === null ? 0 : performance.now() - this.pausedSince);
    return performance.now() - this.started - paused;
  }

  private metrics(step: number, values: Record<string, number>): void {
    const wallMs = this.wallMs();
    const events: MetricEvent[] = Object.entries(values).map(([name, value]) => ({ step, name, value, wallMs }));
    this.host.send({ type: 'metrics', events });
  }

  private onStep(m: DigitStepMetrics, stepStarted: { at: number }): void {
    this.step = m.step;
    const values: Record<string, number> = {
      avg_reward: m.reward,
      accuracy: m.accuracy,
      format_compliance: m.formatCompliance,
      policy_loss: m.loss,
      baseline: m.baseline,
      generations_per_s: m.generationsPerSecond,
      weights_version: m.trainerVersion,
    };
    for (const g of m.generators) values[`generator_${g.id}_version`] = g.generatedWith;
    this.metrics(m.step, values);
    const now = performance.now();
    this.host.send({ type: 'step', step: m.step, stepsPerSecond: 1000 / Math.max(1, now - stepStarted.at) });
    stepStarted.at = now;
    if (m.skipped) this.host.send({ type: 'error', message: `step ${m.step}: update skipped (${m.reason})` });
    this.stepWaiters.splice(0).forEach((resolve) => resolve());
  }

  private onEvaluation(phase: string, step: number, result: DigitEvalResult): void {
    this.metrics(step, { eval_accuracy: result.accuracy, eval_format_compliance: result.formatCompliance });
    this.host.send({ type: 'evaluation', row: digitRow(`greedy (${phase}) @ step ${step}`, step, result) });
  }

  /** Starts the run: the warm start, then RL steps as the gate lets them through. */
  private begin(mode: 'run' | 'hold', budget: number): void {
    this.mode = mode;
    this.budget = budget;
    this.stopped = false;
    this.inRl = false;
    this.step = 0;
    this.started = performance.now();
    this.pausedMs = 0;
    this.pausedSince = null;
    const pool = new GatedPool(this.host.createGenerators(this.config.digits.numGenerators), this);
    const stepStarted = { at: performance.now() };
    const total = this.config.digits.warmStartSteps;
    this.run = runDigitTask(this.config, pool, {
      log: (line) => {
        const match = /^warm start (\d+)\/(\d+)/.exec(line);
        this.host.send({ type: 'progress', task: line, done: match ? Number(match[1]) : 0, total: match ? Number(match[2]) : total });
      },
      step: (m) => this.onStep(m, stepStarted),
      evaluation: (phase, step, result) => {
        if (phase === 'warm start') stepStarted.at = performance.now();
        this.onEvaluation(phase, step, result);
      },
    })
      .then(
        (result) => {
          const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
          this.host.setPhase('stopped', `${this.task} done after ${this.config.digits.numSteps} RL steps: greedy accuracy ${pct(result.before.accuracy)} -> ${pct(result.after.accuracy)}, format compliance ${pct(result.before.formatCompliance)} -> ${pct(result.after.formatCompliance)}`);
        },
        (error: unknown) => {
          if (error instanceof Stopped) return;
          this.host.setPhase('error', `training stopped: ${(error as Error).message}`);
          this.host.send({ type: 'error', message: (error as Error).message }, true);
        },
      )
      .finally(() => {
        pool.close();
        this.run = null;
        this.stepWaiters.splice(0).forEach((resolve) => resolve());
      });
  }

  async train(): Promise<void> {
    if (this.run && this.stopped) {
      this.host.setPhase('loading', 'waiting for the stopped run to end (a warm start runs to its end)');
      await this.run;
    }
    if (this.run) return this.resume();
    this.begin('run', 0);
    this.host.setPhase('training', `training ${this.describe()}`);
  }

  pause(): void {
    if (!this.run || this.mode !== 'run') return;
    this.mode = 'hold';
    this.budget = 0;
    this.pausedSince = performance.now();
    this.host.setPhase('paused', this.inRl ? `paused at step ${this.step}` : 'pausing: the warm start runs to its end first');
  }

  resume(): void {
    if (!this.run) return;
    if (this.pausedSince !== null) this.pausedMs += performance.now() - this.pausedSince;
    this.pausedSince = null;
    this.mode = 'run';
    this.host.setPhase('training', 'training');
    this.release();
  }

  stop(): void {
    if (!this.run) return;
    this.stopped = true;
    this.release();
    this.host.setPhase('stopped', this.inRl ? `stopped at step ${this.step}` : 'stopping after the warm start');
  }

  /** One RL step (a fresh run does its warm start first); resolves once its metrics are sent. */
  async takeStep(): Promise<void> {
    if (this.mode === 'run' && this.run) throw new Error('pause training to take single steps');
    if (this.run && this.stopped) await this.run;
    const done = new Promise<void>((resolve) => this.stepWaiters.push(resolve));
    if (this.run) {
      this.budget += 1;
      this.release();
    } else {
      this.begin('hold', 1);
    }
    await done;
  }

  /** Greedy evaluation of the newest broadcast weights on the run's first `limit` held-out prompts. */
  async evaluate(limit: number): Promise<EvaluationRow> {
    if (!this.weights) throw new Error('no weights yet: Train or Step first (the policy is there once the warm start is done)');
    const { run, digits } = this.config;
    const items = heldOutItems(this.config.task.name as 'sum_digits' | 'reverse_digits', run.evalSamples, new Rng(digits.evalSeed)).slice(0, limit);
    const policy = new TransformerPolicy(digitPolicyConfig(this.config), run.seed);
    try {
      policy.setWeights(this.weights);
      const result = await evaluateDigits(policy, items, digits.maxResponseTokens);
      this.metrics(this.step, { eval_accuracy: result.accuracy, eval_format_compliance: result.formatCompliance });
      const row = digitRow(`greedy @ step ${this.step}`, this.step, result);
      this.host.send({ type: 'evaluation', row });
      return row;
    } finally {
      policy.dispose();
    }
  }

  /** Stops the run and waits for it to end (a new configuration replaces this session). */
  async dispose(): Promise<void> {
    this.stop();
    await this.run;
  }
}

/** A digit evaluation as a table row: accuracy and format compliance; the compression columns do not apply. */
function digitRow(label: string, step: number, result: DigitEvalResult): EvaluationRow {
  return {
    label,
    step,
    k: 1,
    n: result.n,
    accuracy: result.accuracy,
    formatCompliance: result.formatCompliance,
    accAtPrefix: { '16': NaN, '32': NaN, '64': NaN, '128': NaN },
    compressionRate: NaN,
    precision: NaN,
    gzipRate: NaN,
    lzmaRate: NaN,
  };
}
