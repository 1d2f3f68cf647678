/**
 * A downloaded run file (`.run.json`, SavedRuns.export) read back: every field is checked before
 * anything is stored (issue 29). A record that reaches the run store is drawn by the page (the
 * run list, the charts, the evaluation table), and one bad field there used to take the whole
 * page down on every reload: `run.best` as a string made the run list throw, a metric named
 * `__proto__` broke the charts' series. So the file's run, metric events and evaluation rows are
 * checked field by field, with a message that names the file and the field, and rows come back
 * in the form the page draws (a NaN figure, null in JSON, is NaN again).
 */
import type { MetricEvent } from '../core/runnerTypes';
import type { EvaluationRow } from './protocol';
import type { RunRecord } from './runStore';

export const RUN_FORMAT = 'program-rl-lab-run';

/** What a downloaded run file holds (`SavedRuns.export`). */
export interface RunFile {
  format: typeof RUN_FORMAT;
  version: 1;
  run: Pick<RunRecord, 'name'> & Partial<RunRecord>;
  metrics: MetricEvent[];
  evaluations: EvaluationRow[];
  checkpoint: string | null;
  reference?: string | null;
}

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

/** One evaluation row, checked and in the form the evaluation table draws; `where` names it in errors. */
function evaluationRow(raw: unknown, where: string): EvaluationRow {
  if (!isObject(raw)) throw new Error(`${where} is not an evaluation row`);
  const f = fields(where, raw);
  if (!isObject(raw.accAtPrefix)) throw new Error(`${where}.accAtPrefix must be an object of figures`);
  const prefix = fields(`${where}.accAtPrefix`, raw.accAtPrefix);
  const row: EvaluationRow = {
    label: f.text('label', 500),
    step: f.count('step'),
    k: f.count('k'),
    n: f.count('n'),
    accuracy: f.figure('accuracy'),
    accAtPrefix: { 16: prefix.figure('16'), 32: prefix.figure('32'), 64: prefix.figure('64'), 128: prefix.figure('128') },
    compressionRate: f.figure('compressionRate'),
    precision: f.figure('precision'),
    gzipRate: f.figure('gzipRate'),
    lzmaRate: f.figure('lzmaRate'),
  };
  if (raw.formatCompliance !== undefined) row.formatCompliance = f.figure('formatCompliance');
  if (raw.functions !== undefined) {
    const functions = raw.functions;
    if (!isObject(functions) || !Array.isArray(functions.problems)) throw new Error(`${where}.functions must be an object with a list of problems`);
    const g = fields(`${where}.functions`, functions);
    row.functions = {
      passAt1: g.figure('passAt1'),
      successRate: g.figure('successRate'),
      problems: functions.problems.map((problem, i) => {
        const at = `${where}.functions.problems[${i}]`;
        if (!isObject(problem)) throw new Error(`${at} is not a problem's result`);
        const p = fields(at, problem);
        return {
          function_name: p.text('function_name', 200),
          docstring: p.text('docstring'),
          solved: p.flag('solved'),
          pass_at_1: p.flag('pass_at_1'),
          shown_passed: p.count('shown_passed'),
          shown_total: p.count('shown_total'),
          hidden_passed: p.count('hidden_passed'),
          hidden_total: p.count('hidden_total'),
          success_rate: p.figure('success_rate'),
          program: p.text('program'),
          outcome: p.text('outcome', 200),
        };
      }),
    };
  }
  return row;
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
    if (typeof f.checkpoint !== 'string') throw new Error('the run has no checkpoint (it was never saved)');
    if (!Array.isArray(f.metrics)) throw new Error('"metrics" must be an array');
    const metrics = f.metrics.map((event, i) => metricEvent(event, `metrics[${i}]`));
    if (f.evaluations !== undefined && !Array.isArray(f.evaluations)) throw new Error('"evaluations" must be an array');
    const evaluations = (f.evaluations ?? []).map((row, i) => evaluationRow(row, `evaluations[${i}]`));
    if (f.reference !== undefined && f.reference !== null && typeof f.reference !== 'string') throw new Error('"reference" must be base64 or null');
    return {
      format: RUN_FORMAT,
      version: 1,
      run: { name: run.name, best: (run.best as number | null | undefined) ?? null, ...(run.createdAt !== undefined ? { createdAt: run.createdAt as number } : {}) },
      metrics,
      evaluations,
      checkpoint: f.checkpoint,
      reference: f.reference ?? null,
    };
  } catch (error) {
    throw new Error(`${name}: ${(error as Error).message}`);
  }
}
