/**
 * The page's side of the runs kept in this browser. The trainer worker saves the live run and
 * owns the store (worker/savedRuns.ts), so no save costs the main thread anything; the page
 * shows the run list it is sent, offers back a run a reload interrupted, and asks the worker to
 * resume, rename, delete, download or compare a stored run.
 */
import { download } from './download';
import { appendMetrics, grownSeries, keptItems, reportError, resetMetrics, useLab } from './store';
import { taskNames } from '../core/registry';
import { attempt, loadShippedData, trainer, whileConfiguring, writeLink } from './trainer';

/**
 * Whether the live run is saved as it trains (the Saved runs panel's switch, remembered in
 * localStorage): on unless the user turned it off.
 */
const AUTOSAVE_KEY = 'program-rl-lab.autosave';
export const autosaveEnabled = (): boolean => {
  try {
    return localStorage.getItem(AUTOSAVE_KEY) !== 'off';
  } catch {
    return true;
  }
};

/**
 * How long each save holds its transaction open, from the page's `?save-hold-ms=` (0 without):
 * what lets the e2e test close the page in the middle of a save.
 */
export const saveHoldOpenMs = (): number => {
  const value = Number(new URLSearchParams(window.location.search).get('save-hold-ms') ?? 0);
  return Number.isFinite(value) && value > 0 ? value : 0;
};

/** Asks the browser not to evict the stored runs under storage pressure (a Window-only API). */
export function requestPersistentStorage(): void {
  void navigator.storage?.persist?.().catch(() => undefined);
}

export async function setAutosave(on: boolean): Promise<void> {
  try {
    localStorage.setItem(AUTOSAVE_KEY, on ? 'on' : 'off');
  } catch {
    // storage refused (private mode): the switch holds for this page only
  }
  useLab.setState({ autosave: on });
  if (on) requestPersistentStorage();
  await attempt('switching saves', () => trainer().setAutosave(on));
}

/** The run list, from the worker (opening the store there when saving is off). */
export const showRuns = () => attempt('listing the saved runs', () => trainer().listRuns());

/** Resumes a stored run: its checkpoint and KL reference into the worker, its charts, samples and evaluations into the page. */
export async function resumeRun(id: string): Promise<void> {
  // A run of another task needs that task's data to train and evaluate: its shipped files first, as a task switch loads them.
  const { runs, interruptedRun, config, datasets } = useLab.getState();
  const task = [...runs, interruptedRun].find((run) => run?.id === id)?.task;
  const resumed = await whileConfiguring(async () => {
    if (task && task !== config.task.name && taskNames().includes(task) && !(await attempt(`loading the ${task} task's data`, () => loadShippedData(task).then(() => true)))) {
      useLab.setState({ datasets });
      return null;
    }
    const opened = await attempt('resuming the run', () => trainer().resumeRun(id));
    if (!opened) useLab.setState({ datasets }); // the panel goes back to the files the live run reads
    return opened;
  });
  if (!resumed) return;
  try {
    resetMetrics();
    appendMetrics(resumed.events);
    useLab.setState({ config: resumed.config, step: resumed.step, evaluations: keptItems(resumed.evaluations), samples: resumed.samples, interruptedRun: null, checkpointNote: '' });
    writeLink(resumed.config); // a reload opens the run's settings, its task among them
  } catch (error) {
    // Said, not lost in an unhandled rejection that left the page at step 0 with no word.
    reportError(`resuming the run: its record could not be shown (${(error as Error).message})`);
  }
}

export const renameRun = (id: string, name: string) => attempt('renaming the run', () => trainer().renameRun(id, name));

export async function deleteRun(id: string): Promise<void> {
  await attempt('deleting the run', () => trainer().deleteRun(id));
  useLab.setState((state) => ({
    interruptedRun: state.interruptedRun?.id === id ? null : state.interruptedRun,
    compared: state.compared.filter((run) => run.id !== id),
  }));
}

/** One file with the run's config, metric events, evaluation rows and checkpoint (base64): what a run is. */
export async function downloadRun(id: string): Promise<void> {
  const bytes = await attempt('downloading the run', () => trainer().exportRun(id));
  if (!bytes) return;
  const name = useLab.getState().runs.find((run) => run.id === id)?.name ?? id;
  download(`${name.replace(/[^a-z0-9._-]+/gi, '-')}.run.json`, bytes as Uint8Array<ArrayBuffer>, 'application/json');
}

/** A downloaded run file (`.run.json`) stored back as a run of this browser, stopped, to open or compare. */
export async function importRunFile(file: Blob, name: string): Promise<void> {
  const run = await attempt(`importing ${name}`, () => trainer().importRun(file, name));
  if (run) useLab.setState({ message: `imported ${name} as the saved run "${run.name}", step ${run.step}: Open it from Saved runs` });
}

/** Draws a stored run's curves beside the live run's on every chart (or takes them away). */
export async function compareRun(id: string, on: boolean): Promise<void> {
  if (!on) {
    useLab.setState((state) => ({ compared: state.compared.filter((run) => run.id !== id) }));
    return;
  }
  const stored = await attempt('reading the run to compare', () => trainer().runEvents(id));
  if (!stored) return;
  const entry = { id, name: stored.run.name, series: grownSeries(new Map(), stored.events) };
  useLab.setState((state) => ({ compared: [...state.compared.filter((run) => run.id !== id), entry] }));
}
