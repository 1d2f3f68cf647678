/**
 * The record of a run (`run.json` in its output dir): what repeats it and what makes it
 * comparable. The command line, the code's version (the package's, and the git commit when there
 * is one), Node and the backend, the whole resolved config, every data file with its sha256 and
 * how many items it gave and rejected, the warm start with its sha256, the budgets, the start and
 * end times. `train --rerun RUN` repeats a run from it, and names any file that changed since.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LabConfig } from '../core/config';
import { flagOfField, parseConfig, parseStoredConfig } from '../core/config';
import { algorithmDefinition } from '../core/registry';
import { checkpointWarmStart, decodeCheckpoint } from '../core/checkpoint';
import { checkedSize, namingCheckpoint, readCheckpointFile, readTextChecked, writeAtomic } from './data';
import type { ParsedArgs } from './args';
import { multiplyAddChoice } from '../core/model/wasmKernelModule';
import { runOf } from './runDir';

export const RECORD_FORMAT = 'program-rl-lab-run-record';
/** A record is small; a file past this is not one. */
const MAX_RECORD_BYTES = 1 << 20;
/** Files hashed for a record are read whole: as large as a dataset may be. */
const MAX_HASHED_BYTES = 1 << 30;

export interface RecordedFile {
  /** What the file is to the run: train, heldout, validation, warm start, preferences, reward model. */
  role: string;
  path: string;
  sha256: string;
  bytes: number;
  /** Items it gave and rejected, for data files. */
  loaded?: number;
  rejected?: number;
}

export interface RunRecordFile {
  format: typeof RECORD_FORMAT;
  version: 1;
  command: string[];
  code: { version: string; commit: string | null; dirty: boolean | null };
  node: string;
  backend: string;
  /** The kernels' multiply-add on wasm (fma or simd): a product's last bits differ between them, so a rerun on the other is not bit-exact. */
  multiplyAdd?: string;
  /**
   * Threads that computed each update (`--threads`: the trainer and its gradient workers). A
   * split sums in another order than one thread, so a rerun uses the same count; a record
   * without it came before the split (one thread).
   */
  threads?: number;
  config: LabConfig;
  files: RecordedFile[];
  started: string;
  ended: string | null;
  steps: number | null;
  /** How the run ended: its step budget, its epoch budget (--num-epochs without --max-steps), its time budget, an interruption. */
  stopped: string | null;
  /**
   * The command's own flags that shape the run beside its config (`SHAPING_FLAGS`: the pair file,
   * the reward model, best-of-k at evaluation, the checkpoint it resumed from), so that a rerun
   * repeats them. A record without it came before 2026-11-27.
   */
  extras?: Record<string, string | boolean>;
  /**
   * A run continued in place (`--resume DIR/latest.prl` into DIR) keeps here the records of its
   * earlier sessions, oldest first (each one's command, code, config, files, start and end), so
   * that the command that began the run is not lost.
   */
  previous?: RunSession[];
}

/** One earlier session of a run continued in place. */
export type RunSession = Omit<RunRecordFile, 'format' | 'version' | 'previous'>;

/** The sessions of the run recorded in `dir` so far (its earlier ones, then the last), or [] when it has no readable record (said on stderr when there is one). */
export function sessionsSoFar(dir: string): RunSession[] {
  let record: RunRecordFile;
  try {
    record = readRunRecord(dir);
  } catch (error) {
    if (existsSync(join(dir, 'run.json'))) console.error(`${join(dir, 'run.json')}: its earlier sessions are not kept in the new record: ${(error as Error).message}`);
    return [];
  }
  const { format: _format, version: _version, previous = [], ...last } = record;
  return [...previous, last];
}

/** train's own flags that change what a run computes, kept in its record for a rerun. */
export const SHAPING_FLAGS = ['resume', 'preferences', 'use-reward-model', 'reward-model-weight', 'reward-model-alone', 'test-case-rewards-only', 'eval-k'] as const;

export function sha256File(path: string): { sha256: string; bytes: number } {
  const bytes = checkedSize(path, 'file', MAX_HASHED_BYTES);
  return { sha256: createHash('sha256').update(readFileSync(path)).digest('hex'), bytes };
}

export function recordFile(role: string, path: string, counts?: { loaded: number; rejected: number }): RecordedFile {
  return { role, path, ...sha256File(path), ...(counts ? { loaded: counts.loaded, rejected: counts.rejected } : {}) };
}

/** The code this process runs: the package's version, and the git commit (and whether files differ from it) when there is one; read where this file lives, whatever the working directory. */
export function codeVersion(): RunRecordFile['code'] {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  let version = 'unknown';
  try {
    version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    // A copy of the code without its package.json: the version is unknown, the run goes on.
  }
  try {
    const git = (args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { version, commit: git(['rev-parse', 'HEAD']), dirty: git(['status', '--porcelain', '--untracked-files=no']) !== '' };
  } catch {
    return { version, commit: null, dirty: null };
  }
}

export function writeRunRecord(dir: string, record: RunRecordFile): void {
  writeAtomic(join(dir, 'run.json'), new TextEncoder().encode(JSON.stringify(record, null, 2) + '\n'));
}

/** A run's record, checked; `dir` is the run's output dir. */
export function readRunRecord(dir: string): RunRecordFile {
  const path = join(dir, 'run.json');
  let record: RunRecordFile;
  try {
    record = JSON.parse(readTextChecked(path, 'run record', MAX_RECORD_BYTES)) as RunRecordFile;
  } catch (error) {
    throw new Error(`--rerun ${dir}: ${(error as Error).message}`);
  }
  if (record?.format !== RECORD_FORMAT || record.version !== 1) throw new Error(`--rerun ${dir}: ${path} is not a run record of this lab (format ${RECORD_FORMAT}, version 1)`);
  if (!Array.isArray(record.files)) throw new Error(`--rerun ${dir}: ${path} lists no files`);
  try {
    record.config = parseStoredConfig(record.config);
  } catch (error) {
    throw new Error(`--rerun ${dir}: its config does not load: ${(error as Error).message}`);
  }
  return record;
}

/** The files of a record that are missing or changed since, each said with what it was. */
export function changedFiles(record: RunRecordFile, { except = [] }: { except?: readonly string[] } = {}): string[] {
  return record.files.filter((file) => !except.includes(file.role)).flatMap((file) => {
    let now: { sha256: string };
    try {
      now = sha256File(file.path);
    } catch (error) {
      return [`${file.role} ${file.path}: ${(error as Error).message}`];
    }
    return now.sha256 === file.sha256 ? [] : [`${file.role} ${file.path} changed since the run (sha256 ${file.sha256.slice(0, 12)}... then, ${now.sha256.slice(0, 12)}... now)`];
  });
}

/** A new run's record, before its first step: it ends with `ended`, `steps` and `stopped` set. */
export function newRunRecord(command: string[], backend: string, config: LabConfig, files: RecordedFile[], threads = 1): RunRecordFile {
  return { format: RECORD_FORMAT, version: 1, command, code: codeVersion(), node: process.version, backend, ...(backend === 'wasm' ? { multiplyAdd: multiplyAddChoice().build } : {}), threads, config, files, started: new Date().toISOString(), ended: null, steps: null, stopped: null };
}

/** How a rerun computes otherwise than its record says (another backend, the other multiply-add): its figures may differ in the last bits. */
export function computationChanges(record: Pick<RunRecordFile, 'backend' | 'multiplyAdd'>, backend: string): string[] {
  if (record.backend !== backend) return [`the run computed on ${record.backend}, this rerun on ${backend}: its figures may differ in their last digits`];
  const now = backend === 'wasm' ? multiplyAddChoice().build : undefined;
  if (record.multiplyAdd && now && record.multiplyAdd !== now) return [`the run's kernels used ${record.multiplyAdd === 'fma' ? 'fused multiply-add' : 'plain SIMD multiply and add'}, this rerun's ${now === 'fma' ? 'fused multiply-add' : 'plain SIMD multiply and add'} (start node as the npm scripts do, with --experimental-wasm-relaxed-simd): its figures may differ in their last digits`];
  return [];
}

/**
 * The run to repeat from its record (`--rerun DIR`): its config, into a new output dir, and the
 * command's own flags that shaped it (a pair file, a reward model, best-of-k, a resume); the files
 * it read must be as they were.
 */
export function rerunConfig(dir: string, parsed: Pick<ParsedArgs, 'given' | 'config' | 'extra' | 'extraGiven'>): { config: LabConfig; extras: Record<string, string | boolean>; threads: number; record: RunRecordFile } {
  // --threads is refused by train itself, with the count the run had.
  const allowed = new Set(['run.outputDir', 'rerun', 'overwrite', 'quiet', 'allow-changed', 'threads']);
  const others = [...parsed.given, ...parsed.extraGiven].filter((path) => !allowed.has(path));
  // Said as the flags the user typed (--max-steps), not the fields they set (run.maxSteps).
  if (others.length) throw new Error(`--rerun repeats the recorded run as it was: drop ${others.map((path) => `--${flagOfField(path) ?? path}`).join(', ')} (only --output-dir, --overwrite, --quiet and --allow-changed go with it)`);
  const record = readRunRecord(dir);
  const extras = record.extras ?? {};
  const threads = record.threads ?? 1;
  const unkept = record.extras ? [] : SHAPING_FLAGS.filter((flag) => record.command.some((arg) => arg === `--${flag}` || arg.startsWith(`--${flag}=`)));
  if (unkept.length) throw new Error(`--rerun ${dir}: its record (written before records kept them) does not keep ${unkept.map((flag) => `--${flag}`).join(', ')}: run its command again (${record.command.join(' ')})`);
  // A --config file's values are in the record's config: the rerun does not read it again.
  const changed = changedFiles(record, { except: ['config file'] });
  if (changed.length && !parsed.extra['allow-changed']) throw new Error(`--rerun ${dir}: ${changed.join('; ')} (--allow-changed goes on all the same)`);
  for (const line of changed) console.error(`--rerun ${dir}: ${line}`);
  const outputDir = parsed.given.has('run.outputDir') ? parsed.config.run.outputDir : `${dir.replace(/\/+$/, '')}-rerun`;
  console.error(`rerun of ${dir} (${record.command.join(' ')}; code ${record.code.version}${record.code.commit ? ` at ${record.code.commit.slice(0, 12)}` : ''}) into ${outputDir}`);
  // A run its time budget or a signal stopped is repeated to the step it reached: the same work, whatever this machine's speed.
  const stoppedEarly = record.stopped === 'time budget' || record.stopped === 'interrupted';
  if (stoppedEarly && record.steps === 0) throw new Error(`--rerun ${dir}: it stopped (${record.stopped}) before its first step: there is nothing to repeat (run its command again: ${record.command.join(' ')})`);
  if (stoppedEarly && record.steps) {
    console.error(`--rerun ${dir}: it stopped (${record.stopped === 'interrupted' ? 'interrupted' : 'on its time budget'}) at step ${record.steps}; the rerun trains to that step`);
    return { config: { ...record.config, run: { ...record.config.run, outputDir, maxSteps: record.steps, timeLimit: 0 } }, extras, threads, record };
  }
  return { config: { ...record.config, run: { ...record.config.run, outputDir } }, extras, threads, record };
}

/**
 * The record of the run a checkpoint belongs to (run.json beside it, or beside its checkpoints/
 * folder), or null when there is none (a checkpoint copied elsewhere, or the page's).
 */
export function recordOfCheckpoint(path: string): RunRecordFile | null {
  try {
    return readRunRecord(runOf(path));
  } catch {
    return null;
  }
}

/** Fields a resume is expected to change: how far it goes and where it writes, not how it computes. */
const RESUME_BUDGETS = new Set(['run.maxSteps', 'run.timeLimit', 'run.numEpochs', 'run.outputDir', 'run.evalSamples', 'run.evalFreq', 'run.checkpointFreq', 'run.keepCheckpoints']);

/**
 * What a resume continues (`--resume FILE` without --rerun): the checkpoint's own config, so its
 * warm start (the KL's reference), data, algorithm and settings come back as they were, with the
 * config flags given on top (`--max-steps` to go further, `--output-dir` elsewhere).
 */
export async function resumedConfig(path: string, parsed: Pick<ParsedArgs, 'given' | 'config'>): Promise<LabConfig> {
  const { meta } = await namingCheckpoint('resume', path, () => decodeCheckpoint(readCheckpointFile(path, 'resume')), { any: true });
  let config = parseConfig(meta.config);
  // A checkpoint the page wrote on a GPU backend: in Node the lab picks its own.
  if (config.run.backend === 'webgpu' || config.run.backend === 'webgl') config = { ...config, run: { ...config.run, backend: 'auto' } };
  if (parsed.given.has('task.name') && parsed.config.task.name !== config.task.name) throw new Error(`--resume ${path}: the checkpoint is for task ${config.task.name}, not ${parsed.config.task.name} (--task)`);
  // The run goes on in the folder the checkpoint is in, where it is now (a run folder moved or
  // copied keeps its run there), not the one it was written in: when that folder's record is of
  // the same run (it names the same output folder), not another run's a checkpoint was copied into.
  if (recordOfCheckpoint(path)?.config.run.outputDir === config.run.outputDir) config = { ...config, run: { ...config.run, outputDir: runOf(path) } };
  const changes: string[] = [];
  for (const given of parsed.given) {
    const [section, key] = given.split('.') as [keyof LabConfig, string];
    const [then, now] = [(config[section] as Record<string, unknown>)[key], (parsed.config[section] as Record<string, unknown>)[key]];
    if (!RESUME_BUDGETS.has(given) && JSON.stringify(then) !== JSON.stringify(now)) changes.push(`--${flagOfField(given) ?? given} ${String(then)} -> ${String(now)}`);
    config = { ...config, [section]: { ...config[section], [key]: now } };
  }
  // Said, never silently: the steps so far were made with the checkpoint's values, and its config files will say the new ones.
  if (changes.length) console.error(`--resume ${path}: the run goes on with ${changes.join(', ')}; its steps so far were made with the earlier values`);
  // A run whose algorithm measures a KL measures it from its warm start, which the checkpoint names
  // by hash: a file at that path with other bytes is not it, and no file is none (a page's
  // checkpoint names no path). A run without a reference takes everything from the checkpoint.
  const named = checkpointWarmStart(meta);
  const warmStart = config.run.initFrom;
  if (named !== undefined && algorithmDefinition(config.algorithm.name).needsReference(config)) {
    if (!warmStart) throw new Error(`--resume ${path}: the run measures its KL from the warm start it began from (sha256 ${named.slice(0, 12)}...), which the checkpoint names but does not hold: give that file with --init-from`);
    const now = sha256File(warmStart).sha256;
    if (now !== named) throw new Error(`--resume ${path}: the run began from a warm start with sha256 ${named.slice(0, 12)}..., and ${warmStart} (its --init-from) has ${now.slice(0, 12)}... now: its KL would be measured from other weights (put that warm start back, or start a new run from the checkpoint: --init-from ${path})`);
  }
  return parseConfig(config);
}
