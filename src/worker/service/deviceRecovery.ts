/**
 * A lost GPU device (a driver reset, the GPU process gone): training pauses, tfjs starts again on
 * the next backend, and the run is rebuilt there from its last checkpoint (kept in memory every
 * AUTOSAVE_EVERY steps on a GPU backend). The page drops the metric events of the steps lost, so
 * no figure of the dead device stays on a chart; Resume goes on from the checkpoint.
 */
import { checkpointWallMs } from '../../core/checkpoint';
import { buildRun, install, installCheckpoint } from './runs';
import { serial, type ServiceState } from './state';
import { dropWarmStart } from './warmStart';

export async function recoverFromLostDevice(state: ServiceState, reason: string): Promise<void> {
  if (state.recovering) return;
  state.recovering = true;
  const lost = state.backendName;
  const { events } = state;
  try {
    state.wall.stop();
    state.pausedFrom = 'training';
    events.setPhase('paused', `the ${lost} device was lost (${reason}): pausing`);
    const pretraining = Boolean(state.warmStart);
    await serial(state, async () => {
      dropWarmStart(state);
      const info = await state.platform.initBackend([lost]);
      state.backendName = info.backend;
      const config = state.run?.config;
      if (!config) return events.setPhase('idle', `the ${lost} device was lost (${reason}); tfjs runs on ${info.backend} now`);
      const saved = state.savedRuns.lastCheckpoint;
      const reference = state.weights.reference;
      // No checkpoint yet: step 0, from the weights the run was made from (a warm start, weights
      // carried by Apply), else the seed's initial weights.
      const meta = saved ? await installCheckpoint(state, config, saved.bytes, { reference, newRun: false }) : undefined;
      if (!saved) await install(state, await buildRun(state, config, state.run?.initFrom ?? reference, reference), false);
      const step = saved?.step ?? 0;
      // Downloads made past it, on the lost device, are not the past of the charts cut back to it.
      if (state.run?.issued) state.run.issued = new Map([...state.run.issued].filter(([, at]) => at <= step));
      // The steps after the checkpoint are gone, and so is their time.
      state.wall.reset(meta ? checkpointWallMs(meta) : 0);
      state.savedRuns.rollback(step);
      events.send({ type: 'rollback', step }, true);
      events.send({ type: 'step', step, stepsPerSecond: 0 }, true);
      // Pretraining ends there: its weights of the last save are the run's start (as a reload's offer opens them).
      if (pretraining) events.setPhase('idle', `the ${lost} device was lost (${reason}) while pretraining; the run is back at its last save, on ${info.backend}: Train starts RL from those weights, Pretrain trains them further`);
      else events.setPhase('paused', `the ${lost} device was lost (${reason}); the run is back at step ${step}, its last checkpoint, on ${info.backend}: Resume goes on from it`);
    });
  } catch (error) {
    events.setPhase('error', `the ${lost} device was lost (${reason}) and the run could not be restored: ${(error as Error).message}`);
  } finally {
    state.recovering = false;
  }
}
