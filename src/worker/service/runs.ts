/**
 * Making the live run: any task's runner from the registry (runner.ts) with its sandbox pool and
 * generator workers, made aside and swapped in only when all of it worked, so a failure keeps
 * the live run; a checkpoint loaded into a run made aside the same way; and what the run's
 * weights are (where from, carried over to a new configuration of the same model).
 */
import { modelDifference, type CheckpointMeta } from '../../core/checkpoint';
import type { LabConfig } from '../../core/config';
import { GeneratorPool, inProcessGenerator } from '../../core/generators';
import { algorithmDefinition, taskDefinition } from '../../core/registry';
import { createRunner, sandboxLimits, taskPreludes } from '../../core/runner';
import { releaseShards, shardKey, shardsFor } from './shards';
import { itemsOf, type LiveRun, type ServiceState, type Weights } from './state';

/** The origin with the RL steps taken since. */
export function weightsNow(state: ServiceState): string {
  const steps = (state.run?.runner.globalStep ?? 0) - state.weights.atStep;
  return steps > 0 ? `${state.weights.origin} + ${steps} RL step${steps > 1 ? 's' : ''}` : state.weights.origin;
}

/** Pretraining steps in the live weights: a Pretrain in progress counts its own on top of the weights'. */
export function pretrainStepsNow(state: ServiceState): number {
  const warm = state.warmStart;
  return warm && !warm.beforeTraining ? warm.priorSteps + warm.step : (state.weights.pretrainSteps ?? 0);
}

export function setWeights(state: ServiceState, next: Weights): void {
  state.weights = next;
  state.events.send({ type: 'weights', origin: next.origin, trained: next.trained, atStep: next.atStep }, true);
}

/** Why a run of `next` cannot start from the live weights, or null when it can. */
export function weightsMismatch(state: ServiceState, next: LabConfig): string | null {
  if (!state.run) return 'there is no run yet';
  return modelDifference(state.run.config, next);
}

/** The live run's trained weights for a new run of `next`, when its model is the same. */
export async function carriedWeights(state: ServiceState, next: LabConfig): Promise<{ bytes: Uint8Array; origin: string; reference?: Uint8Array } | null> {
  if (!state.run || !state.weights.trained || weightsMismatch(state, next)) return null;
  return { bytes: await state.run.runner.saveCheckpoint(), origin: weightsNow(state), reference: state.weights.reference };
}

/** Makes a run of `next` without touching the live one; a failure leaves nothing behind. */
export async function buildRun(state: ServiceState, next: LabConfig, initFrom?: Uint8Array, referenceFrom?: Uint8Array): Promise<LiveRun> {
  const definition = taskDefinition(next.task.name);
  const items = itemsOf(state, definition.name);
  const heldout = definition.data.kind === 'generated' ? definition.data.heldout(next) : items.heldout;
  // An algorithm that samples on the trainer (dqn) starts no generator workers: they would stay idle.
  const parallel = algorithmDefinition(next.algorithm.name).samplesOnTrainer ? undefined : definition.parallel?.(next);
  const generators = parallel ? new GeneratorPool((state.platform.createGenerators ?? ((n: number) => Array.from({ length: n }, inProcessGenerator)))(parallel.generators)) : null;
  const pool = definition.sandboxed ? state.platform.createPool({ size: next.sandbox.workers, limits: sandboxLimits(next), preludes: taskPreludes() }) : null;
  try {
    const [policyConfig, grammar] = [definition.policyConfig(next), definition.grammarSpec(next)];
    // The page's gradient workers (shards.ts), started for this model and grammar on first use, for an algorithm whose updates split their batch.
    const gradientShards = algorithmDefinition(next.algorithm.name).dataParallel ? await shardsFor(state, policyConfig, grammar) : [];
    const runner = await createRunner(next, { train: items.train, heldout }, {
      pool: pool ?? unsandboxed,
      gradientShards,
      initFrom,
      referenceFrom,
      wallMs: () => state.wall.now(),
      pretrainSteps: () => pretrainStepsNow(state),
      ...(generators ? { generators: { pool: generators, overlap: parallel!.overlap } } : {}),
      onLog: (text) => state.events.send({ type: 'error', message: text }),
    });
    const warmStarted = Boolean(initFrom) || !definition.warmStart?.beforeTraining || (definition.warmStart.steps?.(next) ?? 1) === 0;
    const trainFile = state.files.data.get(definition.name)?.train;
    return { config: next, definition, runner, pool, generators, heldout, warmStarted, shardKey: shardKey(policyConfig, grammar), ...(trainFile ? { trainFile } : {}), ...(initFrom ? { initFrom } : {}), trainItems: items.train };
  } catch (error) {
    generators?.close();
    await pool?.close();
    releaseShards(state, state.run?.shardKey); // shards started for this run only; the live run keeps its own
    throw error;
  }
}

/** A task that scores without the sandbox (the digit tasks) is given this pool, which it never calls. */
const unsandboxed = {
  evaluateBatch: () => Promise.reject(new Error('this task scores its programs without the sandbox')),
  close: () => Promise.resolve(),
} as unknown as NonNullable<LiveRun['pool']>;

export async function disposeRun(run: LiveRun): Promise<void> {
  run.runner.dispose();
  await run.pool?.close();
  run.generators?.close();
}

/** Puts a made run in place of the live one, which is disposed; a new run saves apart from the stored one (`newRun`) and its wall time starts at 0. */
export async function install(state: ServiceState, built: LiveRun, newRun = true): Promise<void> {
  if (newRun) state.savedRuns.newRun();
  state.warmStart?.trainer.dispose();
  state.warmStart = null;
  if (state.run) {
    try {
      await disposeRun(state.run);
    } catch (error) {
      // A lost GPU device may refuse to free what it held: the new run goes in all the same.
      console.warn(`disposing the previous run: ${(error as Error).message}`);
    }
  }
  // The same run going on (a lost GPU device recovered) keeps its charts, so the checkpoints that lead to them.
  if (!newRun && state.run?.issued) built.issued = state.run.issued;
  state.run = built;
  releaseShards(state, built.shardKey);
  if (newRun) state.wall.reset();
}

/** A new run for `next` (from `initFrom`'s weights): made first, then swapped in, so a failure keeps the live run. */
export async function rebuild(state: ServiceState, next: LabConfig, initFrom?: Uint8Array, referenceFrom?: Uint8Array): Promise<void> {
  await install(state, await buildRun(state, next, initFrom, referenceFrom));
}

/**
 * A run of `next` that continues from `checkpoint` (weights, optimizer, RNG, data cursor), made
 * and loaded aside and swapped in only when all of it worked: a file that decodes but fails later
 * (a missing tensor) leaves the live run be. `reference` is the reference it drifts from.
 */
export async function installCheckpoint(state: ServiceState, next: LabConfig, checkpoint: Uint8Array, { reference, newRun = true }: { reference?: Uint8Array; newRun?: boolean } = {}): Promise<CheckpointMeta> {
  // The reference is made at build from the weights given then: the checkpoint's, replaced by its load.
  const built = await buildRun(state, next, reference ? checkpoint : undefined, reference);
  let meta: CheckpointMeta;
  try {
    meta = await built.runner.loadCheckpoint(checkpoint);
  } catch (error) {
    await disposeRun(built);
    throw error;
  }
  built.warmStarted = true; // a checkpoint holds trained weights
  await install(state, built, newRun);
  // The checkpoint a lost GPU device brings the run back to until its first save (else: step 0).
  if (newRun) state.savedRuns.remember(built.runner.globalStep, checkpoint);
  return meta;
}
