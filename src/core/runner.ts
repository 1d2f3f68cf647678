/**
 * A task's runner: the one training loop (loop.ts) with the task (task.ts) and the task's own
 * evaluation. The CLI, the trainer worker and the tests drive a run through it; where it runs
 * only changes the sandbox pool and the tfjs backend.
 *
 * Kolmogorov's runner evaluates with its searches (kolmogorov/evaluate.ts: best-of-k, repair,
 * split); the functions task's runner with per-problem test results (functions/evaluate.ts).
 */
import type { LabConfig } from './config';
import type { KolmogorovRecord } from './data/records';
import { evaluateKolmogorov, type EvaluateOptions, type EvaluationResult } from './kolmogorov/evaluate';
import { kolmogorovPrelude, kolmogorovTask } from './kolmogorov/task';
import { evaluateFunctions, type FunctionEvaluateOptions, type FunctionEvaluation } from './functions/evaluate';
import { functionsPrelude } from './functions/harness';
import type { FunctionProblem } from './functions/problems';
import { functionsTask } from './functions/task';
import { createTrainingLoop, type LoopDeps, type TrainingLoop } from './loop';
import type { Scored, Task } from './task';

export { bestOfK, kolmogorovPolicyConfig, kolmogorovReward, trainingRecords } from './kolmogorov/task';
export type { EvaluateOptions, EvaluationResult, FoundBy } from './kolmogorov/evaluate';

/**
 * The task a kolmogorov or functions config writes programs for, as the tools that read any of
 * them see it (pair files, reward models): its items stay opaque.
 */
export function programTask(config: LabConfig): Task<unknown, Scored> {
  return (config.task.name === 'functions' ? functionsTask(config) : kolmogorovTask(config)) as Task<unknown, Scored>;
}

/** The sandbox preludes of every task, by the name a job gives. */
export const preludes = { kolmogorov: kolmogorovPrelude, functions: functionsPrelude };

export type RunnerDeps = LoopDeps;

export interface RunnerData {
  train: KolmogorovRecord[];
  heldout: KolmogorovRecord[];
}

export interface Runner extends TrainingLoop {
  evaluate(records: readonly KolmogorovRecord[], options?: EvaluateOptions): Promise<EvaluationResult>;
}

/** The Kolmogorov task's runner. */
export async function createRunner(config: LabConfig, data: RunnerData, deps: RunnerDeps): Promise<Runner> {
  const loop = await createTrainingLoop(config, kolmogorovTask(config), data.train, deps);
  return withEvaluation(loop, (records: readonly KolmogorovRecord[], options?: EvaluateOptions) =>
    evaluateKolmogorov({ policy: loop.policy, config, pool: deps.pool }, records, options));
}

export interface FunctionsRunner extends TrainingLoop {
  evaluate(problems: readonly FunctionProblem[], options?: FunctionEvaluateOptions): Promise<FunctionEvaluation>;
}

/** The functions task's runner: the same loop, evaluated per problem. */
export async function createFunctionsRunner(config: LabConfig, train: readonly FunctionProblem[], deps: RunnerDeps): Promise<FunctionsRunner> {
  if (config.task.name !== 'functions') throw new Error(`createFunctionsRunner: the config's task is ${config.task.name}`);
  const loop = await createTrainingLoop(config, functionsTask(config), train, deps);
  return withEvaluation(loop, (problems: readonly FunctionProblem[], options?: FunctionEvaluateOptions) =>
    evaluateFunctions({ policy: loop.policy, config, pool: deps.pool }, problems, options));
}

/** A loop with its task's evaluation beside it (the loop's step count stays live). */
export function withEvaluation<E>(loop: TrainingLoop, evaluate: E): TrainingLoop & { evaluate: E } {
  return {
    config: loop.config,
    policy: loop.policy,
    get globalStep() {
      return loop.globalStep;
    },
    step: loop.step,
    setLearningRate: loop.setLearningRate,
    saveCheckpoint: loop.saveCheckpoint,
    loadCheckpoint: loop.loadCheckpoint,
    dispose: loop.dispose,
    evaluate,
  };
}
