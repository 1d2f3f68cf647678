/**
 * Held-out evaluation of the live run with one of its task's searches: a phase of its own
 * ('evaluating', with a progress bar from the start and a Cancel), then back to the phase before
 * it; the result goes to the page as a table row and, as figures, beside the training metrics.
 */
import type { EvaluationRow } from '../../core/runnerTypes';
import { searchOf } from '../../core/runner';
import type { SearchSpec, TaskEvaluation } from '../../core/task';
import { CANCELLED } from '../protocol';
import { progress } from './datasets';
import { heldoutOf, requireRun, runProvenance, wallNow, type LiveRun, type ServiceState } from './state';

/** Runs `work` as the 'evaluating' phase, saying whether it ended or was cancelled. */
export async function asEvaluation<T>(state: ServiceState, message: string, total: number, work: () => Promise<T>): Promise<T> {
  const previous = state.events.phase;
  state.cancelRequested = false; // a Cancel meant for earlier work is not this evaluation's
  state.events.setPhase('evaluating', message);
  state.events.send({ type: 'progress', task: 'evaluating', done: 0, total });
  let ended = 'evaluation done';
  try {
    return await work();
  } catch (error) {
    if ((error as Error).message === CANCELLED) ended = 'evaluation cancelled';
    throw error;
  } finally {
    // An evaluation asked for while training (the API allows it) leaves the run paused, its clock stopped.
    if (previous === 'training') state.wall.stop();
    state.cancelRequested = false; // one this evaluation did not consume (pressed after its last check) is not left for the next
    state.events.endPhase('evaluating', previous === 'training' ? 'paused' : previous, ended);
  }
}

/** The live run's evaluation as a table row, sent to the page; `label` says when (after the warm start, during RL). */
export async function evaluateRun(state: ServiceState, run: LiveRun, search: SearchSpec, limit: number, label?: string): Promise<{ row: EvaluationRow; result: TaskEvaluation }> {
  const { runner, definition } = run;
  const result = await runner.evaluate(heldoutOf(state, run), { limit, search, onProgress: (done, total) => progress(state, 'evaluating', done, total) });
  const step = runner.globalStep;
  const row: EvaluationRow = {
    label: `${search.name}${label ? ` (${label})` : ''} @ step ${step}`,
    step,
    task: definition.name,
    search: search.name,
    k: search.k,
    n: result.n,
    score: result.score,
    metrics: result.metrics,
    items: result.items,
  };
  const wallMs = wallNow(state);
  state.events.send({ type: 'metrics', events: Object.entries(result.metrics).map(([name, value]) => ({ step, name: `eval_${name}`, value, wallMs })) });
  state.events.send({ type: 'evaluation', row });
  return { row, result };
}

/**
 * Saves a held-out score taken while the run stands (idle, paused, stopped): no later step would
 * carry it to the store, and Saved runs compares runs by it. A run not yet trained is not stored
 * for an evaluation alone.
 */
export async function keepEvaluation(state: ServiceState): Promise<void> {
  const { run, savedRuns } = state;
  if (!run || !savedRuns.autosave || state.events.phase === 'training') return;
  const step = run.runner.globalStep;
  if (step === 0) return;
  // With its checkpoint, even at a step already saved: a save without one writes only a status.
  const bytes = await run.runner.saveCheckpoint();
  void savedRuns.save(state.events.phase === 'paused' ? 'paused' : 'stopped', step, bytes, run.config, { reference: state.weights.reference, provenance: runProvenance(state), pretrainSteps: state.weights.pretrainSteps });
}

/** Evaluate held-out: the run's task's search of that name on the first `limit` held-out items. */
export async function evaluateHeldOut(state: ServiceState, limit: number, searchName: string): Promise<EvaluationRow> {
  const run = requireRun(state);
  const heldout = heldoutOf(state, run);
  if (heldout.length === 0) throw new Error(`no held-out ${run.definition.data.itemName} are loaded: drop a file as held-out, or pick a shipped one`);
  const search = searchOf(run.definition, searchName);
  const total = Math.min(limit, heldout.length);
  const row = await asEvaluation(state, `evaluating ${search.name} on ${total} held-out ${run.definition.data.itemName}`, total, async () => (await evaluateRun(state, run, search, limit)).row);
  await keepEvaluation(state);
  return row;
}
