/**
 * Checkpoints in and out of the live run, and the saved runs brought back: a download (between
 * steps, the phase left alone while training), a file loaded by hand (validated whole before
 * anything changes; a file of another model or task switches the run to it, said, never
 * silently), and a stored run resumed with its reference.
 */
import { sha256Hex } from '../provenance';
import { checkpointWallMs, checkpointWarmStart, decodeCheckpoint, modelDifference } from '../../core/checkpoint';
import { isSafetensors } from '../../core/safetensors';
import type { ResumedRun } from '../protocol';
import { evaluationRow } from '../savedRuns';
import { algorithmDefinition } from '../../core/registry';
import { installCheckpoint, rebuild, setWeights } from './runs';
import { requireRun, serial, type ServiceState } from './state';
import { dropWarmStart } from './warmStart';

/** Supervised pretraining steps in a checkpoint's weights (the page's Pretrain writes them; 0 for a file without). */
export function checkpointPretrainSteps(meta: { extra?: unknown }): number {
  const steps = (meta.extra as { pretrainSteps?: unknown } | undefined)?.pretrainSteps;
  return typeof steps === 'number' && Number.isSafeInteger(steps) && steps > 0 ? steps : 0;
}

export function getCheckpoint(state: ServiceState): Promise<Uint8Array> {
  return serial(state, async () => {
    const run = requireRun(state);
    const { runner } = run;
    const { events } = state;
    const handOut = async () => {
      const bytes = await runner.saveCheckpoint();
      (run.issued ??= new Map()).set(await sha256Hex(bytes), runner.globalStep);
      return state.platform.transfer(bytes);
    };
    // A download while training leaves the phase alone: the train loop runs while it is 'training', and a 'saving' phase would end it.
    if (events.phase === 'training') return handOut();
    const previous = events.phase;
    events.setPhase('saving', `saving checkpoint at step ${runner.globalStep}`);
    try {
      return await handOut();
    } finally {
      events.endPhase('saving', previous, `checkpoint of step ${runner.globalStep} saved`);
    }
  });
}

export function loadCheckpoint(state: ServiceState, bytes: Uint8Array, { source = 'checkpoint', warmStart = false }: { source?: string; warmStart?: boolean }) {
  return serial(state, async () => {
    const { events } = state;
    // While training, this runs between two steps (serial): the run continues from the file.
    if (events.phase === 'pretraining' || state.warmStart) throw new Error('stop pretraining before loading a checkpoint');
    const before = events.phase;
    const wasTraining = before === 'training';
    const file = { role: warmStart ? 'warm start' : 'checkpoint', name: source, sha256: await sha256Hex(bytes), bytes: bytes.byteLength };
    const done = (message: string) => {
      // Pause or Stop pressed during the load stands: the run waits, paused or stopped, at the file's step.
      const goesOn = wasTraining && events.phase === 'training';
      if (goesOn) state.wall.start(); // a new run's clock starts stopped
      events.endPhase(before, wasTraining ? 'training' : 'idle', goesOn ? `${message}; training goes on from it` : message);
    };
    if (isSafetensors(bytes)) {
      // Weights a PyTorch user saved (modeling_prl.py): no config inside, so they start a run of
      // this configuration at step 0, and the model's check of every name and shape judges them.
      const run = state.run;
      if (!run) throw new Error('configure a run before loading weights into it');
      await rebuild(state, run.config, bytes);
      setWeights(state, { origin: `${source} (safetensors)`, trained: true, atStep: 0, reference: bytes, referenceOrigin: `${source} (safetensors)` });
      state.files.weights = file;
      done(`loaded the weights of ${source}; Train starts RL at step 0 from them`);
      return { step: 0, checkpointStep: 0, config: run.config, sameRun: false };
    }
    const { meta } = await decodeCheckpoint(bytes);
    const live = state.run;
    // A file of another model or task switches the run to it: said, never silently.
    const change = live ? modelDifference(live.config, meta.config) : null;
    const algorithm = live && live.config.algorithm.name !== meta.config.algorithm.name ? `algorithm ${live.config.algorithm.name} -> ${meta.config.algorithm.name}` : null;
    const switched = change || algorithm ? `; the ${change ? 'model' : 'run'} is now the checkpoint's (${[change, algorithm].filter(Boolean).join(', ')})` : '';
    const pretrainSteps = checkpointPretrainSteps(meta);
    const origin = `${source}, step ${meta.step}${pretrainSteps && meta.step === 0 ? `, pretrained ${pretrainSteps} steps` : ''}`;
    if (warmStart) {
      await rebuild(state, meta.config, bytes);
      setWeights(state, { origin, trained: true, atStep: 0, reference: bytes, referenceOrigin: origin, pretrainSteps }); // the reference, should a later config want one
      state.files.weights = file;
      done(`loaded ${origin}; ${wasTraining ? 'RL restarts' : 'Train starts RL'} at step 0 from its weights${switched}`);
      return { step: 0, checkpointStep: meta.step, config: meta.config, sameRun: false };
    }
    // The run's KL is measured from the warm start it drifted from. A checkpoint names it by hash
    // (warmStartSha256): the session's warm start when it is that one, else the checkpoint's own
    // weights, and said which. An older checkpoint names none: the session's warm start of the
    // same model is taken then, a guess the message says.
    const named = checkpointWarmStart(meta);
    const sessionWarmStart = state.weights.reference && state.weights.referenceOrigin && live && !modelDifference(live.config, meta.config) ? state.weights.reference : undefined;
    const known = sessionWarmStart !== undefined && (named === undefined || named === (await sha256Hex(sessionWarmStart)));
    const reference = known ? sessionWarmStart : bytes;
    // Named only when it is a warm start; the checkpoint's own weights are a stand-in, never called one.
    const referenceOrigin = known ? state.weights.referenceOrigin! : undefined;
    // One of the live run's own downloads: the charts hold its past up to its step, and so do the earlier downloads.
    const issued = live?.issued;
    const sameRun = issued?.get(file.sha256) === meta.step;
    await installCheckpoint(state, meta.config, bytes, { reference }); // validated aside: a bad file leaves the live run be
    state.run!.issued = new Map(sameRun ? [...issued!].filter(([, step]) => step <= meta.step) : [[file.sha256, meta.step]]);
    dropWarmStart(state);
    state.wall.reset(checkpointWallMs(meta)); // wall time goes on from the checkpoint's
    setWeights(state, { origin, trained: true, atStep: meta.step, reference, referenceOrigin, pretrainSteps });
    state.files.weights = file;
    const elsewhere = named !== undefined ? 'it began from a warm start this session has not loaded' : 'the checkpoint does not name the warm start it began from';
    const taken = named !== undefined ? `the warm start (${referenceOrigin}), the one it began from` : `the session's warm start (${referenceOrigin}); the checkpoint does not name the one it began from`;
    const measured = algorithmDefinition(meta.config.algorithm.name).needsReference(meta.config) ? `; its KL is measured from ${known ? taken : `these weights (${elsewhere})`}` : '';
    done(`loaded ${origin}${switched}${measured}`);
    return { step: meta.step, checkpointStep: meta.step, config: meta.config, sameRun };
  });
}

export function resumeRun(state: ServiceState, id: string): Promise<ResumedRun> {
  return serial(state, async () => {
    const { events, savedRuns } = state;
    if (events.phase === 'training' || events.phase === 'pretraining' || state.warmStart) throw new Error('pause or stop the live run before opening a saved one');
    const stored = await savedRuns.claim(id);
    // The reference the run drifted from comes back with it.
    const reference = stored.reference ?? undefined;
    let meta: Awaited<ReturnType<typeof decodeCheckpoint>>['meta'];
    try {
      ({ meta } = await decodeCheckpoint(stored.bytes));
      await installCheckpoint(state, meta.config, stored.bytes, { reference });
    } catch (error) {
      savedRuns.unclaim();
      throw error;
    }
    savedRuns.adopt(stored);
    // Its weights file is the one its record names (not the one this session loaded last).
    state.files.weights = stored.run.provenance?.files.find((file) => file.role !== 'train' && file.role !== 'heldout') ?? null;
    // Wall time goes on from the last saved event's.
    state.wall.reset(stored.events.reduce((most, event) => Math.max(most, event.wallMs), 0));
    // The reference came back with the run: it is the warm start the run began from.
    // A run saved while it pretrained holds the pretrained weights at step 0: RL starts from them (the pretraining's own progress is not resumed).
    const pretrained = meta.step === 0 && stored.run.pretrainSteps ? `, pretrained ${stored.run.pretrainSteps} steps` : '';
    setWeights(state, { origin: `saved run "${stored.run.name}", step ${meta.step}${pretrained}`, trained: true, atStep: meta.step, reference, referenceOrigin: reference ? `the warm start of saved run "${stored.run.name}"` : undefined, pretrainSteps: stored.run.pretrainSteps });
    events.setPhase('idle', pretrained ? `opened ${stored.run.name}: its weights after ${stored.run.pretrainSteps} pretraining steps; Train starts RL from them, Pretrain trains them further` : `resumed ${stored.run.name} at step ${meta.step}; Train goes on from it`);
    const evaluations = stored.evaluations.map((row) => evaluationRow(row, meta.config.task.name));
    return { run: stored.run, step: meta.step, config: meta.config, events: stored.events, evaluations, samples: stored.samples };
  });
}
