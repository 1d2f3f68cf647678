/**
 * The page's one zustand store, split into typed slices (docs/architecture.md): run status, datasets,
 * config, metrics, samples, evaluations. Worker events call the module-level actions at the
 * bottom; components select the narrowest value they need.
 */
import { create } from 'zustand';
import { defaultConfig, type LabConfig } from '../core/config';
import type { MetricEvent, RunPhase, SampleRecord } from '../core/runnerTypes';
import type { BackendInfo, DatasetSummary, EvaluationRow, TrainerEvent } from '../worker/protocol';
import type { RunRecord } from '../worker/runStore';

/** Points kept per metric; older points are thinned (every other one dropped) past this. */
export const MAX_POINTS = 2000;

export interface MetricPoint {
  step: number;
  wallMs: number;
  value: number;
}

export interface BestProgram {
  itemIndex: number;
  program: string;
  bits: number;
  step: number;
}

export interface LabState {
  phase: RunPhase;
  message: string;
  backend: BackendInfo | null;
  errors: string[];
  progress: { task: string; done: number; total: number } | null;
  /** What happened to the default pretrained checkpoint at start (loaded, missing, refused). */
  checkpointNote: string;
  /** What the run's weights are (the worker says it whenever it changes); null until a run exists. */
  weights: { origin: string; trained: boolean; atStep: number } | null;
  step: number;
  stepsPerSecond: number;
  datasets: { train: DatasetSummary | null; heldout: DatasetSummary | null };
  config: LabConfig;
  /**
   * Points by metric name. A Map, not a plain object: a name such as `__proto__` or
   * `constructor` (an imported run may carry one) is a series like any other, not a member of
   * Object.prototype (with an object, `series[name].push` threw and the charts stopped).
   */
  series: Map<string, MetricPoint[]>;
  /** Bumped on every metrics batch, so charts re-render once per batch. */
  metricsVersion: number;
  /** Metrics the run reported without a value (NaN: an update with nothing to learn from), which a chart says when it has no point. */
  unvalued: ReadonlySet<string>;
  samples: SampleRecord[];
  best: Record<number, BestProgram>;
  evaluations: EvaluationRow[];
  /** Runs kept in this browser (runStore.ts), the newest first. */
  runs: RunRecord[];
  /** A run a reload or a crash interrupted, offered for resuming. */
  interruptedRun: RunRecord | null;
  /** The address was edited to another configuration than the run's (it opens on a reload). */
  linkEdited: boolean;
  /** Whether the page's start (backend, shipped datasets, default checkpoint) is done: a stored run resumed earlier would be replaced by it. */
  started: boolean;
  /** The browser's storage: bytes used and allowed (null when it does not say). */
  storage: { usage: number; quota: number } | null;
  /** Why runs are not kept (no IndexedDB), or ''. */
  runsNote: string;
  /** Whether the live run is saved as it trains (persistence.ts). */
  autosave: boolean;
  /** The stored run the live one saves to, and the step of a save under way. */
  currentRun: string | null;
  savingStep: number | null;
  /** Stored runs drawn beside the live one on every chart. */
  compared: ComparedRun[];
  /** Configurations being applied (Apply, a file of another task): while above 0, the run is about to be replaced. */
  configuring: number;
}

/** A stored run drawn on the charts beside the live one. */
export interface ComparedRun {
  id: string;
  name: string;
  series: Map<string, MetricPoint[]>;
}

export const initialState = (): LabState => ({
  phase: 'idle',
  message: 'starting',
  backend: null,
  errors: [],
  progress: null,
  checkpointNote: '',
  weights: null,
  step: 0,
  stepsPerSecond: 0,
  datasets: { train: null, heldout: null },
  config: defaultConfig(),
  series: new Map(),
  unvalued: new Set(),
  metricsVersion: 0,
  samples: [],
  best: {},
  evaluations: [],
  runs: [],
  interruptedRun: null,
  linkEdited: false,
  started: false,
  storage: null,
  runsNote: '',
  autosave: true,
  currentRun: null,
  savingStep: null,
  compared: [],
  configuring: 0,
});

export const useLab = create<LabState>()(() => initialState());

/** Every other point dropped (the last kept) until at most MAX_POINTS are left: a stored run of 10,000 points loads as 1,250, not 5,000. */
export function thin(points: MetricPoint[]): MetricPoint[] {
  while (points.length > MAX_POINTS) points = points.filter((_, i) => i % 2 === 0 || i === points.length - 1);
  return points;
}

/** Charts redraw at most this often: often enough to watch, rarely enough to never jank. */
export const CHART_INTERVAL_MS = 1000;
let pendingMetrics: MetricEvent[] = [];
let metricsTimer: ReturnType<typeof setTimeout> | null = null;

/** Buffers metric events and commits them to the store once per CHART_INTERVAL_MS. */
export function queueMetrics(events: readonly MetricEvent[]): void {
  pendingMetrics.push(...events);
  metricsTimer ??= setTimeout(() => {
    metricsTimer = null;
    const batch = pendingMetrics;
    pendingMetrics = [];
    appendMetrics(batch);
  }, CHART_INTERVAL_MS);
}

/** `series` with `events` appended: a new array for each metric that grew, the others as they were. */
export function grownSeries(series: ReadonlyMap<string, MetricPoint[]>, events: readonly MetricEvent[]): Map<string, MetricPoint[]> {
  const grown = new Map<string, MetricPoint[]>();
  for (const event of events) {
    if (!Number.isFinite(event.value)) continue; // no NaN or Infinity reaches a chart
    let points = grown.get(event.name);
    if (!points) grown.set(event.name, (points = [...(series.get(event.name) ?? [])]));
    points.push({ step: event.step, wallMs: event.wallMs, value: event.value });
  }
  const next = new Map(series);
  for (const [name, points] of grown) next.set(name, thin(points));
  return next;
}

export function appendMetrics(events: readonly MetricEvent[]): void {
  useLab.setState((state) => {
    // A new set only when a name joins it, so the charts that read it redraw rarely.
    const joining = events.filter((e) => !Number.isFinite(e.value) && !state.unvalued.has(e.name)).map((e) => e.name);
    return { series: grownSeries(state.series, events), metricsVersion: state.metricsVersion + 1, ...(joining.length ? { unvalued: new Set([...state.unvalued, ...joining]) } : {}) };
  });
}

/** The run went back to `step` (a lost GPU device): points, samples and evaluation rows of later steps go. */
export function rollbackTo(step: number): void {
  pendingMetrics = pendingMetrics.filter((e) => e.step <= step);
  useLab.setState((state) => {
    const series = new Map<string, MetricPoint[]>();
    for (const [name, points] of state.series) series.set(name, points.filter((p) => p.step <= step));
    const best = Object.fromEntries(Object.entries(state.best).filter(([, program]) => program.step <= step));
    return { series, metricsVersion: state.metricsVersion + 1, step, samples: [], best, evaluations: state.evaluations.filter((r) => r.step <= step) };
  });
}

export function recordSamples(samples: readonly SampleRecord[]): void {
  useLab.setState((state) => {
    // Copied only when a sequence gets a shorter program: after a long run it holds thousands.
    let best = state.best;
    for (const sample of samples) {
      if (!(sample.correct ?? sample.outcome === 'ok')) continue;
      const known = best[sample.itemIndex];
      if (known && sample.bits >= known.bits) continue;
      if (best === state.best) best = { ...best };
      best[sample.itemIndex] = { itemIndex: sample.itemIndex, program: sample.program, bits: sample.bits, step: sample.step };
    }
    return { samples: [...samples], best };
  });
}

export function reportError(message: string): void {
  useLab.setState((state) => ({ errors: [...state.errors.slice(-9), message] }));
}

/** Rows whose items are kept: the latest row's items are listed (Samples), and two before it stand in after a rollback drops it. */
const ROWS_WITH_ITEMS = 3;

/**
 * `rows` with the items of all but the last ROWS_WITH_ITEMS rows that have them dropped (their
 * figures stay): a long run's periodic evaluations had held evalSamples records each for good.
 */
export function keptItems(rows: EvaluationRow[]): EvaluationRow[] {
  let kept = 0;
  return [...rows]
    .reverse()
    .map((row) => (row.items === undefined ? row : ++kept <= ROWS_WITH_ITEMS ? row : (({ items: _, ...rest }) => rest)(row)))
    .reverse();
}

export function handleEvents(events: readonly TrainerEvent[]): void {
  const metrics: MetricEvent[] = [];
  for (const event of events) {
    switch (event.type) {
      case 'phase':
        // Steps per second are a training figure: shown while it trains, not left standing after.
        useLab.setState(event.phase === 'training' ? { phase: event.phase, message: event.message, progress: null } : { phase: event.phase, message: event.message, progress: null, stepsPerSecond: 0 });
        break;
      case 'metrics':
        metrics.push(...event.events);
        break;
      case 'samples':
        recordSamples(event.samples);
        break;
      case 'progress':
        useLab.setState({ progress: { task: event.task, done: event.done, total: event.total } });
        break;
      case 'evaluation':
        useLab.setState((state) => ({ evaluations: keptItems([...state.evaluations, event.row]) }));
        break;
      case 'step':
        useLab.setState({ step: event.step, stepsPerSecond: event.stepsPerSecond });
        break;
      case 'error':
        reportError(event.message);
        break;
      case 'weights':
        useLab.setState({ weights: { origin: event.origin, trained: event.trained, atStep: event.atStep } });
        break;
      case 'runs':
        useLab.setState({
          runs: event.runs,
          storage: event.storage,
          currentRun: event.current,
          savingStep: event.saving,
          ...(event.interrupted !== undefined ? { interruptedRun: event.interrupted } : {}),
          ...(event.note ? { runsNote: event.note } : {}),
        });
        break;
      case 'rollback':
        if (metrics.length) queueMetrics(metrics.splice(0));
        rollbackTo(event.step);
        break;
      case 'newRun':
        // The old run's figures still waiting go with it; the new run's, after this event, stay.
        metrics.length = 0;
        resetMetrics();
        break;
    }
  }
  if (metrics.length) queueMetrics(metrics);
}

export function resetMetrics(): void {
  pendingMetrics = [];
  // The held-out rows are the old run's too (a new run after Apply showed the last run's "after RL" row beside its own).
  useLab.setState({ series: new Map(), unvalued: new Set(), metricsVersion: 0, samples: [], best: {}, step: 0, stepsPerSecond: 0, evaluations: [] });
}

/** Exponential moving average as TensorBoard smooths (debiased), weight in [0, 1). */
export function smooth(points: readonly MetricPoint[], weight: number): MetricPoint[] {
  if (weight <= 0) return [...points];
  let last = 0;
  let count = 0;
  return points.map((point) => {
    last = last * weight + (1 - weight) * point.value;
    count += 1;
    return { ...point, value: last / (1 - weight ** count) };
  });
}

/** The live run's series, and the compared runs' beside it, as one CSV: run, step, wall_ms, name, value. */
/** The live run and the compared ones as one CSV: a run by its name and its id (two saved runs may share a name). */
export function metricsToCsv(series: ReadonlyMap<string, MetricPoint[]>, compared: readonly ComparedRun[] = []): string {
  const rows = ['run,run_id,step,wall_ms,name,value'];
  const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  for (const [run, id, runSeries] of [['live', 'live', series] as const, ...compared.map((c) => [c.name, c.id, c.series] as const)]) {
    for (const [name, points] of runSeries) for (const p of points) rows.push(`${quote(run)},${quote(id)},${p.step},${p.wallMs.toFixed(0)},${quote(name)},${p.value}`);
  }
  return rows.join('\n') + '\n';
}

export function metricsToJsonl(series: ReadonlyMap<string, MetricPoint[]>): string {
  const rows: string[] = [];
  for (const [name, points] of series) for (const p of points) rows.push(JSON.stringify({ step: p.step, name, value: p.value, wallMs: p.wallMs }));
  return rows.join('\n') + '\n';
}
