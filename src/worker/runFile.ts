/**
 * A downloaded run file (`.run.json`, SavedRuns.export) read back: every field is checked before
 * anything is stored (issue 29). A record that reaches the run store is drawn by the page (the
 * run list, the charts, the evaluation table), and one bad field there used to take the whole
 * page down on every reload: `run.best` as a string made the run list throw, a metric named
 * `__proto__` broke the charts' series. So the file's run, metric events and evaluation rows are
 * checked field by field, with a message that names the file and the field, and rows come back
 * in the form the page draws (a NaN figure, null in JSON, is NaN again).
 */
import type { MetricEvent, SampleRecord } from '../core/runnerTypes';
import { outcomeKinds, type OutcomeKind } from '../core/sandbox/outcome';
import type { EvaluationRow } from './protocol';
import type { RunProvenance } from './provenance';
import type { RunRecord } from './runStore';

export const RUN_FORMAT = 'program-rl-lab-run';

/** Whether a file's first bytes are a downloaded run's (SavedRuns.export writes its format first), whatever its name. */
export const isRunFileHead = (head: string): boolean => new RegExp(`^\\s*\\{\\s*"format"\\s*:\\s*"${RUN_FORMAT}"`).test(head);

/** What a downloaded run file holds (`SavedRuns.export`). */
export interface RunFile {
  format: typeof RUN_FORMAT;
  version: 1;
  run: Pick<RunRecord, 'name'> & Partial<RunRecord>;
  metrics: MetricEvent[];
  evaluations: EvaluationRow[];
  checkpoint: string | null;
  reference?: string | null;
  /** The run's latest samples (the page's "latest programs"); a file from before they were kept has none. */
  samples?: SampleRecord[];
}

/** The most samples a run file carries (the page keeps its latest 16). */
export const MAX_SAMPLES = 64;

/** A run's name as the list shows it. */
const MAX_NAME = 200;
/** Times after this (the year 2286) are not times a run was made. */
const MAX_TIME_MS = 1e13;

/**
 * Whether `name` can name a metric: 1 to 64 letters, digits and `_ / . - @`, and not a member
 * every object has (`__proto__`, `constructor`, `toString`, ...), which a plain object used as a
 * map would confuse with its own (the store keeps series in Maps, and this keeps such names out
 * of every file and store anyway).
 */
export function validMetricName(name: unknown): name is string {
  return typeof name === 'string' && /^[\w./@-]{1,64}$/.test(name) && name !== '__proto__' && !(name in Object.prototype);
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** Checks of one object's fields, each failure naming `where.field`. */
function fields(where: string, value: Record<string, unknown>) {
  const fail = (key: string, what: string): never => {
    throw new Error(`${where}.${key} ${what}`);
  };
  return {
    count: (key: string) => (isCount(value[key]) ? (value[key] as number) : fail(key, 'must be a whole number of at least 0')),
    /** A figure: a number, or null for NaN (JSON has no NaN: a digit row's KT figures are NaN). */
    figure: (key: string) => (typeof value[key] === 'number' ? (value[key] as number) : value[key] === null ? NaN : fail(key, 'must be a number')),
    text: (key: string, max = 100_000) => (typeof value[key] === 'string' && (value[key] as string).length <= max ? (value[key] as string) : fail(key, `must be text of at most ${max} characters`)),
    flag: (key: string) => (typeof value[key] === 'boolean' ? (value[key] as boolean) : fail(key, 'must be true or false')),
  };
}

/** One evaluation row, checked and in the form the evaluation table draws; `where` names it in errors. Rows of the shape before the registries are read too. */
export function evaluationRow(raw: unknown, where: string): EvaluationRow {
  if (!isObject(raw)) throw new Error(`${where} is not an evaluation row`);
  const f = fields(where, raw);
  if (!isObject(raw.metrics)) return oldEvaluationRow(raw, where);
  const metrics: Record<string, number> = {};
  for (const name of Object.keys(raw.metrics)) {
    if (!validMetricName(name)) throw new Error(`${where}.metrics has a name that is no metric name: ${JSON.stringify(name).slice(0, 40)}`);
    metrics[name] = fields(`${where}.metrics`, raw.metrics).figure(name);
  }
  const row: EvaluationRow = { label: f.text('label', 500), step: f.count('step'), task: f.text('task', 100), search: f.text('search', 200), k: f.count('k'), n: f.count('n'), score: f.figure('score'), metrics };
  if (raw.items !== undefined) {
    if (!Array.isArray(raw.items)) throw new Error(`${where}.items must be a list`);
    row.items = raw.items.map((item, i) => {
      const at = `${where}.items[${i}]`;
      if (!isObject(item)) throw new Error(`${at} is not an evaluated item`);
      const g = fields(at, item);
      return { index: g.count('index'), target: g.text('target'), output: item.output === null ? null : g.text('output'), program: g.text('program'), correct: g.flag('correct'), detail: g.text('detail') };
    });
  }
  return row;
}

/**
 * A row written before the registries: the Kolmogorov figures as fields of their own
 * (accuracy, compressionRate, ...; NaN as null for a digit row), the functions figures under
 * `functions`; read into today's shape (its task is filled in from the run's checkpoint).
 */
function oldEvaluationRow(raw: Record<string, unknown>, where: string): EvaluationRow {
  const f = fields(where, raw);
  const metrics: Record<string, number> = {};
  const put = (name: string, key: string, from = raw) => {
    if (from[key] === undefined) return;
    const value = fields(where, from).figure(key);
    if (Number.isFinite(value)) metrics[name] = value;
  };
  const functions = raw.functions;
  if (functions !== undefined && !isObject(functions)) throw new Error(`${where}.functions must be an object`);
  put(functions ? 'solved' : 'accuracy', 'accuracy');
  put('compression_rate', 'compressionRate');
  put('precision', 'precision');
  put('format_compliance', 'formatCompliance');
  if (functions) {
    put('pass_at_1', 'passAt1', functions);
    put('success_rate', 'successRate', functions);
  }
  const label = f.text('label', 500);
  return { label, step: f.count('step'), task: '', search: label.split(' @ ')[0], k: f.count('k'), n: f.count('n'), score: f.figure('accuracy'), metrics };
}

/** A list of integers (a target or an output), checked. */
function integers(value: unknown, where: string): number[] {
  if (!Array.isArray(value) || value.length > 100_000 || !value.every((v) => Number.isSafeInteger(v))) throw new Error(`${where} must be a list of whole numbers`);
  return value as number[];
}

/** One sample (a program the run wrote, with how it did), checked: the page draws each of its fields. */
function sampleRecord(raw: unknown, where: string): SampleRecord {
  if (!isObject(raw)) throw new Error(`${where} is not a sample`);
  const f = fields(where, raw);
  if (!outcomeKinds.includes(raw.outcome as OutcomeKind)) throw new Error(`${where}.outcome must be one of ${outcomeKinds.join(', ')}`);
  const sample: SampleRecord = { step: f.count('step'), itemIndex: f.count('itemIndex'), target: integers(raw.target, `${where}.target`), program: f.text('program'), outcome: raw.outcome as OutcomeKind, reward: f.figure('reward'), bits: f.figure('bits') };
  if (raw.output !== undefined) sample.output = integers(raw.output, `${where}.output`);
  if (raw.correct !== undefined) sample.correct = f.flag('correct');
  if (raw.label !== undefined) sample.label = f.text('label', 10_000);
  if (raw.detail !== undefined) sample.detail = f.text('detail', 1_000);
  if (raw.advantage !== undefined) sample.advantage = f.figure('advantage');
  if (raw.rewardParts !== undefined) {
    if (!isObject(raw.rewardParts)) throw new Error(`${where}.rewardParts must be an object`);
    const parts = raw.rewardParts;
    sample.rewardParts = Object.fromEntries(Object.keys(parts).map((name) => {
      if (!validMetricName(name)) throw new Error(`${where}.rewardParts has a name that is no metric name`);
      return [name, fields(`${where}.rewardParts`, parts).figure(name)];
    }));
  }
  return sample;
}

/** One metric event, checked: a step and wall time the charts can place, a finite value, a metric name. */
function metricEvent(raw: unknown, where: string): MetricEvent {
  if (!isObject(raw) || !['step', 'name', 'value', 'wallMs'].every((key) => Object.hasOwn(raw, key))) throw new Error(`${where} is not a metric event ({step, name, value, wallMs})`);
  const f = fields(where, raw);
  const step = f.count('step');
  if (!validMetricName(raw.name)) throw new Error(`${where}.name must be a metric name (letters, digits, _ / . - @; not ${JSON.stringify(raw.name)?.slice(0, 40)})`);
  if (typeof raw.value !== 'number' || !Number.isFinite(raw.value)) throw new Error(`${where}.value must be a finite number`);
  if (typeof raw.wallMs !== 'number' || !(raw.wallMs >= 0) || !Number.isFinite(raw.wallMs)) throw new Error(`${where}.wallMs must be a time of at least 0 ms`);
  return { step, name: raw.name, value: raw.value, wallMs: raw.wallMs };
}

/** A run file's fields checked one by one; the error names the file and the field. */
/** A run's record (provenance.ts), checked field by field. */
function runProvenance(raw: unknown): RunProvenance {
  if (!isObject(raw)) throw new Error('run.provenance must be an object');
  const code = raw.code;
  if (!isObject(code) || typeof code.version !== 'string' || typeof code.build !== 'string') throw new Error('run.provenance.code must hold a version and a build');
  if (typeof raw.backend !== 'string') throw new Error('run.provenance.backend must be text');
  if (!Array.isArray(raw.files) || raw.files.length > 16) throw new Error('run.provenance.files must be a list of at most 16 files');
  const files = raw.files.map((entry, i) => {
    if (!isObject(entry)) throw new Error(`run.provenance.files[${i}] must be an object`);
    const f = fields(`run.provenance.files[${i}]`, entry);
    const sha256 = f.text('sha256', 64);
    if (!/^[0-9a-f]{64}$/.test(sha256)) throw new Error(`run.provenance.files[${i}].sha256 must be 64 hex digits`);
    return { role: f.text('role', 40), name: f.text('name', 500), sha256, bytes: f.count('bytes'), ...(entry.loaded !== undefined ? { loaded: f.count('loaded') } : {}), ...(entry.rejected !== undefined ? { rejected: f.count('rejected') } : {}) };
  });
  return { code: { version: code.version.slice(0, 100), build: code.build.slice(0, 100) }, backend: raw.backend.slice(0, 40), files };
}

export function parseRunFile(text: string, name: string): RunFile & { checkpoint: string } {
  let file: unknown;
  try {
    file = JSON.parse(text);
  } catch (error) {
    throw new Error(`${name} is not a run file: it is not JSON (${(error as Error).message})`);
  }
  const f = file as Partial<RunFile>;
  if (!isObject(file) || f.format !== RUN_FORMAT) throw new Error(`${name} is not a run file: its "format" is not "${RUN_FORMAT}" (download one from Saved runs)`);
  if (f.version !== 1) throw new Error(`${name}: run file version ${String(f.version)} is not one this lab reads (1)`);
  try {
    const run = f.run as unknown;
    if (!isObject(run)) throw new Error('"run" must be an object with a "name"');
    if (typeof run.name !== 'string' || run.name.trim() === '' || run.name.length > MAX_NAME) throw new Error(`run.name must be a name of 1 to ${MAX_NAME} characters`);
    if (run.best !== undefined && run.best !== null && (typeof run.best !== 'number' || !Number.isFinite(run.best))) throw new Error('run.best must be a finite number or null');
    if (run.createdAt !== undefined && !(isCount(run.createdAt) && run.createdAt <= MAX_TIME_MS)) throw new Error('run.createdAt must be a time in milliseconds');
    if (run.bestSearch !== undefined && run.bestSearch !== null && (typeof run.bestSearch !== 'string' || run.bestSearch.length > 200)) throw new Error('run.bestSearch must be text of at most 200 characters or null');
    if (run.pretrainSteps !== undefined && !isCount(run.pretrainSteps)) throw new Error('run.pretrainSteps must be a whole number of at least 0');
    if (typeof f.checkpoint !== 'string') throw new Error('the run has no checkpoint (it was never saved)');
    if (!Array.isArray(f.metrics)) throw new Error('"metrics" must be an array');
    // A figure reported without a value (NaN, null in JSON: an update with nothing to learn from) is not drawn: left out.
    const metrics = f.metrics.flatMap((event, i) => (isObject(event) && event.value === null ? [] : [metricEvent(event, `metrics[${i}]`)]));
    if (f.evaluations !== undefined && !Array.isArray(f.evaluations)) throw new Error('"evaluations" must be an array');
    const evaluations = (f.evaluations ?? []).map((row, i) => evaluationRow(row, `evaluations[${i}]`));
    if (f.reference !== undefined && f.reference !== null && typeof f.reference !== 'string') throw new Error('"reference" must be base64 or null');
    const provenance = run.provenance === undefined ? undefined : runProvenance(run.provenance);
    if (f.samples !== undefined && (!Array.isArray(f.samples) || f.samples.length > MAX_SAMPLES)) throw new Error(`"samples" must be a list of at most ${MAX_SAMPLES} samples`);
    // A sample the page could not draw (a digit answer past the safe integers, null in JSON) is left out, not a reason to refuse the run.
    const samples = f.samples?.flatMap((sample, i) => {
      try {
        return [sampleRecord(sample, `samples[${i}]`)];
      } catch {
        return [];
      }
    });
    return {
      format: RUN_FORMAT,
      version: 1,
      run: {
        name: run.name,
        best: (run.best as number | null | undefined) ?? null,
        ...(typeof run.bestSearch === 'string' ? { bestSearch: run.bestSearch } : {}),
        ...(run.pretrainSteps ? { pretrainSteps: run.pretrainSteps as number } : {}),
        ...(run.createdAt !== undefined ? { createdAt: run.createdAt as number } : {}),
        ...(provenance ? { provenance } : {}),
      },
      metrics,
      evaluations,
      checkpoint: f.checkpoint,
      reference: f.reference ?? null,
      ...(samples ? { samples } : {}),
    };
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}
