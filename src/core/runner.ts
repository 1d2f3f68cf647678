/**
 * A run of any task: the one training loop (loop.ts) with the task its definition makes
 * (registry.ts) and that task's evaluation beside it. The CLI, the trainer worker and the tests
 * drive a run through this; where it runs only changes the sandbox pool and the tfjs backend.
 */
import type { LabConfig } from './config';
import { createTrainingLoop, type LoopDeps, type TrainingLoop } from './loop';
import { allTasks, taskDefinition } from './registry';
import type { SandboxLimits } from './sandbox/outcome';
import type { Prelude } from './sandbox/prelude';
import { stoppingProgress, type Scored, type SearchSpec, type Task, type TaskDefinition, type TaskEvaluation } from './task';

export type RunnerDeps = LoopDeps;

export interface RunnerData {
  /** The items RL samples from (a generated task's are made as it goes: none). */
  train: readonly unknown[];
  /** The held-out items: evaluation's, and never sampled for training. */
  heldout: readonly unknown[];
}

export interface EvaluateRequest {
  /** Evaluate only the first `limit` items. */
  limit?: number;
  /** The task's search by name (definition.searches), or given whole; greedy by default. */
  search?: string | SearchSpec;
  onProgress?: (done: number, total: number) => void;
  /** Asked between the items and inside a long search: true ends the evaluation by throwing SearchStopped. */
  shouldStop?: () => boolean;
}

export interface Runner extends TrainingLoop {
  readonly definition: TaskDefinition;
  evaluate(items: readonly unknown[], request?: EvaluateRequest): Promise<TaskEvaluation>;
}

/** The task a config writes programs for, as the tools that read any of them see it (pair files, reward models). */
export function programTask(config: LabConfig): Task<unknown, Scored> {
  return taskDefinition(config.task.name).createTask(config, []);
}

/** The sandbox preludes of every task, by the name a job gives (the task's). */
/** The sandbox limits of a run of `config`: its sandbox section, the output cap raised to what the task's prelude reports (functions: every test's result), and the source cap to the program's plus what the task's harness writes around it (functions: every test's inputs). */
export function sandboxLimits(config: LabConfig): SandboxLimits {
  const { deadlineMs, watchdogMs, memoryBytes, stackBytes, maxSourceBytes, maxOutputLength } = config.sandbox;
  const { reportLength = 0, harnessSourceLength = 0 } = taskDefinition(config.task.name);
  return { deadlineMs, watchdogMs, memoryBytes, stackBytes, maxSourceBytes: maxSourceBytes + harnessSourceLength, maxOutputLength: Math.max(maxOutputLength, reportLength) };
}

export function taskPreludes(): Record<string, Prelude> {
  return Object.fromEntries(allTasks().flatMap((task) => (task.prelude ? [[task.name, task.prelude]] : [])));
}

/** A task's search by name ("best-of-8"), or by its number of samples; the names it has are listed when none matches. */
export function searchOf(definition: TaskDefinition, search: string | SearchSpec | undefined): SearchSpec {
  if (search === undefined) return definition.searches[0];
  if (typeof search !== 'string') return search;
  const found = definition.searches.find((s) => s.name === search);
  if (!found) throw new Error(`the ${definition.name} task has no search "${search}" (it has ${definition.searches.map((s) => s.name).join(', ')})`);
  return found;
}

/**
 * The training items that are not held-out items: held-out data is never trained on, whatever
 * files a user gives (the same file twice, or files that share items). Said when any is left out;
 * refused when none is left.
 */
export function withoutHeldOut(definition: TaskDefinition, train: readonly unknown[], heldout: readonly unknown[], log?: (text: string) => void, role: 'training' | 'validation' = 'training'): readonly unknown[] {
  if (!train.length || !heldout.length || definition.data.kind !== 'file') return train;
  const identity = (definition.data.identity ?? JSON.stringify) as (item: unknown) => string;
  const held = new Set(heldout.map(identity));
  const kept = train.filter((item) => !held.has(identity(item)));
  const { itemName } = definition.data;
  const use = role === 'training' ? 'trained' : 'chosen';
  if (!kept.length) throw new Error(`every ${role} item is also a held-out item (the same ${itemName}): give ${role} data apart from the held-out data, which is never ${use} on`);
  if (kept.length < train.length) log?.(`${train.length - kept.length} of the ${train.length} ${role} ${itemName} are also held-out ${itemName}: left out of ${role} (held-out data is never ${use} on)`);
  return kept;
}

/** A run of `config`'s task: the loop, and the task's evaluation of its policy. */
export async function createRunner(config: LabConfig, data: RunnerData, deps: RunnerDeps): Promise<Runner> {
  const definition = taskDefinition(config.task.name);
  const train = withoutHeldOut(definition, data.train, data.heldout, deps.onLog);
  const loop = await createTrainingLoop(config, definition.createTask(config, data.heldout), train, { heldout: data.heldout, ...deps });
  const evaluate = (items: readonly unknown[], request: EvaluateRequest = {}) => {
    const { shouldStop } = request;
    // Every task reports progress between its chunks of items, and may be stopped there; a long search also asks inside.
    const onProgress = stoppingProgress(shouldStop, request.onProgress);
    return definition.evaluate({ policy: loop.policy, config, pool: deps.pool, onProgress, shouldStop }, items, { limit: request.limit, search: searchOf(definition, request.search) });
  };
  return withLoop(loop, { definition, evaluate });
}

/**
 * The loop with more beside it (a task's evaluation, its search): the loop's own members are
 * forwarded, its step count stays live.
 */
export function withLoop<X extends object>(loop: TrainingLoop, more: X): TrainingLoop & X {
  const view: TrainingLoop = {
    config: loop.config,
    policy: loop.policy,
    get globalStep() {
      return loop.globalStep;
    },
    step: loop.step,
    setLearningRate: loop.setLearningRate,
    startFromHere: loop.startFromHere,
    saveCheckpoint: loop.saveCheckpoint,
    loadCheckpoint: loop.loadCheckpoint,
    dispose: loop.dispose,
  };
  return Object.assign(view, more);
}
