/**
 * Runs kept in the browser (IndexedDB through `idb`), so a reload, a crash or a closed tab loses
 * nothing past the last save: per run its config, its metric events, and its latest checkpoint.
 *
 * A save is one IndexedDB transaction over the three stores: the new checkpoint replaces the
 * previous one, the metric events since the last save are appended and the run's record moves
 * to the new step, all or nothing. A tab closed in the middle of a save leaves the previous
 * checkpoint and its metrics as they were.
 *
 * A run not stopped when the page opens was interrupted (a reload, a crash, a closed tab).
 */
import { openDB, type DBSchema, type IDBPDatabase, type IDBPTransaction } from 'idb';
import type { LabConfig } from '../core/config';
import type { MetricEvent } from '../core/runnerTypes';

export interface RunRecord {
  id: string;
  name: string;
  task: string;
  algorithm: string;
  config: LabConfig;
  /** The step of the saved checkpoint (0 before the first save). */
  step: number;
  /** The best value of the run's headline figure so far (accuracy, or solved). */
  best: number | null;
  status: 'training' | 'paused' | 'stopped';
  createdAt: number;
  updatedAt: number;
  /** Metric chunks saved (the next chunk's number). */
  chunks: number;
}

interface LabDb extends DBSchema {
  runs: { key: string; value: RunRecord; indexes: { updatedAt: number } };
  checkpoints: { key: string; value: { runId: string; step: number; bytes: Uint8Array } };
  metrics: { key: [string, number]; value: { runId: string; chunk: number; events: MetricEvent[] } };
}

export const DB_NAME = 'program-rl-lab';

/** A write IndexedDB refused for want of space, said so. */
export class StorageFullError extends Error {
  override name = 'StorageFullError';
}

const isQuotaError = (error: unknown) => error instanceof DOMException && (error.name === 'QuotaExceededError' || error.name === 'NS_ERROR_DOM_QUOTA_REACHED');

export class RunStore {
  private constructor(private readonly db: IDBPDatabase<LabDb>) {}

  static async open(name = DB_NAME): Promise<RunStore> {
    const db = await openDB<LabDb>(name, 1, {
      upgrade(database) {
        database.createObjectStore('runs', { keyPath: 'id' }).createIndex('updatedAt', 'updatedAt');
        database.createObjectStore('checkpoints', { keyPath: 'runId' });
        database.createObjectStore('metrics', { keyPath: ['runId', 'chunk'] });
      },
    });
    return new RunStore(db);
  }

  /** A new run record (nothing saved yet). */
  async create(config: LabConfig, name?: string): Promise<RunRecord> {
    const now = Date.now();
    const run: RunRecord = {
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
    };
    await this.db.put('runs', run);
    return run;
  }

  /** Runs, the most recently saved first. */
  async list(): Promise<RunRecord[]> {
    return (await this.db.getAllFromIndex('runs', 'updatedAt')).reverse();
  }

  get(id: string): Promise<RunRecord | undefined> {
    return this.db.get('runs', id);
  }

  /**
   * Saves a checkpoint with the metric events since the last save, atomically: the previous
   * checkpoint stays until this one is written. Throws StorageFullError when the quota is spent.
   */
  async save(id: string, update: { step: number; bytes: Uint8Array; events: readonly MetricEvent[]; status: RunRecord['status']; best?: number | null }): Promise<RunRecord> {
    let tx: IDBPTransaction<LabDb, ('runs' | 'checkpoints' | 'metrics')[], 'readwrite'> | undefined;
    try {
      tx = this.db.transaction(['runs', 'checkpoints', 'metrics'], 'readwrite');
      const run = await tx.objectStore('runs').get(id);
      if (!run) throw new Error(`no run ${id} in this browser's storage`);
      const next: RunRecord = { ...run, step: update.step, status: update.status, updatedAt: Date.now(), chunks: run.chunks + (update.events.length ? 1 : 0), best: update.best ?? run.best };
      await tx.objectStore('checkpoints').put({ runId: id, step: update.step, bytes: update.bytes });
      if (update.events.length) await tx.objectStore('metrics').put({ runId: id, chunk: run.chunks, events: [...update.events] });
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
      if (isQuotaError(error) || isQuotaError((error as { cause?: unknown }).cause)) {
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

  /** Deletes a run with its checkpoint and metrics. */
  async delete(id: string): Promise<void> {
    const tx = this.db.transaction(['runs', 'checkpoints', 'metrics'], 'readwrite');
    await tx.objectStore('runs').delete(id);
    await tx.objectStore('checkpoints').delete(id);
    await tx.objectStore('metrics').delete(IDBKeyRange.bound([id, 0], [id, Infinity]));
    await tx.done;
  }

  /** A run with its checkpoint and its metric events up to the checkpoint's step (later ones were never committed with a checkpoint). */
  async load(id: string): Promise<{ run: RunRecord; bytes: Uint8Array | null; events: MetricEvent[] }> {
    const run = await this.db.get('runs', id);
    if (!run) throw new Error(`no run ${id} in this browser's storage`);
    const checkpoint = await this.db.get('checkpoints', id);
    const chunks = await this.db.getAll('metrics', IDBKeyRange.bound([id, 0], [id, Infinity]));
    const step = checkpoint?.step ?? 0;
    const events = chunks.sort((a, b) => a.chunk - b.chunk).flatMap((c) => c.events).filter((e) => e.step <= step);
    return { run, bytes: checkpoint?.bytes ?? null, events };
  }

  /** The run a reload, a crash or a closed tab interrupted: the newest not stopped that has a checkpoint. */
  async interrupted(): Promise<RunRecord | undefined> {
    return (await this.list()).find((run) => run.status !== 'stopped' && run.step > 0);
  }

  close(): void {
    this.db.close();
  }
}

/** Bytes used and available to the page, when the browser says (navigator.storage.estimate). */
export async function storageUsage(): Promise<{ usage: number; quota: number } | null> {
  if (typeof navigator === 'undefined' || !navigator.storage?.estimate) return null;
  const { usage = 0, quota = 0 } = await navigator.storage.estimate();
  return { usage, quota };
}
