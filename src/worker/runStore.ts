/**
 * Runs kept in the browser (IndexedDB through `idb`), so a reload, a crash or a closed tab loses
 * nothing past the last save: per run its config, its metric events, its evaluation rows and
 * latest samples, its latest checkpoint, and the KL reference it drifts from. The trainer worker
 * owns the store (savedRuns.ts): the bytes never cross to the page, and no write costs the page's
 * main thread anything.
 *
 * A save is one IndexedDB transaction: the new checkpoint replaces the previous one, the events
 * and rows since the last save are appended and the run's record moves to the new step, all or
 * nothing. A tab closed in the middle of a save leaves the previous checkpoint and its metrics as
 * they were. A run's record is first written with its first checkpoint: no empty runs.
 *
 * A run not stopped when the page opens was interrupted (a reload, a crash, a closed tab).
 */
import type { RunProvenance } from './provenance';
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction } from 'idb';
import type { LabConfig } from '../core/config';
import type { EvaluationRow, MetricEvent, SampleRecord } from '../core/runnerTypes';

export interface RunRecord {
  id: string;
  name: string;
  task: string;
  algorithm: string;
  config: LabConfig;
  /** The step of the saved checkpoint (0 before the first save). */
  step: number;
  /** Supervised steps the page's Pretrain gave its weights (a pretraining run is saved at step 0 with them). */
  pretrainSteps?: number;
  /** The best value of the run's headline figure so far (held-out accuracy, or solved share). */
  best: number | null;
  /** The search that figure was measured with (greedy, best-of-8, ...). */
  bestSearch?: string | null;
  /** Milliseconds of training up to the saved step. */
  wallMs?: number;
  status: 'training' | 'paused' | 'stopped';
  createdAt: number;
  updatedAt: number;
  /** Metric chunks saved (the next chunk's number). */
  chunks: number;
  /** Bytes of the latest checkpoint, and of the KL reference when the run has one. */
  checkpointBytes: number;
  referenceBytes: number;
  /**
   * The KL reference is the stored checkpoint itself (Pretrain's saves: its weights are the start
   * RL drifts from), kept once; a later save of other weights first writes it to its own place.
   */
  referenceIsCheckpoint?: boolean;
  /** The run's record: code, backend, and the files it read with their sha256 (provenance.ts). */
  provenance?: RunProvenance;
}

/** What one save adds to a run. */
export interface RunSave {
  step: number;
  bytes: Uint8Array;
  status: RunRecord['status'];
  /** Pretraining steps in the checkpoint's weights (kept once given). */
  pretrainSteps?: number;
  /** Training time up to the save when no event says it (Pretrain's, whose curves are not stored). */
  wallMs?: number;
  /** Metric events since the last save. */
  events: readonly MetricEvent[];
  /** Evaluation rows since the last save. */
  evaluations?: readonly EvaluationRow[];
  /** The latest samples (replace the stored ones when given). */
  samples?: readonly SampleRecord[];
  best?: number | null;
  bestSearch?: string | null;
  /** The KL reference's weights: written once, with the run's first save. */
  reference?: Uint8Array;
  provenance?: RunProvenance;
}

/** A stored run, whole. */
export interface StoredRun {
  run: RunRecord;
  bytes: Uint8Array | null;
  reference: Uint8Array | null;
  events: MetricEvent[];
  evaluations: EvaluationRow[];
  samples: SampleRecord[];
}

interface MetricChunk {
  runId: string;
  chunk: number;
  events: MetricEvent[];
  evaluations?: EvaluationRow[];
  samples?: SampleRecord[];
}

interface LabDb extends DBSchema {
  runs: { key: string; value: RunRecord; indexes: { updatedAt: number } };
  checkpoints: { key: string; value: { runId: string; step: number; bytes: Uint8Array } };
  metrics: { key: [string, number]; value: MetricChunk };
  references: { key: string; value: { runId: string; bytes: Uint8Array } };
}

export const DB_NAME = 'program-rl-lab';

/** A write IndexedDB refused (or would refuse) for want of space, said so. */
export class StorageFullError extends Error {
  override name = 'StorageFullError';
}

const isQuotaError = (error: unknown) => error instanceof DOMException && (error.name === 'QuotaExceededError' || error.name === 'NS_ERROR_DOM_QUOTA_REACHED');

type Stores = ('runs' | 'checkpoints' | 'metrics' | 'references')[];
const ALL: Stores = ['runs', 'checkpoints', 'metrics', 'references'];

/** Whether a run was left unfinished (not stopped) with a checkpoint of some training: a reload, a crash or a closed tab interrupted it. */
export const isInterrupted = (run: RunRecord): boolean => run.status !== 'stopped' && (run.step > 0 || (run.pretrainSteps ?? 0) > 0);

/** A new run's record for `config`, not yet written (its first save writes it). */
export function newRunRecord(config: LabConfig, name?: string): RunRecord {
  const now = Date.now();
  return {
    id: `${now.toString(36)}-${Math.random().toString(36).slice(2, 8)}`,
    name: name ?? `${config.task.name} ${config.algorithm.name} ${new Date(now).toISOString().slice(0, 16).replace('T', ' ')}`,
    task: config.task.name,
    algorithm: config.algorithm.name,
    config,
    step: 0,
    best: null,
    status: 'training',
    createdAt: now,
    updatedAt: now,
    chunks: 0,
    checkpointBytes: 0,
    referenceBytes: 0,
  };
}

export class RunStore {
  private constructor(private readonly db: IDBPDatabase<LabDb>) {}

  static async open(name = DB_NAME): Promise<RunStore> {
    const db = await openDB<LabDb>(name, 2, {
      upgrade(database, oldVersion) {
        if (oldVersion < 1) {
          database.createObjectStore('runs', { keyPath: 'id' }).createIndex('updatedAt', 'updatedAt');
          database.createObjectStore('checkpoints', { keyPath: 'runId' });
          database.createObjectStore('metrics', { keyPath: ['runId', 'chunk'] });
        }
        if (oldVersion < 2) database.createObjectStore('references', { keyPath: 'runId' });
      },
    });
    return new RunStore(db);
  }

  /** Runs, the most recently saved first. */
  async list(): Promise<RunRecord[]> {
    return (await this.db.getAllFromIndex('runs', 'updatedAt')).reverse();
  }

  get(id: string): Promise<RunRecord | undefined> {
    return this.db.get('runs', id);
  }

  /**
   * Saves a checkpoint of `run` with what came since the last save, atomically: the previous
   * checkpoint stays until this one is written. The first save of a run writes its record.
   * Throws StorageFullError when the quota is spent. `holdOpenMs` keeps the transaction open
   * that long before it commits (the e2e test that closes the page in the middle of a save).
   */
  async save(run: RunRecord, update: RunSave, holdOpenMs = 0): Promise<RunRecord> {
    let tx: IDBPTransaction<LabDb, Stores, 'readwrite'> | undefined;
    try {
      tx = this.db.transaction(ALL, 'readwrite');
      const stored = (await tx.objectStore('runs').get(run.id)) ?? { ...run, chunks: 0 };
      const extra = Boolean(update.events.length || update.evaluations?.length || update.samples);
      const shared = update.reference ? sameBytes(update.reference, update.bytes) : false;
      // A reference held in the checkpoint's place moves to its own before new weights replace it.
      if (!update.reference && stored.referenceIsCheckpoint) {
        const held = await tx.objectStore('checkpoints').get(run.id);
        if (held) await tx.objectStore('references').put({ runId: run.id, bytes: held.bytes });
      }
      const next: RunRecord = {
        ...stored,
        step: update.step,
        status: update.status,
        updatedAt: Date.now(),
        chunks: stored.chunks + (extra ? 1 : 0),
        best: update.best ?? stored.best,
        bestSearch: update.bestSearch ?? stored.bestSearch ?? null,
        wallMs: update.events.reduce((most, event) => Math.max(most, event.wallMs), Math.max(stored.wallMs ?? 0, update.wallMs ?? 0)),
        checkpointBytes: update.bytes.byteLength,
        referenceBytes: update.reference ? update.reference.byteLength : stored.referenceBytes,
        referenceIsCheckpoint: shared,
        ...(update.provenance ?? stored.provenance ? { provenance: update.provenance ?? stored.provenance } : {}),
        ...(update.pretrainSteps ?? stored.pretrainSteps ? { pretrainSteps: update.pretrainSteps ?? stored.pretrainSteps } : {}),
      };
      await tx.objectStore('checkpoints').put({ runId: run.id, step: update.step, bytes: update.bytes });
      if (shared) await tx.objectStore('references').delete(run.id);
      else if (update.reference) await tx.objectStore('references').put({ runId: run.id, bytes: update.reference });
      if (extra) {
        const chunk: MetricChunk = { runId: run.id, chunk: stored.chunks, events: [...update.events] };
        if (update.evaluations?.length) chunk.evaluations = [...update.evaluations];
        if (update.samples) chunk.samples = [...update.samples];
        await tx.objectStore('metrics').put(chunk);
      }
      // Requests keep a transaction alive; with none pending it commits.
      for (const until = Date.now() + holdOpenMs; Date.now() < until; ) await tx.objectStore('runs').count();
      await tx.objectStore('runs').put(next);
      await tx.done;
      return next;
    } catch (error) {
      // Nothing of a failed save may land: whatever was queued goes with the transaction.
      try {
        tx?.done.catch(() => undefined); // its rejection (AbortError) is this error's echo
        tx?.abort();
      } catch {
        // already finished or aborted
      }
      if (isQuotaError(error) || isQuotaError((error as { cause?: unknown }).cause) || isQuotaError(tx?.error)) {
        throw new StorageFullError('the browser\'s storage for this page is full: the checkpoint was not saved (the previous one stays); delete old runs in the run list');
      }
      throw error;
    }
  }

  /** Marks a run paused or stopped (or training again) without a new checkpoint. */
  async setStatus(id: string, status: RunRecord['status']): Promise<void> {
    const run = await this.db.get('runs', id);
    if (run) await this.db.put('runs', { ...run, status, updatedAt: Date.now() });
  }

  async rename(id: string, name: string): Promise<void> {
    const run = await this.db.get('runs', id);
    if (!run) throw new Error(`no run ${id}`);
    if (!name.trim()) throw new Error('a run needs a name');
    await this.db.put('runs', { ...run, name: name.trim() });
  }

  /** Deletes a run with its checkpoint, reference and metrics. */
  async delete(id: string): Promise<void> {
    const tx = this.db.transaction(ALL, 'readwrite');
    await tx.objectStore('runs').delete(id);
    await tx.objectStore('checkpoints').delete(id);
    await tx.objectStore('references').delete(id);
    await tx.objectStore('metrics').delete(IDBKeyRange.bound([id, 0], [id, Infinity]));
    await tx.done;
  }

  /** A run's metric chunks in order, up to its checkpoint's step (later ones were never committed with a checkpoint). */
  private async chunks(id: string, step: number): Promise<MetricChunk[]> {
    const chunks = await this.db.getAll('metrics', IDBKeyRange.bound([id, 0], [id, Infinity]));
    return chunks
      .sort((a, b) => a.chunk - b.chunk)
      .map((c) => ({ ...c, events: c.events.filter((e) => e.step <= step), evaluations: c.evaluations?.filter((r) => r.step <= step) }));
  }

  /** A run with its checkpoint, reference, metric events, evaluation rows and latest samples. */
  async load(id: string): Promise<StoredRun> {
    const run = await this.db.get('runs', id);
    if (!run) throw new Error(`no run ${id} in this browser's storage`);
    const checkpoint = await this.db.get('checkpoints', id);
    const reference = run.referenceIsCheckpoint ? checkpoint : await this.db.get('references', id);
    const chunks = await this.chunks(id, checkpoint?.step ?? 0);
    return {
      run,
      bytes: checkpoint?.bytes ?? null,
      reference: reference?.bytes ?? null,
      events: chunks.flatMap((c) => c.events),
      evaluations: chunks.flatMap((c) => c.evaluations ?? []),
      samples: chunks.findLast((c) => c.samples)?.samples ?? [],
    };
  }

  /** A run's metric events alone (to draw it beside another). */
  async events(id: string): Promise<{ run: RunRecord; events: MetricEvent[] }> {
    const run = await this.db.get('runs', id);
    if (!run) throw new Error(`no run ${id} in this browser's storage`);
    return { run, events: (await this.chunks(id, run.step)).flatMap((c) => c.events) };
  }

  /** The run a reload, a crash or a closed tab interrupted: the newest not stopped. */
  async interrupted(): Promise<RunRecord | undefined> {
    return (await this.list()).find(isInterrupted);
  }

  close(): void {
    this.db.close();
  }
}

/** Bytes used and available to the page, when the browser says (navigator.storage.estimate; in a worker too). */
export async function storageUsage(): Promise<{ usage: number; quota: number } | null> {
  if (typeof navigator === 'undefined' || !navigator.storage?.estimate) return null;
  const { usage = 0, quota = 0 } = await navigator.storage.estimate();
  return { usage, quota };
}

/** Whether two byte arrays hold the same bytes (the same array, most often). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.byteLength !== b.byteLength) return false;
  for (let i = 0; i < a.byteLength; i++) if (a[i] !== b[i]) return false;
  return true;
}
