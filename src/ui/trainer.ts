/**
 * The page's handle on the trainer worker: one Comlink proxy, created once, with events routed
 * into the store. Components call these functions; none of them talks to the worker directly.
 */
import * as Comlink from 'comlink';
import { checkpointTask, modelDifference } from '../core/checkpoint';
import { configToSearchParams, defaultConfig, withVariant, type LabConfig } from '../core/config';
import { taskDefinition, taskNames } from '../core/registry';
import { CANCELLED, type InitOptions, type RunStart, type TrainerApi } from '../worker/protocol';
import { handleEvents, reportError, resetMetrics, rollbackTo, useLab } from './store';
import trainUrl from '../../datasets/train.jsonl?url';
import heldoutUrl from '../../datasets/heldout.jsonl?url';
import sampleBadUrl from '../../datasets/sample-bad.jsonl?url';
import functionsTrainUrl from '../../datasets/functions/train.jsonl?url';
import functionsHeldoutUrl from '../../datasets/functions/heldout.jsonl?url';
import seedTrainingUrl from '../../datasets/functions/training_problems.json?url';
import seedEvaluationUrl from '../../datasets/functions/evaluation_problems.json?url';

/** The shipped data files the page can load, by their path in the repository (a task's definition names its own). */
export const shippedDatasets = [
  { name: 'train.jsonl', path: 'datasets/train.jsonl', url: trainUrl, role: 'train' as const, doc: '10,000 synthetic sequences (generator seed 1)' },
  { name: 'heldout.jsonl', path: 'datasets/heldout.jsonl', url: heldoutUrl, role: 'heldout' as const, doc: '500 held-out sequences (seed 2), evaluation only' },
  { name: 'sample-bad.jsonl', path: 'datasets/sample-bad.jsonl', url: sampleBadUrl, role: 'train' as const, doc: 'a file with malformed lines, to see the error report' },
  { name: 'functions/train.jsonl', path: 'datasets/functions/train.jsonl', url: functionsTrainUrl, role: 'train' as const, doc: '4,000 generated function problems (seed 1)' },
  { name: 'functions/heldout.jsonl', path: 'datasets/functions/heldout.jsonl', url: functionsHeldoutUrl, role: 'heldout' as const, doc: '40 hand-written list functions, 5 shown + 10 hidden tests, evaluation only' },
  { name: 'functions/training_problems.json', path: 'datasets/functions/training_problems.json', url: seedTrainingUrl, role: 'train' as const, doc: "the DQN seed's 8 training problems" },
  { name: 'functions/evaluation_problems.json', path: 'datasets/functions/evaluation_problems.json', url: seedEvaluationUrl, role: 'heldout' as const, doc: "the DQN seed's 3 evaluation problems" },
];

let api: Comlink.Remote<TrainerApi> | null = null;

/**
 * The trainer worker's name, carrying the page's start-up flags (`?fma=0`, `?backend=wasm`,
 * `?kernel_threads=2`, `?shards=N`; see trainer.worker.ts): the worker reads its name before any message, so they reach its backend
 * start-up with no change to the trainer's API.
 */
function workerName(): string {
  const page = new URLSearchParams(window.location.search);
  const flags = new URLSearchParams();
  for (const key of ['fma', 'backend', 'kernel_threads', 'threads', 'shards']) {
    const value = page.get(key);
    if (value) flags.set(key, value);
  }
  const text = flags.toString();
  return text ? `trainer?${text}` : 'trainer';
}

export function trainer(): Comlink.Remote<TrainerApi> {
  if (!api) {
    const worker = new Worker(new URL('../worker/trainer.worker.ts', import.meta.url), { type: 'module', name: workerName() });
    worker.addEventListener('error', (event) => reportError(`trainer worker failed: ${event.message || 'could not load'}`));
    api = Comlink.wrap<TrainerApi>(worker);
  }
  return api;
}

/** Runs an action, turning any failure into a readable message on the page. */
export async function attempt<T>(label: string, action: () => Promise<T>): Promise<T | undefined> {
  try {
    return await action();
  } catch (error) {
    // Work the user cancelled is no error: the status line says it ended.
    if (!(error instanceof Error && error.message === CANCELLED)) reportError(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** Loads a dataset file; a training file re-creates the run (`reconfigure`), with the functions task when it holds problems. */
export async function loadDatasetFile(role: 'train' | 'heldout', name: string, file: Blob, reconfigure = true): Promise<void> {
  const previous = useLab.getState().datasets[role];
  const summary = await attempt(`loading ${name}`, () => trainer().loadDataset(role, name, file));
  if (!summary) return;
  useLab.setState((state) => ({ datasets: { ...state.datasets, [role]: summary } }));
  if (!reconfigure) return;
  const { config } = useLab.getState();
  // The worker read the file as its task's items (the definition that recognised it): the run
  // becomes that task's. A held-out file of the run's own task needs no new run; one of another
  // task would otherwise sit in the panel while the evaluation scores the old task's items.
  if (summary.task === config.task.name) {
    // A training file the new run refuses (all of it held out, say) is not the run's: the panel keeps naming the run's own.
    if (role === 'train' && !(await configure(config))) {
      await attempt('keeping the run\'s training data', () => trainer().keepRunTraining());
      useLab.setState((state) => ({ datasets: { ...state.datasets, [role]: previous } }));
    }
    return;
  }
  const switched = withVariant(config, { task: summary.task });
  // Trained weights give way to the other task's only once the user agrees, as Apply asks. The
  // worker keeps each task's items apart, so a "no" leaves the run with its own data.
  if (!(await resetAgreed(switched, `${name} holds ${summary.task} ${summary.itemName}, and switching to that task resets the weights`, 'Switch anyway?'))) {
    // The status said the file loaded: it is not used, and the run keeps its own data.
    useLab.setState((state) => ({ datasets: { ...state.datasets, [role]: previous }, message: `${name} was not used: the lab stays on ${config.task.name} with its data` }));
    return;
  }
  // The link says the task, as Apply's does: a reload opens the task the file switched to. A
  // configuration that fails leaves the run as it was, and the panel says so.
  if (await configure(switched)) writeLink();
  else useLab.setState((state) => ({ datasets: { ...state.datasets, [role]: previous } }));
}

export async function loadShipped(name: string, reconfigure = true): Promise<void> {
  const entry = shippedDatasets.find((d) => d.name === name || d.path === name);
  if (!entry) return;
  const fetched = await fetchShipped(entry.url);
  if ('problem' in fetched) {
    reportError(`the shipped ${entry.role === 'train' ? 'training' : 'held-out'} file ${entry.name} (${entry.url}) cannot be loaded: ${fetched.problem}`);
    return;
  }
  await loadDatasetFile(entry.role, entry.name, new Blob([fetched.bytes]), reconfigure);
}

/** Loads a task's shipped training and held-out files where the loaded ones are another task's. */
export async function loadShippedData(task: string): Promise<void> {
  const data = taskDefinition(task).data;
  if (data.kind !== 'file') return;
  const { datasets } = useLab.getState();
  if (datasets.heldout?.task !== task) await loadShipped(data.shipped.heldout, false);
  if (datasets.train?.task !== task) await loadShipped(data.shipped.train, false);
}

/**
 * A new run with `config`. A task reads its own items: when the loaded files are another task's,
 * the task's shipped files are loaded first (and its shipped policy as a warm start, when the
 * server has one), so picking a task and pressing Train just works.
 */
export async function configure(config: LabConfig, start: RunStart = 'carry'): Promise<boolean> {
  const switching = config.task.name !== useLab.getState().config.task.name;
  return whileConfiguring(async () => {
    await loadShippedData(config.task.name);
    // The live run stays as it was when the worker refuses the configuration.
    const made = await attempt('configuring the run', () => trainer().configure(config, { start }));
    if (!made) return false;
    // The worker's 'newRun' event has started the page's charts over, in order with the new run's events.
    // Another task's run: the note of what loaded when the page opened is the old task's.
    useLab.setState(switching ? { config, checkpointNote: '' } : { config });
    // The task's shipped policy comes with its own config (its model, its tuned settings); an
    // algorithm picked with the task stays picked (it had come back as the policy's reinforce).
    if (switching && (await loadShippedPolicy(config.task.name))) {
      const loaded = useLab.getState().config;
      if (loaded.algorithm.name !== config.algorithm.name) await configure(withVariant(loaded, { algorithm: config.algorithm.name }));
    }
    return true;
  });
}

/** Runs `work` with Train, Step and Evaluate held back: they would act on the run about to be replaced. */
export async function whileConfiguring<T>(work: () => Promise<T>): Promise<T> {
  useLab.setState((state) => ({ configuring: state.configuring + 1 }));
  try {
    return await work();
  } finally {
    useLab.setState((state) => ({ configuring: state.configuring - 1 }));
  }
}

/**
 * Apply in the form: a configuration that would replace trained weights by random ones (another
 * model size, another task) is applied only once the user agrees; the same model keeps its
 * weights. Returns whether it was applied.
 */
export async function applyConfig(config: LabConfig, start: RunStart = 'carry'): Promise<boolean> {
  // Starting from the warm start or fresh on purpose replaces the weights: nothing to ask.
  if (start === 'carry' && !(await resetAgreed(config, 'This resets the weights', 'Apply anyway?'))) return false;
  // The user's new configuration: the messages of the run it replaces go (the new run's own come after).
  useLab.setState({ errors: [] });
  return configure(config, start);
}

/** Whether `config` may replace the trained weights: it would not, or the user agreed when asked. */
async function resetAgreed(config: LabConfig, why: string, question: string): Promise<boolean> {
  const reset = await attempt('checking the configuration', () => trainer().weightsResetBy(config));
  if (reset === undefined) return false;
  // By what: another task's shipped policy when the page will load one (configure), else random weights.
  const shipped = config.task.name !== useLab.getState().config.task.name ? taskDefinition(config.task.name).shippedPolicy : undefined;
  return !reset || window.confirm(`${why}: ${reset} by ${shipped ? `the ${shipped.name} (a warm start for ${config.task.name})` : 'random ones'}. ${question}`);
}

/**
 * The task's shipped policy (its definition's, served from public/) as a warm start, when the
 * server has one: its weights, with its own config, said in the status; else the run starts fresh.
 */
async function loadShippedPolicy(task: string): Promise<boolean> {
  const shipped = taskDefinition(task).shippedPolicy;
  if (!shipped) return false;
  const url = `${import.meta.env.BASE_URL}${shipped.file}`;
  const fetched = await fetchShipped(url);
  const note = (checkpointNote: string) => useLab.setState({ checkpointNote });
  if ('problem' in fetched) {
    note(`no ${shipped.name} at ${url}: ${fetched.problem}; starting fresh`);
    return false;
  }
  const size = fetched.bytes.byteLength;
  // A warm start: RL from its weights at step 0, which are also the reference (the recipe's RL stage).
  const loaded = await loadCheckpointBytes(fetched.bytes, url, { source: shipped.name, warmStart: true });
  if (loaded) shippedStarts.set(task, configToSearchParams(loaded.config, { page: true }));
  note(loaded ? `loaded ${shipped.name}, step ${loaded.checkpointStep} (${(size / 1024).toFixed(0)} KB)` : `${url} was refused (see the error above); starting fresh`);
  return Boolean(loaded);
}

/**
 * A checkpoint file loaded by hand. One of another task switches the lab to that task, so it is
 * refused while training and otherwise loaded only once the user agrees; that task's shipped data
 * come first (a run reads its task's items when it is made), so the run can train and evaluate,
 * and the link says the task. A file that then fails to load leaves the Data panel as it was.
 */
export async function loadCheckpointFromFile(bytes: Uint8Array, name: string): Promise<void> {
  // A task this lab does not know is left to the worker's load, which says why it refuses it.
  const named = checkpointTask(bytes);
  const task = named !== null && taskNames().includes(named) ? named : null;
  const { config, phase, datasets } = useLab.getState();
  if (task === null || task === config.task.name) {
    // The file's config is the run's now (its algorithm, its model): the link says so too.
    if (await loadCheckpointBytes(bytes, name)) writeLink();
    return;
  }
  const what = `${name} is a checkpoint of the ${task} task`;
  if (phase === 'training' || phase === 'pretraining') return reportError(`${what}: stop training before loading it (it switches the lab from ${config.task.name} to ${task})`);
  if (!window.confirm(`${what}: loading it switches the lab from ${config.task.name} to ${task}, with ${task}'s shipped data, and replaces the current weights. Load it?`)) return;
  // Train and Step wait from here: the data loads first, then the run the file makes.
  await whileConfiguring(async () => {
    await loadShippedData(task);
    if (!(await loadCheckpointBytes(bytes, name))) return void useLab.setState({ datasets });
    writeLink();
  });
}

/** Validates and loads checkpoint bytes in the worker (transferred), with the config inside it. */
export async function loadCheckpointBytes(bytes: Uint8Array, name: string, options: { source?: string; warmStart?: boolean } = {}): Promise<{ step: number; checkpointStep: number; sameRun: boolean; config: LabConfig } | undefined> {
  try {
    const before = useLab.getState().config;
    const result = await trainer().loadCheckpoint(Comlink.transfer(bytes, [bytes.buffer]), { source: name, ...options });
    // The note of what the page loaded when it opened no longer says what the weights are (a shipped policy's load says its own again).
    useLab.setState({ config: result.config, step: result.step, checkpointNote: '' });
    if (!options.warmStart) {
      // Only a checkpoint this run handed out (Download, then loaded back) keeps the points up to
      // its step, its past, and drops the later ones, whose weights are gone. Any other file starts
      // the charts over: the points on them are not its history, even with the same model.
      if (!result.sameRun || before.task.name !== result.config.task.name || modelDifference(before, result.config)) {
        resetMetrics();
        useLab.setState({ step: result.step, evaluations: [] });
      } else rollbackTo(result.step);
    }
    return result;
  } catch (error) {
    reportError(`${name} cannot be loaded: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** Why there is no usable file at `url` (a shipped checkpoint or dataset), or its bytes. */
async function fetchShipped(url: string): Promise<{ bytes: Uint8Array<ArrayBuffer> } | { problem: string }> {
  let response: Response;
  try {
    response = await fetch(url, { cache: 'no-cache' });
  } catch (error) {
    return { problem: `could not fetch it (${(error as Error).message})` };
  }
  if (!response.ok) return { problem: `the server answered ${response.status} ${response.statusText}`.trim() };
  // A static server's single-page fallback answers a missing file with index.html.
  if ((response.headers.get('content-type') ?? '').includes('text/html')) return { problem: 'there is no such file (the server answered with the page)' };
  return { bytes: new Uint8Array(await response.arrayBuffer()) };
}

export async function startLab(config: LabConfig, fromLink = false, options: InitOptions = {}): Promise<void> {
  useLab.setState({ config, autosave: options.autosave ?? true });
  const backend = await attempt('starting tfjs', () => trainer().init(Comlink.proxy(handleEvents), options));
  if (backend) useLab.setState({ backend });
  try {
    await loadShippedData(config.task.name);
    if (!backend) return;
    // A link that sets more than the task starts fresh with its own config (`#task=functions` alone still gets the shipped policy).
    const shipped = taskDefinition(config.task.name).shippedPolicy;
    if (!shipped || (fromLink && linkSetsMoreThanTask())) {
      if (shipped) useLab.setState({ checkpointNote: `${shipped.name} not loaded: the link sets its own configuration` });
      await configure(config);
    } else if (!(await loadShippedPolicy(config.task.name))) {
      await configure(config); // a server without the policy: a fresh run of the configuration
    }
  } catch (error) {
    reportError(`starting the lab: ${error instanceof Error ? error.message : String(error)}`);
  } finally {
    // Whatever failed after tfjs started was said: the page's controls (Open, Resume, a dataset to drop) stay usable.
    if (backend) useLab.setState({ started: true });
  }
}

/** Whether the link's hash sets any field besides the task. */
function linkSetsMoreThanTask(): boolean {
  return window.location.hash.slice(1).split('&').filter(Boolean).some((pair) => pair.split('=')[0] !== 'task');
}

/** The address the page last wrote (writeLink): a change to another one is the user's (App's hashchange). */
let linkWritten: string | null = null;

/** Each task's shipped policy's own configuration as the link writes it, once loaded: its settings (its seed) are the task's start, not the user's. */
const shippedStarts = new Map<string, string>();

/**
 * Writes the run's configuration into the address, so that a reload opens the same run settings.
 * A run as a task's shipped policy made it is written as its task alone: a link that sets more
 * starts from fresh weights, and the page itself must not write one that loses the policy.
 */
export function writeLink(config: LabConfig = useLab.getState().config): void {
  const full = configToSearchParams(config, { page: true });
  linkWritten = shippedStarts.get(config.task.name) === full ? configToSearchParams(defaultConfig(config.task.name), { page: true }) : full;
  window.location.hash = linkWritten;
  useLab.setState({ linkEdited: false });
}

/** Whether the address now says what the page last wrote into it, or the live run's configuration. */
export function linkIsOurs(): boolean {
  const now = window.location.hash.slice(1);
  return now === linkWritten || now === configToSearchParams(useLab.getState().config, { page: true });
}
