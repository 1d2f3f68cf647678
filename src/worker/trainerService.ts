/**
 * The trainer behind the page, as the TrainerApi of protocol.ts: datasets, warm starts, RL, held-out
 * evaluation, checkpoints and saved runs, for any task and algorithm of the registry. It is
 * platform-neutral: the worker entry (trainer.worker.ts) gives it the browser's tfjs backend and
 * sandbox workers, and tests run it in Node. Each call makes a service of its own (its state in
 * service/state.ts); the work is in service/: events, datasets, runs, control, warm starts,
 * evaluation, checkpoints, device recovery.
 */
import { configProblem } from '../core/config';
import { CANCELLED, type TrainerApi } from './protocol';
import { SavedRuns } from './savedRuns';
import { checkpoints, control, datasets, deviceRecovery, evaluation, events as makeEvents, runs, serviceState, warmStart } from './service';
import { checkpointStep } from '../core/checkpoint';
import { pytorchZip } from './pytorchZip';

export type { TrainerPlatform } from './service/state';

/** Largest run file (a downloaded saved run: its checkpoint and reference in base64, its metrics) the page reads. */
const MAX_RUN_FILE_BYTES = 256 << 20;

export function createTrainerService(platform: serviceState.TrainerPlatform, options: { dbName?: string } = {}): TrainerApi {
  // The saved runs see every event; the events are made first and told where the saved runs are.
  let savedRuns: SavedRuns | null = null;
  const events = makeEvents.createEvents((event) => savedRuns?.observe(event));
  savedRuns = new SavedRuns({ send: events.send, dbName: options.dbName });
  const state: serviceState.ServiceState = {
    platform,
    events,
    savedRuns,
    backendName: '',
    recovering: false,
    datasets: new Map(),
    files: { data: new Map(), weights: null },
    run: null,
    weights: { origin: 'random', trained: false, atStep: 0 },
    wall: new serviceState.WallClock(),
    cancelRequested: false,
    warmStart: null,
    pausedFrom: 'training',
    exclusive: Promise.resolve(),
    shards: new Map(),
  };
  const busy = () => events.phase === 'training' || events.phase === 'pretraining';

  return {
    async init(onEvent, { autosave = true, saveHoldOpenMs = 0 } = {}) {
      events.setEmit(onEvent);
      events.setPhase('loading', 'starting tfjs');
      const info = await platform.initBackend();
      state.backendName = info.backend;
      platform.onDeviceLost?.((reason) => void deviceRecovery.recoverFromLostDevice(state, reason));
      state.savedRuns.autosave = autosave;
      state.savedRuns.holdOpenMs = saveHoldOpenMs;
      // Saving on: the store opens now, in this worker, and the page hears of a run a reload interrupted.
      if (autosave) void state.savedRuns.open();
      events.setPhase('idle', `backend ${info.backend} ready${info.notes?.length ? ` (${info.notes.join('; ')})` : ''}`);
      return info;
    },

    loadDataset(role, name, file) {
      // A parse would end the train loop (it runs while the phase is 'training'): refused, said.
      const refuse = () => busy() && new Error(`${name} was not loaded: pause or stop training first (the run is using its data)`);
      if (refuse()) return Promise.reject(refuse());
      // One at a time with the other commands: a file picked during an evaluation loads after it.
      return serviceState.serial(state, async () => {
        const refused = refuse();
        if (refused) throw refused;
        const before = events.phase;
        state.cancelRequested = false;
        events.setPhase('loading', `parsing ${name}`);
        try {
          const summary = await datasets.parseDataset(state, role, name, file);
          // The run is as it was until the page makes a new one from the file: a paused run stays paused (Resume works).
          events.endPhase('loading', before === 'loading' ? 'idle' : before, `${name}: ${summary.summary}`);
          return summary;
        } catch (error) {
          const cancelled = (error as Error).message === CANCELLED;
          events.endPhase('loading', before === 'loading' ? 'idle' : before, `${name} was not loaded${cancelled ? ' (cancelled)' : ''}`); // the run and its sets are as they were
          throw error;
        } finally {
          state.cancelRequested = false; // a Cancel this load did not consume is not left for the next work
        }
      });
    },

    keepRunTraining() {
      return serviceState.serial(state, async () => {
        const run = state.run;
        if (!run?.trainItems || run.definition.data.kind !== 'file') return;
        serviceState.itemsOf(state, run.definition.name).train = run.trainItems;
        const files = state.files.data.get(run.definition.name) ?? {};
        if (run.trainFile) files.train = run.trainFile;
        else delete files.train;
        state.files.data.set(run.definition.name, files);
      });
    },

    configure(next, { start = 'carry' } = {}) {
      return serviceState.serial(state, async () => {
        if (busy()) throw new Error('stop training before changing the configuration');
        const problem = configProblem(next);
        if (problem) throw new Error(`the configuration was not applied (the run is unchanged): ${problem}`);
        const { reference, referenceOrigin } = state.weights;
        if (start === 'warm') {
          // The same start as the live run's: its warm start's weights, at step 0, against the same reference.
          if (!reference || !referenceOrigin) throw new Error('the configuration was not applied: this run has no warm start to go back to (load a shipped policy or pretrain first)');
          await runs.rebuild(state, next, reference, reference);
          events.send({ type: 'newRun' }, true); // the page's charts start over, before any event of the new run
          runs.setWeights(state, { origin: referenceOrigin, trained: true, atStep: 0, reference, referenceOrigin, pretrainSteps: state.weights.pretrainSteps });
          state.run!.warmStarted = true;
          events.setPhase('idle', `ready to train ${next.task.name} with ${next.algorithm.name} from the warm start (${referenceOrigin})`);
          return { weightsKept: false };
        }
        // Trained weights of the same model go on under the new configuration (RL restarts at step 0
        // from them); another model, another task, or a fresh start asked for, starts from random weights.
        const carried = start === 'carry' ? await runs.carriedWeights(state, next) : null;
        await runs.rebuild(state, next, carried?.bytes, carried?.reference);
        if (!carried) state.files.weights = null; // random weights: no file behind them (once they are in: a refused Apply keeps the run's record)
        events.send({ type: 'newRun' }, true); // the page's charts start over, before any event of the new run
        runs.setWeights(state, carried ? { origin: carried.origin, trained: true, atStep: 0, reference: carried.reference, referenceOrigin, pretrainSteps: state.weights.pretrainSteps } : { origin: `random (seed ${next.run.seed})`, trained: false, atStep: 0 });
        if (carried) state.run!.warmStarted = true;
        const { task, algorithm, model } = next;
        const ready = `ready to train ${task.name} with ${algorithm.name}: policy d_model ${model.dModel} x ${model.layers} layers, batch ${algorithm.batchSize}`;
        events.setPhase('idle', carried ? `${ready}; the weights carry over (${carried.origin})` : ready);
        return { weightsKept: Boolean(carried) };
      });
    },

    async weightsResetBy(next) {
      if (!state.weights.trained) return null;
      const mismatch = runs.weightsMismatch(state, next);
      return mismatch && `the model changes (${mismatch}), so its weights (${runs.weightsNow(state)}) would be replaced`;
    },

    train: () => control.train(state),
    pause: () => control.pause(state),
    resume: () => control.resume(state),
    stop: () => control.stop(state),
    step: () => control.step(state),

    pretrain(options) {
      return serviceState.serial(state, async () => {
        let run = serviceState.requireRun(state);
        if (busy() || state.warmStart) throw new Error('stop training or pretraining before pretraining again');
        warmStart.checkPretrainOptions(options); // before the run is made again below: a refusal changes nothing
        // Pretrain is a run of its own at RL step 0, saved as it goes: a run with RL steps is made
        // again from its weights first (its RL state ends here in any case, as Pretrain's end makes a new run).
        if (run.runner.globalStep > 0 && !run.definition.warmStart?.beforeTraining) {
          const origin = runs.weightsNow(state);
          await runs.rebuild(state, run.config, await run.runner.saveCheckpoint(), state.weights.reference);
          runs.setWeights(state, { ...state.weights, origin, atStep: 0 });
          events.send({ type: 'newRun' }, true);
          run = serviceState.requireRun(state);
        }
        state.warmStart = warmStart.startWarmStart(state, run, options, false);
        events.setPhase('pretraining', `pretraining ${options.steps} steps on the task's generated pairs`);
        void warmStart.warmStartLoop(state, () => void control.trainLoop(state));
      });
    },

    async cancel() {
      if (events.phase === 'evaluating' || events.phase === 'loading') state.cancelRequested = true;
    },

    evaluate({ limit, search }) {
      state.cancelRequested = false;
      return serviceState.serial(state, () => evaluation.evaluateHeldOut(state, limit, search));
    },

    getCheckpoint: () => checkpoints.getCheckpoint(state),
    async getPytorchZip() {
      const checkpoint = await checkpoints.getCheckpoint(state);
      return { bytes: state.platform.transfer(await pytorchZip(checkpoint)), step: checkpointStep(checkpoint) ?? 0 };
    },
    loadCheckpoint: (bytes, options = {}) => checkpoints.loadCheckpoint(state, bytes, options),

    async setAutosave(on) {
      state.savedRuns.autosave = on;
      if (!on) return;
      await state.savedRuns.open();
      // A run with steps is saved at once (a paused or stopped one); a training one at its next save.
      if (!busy()) await serviceState.serial(state, () => control.keepRun(state, events.phase === 'stopped' ? 'stopped' : 'paused'));
    },

    async listRuns() {
      await state.savedRuns.open();
      await state.savedRuns.publish();
    },

    resumeRun: (id) => checkpoints.resumeRun(state, id),
    renameRun: (id, name) => state.savedRuns.rename(id, name),
    deleteRun: (id) => state.savedRuns.delete(id),
    exportRun: async (id) => platform.transfer(await state.savedRuns.export(id)),
    async importRun(file, name) {
      if (file.size > MAX_RUN_FILE_BYTES) throw new Error(`${name} has ${file.size} bytes, more than the ${MAX_RUN_FILE_BYTES} a run file may have`);
      return state.savedRuns.import(await file.text(), name);
    },
    runEvents: (id) => state.savedRuns.events(id),
  };
}
