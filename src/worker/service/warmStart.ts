/**
 * The page's supervised warm start, a step at a time so that Pause and Stop act on it: batches
 * from the task's own generator (its definition's `warmStart`), with held-out figures every few
 * steps. Pretrain starts it by hand; a task whose warm start comes before RL (the digit tasks)
 * runs it on Train, then RL on the same run. When it ends the pretrained weights become the
 * run's start at step 0 (and its reference), unless RL follows on the same run.
 */
import { SupervisedTrainer } from '../../core/algorithms/supervised';
import { shardFailureNote } from '../../core/gradientShards';
import { scheduledRate } from '../../core/model/schedule';
import { evaluateRun } from './evaluation';
import { buildRun, install, setWeights, weightsNow } from './runs';
import { shardsFor } from './shards';
import type { PretrainOptions } from '../protocol';
import { heldoutOf, requireRun, runProvenance, serial, type LiveRun, type ServiceState, type WarmStartRun } from './state';

export type { WarmStartRun };

/** Pretraining steps between saves of the pretrained weights (and on pause, and at the end). */
export const PRETRAIN_SAVE_EVERY = 50;

/**
 * Keeps Pretrain's weights in the browser as a run at RL step 0, so a reload loses at most
 * PRETRAIN_SAVE_EVERY of its steps: they are the start a resume trains RL from, and so also the
 * KL reference, as when it ends. Its curves are not kept (their steps are not RL's). Pretrain
 * begins on a run at RL step 0 (trainerService's pretrain makes one from a run with RL steps).
 */
export async function keepPretraining(state: ServiceState, warm: WarmStartRun, status: 'training' | 'paused' | 'stopped', made?: Uint8Array): Promise<void> {
  const { run, savedRuns } = state;
  if (!run || !savedRuns.autosave || warm.beforeTraining || run.runner.globalStep !== 0 || warm.step === 0) return;
  const bytes = made ?? (await run.runner.saveCheckpoint());
  void savedRuns.save(status, 0, bytes, run.config, { reference: bytes, provenance: runProvenance(state), pretrainSteps: warm.priorSteps + warm.step, wallMs: warm.wallMs });
}


/** Pretrain's options, each a positive whole number; refused with the one that is not. */
export function checkPretrainOptions(options: PretrainOptions): void {
  for (const [name, value] of Object.entries(options)) {
    if (!Number.isInteger(value) || value < 1) throw new Error(`pretrain ${name}: expected a positive whole number, got ${value}`);
  }
}

/** A warm start of the live run: `options.steps` supervised updates (Pretrain), or the task's own count before RL. */
export function startWarmStart(state: ServiceState, run: LiveRun, options: PretrainOptions | null, thenTrain: boolean): WarmStartRun {
  const warm = run.definition.warmStart;
  if (!warm) throw new Error(`the ${run.definition.name} task has no warm start in the page (its CLI recipe has: npm run pretrain -- --task ${run.definition.name})`);
  const config = run.config;
  const steps = options?.steps ?? warm.steps?.(config) ?? 0;
  const chosen = options ?? { steps, evalEvery: steps, evalLimit: config.run.evalSamples };
  checkPretrainOptions(chosen);
  // Pretrain by hand makes a run of its own (saved as it goes); a warm start before RL is the run's beginning.
  if (!warm.beforeTraining) state.savedRuns.newRun();
  const learningRate = warm.learningRate(config);
  const trainer = new SupervisedTrainer(run.runner.policy, run.runner.definition.createTask(config, run.heldout).grammar, { learningRate, gradClip: config.algorithm.gradClip });
  const before = Boolean(warm.beforeTraining);
  return {
    options: chosen,
    startedFrom: state.weights.trained ? weightsNow(state) : null,
    trainer,
    batch: warm.batches(config, heldoutOf(state, run)),
    // Pretrain: linear warm-up then cosine decay, as the CLI (a tenth of the steps, at most 50); before RL: the task's constant rate.
    rate: (step) => (before ? learningRate : scheduledRate(learningRate, step, chosen.steps, Math.min(50, Math.floor(chosen.steps / 10)))),
    heldoutPairs: before ? [] : (warm.heldoutPairs?.(config, heldoutOf(state, run)) ?? []),
    beforeTraining: before,
    thenTrain,
    step: 0,
    priorSteps: state.weights.pretrainSteps ?? 0,
    wallMs: 0,
  };
}

/** One supervised update, and every evalEvery steps the held-out figures. */
export async function warmStartStep(state: ServiceState, warm: WarmStartRun): Promise<void> {
  const run = requireRun(state);
  const { steps, evalEvery } = warm.options;
  const started = performance.now();
  const step = warm.step + 1;
  warm.trainer.optimizer.learningRate = warm.rate(step);
  const pairs = warm.batch(run.config.algorithm.batchSize);
  const shards = await shardsFor(state, run.runner.policy.config, run.definition.grammarSpec(run.config));
  warm.trainer.useShards(shards, (message) => state.events.send({ type: 'error', message: shardFailureNote(`pretrain step ${step}: ${message}`) }));
  const updateStart = performance.now();
  const result = await warm.trainer.step(pairs);
  const updateMs = performance.now() - updateStart;
  const { threads } = result;
  warm.step = step;
  if (!state.weights.trained) setWeights(state, { ...state.weights, origin: `${state.weights.origin}, pretraining`, trained: true });
  // Every position the update reads (prompt and program tokens) per second of the update, on `threads` threads.
  const tokens = pairs.reduce((sum, pair) => sum + pair.prompt.length + pair.tokens.length, 0);
  const values: Record<string, number> = {
    pretrain_loss: result.loss,
    pretrain_token_accuracy: result.tokenAccuracy,
    pretrain_learning_rate: warm.trainer.optimizer.learningRate,
    pretrain_tokens_per_s: (tokens * 1000) / updateMs,
    pretrain_threads: threads,
  };
  if (result.skipped) state.events.send({ type: 'error', message: `pretrain step ${step}: update skipped (${result.reason})` });
  const heldout = heldoutOf(state, run);
  if (!warm.beforeTraining && (step % evalEvery === 0 || step === steps) && heldout.length > 0) {
    state.events.send({ type: 'progress', task: `pretraining ${step}/${steps}: held-out evaluation`, done: step, total: steps });
    const evaluation = await run.runner.evaluate(heldout, { limit: warm.options.evalLimit });
    warm.heldoutAccuracy = evaluation.score;
    if (warm.heldoutPairs.length) values.heldout_loss = await warm.trainer.loss(warm.heldoutPairs);
    values.heldout_accuracy = evaluation.score;
    for (const [name, value] of Object.entries(evaluation.metrics)) if (name !== 'accuracy') values[`heldout_${name}`] = value;
  }
  const elapsed = performance.now() - started;
  warm.wallMs += elapsed;
  // Charted at the pretraining step of the weights (steps already in them first), so a second Pretrain goes on from the first one's curve, not back over it.
  const charted = warm.priorSteps + step;
  state.events.send({ type: 'metrics', events: Object.entries(values).map(([name, value]) => ({ step: charted, name, value, wallMs: warm.wallMs })), pretraining: true });
  if (step % PRETRAIN_SAVE_EVERY === 0 && step < steps) await keepPretraining(state, warm, 'training');
  state.events.send({ type: 'progress', task: `${warm.beforeTraining ? 'warm start' : 'pretraining'} ${step}/${steps} (${(1000 / elapsed).toFixed(1)} steps/s, ${Math.round(values.pretrain_tokens_per_s).toLocaleString('en-US')} tokens/s on ${threads} thread${threads === 1 ? '' : 's'})`, done: step, total: steps });
}

/** Where the weights go when the warm start ends ('done') or is stopped. */
export async function finishWarmStart(state: ServiceState, warm: WarmStartRun, how: 'done' | 'stopped', train: () => void): Promise<void> {
  const run = requireRun(state);
  if (warm.beforeTraining) {
    run.warmStarted = true;
    run.runner.startFromHere();
    setWeights(state, { origin: `${run.definition.name} warm start, ${warm.step} steps`, trained: true, atStep: 0 });
    run.before = (await evaluateRun(state, run, run.definition.searches[0], run.config.run.evalSamples, 'warm start')).result;
    state.wall.reset(); // RL's time starts after the warm start
    if (how === 'done' && warm.thenTrain) {
      state.wall.start();
      state.events.setPhase('training', `warm start done after ${warm.step} steps; RL follows`);
      train();
    } else {
      state.events.setPhase(how === 'done' ? 'idle' : 'stopped', `warm start ${how} after ${warm.step} steps; Train continues with RL from these weights`);
    }
    return;
  }
  // The pretrained weights become the run's starting point: step 0, fresh RL optimizer, reference.
  const bytes = await run.runner.saveCheckpoint();
  // The pretraining's stored run goes on as this run: RL from these weights saves into it.
  await install(state, await buildRun(state, run.config, bytes), false);
  state.wall.reset();
  // Said with what it started from: Pretrain goes on from the weights the run had (a shipped policy, say).
  const origin = warm.startedFrom ? `${warm.startedFrom}, then pretrained here ${warm.step} steps` : `pretrained here, ${warm.step} steps`;
  setWeights(state, { origin, trained: true, atStep: 0, reference: bytes, referenceOrigin: origin, pretrainSteps: warm.priorSteps + warm.step });
  // The same bytes as the reference RL's saves pass: the store holds it once, not written again at the first RL save.
  await keepPretraining(state, warm, 'stopped', bytes);
  const heldout = warm.heldoutAccuracy === undefined ? '' : `, held-out accuracy ${warm.heldoutAccuracy.toFixed(3)}`;
  state.events.setPhase(how === 'done' ? 'idle' : 'stopped', `pretraining ${how} after ${warm.step} steps${heldout}; Train continues with RL from these weights`);
}

export function dropWarmStart(state: ServiceState): void {
  state.warmStart?.trainer.dispose();
  state.warmStart = null;
}

/** Runs the warm start step by step while the phase is 'pretraining'. */
export async function warmStartLoop(state: ServiceState, train: () => void): Promise<void> {
  while (state.events.phase === 'pretraining' && state.warmStart) {
    const warm = state.warmStart;
    try {
      await serial(state, async () => {
        if (state.events.phase !== 'pretraining' || state.warmStart !== warm) return; // paused or stopped while queued
        await warmStartStep(state, warm);
        if (warm.step >= warm.options.steps) {
          state.warmStart = null;
          warm.trainer.dispose();
          await finishWarmStart(state, warm, 'done', train);
        }
      });
    } catch (error) {
      if (state.recovering) return; // a lost GPU device: its recovery says what happened
      dropWarmStart(state);
      state.events.setPhase('error', `pretraining stopped: ${(error as Error).message}`);
      state.events.send({ type: 'error', message: (error as Error).message }, true);
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
