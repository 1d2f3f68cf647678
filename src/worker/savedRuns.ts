/**
 * The live run kept in the browser as it trains, from inside the trainer worker: every
 * AUTOSAVE_EVERY steps and whenever it pauses or stops, its checkpoint with the metric events,
 * evaluation rows and samples since the last save go to the run store (runStore.ts) in one
 * transaction. The checkpoint is made between two steps; its write goes on while training does.
 * Nothing of it runs on the page's main thread: the page gets the run list as an event.
 *
 * Before a write the storage estimate is read, and a write that would not fit is not tried: the
 * user is told, the previous checkpoint stays, and the events wait for the next save that fits.
 *
 * A stored run is locked to the tab whose worker holds it (Web Locks, also in workers): another
 * tab may look at it, not resume it. A closed tab releases its locks.
 */
import type { RunProvenance } from './provenance';
import { decodeCheckpoint, modelDifference } from '../core/checkpoint';
import type { LabConfig } from '../core/config';
import type { EvaluationRow, MetricEvent, SampleRecord } from '../core/runnerTypes';
import type { TrainerEvent } from './protocol';
import { MAX_SAMPLES, RUN_FORMAT, evaluationRow as readEvaluationRow, parseRunFile, type RunFile } from './runFile';
import { RunStore, StorageFullError, isInterrupted, newRunRecord, storageUsage, type RunRecord, type StoredRun } from './runStore';

/** Steps between saves of the live run. */
export const AUTOSAVE_EVERY = 10;

/** What the storage would hold after a write of `bytes`, against its quota: whether it fits, and how full it then is. */
export function quotaCheck(usage: { usage: number; quota: number } | null, bytes: number): { fits: boolean; share: number } {
  if (!usage || usage.quota <= 0) return { fits: true, share: 0 };
  const after = usage.usage + bytes;
  return { fits: after <= usage.quota, share: after / usage.quota };
}

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;

/**
 * The largest checkpoint (one IndexedDB value) a run keeps in this browser: Chromium refuses a
 * value past 133,169,152 bytes with a raw "serialized keys and/or value are too large".
 */
export const MAX_STORED_CHECKPOINT_BYTES = 120 * 2 ** 20;

/** What a save carries besides the checkpoint: the KL reference, the run's record, and the pretraining steps in its weights. */
export interface SaveWith {
  reference?: Uint8Array;
  provenance?: RunProvenance;
  pretrainSteps?: number;
  /** Training time up to the save, when no metric event says it (Pretrain). */
  wallMs?: number;
}

/**
 * The stored run a live run saves into: its record (made at its first save) and the KL reference
 * written with it. A new run in the page gets a new one, so a save still in flight when it comes
 * lands in the run it was made for.
 */
interface SaveTarget {
  record: RunRecord | null;
  reference: Uint8Array | null;
}

export interface SavedRunsOptions {
  send(event: TrainerEvent, urgent?: boolean): void;
  /** The store's database (tests give each their own). */
  dbName?: string;
}

export class SavedRuns {
  /** Whether the live run is written to the store as it trains (the page's switch). */
  autosave = true;
  /** Keeps each save's transaction open this long (the e2e test that closes the page mid-save). */
  holdOpenMs = 0;
  /** The latest checkpoint made for saving, kept in memory (the run comes back to it when the GPU device is lost). */
  lastCheckpoint: { step: number; bytes: Uint8Array } | null = null;
  private store: RunStore | null = null;
  private opening: Promise<RunStore | null> | null = null;
  /** The stored run the live one saves to. */
  private target: SaveTarget = { record: null, reference: null };
  private releaseLock: (() => void) | null = null;
  private claimed: { id: string; release: () => void } | null = null;
  private unsaved: MetricEvent[] = [];
  private unsavedRows: EvaluationRow[] = [];
  private samples: SampleRecord[] | undefined;
  private best: number | null = null;
  private bestSearch: string | null = null;
  private lastSavedStep = 0;
  private lastStatus: RunRecord['status'] | null = null;
  /** Writes in order, one at a time. */
  private writing: Promise<void> = Promise.resolve();
  /** Run lists sent in order, one at a time (publish). */
  private publishing: Promise<void> = Promise.resolve();
  /** Set once the run interrupted before this page opened was offered. */
  private offered = false;
  private warnedFull = false;
  /** How saves are failing (said once), or null. */
  private failing: string | null = null;

  constructor(private readonly options: SavedRunsOptions) {}

  /** Sees every event the worker sends: the live run's metrics, evaluations and samples wait for the next save. */
  observe(event: TrainerEvent): void {
    // A warm start's figures count its own steps, which a stored run does not keep apart from RL's: its weights are kept, not its curves.
    if (event.type === 'metrics' && !event.pretraining) this.unsaved.push(...event.events);
    else if (event.type === 'samples') this.samples = event.samples;
    else if (event.type === 'evaluation') {
      this.unsavedRows.push(event.row);
      if (Number.isFinite(event.row.score) && event.row.score > (this.best ?? -Infinity)) {
        this.best = event.row.score;
        this.bestSearch = event.row.search;
      }
    }
  }

  /** A new run in the page (a new configuration, a loaded checkpoint): its first save starts a new stored run. */
  newRun(): void {
    // The run left behind keeps its lock until its queued writes are done (a delete elsewhere waits
    // for them); one left unfinished is not "interrupted": the page moved on from it.
    const left = this.target.record;
    const release = this.releaseLock;
    if (left && this.lastStatus !== null && this.lastStatus !== 'stopped') this.writing = this.writing.then(() => this.store?.setStatus(left.id, 'stopped')).catch(() => undefined);
    void this.writing.finally(() => release?.());
    this.releaseLock = null;
    this.target = { record: null, reference: null };
    this.unsaved = [];
    this.unsavedRows = [];
    this.samples = undefined;
    this.best = null;
    this.bestSearch = null;
    this.lastSavedStep = 0;
    this.lastStatus = null;
    this.lastCheckpoint = null;
  }

  /** Whether the run should be saved now: every AUTOSAVE_EVERY steps while training; on pause and stop. */
  due(step: number, status: RunRecord['status']): boolean {
    if (!this.autosave || step === 0) return false;
    if (status === 'training') return step % AUTOSAVE_EVERY === 0 && step !== this.lastSavedStep;
    return step !== this.lastSavedStep || status !== this.lastStatus;
  }

  /** Whether a save at `step` needs a new checkpoint (not only a new status). */
  needsCheckpoint(step: number): boolean {
    return step !== this.lastSavedStep || !this.target.record;
  }

  /**
   * Writes the run at `step` in the background (the caller made `bytes` between steps, or none
   * when only the status changed). Events sent so far are all of steps up to `step`.
   */
  save(status: RunRecord['status'], step: number, bytes: Uint8Array | null, config: LabConfig, with_: SaveWith = {}): Promise<void> {
    const target = this.target;
    const since = { events: this.unsaved, rows: this.unsavedRows, samples: this.samples, best: this.best, bestSearch: this.bestSearch };
    const { events, rows, samples } = since;
    this.unsaved = [];
    this.unsavedRows = [];
    this.samples = undefined;
    this.lastStatus = status;
    if (bytes) {
      this.lastSavedStep = step;
      this.lastCheckpoint = { step, bytes };
    }
    const restore = () => {
      if (target !== this.target) return; // the page made a new run meanwhile: these were the old one's
      // Nothing is lost when a save fails: its events wait for the next one.
      this.unsaved = [...events, ...this.unsaved];
      this.unsavedRows = [...rows, ...this.unsavedRows];
      this.samples ??= samples;
      if (bytes) this.lastSavedStep = this.target.record?.step ?? 0;
    };
    this.writing = this.writing.then(() => this.commit(target, status, step, bytes, config, with_, since, restore));
    return this.writing;
  }

  private async commit(
    target: SaveTarget,
    status: RunRecord['status'],
    step: number,
    bytes: Uint8Array | null,
    config: LabConfig,
    { reference, provenance, pretrainSteps, wallMs }: SaveWith,
    since: { events: MetricEvent[]; rows: EvaluationRow[]; samples?: SampleRecord[]; best: number | null; bestSearch: string | null },
    restore: () => void,
  ): Promise<void> {
    const store = await this.open();
    if (!store) return;
    if (!bytes) {
      // A status alone: the events and rows since the last checkpoint wait for the next one (they were dropped).
      if (since.events.length || since.rows.length) restore();
      if (target.record) await store.setStatus(target.record.id, status);
      return this.publish();
    }
    // A run deleted meanwhile (its last writes were queued when the page moved on) is not written back in part.
    if (target.record && !(await store.get(target.record.id))) return this.publish();
    const run = target.record ?? newRunRecord(config);
    // A fresh id, never held elsewhere; the lock is this tab's while the run is the live one.
    if (!target.record && target === this.target && !(await this.lock(run.id))) return;
    // A reference is written with the first save that has it, and again when it is another (a pretraining's, which moves with its weights).
    const withReference = reference && reference !== target.reference ? reference : undefined;
    // A reference equal to the checkpoint (Pretrain's) is held once; held so, it moves to a place of its own when other weights replace it (runStore.ts).
    const referenceBytes = withReference ? (withReference === bytes ? 0 : withReference.byteLength) : target.record?.referenceIsCheckpoint ? target.record.checkpointBytes : 0;
    const size = bytes.byteLength + referenceBytes + 64 * since.events.length + JSON.stringify(since.rows).length;
    const usage = await storageUsage();
    const room = quotaCheck(usage, size);
    if (!room.fits) {
      restore();
      if (this.failing !== 'quota') this.options.send({ type: 'error', message: `the run was not saved at step ${step}: its ${mb(size)} would not fit in this browser's storage (${mb(usage!.usage)} of ${mb(usage!.quota)} used); delete old runs in Saved runs${target.record ? `. The checkpoint of step ${target.record.step} stays` : ''}` }, true);
      this.failing = 'quota';
      return this.publish();
    }
    if (room.share > 0.9 && !this.warnedFull) {
      this.warnedFull = true;
      this.options.send({ type: 'error', message: `this browser's storage for the lab is ${(100 * room.share).toFixed(0)}% full (${mb(usage!.usage + size)} of ${mb(usage!.quota)}): delete old runs in Saved runs before saves fail` });
    }
    await this.publish(step); // sent before the write begins, so the page says "saving" in order
    try {
      target.record = await store.save(run, { step, bytes, status, events: since.events, evaluations: since.rows, samples: since.samples, best: since.best, bestSearch: since.bestSearch, reference: withReference, provenance, pretrainSteps, wallMs }, this.holdOpenMs);
      if (withReference) target.reference = withReference;
      this.failing = null;
    } catch (error) {
      restore();
      const text = error instanceof StorageFullError ? error.message : `saving the run in the browser: ${(error as Error).message}`;
      // Said once while saves keep failing the same way, not every AUTOSAVE_EVERY steps.
      if (text !== this.failing) this.options.send({ type: 'error', message: `step ${step}: ${text}` }, true);
      this.failing = text;
    }
    await this.publish();
  }

  /** Opens the store once (a failure says why in the run list); the first time, offers the run a reload interrupted. */
  open(): Promise<RunStore | null> {
    this.opening ??= RunStore.open(this.options.dbName).then(
      async (store) => {
        this.store = store;
        await this.publish();
        return store;
      },
      (error: Error) => {
        this.options.send({ type: 'runs', runs: [], storage: null, current: null, saving: null, note: `runs are not kept in this browser (${error.message})` });
        return null;
      },
    );
    return this.opening;
  }

  /** Sends the page the run list (and, once, the run a reload interrupted); `saving` names a save under way. */
  publish(saving: number | null = null): Promise<void> {
    // One at a time, in the order asked: each reads the list and the storage estimate with awaits
    // between, and two at once could send out of order, an autosave's list from before an import
    // arriving after the import's and leaving "Saved runs (1)" on the page (seen in CI).
    const next = this.publishing.then(() => this.sendList(saving));
    this.publishing = next.catch(() => undefined);
    return next;
  }

  private async sendList(saving: number | null): Promise<void> {
    const store = this.store;
    if (!store) return;
    const runs = await store.list();
    const event: TrainerEvent = { type: 'runs', runs, storage: await storageUsage(), current: this.target.record?.id ?? null, saving };
    if (!this.offered) {
      this.offered = true;
      // The newest run left unfinished, unless a tab holds it: that one is live there, not interrupted.
      const held = await heldLocks();
      event.interrupted = runs.find((run) => isInterrupted(run) && !held.has(lockName(run.id))) ?? null;
    }
    this.options.send(event, true);
  }

  /** Takes this tab's lock on a run: false when another tab holds it. */
  private async lock(id: string): Promise<boolean> {
    const release = await takeLock(id);
    if (!release) return false;
    this.releaseLock?.();
    this.releaseLock = release;
    return true;
  }

  /** A stored run to resume, locked to this tab (refused when another holds it); `adopt` or `unclaim` follows. */
  async claim(id: string): Promise<StoredRun & { bytes: Uint8Array }> {
    const store = await this.open();
    if (!store) throw new Error('runs are not kept in this browser');
    if (this.target.record?.id === id && this.releaseLock) {
      // This tab holds it already: the lock moves to the claim, so a new run in between keeps it.
      this.claimed = { id, release: this.releaseLock };
      this.releaseLock = null;
    } else {
      const release = await takeLock(id);
      if (!release) throw new Error('this run is open in another tab: close it there to resume it here');
      this.claimed = { id, release };
    }
    try {
      const stored = await store.load(id);
      if (!stored.bytes) throw new Error(`${stored.run.name} has no saved checkpoint`);
      return stored as StoredRun & { bytes: Uint8Array };
    } catch (error) {
      this.unclaim();
      throw error;
    }
  }

  unclaim(): void {
    this.claimed?.release();
    this.claimed = null;
  }

  /** The live run is now the stored one (after newRun: it saves on into it). */
  adopt(stored: StoredRun & { bytes: Uint8Array }): void {
    this.newRun();
    this.releaseLock = this.claimed?.release ?? null;
    this.claimed = null;
    this.target = { record: stored.run, reference: stored.reference };
    this.lastSavedStep = stored.run.step;
    this.lastStatus = stored.run.status;
    this.best = stored.run.best;
    this.bestSearch = stored.run.bestSearch ?? null;
    this.lastCheckpoint = { step: stored.run.step, bytes: stored.bytes };
    void this.publish();
  }

  /** Keeps a checkpoint in memory only (autosave off, on a GPU backend): the run comes back to it if the device is lost. */
  remember(step: number, bytes: Uint8Array): void {
    this.lastCheckpoint = { step, bytes };
  }

  /** The run went back to `step`: events of later steps it had not saved yet are void. */
  rollback(step: number): void {
    this.unsaved = this.unsaved.filter((e) => e.step <= step);
    this.unsavedRows = this.unsavedRows.filter((r) => r.step <= step);
    this.samples = undefined;
  }

  /** Waits for the writes under way. */
  settled(): Promise<void> {
    return this.writing;
  }

  async rename(id: string, name: string): Promise<void> {
    await (await this.requireStore()).rename(id, name);
    await this.publish();
  }

  async delete(id: string): Promise<void> {
    if (this.target.record?.id === id) this.newRun();
    // After the writes queued so far (a run the page just left may still be saving).
    await this.writing;
    // A run another tab holds (it is live there) is not deleted under it: its next save there
    // would write the run back without the metrics, evaluations and reference deleted here.
    const release = await takeLock(id);
    if (!release) throw new Error('this run is open in another tab: open another run there, or close it, to delete it here');
    try {
      await (await this.requireStore()).delete(id);
    } finally {
      release();
    }
    await this.publish();
  }

  /** One file with the run's config, metric events, evaluation rows, checkpoint and KL reference (base64): what a run is. */
  async export(id: string): Promise<Uint8Array> {
    const { run, bytes, reference, events, evaluations, samples } = await (await this.requireStore()).load(id);
    const file: RunFile = {
      format: RUN_FORMAT,
      version: 1,
      run,
      metrics: events.filter((event) => Number.isFinite(event.value)), // JSON has no NaN: a figure without a value is not drawn anyway
      evaluations: evaluations.map(({ items: _items, ...row }) => row),
      checkpoint: bytes ? toBase64(bytes) : null,
      reference: reference ? toBase64(reference) : null,
      samples: samples.slice(0, MAX_SAMPLES),
    };
    return new TextEncoder().encode(JSON.stringify(file));
  }

  /**
   * A run file (as `export` writes it, from this browser or another) stored as a new run,
   * stopped: its checkpoint is validated whole first, and a file that is no run file says why.
   */
  async import(text: string, name: string): Promise<RunRecord> {
    const file = parseRunFile(text, name);
    const bytes = fromBase64(file.checkpoint, `${name}: checkpoint`);
    const referenceBytes = file.reference ? Math.floor((file.reference.length * 3) / 4) : 0;
    // What the store can hold is checked before anything is decoded or written: a file past it
    // would otherwise end in IndexedDB's own raw refusal.
    for (const [what, size] of [['checkpoint', bytes.byteLength], ['KL reference', referenceBytes]] as const) {
      if (size > MAX_STORED_CHECKPOINT_BYTES) throw new Error(`${name}: its ${what} of ${mb(size)} is larger than the ${mb(MAX_STORED_CHECKPOINT_BYTES)} one record of this browser's storage may hold`);
    }
    const needed = bytes.byteLength + referenceBytes + text.length - file.checkpoint.length - (file.reference?.length ?? 0);
    const usage = await storageUsage();
    if (!quotaCheck(usage, needed).fits) throw new Error(`${name} needs ${mb(needed)} of this browser's storage, which has ${mb(usage!.quota - usage!.usage)} free: delete old runs in Saved runs first`);
    const { meta } = await decodeCheckpoint(bytes).catch((error: Error) => {
      throw new Error(`${name}: its checkpoint cannot be loaded (${error.message})`);
    });
    const reference = file.reference ? fromBase64(file.reference, `${name}: reference`) : undefined;
    if (reference) {
      const { meta: referenceMeta } = await decodeCheckpoint(reference).catch((error: Error) => {
        throw new Error(`${name}: its KL reference cannot be loaded (${error.message})`);
      });
      // A reference of another model would be refused only when the run is opened.
      const other = modelDifference(meta.config, referenceMeta.config);
      if (other) throw new Error(`${name}: its KL reference is of another model than its checkpoint (${other})`);
    }
    const run = { ...newRunRecord(meta.config, `${file.run.name} (imported)`), createdAt: file.run.createdAt ?? Date.now() };
    const events = file.metrics.filter((e) => e.step <= meta.step);
    let stored: RunRecord;
    try {
      stored = await (await this.requireStore()).save(run, {
        step: meta.step,
        bytes,
        status: 'stopped',
        events,
        evaluations: file.evaluations.filter((row) => row.step <= meta.step).map((row) => evaluationRow(row, meta.config.task.name)),
        samples: file.samples?.filter((sample) => sample.step <= meta.step),
        best: file.run.best ?? null,
        bestSearch: file.run.bestSearch ?? null,
        pretrainSteps: file.run.pretrainSteps,
        reference,
        provenance: file.run.provenance,
      });
    } catch (error) {
      throw new Error(`${name}: this browser's storage did not take it (${(error as Error).message})`);
    }
    await this.publish();
    return stored;
  }

  async events(id: string): Promise<{ run: RunRecord; events: MetricEvent[] }> {
    return (await this.requireStore()).events(id);
  }

  private async requireStore(): Promise<RunStore> {
    const store = await this.open();
    if (!store) throw new Error('runs are not kept in this browser');
    return store;
  }
}

export { RUN_FORMAT, parseRunFile } from './runFile';

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(text: string, what: string): Uint8Array {
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    throw new Error(`${what} is not base64`);
  }
}

const lockName = (id: string) => `program-rl-lab-run-${id}`;

/** The names of the Web Locks some tab of this origin holds now (none without Web Locks). */
async function heldLocks(): Promise<Set<string>> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  const held = (await locks?.query?.().catch(() => undefined))?.held ?? [];
  return new Set(held.map((lock) => lock.name ?? ''));
}

/** This tab's Web Lock on a run, held until the returned function is called; null when another tab holds it. */
async function takeLock(id: string): Promise<(() => void) | null> {
  const locks = (globalThis.navigator as Navigator | undefined)?.locks;
  if (!locks) return () => undefined; // no Web Locks: nothing to coordinate with
  return new Promise((granted) => {
    void locks.request(lockName(id), { ifAvailable: true }, (lock) => {
      if (!lock) {
        granted(null);
        return undefined;
      }
      return new Promise<void>((release) => granted(() => release()));
    });
  });
}

/** A stored row in today's shape, with its task filled in (rows written before the registries had another shape, and no task). */
export function evaluationRow(row: unknown, task: string): EvaluationRow {
  const read = readEvaluationRow(row, 'a stored evaluation row');
  return read.task ? read : { ...read, task };
}
