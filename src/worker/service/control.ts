/**
 * Training the live run: Train, Pause, Resume, Stop and Step, all acting between steps. Each
 * step's figures and samples go to the page; a task with a step limit or a held-out evaluation
 * frequency gets them; the run is saved as it goes (savedRuns.ts) between steps, its write going
 * on in the background.
 */
import type { RunPhase } from '../../core/runnerTypes';
import type { MetricEvent } from '../../core/runnerTypes';
import { algorithmDefinition } from '../../core/registry';
import { AUTOSAVE_EVERY } from '../savedRuns';
import { evaluateRun } from './evaluation';
import { rebuild, setWeights } from './runs';
import { onGpu, requireRun, runProvenance, serial, wallNow, type LiveRun, type ServiceState } from './state';
import { finishWarmStart, keepPretraining, startWarmStart, warmStartLoop, warmStartStep } from './warmStart';

/** The RL steps the run takes: the task's own limit (the digit recipe's), else run.maxSteps (0: no limit). */
export function stepLimit(run: LiveRun | null): number {
  if (!run) return 0;
  return run.definition.stepLimit?.(run.config) ?? (run.config.run.maxSteps || algorithmDefinition(run.config.algorithm.name).stepLimit?.(run.config) || 0);
}

/** One RL step; `shouldStop` ends a long search inside it (Pause, Stop). */
async function runStep(state: ServiceState, shouldStop?: () => boolean): Promise<void> {
  const run = requireRun(state);
  const { runner, config, definition } = run;
  const started = performance.now();
  const rate = definition.learningRate?.(config, runner.globalStep + 1);
  if (rate !== undefined) runner.setLearningRate(rate);
  const result = await runner.step({ shouldStop });
  if (!state.weights.trained) setWeights(state, { ...state.weights, trained: true });
  const wallMs = wallNow(state);
  const values: Record<string, number> = { ...result.metrics };
  for (const g of result.generators ?? []) values[`generator_${g.id}_version`] = g.generatedWith;
  const events: MetricEvent[] = Object.entries(values).map(([name, value]) => ({ step: result.step, name, value, wallMs }));
  state.events.send({ type: 'metrics', events });
  state.events.send({ type: 'samples', samples: result.samples.slice(0, 16) });
  state.events.send({ type: 'step', step: result.step, stepsPerSecond: 1000 / (performance.now() - started) });
  // Held-out figures every evalFreq steps, and after the last step of a task that evaluates before and after RL.
  const end = result.step >= stepLimit(run) && stepLimit(run) > 0;
  const evalFreq = config.run.evalFreq;
  const afterRl = end && definition.warmStart?.beforeTraining;
  if (afterRl || (evalFreq > 0 && result.step % evalFreq === 0)) {
    const { result: evaluation } = await evaluateRun(state, run, definition.searches[0], config.run.evalSamples, afterRl ? 'after RL' : 'during RL');
    if (afterRl) run.after = evaluation;
  }
}

/**
 * Saves the live run when it is due: called between steps, so the checkpoint is the step's; its
 * write goes on in the background. On a GPU backend with saving off, the checkpoint is kept in
 * memory alone, for the run to come back to if the device is lost.
 */
export async function keepRun(state: ServiceState, status: 'training' | 'paused' | 'stopped'): Promise<void> {
  const { run, savedRuns } = state;
  if (!run) return;
  const step = run.runner.globalStep;
  if (savedRuns.due(step, status)) {
    const bytes = savedRuns.needsCheckpoint(step) ? await run.runner.saveCheckpoint() : null;
    void savedRuns.save(status, step, bytes, run.config, { reference: state.weights.reference, provenance: runProvenance(state), pretrainSteps: state.weights.pretrainSteps });
  } else if (!savedRuns.autosave && onGpu(state) && step > 0 && step % AUTOSAVE_EVERY === 0) {
    savedRuns.remember(step, await run.runner.saveCheckpoint());
  }
}

/** What the status says when a run reaches its last step (with the figures before and after RL, when the task has them). */
function finishedMessage(run: LiveRun, limit: number): string {
  if (!run.before) return `reached ${limit} steps`;
  const pct = (x: number | undefined) => `${(100 * (x ?? NaN)).toFixed(1)}%`;
  const figures = Object.keys(run.before.metrics).map((name) => `${name.replace(/_/g, ' ')} ${pct(run.before!.metrics[name])} -> ${pct(run.after?.metrics[name])}`);
  return `${run.definition.name} done after ${limit} RL steps: greedy ${figures.join(', ')}`;
}

export async function trainLoop(state: ServiceState): Promise<void> {
  while (state.events.phase === 'training') {
    try {
      await serial(state, async () => {
        await runStep(state, () => state.events.phase !== 'training');
        await keepRun(state, 'training');
      });
    } catch (error) {
      if (state.recovering) return; // the lost device's recovery says what happened
      state.wall.stop();
      state.events.setPhase('error', `training stopped: ${(error as Error).message}`);
      state.events.send({ type: 'error', message: (error as Error).message }, true);
      return;
    }
    const ended = state.run && state.events.phase === 'training' ? budgetSpent(state, state.run) : null;
    if (ended) {
      state.wall.stop();
      state.events.setPhase('stopped', spentMessage(state.run!, ended));
      await serial(state, () => keepRun(state, 'stopped'));
    }
    // Let pause/stop messages in between steps.
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

const busy = (phase: RunPhase) => phase === 'training' || phase === 'pretraining';

/** Which of its budgets the run has spent: its steps, its time, or neither. */
function budgetSpent(state: ServiceState, run: LiveRun): 'steps' | 'time' | null {
  const limit = stepLimit(run);
  if (limit > 0 && run.runner.globalStep >= limit) return 'steps';
  const budget = run.config.run.timeLimit;
  return budget > 0 && wallNow(state) >= budget * 1000 ? 'time' : null;
}

/** What the status says when a run has spent a budget. */
function spentMessage(run: LiveRun, spent: 'steps' | 'time'): string {
  return spent === 'steps' ? finishedMessage(run, stepLimit(run)) : `reached its time budget of ${run.config.run.timeLimit} s at step ${run.runner.globalStep}`;
}

/**
 * A run that spent its budget starts again from the same start, as a new run (its charts start
 * over; the finished run stays in Saved runs): the warm start it began from, or the seed's
 * initial weights (a task whose warm start comes first runs it again).
 */
async function startAgain(state: ServiceState, run: LiveRun, spent: 'steps' | 'time'): Promise<string> {
  const { reference, referenceOrigin } = state.weights;
  // The reference is the weights the run drifted from: where it began, whether or not it has a name.
  const from = reference ? (referenceOrigin ?? 'the weights the run began from') : null;
  await rebuild(state, run.config, reference, reference);
  state.events.send({ type: 'newRun' }, true);
  if (reference) {
    setWeights(state, { origin: from!, trained: true, atStep: 0, reference, referenceOrigin, pretrainSteps: state.weights.pretrainSteps });
    requireRun(state).warmStarted = true;
  } else {
    state.files.weights = null;
    setWeights(state, { origin: `random (seed ${run.config.run.seed})`, trained: false, atStep: 0 });
  }
  const what = spent === 'steps' ? `its ${stepLimit(run)} steps` : `its time budget of ${run.config.run.timeLimit} s`;
  const kept = state.savedRuns.autosave ? ' (Saved runs keeps it)' : '';
  return `the last run had spent ${what}${kept}: a new run from ${from ?? `fresh weights of seed ${run.config.run.seed}`}`;
}

/** Services whose Train press is in progress (a spent run being made again): a second press meanwhile does nothing. */
const starting = new WeakSet<ServiceState>();

export async function train(state: ServiceState): Promise<void> {
  if (starting.has(state)) return;
  starting.add(state);
  try {
    await startTraining(state);
  } finally {
    starting.delete(state);
  }
}

async function startTraining(state: ServiceState): Promise<void> {
  const { events } = state;
  if (busy(events.phase)) return;
  // Train during an evaluation, a load or a save would end with the phase they hand back, its clock running.
  if (events.phase === 'evaluating' || events.phase === 'loading' || events.phase === 'saving') throw new Error(`wait for the ${events.phase === 'evaluating' ? 'evaluation' : events.phase === 'loading' ? 'load' : 'save'} to end (or cancel it) before training`);
  if (state.warmStart) throw new Error('pretraining is in progress: let it finish or stop it first');
  let run = requireRun(state);
  const spent = budgetSpent(state, run);
  let again = '';
  if (spent) {
    again = await serial(state, () => startAgain(state, run, spent));
    run = requireRun(state);
  }
  if (run.definition.data.kind === 'file' && (state.datasets.get(run.definition.name)?.train.length ?? 0) === 0) {
    throw new Error(`no training ${run.definition.data.itemName} are loaded: drop a file, or pick a shipped one`);
  }
  if (!run.warmStarted) {
    state.warmStart = startWarmStart(state, run, null, true);
    events.setPhase('pretraining', `warm start ${state.warmStart.options.steps} steps, then RL${again ? `; ${again}` : ''}`);
    void warmStartLoop(state, () => void trainLoop(state));
    return;
  }
  state.wall.start();
  events.setPhase('training', again ? `${what(run)}; ${again}` : what(run));
  void trainLoop(state);
}

/** What trains, said in the status line (the phase badge already says "training"). */
function what(run: { config: { task: { name: string }; algorithm: { name: string } } }): string {
  return `${run.config.task.name} with ${run.config.algorithm.name}`;
}

export async function pause(state: ServiceState): Promise<void> {
  const { events } = state;
  if (events.phase === 'pretraining') {
    state.pausedFrom = 'pretraining';
    events.setPhase('paused', 'pausing pretraining after the step in flight');
    const warm = state.warmStart;
    // Queued now, right behind the step in flight (a step with a held-out evaluation can take
    // seconds): a command given meanwhile (Apply) comes after this save, not before it.
    await serial(state, async () => {
      // Unless Stop came first and ended it (its save says 'stopped').
      if ((events.phase as RunPhase) !== 'paused' || !warm || state.warmStart !== warm) return;
      events.setPhase('paused', `pretraining paused at step ${warm.step}`);
      await keepPretraining(state, warm, 'paused');
    });
    return;
  }
  if (events.phase !== 'training') return;
  state.pausedFrom = 'training';
  events.setPhase('paused', 'pausing after the step in flight');
  const run = state.run;
  // Queued now, right behind the step in flight: an Apply given meanwhile comes after this save,
  // so the run left is saved at the step it paused at (the save ran on the new run, and was lost).
  await serial(state, async () => {
    if ((events.phase as RunPhase) !== 'paused' || state.run !== run) return;
    state.wall.stop(); // after the step in flight, which it timed
    events.setPhase('paused', `paused at step ${run?.runner.globalStep ?? 0}`);
    await keepRun(state, 'paused');
  });
}

export async function resume(state: ServiceState): Promise<void> {
  const { events } = state;
  if (events.phase !== 'paused') return;
  // Paused during its last step: the run has spent its budget, and Resume says so rather than train past it.
  const spent = state.pausedFrom === 'training' && state.run ? budgetSpent(state, state.run) : null;
  if (spent) {
    events.setPhase('stopped', spentMessage(state.run!, spent));
    return;
  }
  if (state.pausedFrom === 'pretraining' && state.warmStart) {
    events.setPhase('pretraining', `pretraining from step ${state.warmStart.step}`);
    void warmStartLoop(state, () => void trainLoop(state));
    return;
  }
  state.wall.start();
  events.setPhase('training', state.run ? what(state.run) : 'training');
  void trainLoop(state);
}

export async function stop(state: ServiceState): Promise<void> {
  const { events } = state;
  if (state.warmStart) {
    const warm = state.warmStart;
    events.setPhase('paused', `stopping pretraining at step ${warm.step}`); // ends the loop between steps
    return serial(state, async () => {
      if (state.warmStart !== warm) return;
      state.warmStart = null;
      warm.trainer.dispose();
      await finishWarmStart(state, warm, 'stopped', () => undefined);
    });
  }
  events.setPhase('stopped', 'stopping after the step in flight');
  const run = state.run;
  // Said once the step in flight is done, so the step named is the one a download holds; queued
  // now, so a command given meanwhile comes after the save (as Pause's).
  await serial(state, async () => {
    if ((events.phase as RunPhase) !== 'stopped' || state.run !== run) return;
    state.wall.stop();
    events.setPhase('stopped', `stopped at step ${run?.runner.globalStep ?? 0}`);
    await keepRun(state, 'stopped');
  });
}

export function step(state: ServiceState): Promise<void> {
  if (state.events.phase === 'training') return Promise.reject(new Error('pause training to take single steps'));
  if (state.warmStart) return Promise.reject(new Error('pretraining is in progress: stop it (its weights are kept) to take RL steps'));
  return serial(state, async () => {
    const run = requireRun(state);
    if (!run.warmStarted) {
      // A fresh run whose warm start comes first runs it to the end on its first Step, then the
      // step; Pause or Stop pressed meanwhile ends it there (its weights kept), without the step.
      const warm = startWarmStart(state, run, null, false);
      const before = state.events.phase;
      try {
        state.events.setPhase('pretraining', `warm start ${warm.options.steps} steps before the first RL step`);
        while (warm.step < warm.options.steps && state.events.phase === 'pretraining') {
          await warmStartStep(state, warm);
          await new Promise((resolve) => setTimeout(resolve, 0)); // Pause and Stop come in between steps
        }
      } catch (error) {
        state.events.endPhase('pretraining', before, `the warm start failed at step ${warm.step + 1}: ${(error as Error).message}`);
        throw error;
      } finally {
        warm.trainer.dispose();
      }
      const interrupted = warm.step < warm.options.steps;
      await finishWarmStart(state, warm, interrupted ? 'stopped' : 'done', () => undefined);
      if (interrupted) return;
    }
    state.wall.start();
    try {
      await runStep(state);
    } finally {
      state.wall.stop();
    }
    // Each single step is saved: the user waits between them, and a reload would lose those since the last multiple of AUTOSAVE_EVERY.
    // A stopped run stays stopped (not offered back after a reload as interrupted).
    await keepRun(state, state.events.phase === 'stopped' ? 'stopped' : 'paused');
    // The status line said where the run stood (paused, stopped, an evaluation done): it now stands a step further.
    const phase = state.events.phase;
    const at = requireRun(state).runner.globalStep;
    if (phase === 'paused' || phase === 'stopped' || phase === 'idle') state.events.setPhase(phase, `${phase === 'paused' ? 'paused at' : phase === 'stopped' ? 'stopped at' : 'took a single step to'} step ${at}`);
    state.events.flush();
  });
}
