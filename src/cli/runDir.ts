/**
 * A run's output directory as `npm run train` keeps it (issue 29): what is in it, who writes it,
 * and which run it holds.
 *
 * - One process at a time: a lock file (`.lock`, made with O_EXCL, holding the pid, host and
 *   start time) is taken before anything is written and removed when the process ends. A lock
 *   whose process is gone (kill -9, a crash) is taken over; one whose process lives is refused.
 * - --overwrite replaces the earlier run whole: its files go (clearRun), so pruning keeps the new
 *   run's newest checkpoints, not the old run's, and no old log survives beside the new run.
 * - A resume continues the run of its own directory: its checkpoint must be in the directory or
 *   its checkpoints/. Another run's checkpoint goes only into a directory that holds no run, or
 *   with --overwrite (which replaces the run there with the continuation).
 * - The resume's metrics rewrite (truncateMetrics) is whole or not at all.
 */
import { existsSync, lstatSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { readTextChecked, writeAtomic } from './data';

export const LOCK_FILE = '.lock';

/** The files a run writes, by folder: what --overwrite removes (nothing else in the directory is touched). */
const RUN_FILES: Record<string, RegExp> = {
  '.': /^(config\.json|config\.yaml|metrics\.jsonl|latest\.prl|best\.prl|run\.json|eval_results\.json|reward_model\.prl)(\.tmp)?$/,
  checkpoints: /^checkpoint-\d+\.prl(\.tmp)?$/,
  logs: /^(training_log\.txt|rewards\.json|eval_results\.json|unsolved\.json|best\.json)$/,
};

/** Largest metrics.jsonl read back on a resume (a string past this cannot be made in V8 anyway). */
const MAX_METRICS_BYTES = 512 << 20;

const isDirectory = (path: string) => existsSync(path) && statSync(path).isDirectory();

/** A path with its links resolved when it exists, else made absolute: two spellings of one place compare equal. */
const realPath = (path: string) => (existsSync(path) ? realpathSync(path) : resolve(path));

/** Whether `dir` holds a run (or anything else): more than the lock and empty checkpoints/ and logs/ folders. */
export function holdsRun(dir: string): boolean {
  if (!isDirectory(dir)) return false;
  return readdirSync(dir).some((name) => {
    if (name === LOCK_FILE) return false;
    if ((name === 'checkpoints' || name === 'logs') && isDirectory(join(dir, name))) return readdirSync(join(dir, name)).length > 0;
    return true;
  });
}

/** Removes the files of the run in `dir` (regular files of the run's layout only). */
export function clearRun(dir: string): void {
  for (const [folder, pattern] of Object.entries(RUN_FILES)) {
    const path = join(dir, folder);
    if (!isDirectory(path)) continue;
    for (const name of readdirSync(path)) {
      if (pattern.test(name) && lstatSync(join(path, name)).isFile()) rmSync(join(path, name));
    }
  }
}

/**
 * Refuses to clear `dir` (an --overwrite) when a file the command reads is one of those the
 * clearing removes: a reward model or warm start kept in the run's folder would be deleted by the
 * run that uses it.
 */
export function refuseClearingInputs(dir: string, inputs: readonly { flag: string; path: string }[]): void {
  for (const input of inputs) {
    if (!input.path || !existsSync(input.path)) continue;
    const file = realPath(input.path);
    for (const [folder, pattern] of Object.entries(RUN_FILES)) {
      if (dirname(file) === realPath(join(dir, folder)) && pattern.test(basename(file))) {
        throw new Error(`--${input.flag} ${input.path} is a file of the run in ${dir}, which --overwrite would delete before it is used: copy it out of ${dir} first, or give another --output-dir`);
      }
    }
  }
}

/** Whether `checkpoint` is one of `dir`'s own: in the directory itself or in its checkpoints/. */
export function isCheckpointOf(dir: string, checkpoint: string): boolean {
  const home = realPath(dirname(checkpoint));
  return home === realPath(dir) || home === realPath(join(dir, 'checkpoints'));
}

/** The run directory that holds `checkpoint`: its folder, or the one above it when that is checkpoints/. */
export function runOf(checkpoint: string): string {
  const folder = dirname(checkpoint);
  return basename(folder) === 'checkpoints' ? dirname(folder) : folder;
}

interface LockOwner {
  pid: number;
  host: string;
  started: string;
}

function readOwner(path: string): LockOwner | null {
  try {
    const owner = JSON.parse(readFileSync(path, 'utf8')) as LockOwner;
    return Number.isInteger(owner.pid) && typeof owner.host === 'string' ? owner : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // it exists, under another user
  }
}

/**
 * Takes `dir`'s lock for this process (the directory must exist); returns its release, which
 * also runs when the process exits. Refused, naming the holder, while another live process holds
 * it. A lock left by a process that is gone is taken over: one on this host whose pid is not
 * alive, or one that cannot be read and is over a minute old (a writer cut off after creating it).
 */
export function lockRunDir(dir: string): () => void {
  const path = join(dir, LOCK_FILE);
  const owner: LockOwner = { pid: process.pid, host: hostname(), started: new Date().toISOString() };
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, JSON.stringify(owner) + '\n', { flag: 'wx' });
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw new Error(`--output-dir ${dir}: cannot take its lock ${path} (${(error as Error).message})`);
      const held = readOwner(path);
      const gone = held ? held.host === owner.host && !alive(held.pid) : Date.now() - statSync(path).mtimeMs > 60_000;
      if (attempt === 0 && gone) {
        // Removed only if it is still the lock judged stale (not one another process just took over).
        if (JSON.stringify(readOwner(path)) === JSON.stringify(held)) rmSync(path, { force: true });
        continue;
      }
      const who = held ? `process ${held.pid} on ${held.host}, since ${held.started}` : 'its lock is being written';
      throw new Error(`--output-dir ${dir} is in use by another run (${who}): wait for it to end, or, if that process is gone, delete ${path}`);
    }
  }
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    process.off('exit', release);
    if (readOwner(path)?.pid === process.pid) rmSync(path, { force: true });
  };
  process.on('exit', release);
  return release;
}

/**
 * What a train run may do with `dir`, checked before it writes anything: 'fresh' (nothing there),
 * 'continue' (a resume of this directory's run) or 'replace' (--overwrite: the run there goes
 * once the new one is sure to start). Refuses a fresh run over a run, and another run's
 * checkpoint over a run, unless --overwrite.
 */
export function runDirPlan(dir: string, options: { resume?: string; overwrite: boolean }): 'fresh' | 'continue' | 'replace' {
  const held = holdsRun(dir);
  if (options.resume !== undefined) {
    if (isCheckpointOf(dir, options.resume)) return 'continue';
    if (!held) return 'fresh';
    if (options.overwrite) return 'replace';
    throw new Error(
      `--resume ${options.resume} is a checkpoint of the run in ${runOf(options.resume)}, not of --output-dir ${dir}, which holds another run: ` +
        `resume it with --output-dir ${runOf(options.resume)}, give an empty --output-dir, or --overwrite to replace the run in ${dir} with its continuation`,
    );
  }
  if (!held) return 'fresh';
  if (options.overwrite) return 'replace';
  const latest = join(dir, 'latest.prl');
  const resumable = existsSync(latest) ? `, --resume ${latest} to continue it,` : '';
  throw new Error(`--output-dir ${dir} already holds a run${resumable ? '' : ' (or other files)'}: give another --output-dir${resumable || ','} or --overwrite to replace it`);
}

/** The per-step figures logs/rewards.json keeps. */
const REWARD_FIGURES = new Set(['avg_reward', 'accuracy', 'reward_model', 'task_reward', 'rewards/margins', 'rewards/accuracies']);

/** A run's metrics.jsonl as events; a line cut off (the process killed while it appended) is no event, the others stand. */
export function metricEvents(path: string): { step: number; name: string; value: number; wallMs?: number }[] {
  return readTextChecked(path, 'metrics file', MAX_METRICS_BYTES).split('\n').flatMap((line) => {
    if (!line.trim()) return [];
    try {
      return [JSON.parse(line) as { step: number; name: string; value: number; wallMs?: number }];
    } catch {
      return [];
    }
  });
}

/**
 * logs/rewards.json: the reward's statistics over the run so far (a resumed run's cover all its
 * steps): per step the mean reward of the batch and its accuracy, and over the run their mean,
 * spread and extremes, with the last 100 steps' mean. Kept in memory as the run steps, so a
 * checkpoint writes it without reading metrics.jsonl again (which made long runs quadratic);
 * the file is read once, when a run resumes.
 */
export class RewardLog {
  private readonly perStep = new Map<number, Record<string, number>>();

  /** The figures already in metrics.jsonl: a resumed run's steps before the checkpoint. */
  static fromMetrics(metricsPath: string): RewardLog {
    const log = new RewardLog();
    if (!existsSync(metricsPath)) return log;
    for (const event of metricEvents(metricsPath)) log.add(event.step, event.name, event.value);
    return log;
  }

  add(step: number, name: string, value: number): void {
    if (REWARD_FIGURES.has(name)) this.perStep.set(step, { ...this.perStep.get(step), [name]: value });
  }

  write(out: string): void {
    const steps: Record<string, number>[] = [...this.perStep.entries()].sort(([a], [b]) => a - b).map(([step, values]) => ({ step, ...values }));
    const rewards = steps.flatMap((s) => (typeof s.avg_reward === 'number' ? [s.avg_reward] : []));
    const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
    const m = mean(rewards);
    const summary = rewards.length
      ? { steps: rewards.length, mean: m, std: Math.sqrt(mean(rewards.map((r) => (r - m) ** 2))), min: Math.min(...rewards), max: Math.max(...rewards), last_100_mean: mean(rewards.slice(-100)) }
      : { steps: 0 };
    writeFileSync(out, JSON.stringify({ reward: summary, per_step: steps }, null, 2) + '\n');
  }
}

/**
 * On resume: drops the events after the checkpoint's step (a crash after step 7 with a checkpoint
 * at 5 would otherwise repeat steps 6 and 7) and returns the last wall time kept.
 */
export function truncateMetrics(path: string, step: number): number {
  if (!existsSync(path)) return 0;
  let wallMs = 0;
  const kept = readTextChecked(path, 'metrics file', MAX_METRICS_BYTES).split('\n').filter((line) => {
    if (!line.trim()) return false;
    try {
      const event = JSON.parse(line) as { step: number; name?: string; wallMs?: number };
      if (event.step > step) return false;
      // The held-out report (eval_) comes after training ended: its time is not the run's training time.
      if (typeof event.wallMs === 'number' && event.wallMs > wallMs && !event.name?.startsWith('eval_')) wallMs = event.wallMs;
      return true;
    } catch {
      return false; // a line cut off by the crash
    }
  });
  // Whole or not at all: a plain rewrite cut off by kill -9 (a long file makes the window wide)
  // left metrics.jsonl empty.
  writeAtomic(path, new TextEncoder().encode(kept.length ? kept.join('\n') + '\n' : ''));
  return wallMs;
}
