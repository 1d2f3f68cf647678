/**
 * The page's handle on the trainer worker: one Comlink proxy, created once, with events routed
 * into the store. Components call these functions; none of them talks to the worker directly.
 */
import * as Comlink from 'comlink';
import type { LabConfig } from '../core/config';
import type { TrainerApi } from '../worker/protocol';
import { handleEvents, reportError, resetMetrics, useLab } from './store';
import trainUrl from '../../datasets/train.jsonl?url';
import heldoutUrl from '../../datasets/heldout.jsonl?url';
import sampleBadUrl from '../../datasets/sample-bad.jsonl?url';

export const shippedDatasets = [
  { name: 'train.jsonl', url: trainUrl, role: 'train' as const, doc: '10,000 synthetic sequences (generator seed 1)' },
  { name: 'heldout.jsonl', url: heldoutUrl, role: 'heldout' as const, doc: '500 held-out sequences (seed 2), evaluation only' },
  { name: 'sample-bad.jsonl', url: sampleBadUrl, role: 'train' as const, doc: 'a file with malformed lines, to see the error report' },
];

let api: Comlink.Remote<TrainerApi> | null = null;

export function trainer(): Comlink.Remote<TrainerApi> {
  if (!api) {
    const worker = new Worker(new URL('../worker/trainer.worker.ts', import.meta.url), { type: 'module', name: 'trainer' });
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
    reportError(`${label}: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

export async function loadDatasetFile(role: 'train' | 'heldout', name: string, file: Blob): Promise<void> {
  const summary = await attempt(`loading ${name}`, () => trainer().loadDataset(role, name, file));
  if (!summary) return;
  useLab.setState((state) => ({ datasets: { ...state.datasets, [role]: summary } }));
  if (role === 'train') await configure(useLab.getState().config);
}

export async function loadShipped(name: string): Promise<void> {
  const entry = shippedDatasets.find((d) => d.name === name);
  if (!entry) return;
  const response = await fetch(entry.url);
  await loadDatasetFile(entry.role, entry.name, await response.blob());
}

export async function configure(config: LabConfig): Promise<void> {
  useLab.setState({ config });
  resetMetrics();
  await attempt('configuring the run', () => trainer().configure(config));
}

/** Validates and loads checkpoint bytes in the worker (transferred), with the config inside it. */
export async function loadCheckpointBytes(bytes: Uint8Array, name: string, options: { source?: string; warmStart?: boolean } = {}): Promise<{ step: number; checkpointStep: number } | undefined> {
  try {
    const result = await trainer().loadCheckpoint(Comlink.transfer(bytes, [bytes.buffer]), { source: name, ...options });
    useLab.setState({ config: result.config, step: result.step });
    return result;
  } catch (error) {
    reportError(`${name} cannot be loaded: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  }
}

/** Served from public/ when someone ships one; its header carries its own config. */
export const pretrainedUrl = `${import.meta.env.BASE_URL}pretrained.prl`;

/** Why there is no usable checkpoint at `url`, or its bytes. */
async function fetchCheckpoint(url: string): Promise<{ bytes: Uint8Array } | { problem: string }> {
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

/**
 * Loads public/pretrained.prl if it exists, with its own config; a missing or bad file is said
 * in the status and the run starts fresh. A link that carries a config keeps that config.
 */
export async function loadDefaultCheckpoint(fromLink: boolean): Promise<void> {
  const note = (checkpointNote: string) => useLab.setState({ checkpointNote });
  if (fromLink) return note('pretrained checkpoint not loaded: the link sets its own configuration');
  const fetched = await fetchCheckpoint(pretrainedUrl);
  if ('problem' in fetched) return note(`no pretrained checkpoint at ${pretrainedUrl}: ${fetched.problem}; starting fresh`);
  const size = fetched.bytes.byteLength;
  // A warm start: RL from its weights at step 0, which are also the KL reference (the recipe's RL stage).
  const loaded = await loadCheckpointBytes(fetched.bytes, pretrainedUrl, { source: 'pretrained checkpoint', warmStart: true });
  note(loaded ? `loaded pretrained checkpoint, step ${loaded.checkpointStep} (${(size / 1024).toFixed(0)} KB)` : `${pretrainedUrl} was refused (see the error above); starting fresh`);
}

export async function startLab(config: LabConfig, fromLink = false): Promise<void> {
  useLab.setState({ config });
  const backend = await attempt('starting tfjs', () => trainer().init(Comlink.proxy(handleEvents)));
  if (backend) useLab.setState({ backend });
  await loadShipped('heldout.jsonl');
  await loadShipped('train.jsonl');
  if (backend) await loadDefaultCheckpoint(fromLink);
}
