/**
 * The page keeps its runs (runStore.ts): the live run is saved every AUTOSAVE_EVERY steps and
 * whenever it pauses or stops (its checkpoint and the metric events since the last save, in one
 * transaction), so a reload, a crash or a closed tab loses at most the steps since. When the page
 * opens, a run that was still training is offered for resuming: its weights, optimizer, RNG and
 * data cursor come back from the checkpoint, its charts from the saved events.
 *
 * A run is locked to the tab that owns it (Web Locks): another tab may look at it, not resume it.
 */
import * as Comlink from 'comlink';
import { checkpointStep } from '../core/checkpoint';
import type { MetricEvent } from '../core/runnerTypes';
import { download } from './download';
import { RunStore, storageUsage, type RunRecord } from './runStore';
import { appendMetrics, onMetrics, reportError, resetMetrics, useLab } from './store';
import { attempt, trainer } from './trainer';

/** Steps between saves of the live run. */
export const AUTOSAVE_EVERY = 10;

/**
 * Whether the live run is saved as it trains (the Saved runs panel's switch, remembered in
 * localStorage). Off by default for now: a save costs the main thread up to ~150 ms on this
 * machine's 2 cores (measured in the e2e long-task check), over the 50 ms the page allows itself
 * while training; moving the writes into the trainer worker is the way to turn it on for everyone.
 */
const AUTOSAVE_KEY = 'program-rl-lab.autosave';
export const autosaveEnabled = (): boolean => {
  try {
    return localStorage.getItem(AUTOSAVE_KEY) === 'on';
  } catch {
    return false;
  }
};
export function setAutosave(on: boolean): void {
  try {
    localStorage.setItem(AUTOSAVE_KEY, on ? 'on' : 'off');
  } catch {
    // storage refused (private mode): the switch holds for this page only
  }
  useLab.setState({ autosave: on });
  if (on) void initPersistence();
}

let store: RunStore | null = null;
/** The run the live session saves to (made at its first save). */
let current: RunRecord | null = null;
/** Metric events of the live run not saved yet. */
let unsaved: MetricEvent[] = [];
let lastSavedStep = 0;
let saving: Promise<void> | null = null;
/** The newest step whose metric events reached the page. */
let latestEventStep = 0;
/** Releases the Web Lock this tab holds on its run. */
let releaseLock: (() => void) | null = null;
/** True while a stored run is being brought back (its reset to step 0 is no new run). */
let resuming = false;

// Every metric event of the live run is kept to be saved with the next checkpoint.
onMetrics((events) => {
  if (!store) return;
  unsaved.push(...events);
  for (const e of events) latestEventStep = Math.max(latestEventStep, e.step);
});

/** Waits (a little) until the events of `step` arrived: they travel apart from the checkpoint's bytes. */
async function eventsOf(step: number): Promise<void> {
  for (let waited = 0; latestEventStep < step && waited < 3000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
}

/** A new run in the page (a new configuration): the next save starts a new stored run. */
export function startNewRun(): void {
  current = null;
  unsaved = [];
  latestEventStep = 0;
  lastSavedStep = 0;
  releaseLock?.();
  releaseLock = null;
}

/** Takes the tab's lock on a run: false when another tab holds it. */
async function lockRun(id: string): Promise<boolean> {
  if (typeof navigator === 'undefined' || !navigator.locks) return true; // no Web Locks: nothing to coordinate with
  releaseLock?.();
  return new Promise<boolean>((granted) => {
    void navigator.locks.request(`program-rl-lab-run-${id}`, { ifAvailable: true }, (lock) => {
      if (!lock) {
        granted(false);
        return undefined;
      }
      granted(true);
      return new Promise<void>((release) => (releaseLock = release)); // held until released
    });
  });
}

/** Saves the live run now (between steps), with the status it is in. */
export function saveNow(status: RunRecord['status']): Promise<void> {
  saving = (saving ?? Promise.resolve()).then(async () => {
    if (!store) return;
    const { step: shown, config } = useLab.getState();
    if (shown === 0 || (shown === lastSavedStep && current?.status === status)) return;
    if (!current) {
      current = await store.create(config);
      if (!(await lockRun(current.id))) return reportError('this run is open in another tab: it is saved there');
    }
    const bytes = (await trainer().getCheckpoint({ quiet: true })) as Uint8Array;
    // Training goes on while the bytes travel: the checkpoint's own step is the one saved.
    const step = checkpointStep(bytes);
    await eventsOf(step);
    const events = unsaved.filter((e) => e.step <= step);
    try {
      current = await store.save(current.id, { step, bytes, events, status, best: bestOf() });
      unsaved = unsaved.filter((e) => e.step > step);
      lastSavedStep = step;
      await refreshRuns();
    } catch (error) {
      reportError(`saving the run in the browser: ${(error as Error).message}`);
    }
  });
  return saving;
}

/** The run's headline figure for the run list: the best held-out accuracy (or solved share) measured. */
function bestOf(): number | null {
  const rows = useLab.getState().evaluations;
  return rows.length ? Math.max(...rows.map((r) => r.accuracy)) : null;
}

export async function refreshRuns(): Promise<void> {
  if (!store) return;
  useLab.setState({ runs: await store.list(), storage: await storageUsage() });
}

let opening: Promise<void> | null = null;

/**
 * Opens the store, asks for persistent storage, and offers the run a reload interrupted; once.
 * The page calls it at start only when saving is on (opening IndexedDB costs the main thread a
 * long task), else when the Saved runs panel is opened or saving switched on.
 */
export function initPersistence(): Promise<void> {
  opening ??= openPersistence();
  return opening;
}

async function openPersistence(): Promise<void> {
  try {
    store = await RunStore.open();
  } catch (error) {
    useLab.setState({ runsNote: `runs are not kept in this browser (${(error as Error).message})` });
    return;
  }
  void navigator.storage?.persist?.();
  const interrupted = await store.interrupted();
  useLab.setState({ interruptedRun: interrupted ?? null });
  await refreshRuns();
  // Saves follow the live run: every AUTOSAVE_EVERY steps, and on pause and stop.
  useLab.setState({ autosave: autosaveEnabled() });
  useLab.subscribe((state, before) => {
    // A new run in the page (Apply, a new dataset, a new task) starts from step 0: it is stored apart.
    if (state.step === 0 && before.step > 0 && !resuming) startNewRun();
    if (!state.autosave) return;
    if (state.step !== before.step && state.step > 0 && state.step % AUTOSAVE_EVERY === 0 && state.phase === 'training') void saveNow('training');
    if (state.phase !== before.phase && (state.phase === 'paused' || state.phase === 'stopped') && state.step > 0) void saveNow(state.phase);
  });
}

/** Resumes a stored run: its checkpoint into the worker, its charts from the saved events. */
export async function resumeRun(id: string): Promise<void> {
  if (!store) return;
  if (!(await lockRun(id))) return reportError('this run is open in another tab: close it there to resume it here');
  const { run, bytes, events } = await store.load(id);
  if (!bytes) return reportError(`${run.name} has no saved checkpoint`);
  resuming = true;
  try {
    const loaded = await attempt(`resuming ${run.name}`, () => trainer().loadCheckpoint(Comlink.transfer(bytes, [bytes.buffer]), { source: `saved run "${run.name}"` }));
    if (!loaded) return;
    resetMetrics();
    appendMetrics(events);
    current = run;
    unsaved = [];
    lastSavedStep = run.step;
    latestEventStep = run.step;
    useLab.setState({ config: loaded.config, step: loaded.step, interruptedRun: null });
  } finally {
    resuming = false;
  }
}

export async function renameRun(id: string, name: string): Promise<void> {
  await attempt('renaming the run', async () => store?.rename(id, name));
  await refreshRuns();
}

export async function deleteRun(id: string): Promise<void> {
  if (current?.id === id) startNewRun();
  await attempt('deleting the run', async () => store?.delete(id));
  if (useLab.getState().interruptedRun?.id === id) useLab.setState({ interruptedRun: null });
  await refreshRuns();
}

/** One file with the run's config, metric events and checkpoint (base64): what a run is. */
export async function downloadRun(id: string): Promise<void> {
  if (!store) return;
  const { run, bytes, events } = await store.load(id);
  let binary = '';
  for (const byte of bytes ?? []) binary += String.fromCharCode(byte);
  const file = { format: 'program-rl-lab-run', version: 1, run: { ...run }, metrics: events, checkpoint: bytes ? btoa(binary) : null };
  download(`${run.name.replace(/[^a-z0-9._-]+/gi, '-')}.run.json`, JSON.stringify(file), 'application/json');
}
