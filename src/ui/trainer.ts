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

export async function startLab(config: LabConfig): Promise<void> {
  useLab.setState({ config });
  const backend = await attempt('starting tfjs', () => trainer().init(Comlink.proxy(handleEvents)));
  if (backend) useLab.setState({ backend });
  await loadShipped('heldout.jsonl');
  await loadShipped('train.jsonl');
}
