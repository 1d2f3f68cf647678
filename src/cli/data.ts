/**
 * Loading files from disk for the CLI: JSONL datasets through the core's streaming loader over
 * a Node file stream, with bad lines reported on stderr (line number and reason) and good lines
 * kept; checkpoint bytes, with a message that names the file (and the flag that gave it); and
 * writing a file whole or not at all.
 */
import { closeSync, createReadStream, existsSync, openSync, readFileSync, readSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { CheckpointError, DEFAULT_MAX_CHECKPOINT_BYTES } from '../core/checkpoint';
import { WeightsMismatchError } from '../core/model/transformer';
import { SafetensorsError } from '../core/safetensors';
import { MAX_DATASET_BYTES, countOf, decodeTextFile, loadJsonl, summarizeLoad } from '../core/data/jsonl';
import { parseKolmogorovRecord, parsePreferenceRecord, type KolmogorovRecord } from '../core/data/records';
import type { TokenPair } from '../core/algorithms/dpo';
import type { Task, TaskDefinition } from '../core/task';
import { taskOfFileHead } from '../core/registry';
import { describeProblemError, parseProblemsText, type FunctionProblem, type ProblemError, type ProblemPlace } from '../core/functions/problems';

/** Largest problems file read (a JSON array is parsed whole). */
export const MAX_PROBLEMS_BYTES = 64 << 20;

/** Function problems from a JSON array or JSONL file; bad problems are reported with where they are, the rest load. */
export function loadProblemsFile(path: string, options: { quiet?: boolean; maxErrorsShown?: number } = {}): FunctionProblem[] {
  return loadProblemsReport(path, options).problems;
}

/**
 * The same with the rejected problems returned too (position, name when it has one, and why),
 * for a report that lists them: each is also written to stderr (the first `maxErrorsShown`).
 */
export function loadProblemsReport(path: string, options: { quiet?: boolean; maxErrorsShown?: number } = {}): { problems: FunctionProblem[]; errors: ProblemError[]; places: ProblemPlace[] } {
  let places: ProblemPlace[] = [];
  const { items, errors } = readTextItems(path, 'problems', 'functions', (text) => {
    const parsed = parseProblemsText(text);
    places = parsed.places;
    return { items: parsed.problems, errors: parsed.errors };
  }, options);
  return { problems: items, errors, places };
}

/**
 * A whole-text file's items (its task's format, parsed whole by `parse`: the functions task's JSON array or JSONL): its
 * bad items written to stderr by where they are (the first `maxErrorsShown`), the count unless
 * `quiet`; a file with none valid is an error, with a hint when it is another task's.
 */
function readTextItems<Item, Rejected extends Parameters<typeof describeProblemError>[0]>(
  path: string,
  itemName: string,
  task: string,
  parse: (text: string) => { items: Item[]; errors: Rejected[] },
  options: { quiet?: boolean; maxErrorsShown?: number },
): { items: Item[]; errors: Rejected[] } {
  const bytes = new Uint8Array(readFileChecked(path, `${itemName} file`, MAX_PROBLEMS_BYTES));
  let parsed: { items: Item[]; errors: Rejected[] };
  try {
    parsed = parse(decodeTextFile(bytes));
  } catch (error) {
    throw new Error(`${itemName} ${path}: ${(error as Error).message}`);
  }
  const { items, errors } = parsed;
  const shown = options.maxErrorsShown ?? 10;
  for (const error of errors.slice(0, shown)) console.error(`${path}: ${describeProblemError(error)}`);
  if (errors.length > shown) console.error(`${path}: ... and ${errors.length - shown} more bad ${itemName}`);
  if (!options.quiet) console.error(`${path}: ${countOf(items.length, itemName)}${errors.length ? `, ${errors.length} rejected` : ''}`);
  if (items.length === 0) throw new Error(`${path}: no valid ${itemName}${otherTaskHint(task, path)}`);
  return { items, errors };
}

/**
 * The functions problems no generated training problem may equal: the reported held-out sets
 * and the dev sets settings are chosen on. Read by code only, to drop exact duplicates
 * (`problemKey`: the docstring and the shown tests); a file that is missing is skipped.
 */
export const functionsProtectedFiles = [
  'datasets/functions/heldout.jsonl',
  'datasets/functions/handwritten_heldout.jsonl',
  'datasets/functions/dev.jsonl',
  'datasets/functions/handwritten_dev.jsonl',
  'datasets/functions/handwritten_dev2.jsonl',
] as const;

/**
 * The Kolmogorov sequences no warm-start pair may equal, whichever file the warm start's progress
 * is measured on: the held-out files and the dev file settings are chosen on (the novel subsets
 * are parts of these). A missing file is skipped.
 */
export const kolmogorovProtectedFiles = [
  'datasets/heldout.jsonl',
  'datasets/kolmogorov/public_heldout.jsonl',
  'datasets/kolmogorov/public_dev.jsonl',
] as const;

/** The sequences of `kolmogorovProtectedFiles` (and of `more`), for exclusion from generated data. */
export async function kolmogorovProtectedSequences(more: readonly string[] = []): Promise<KolmogorovRecord[]> {
  const files = [...new Set([...kolmogorovProtectedFiles, ...more])].filter((path) => existsSync(path));
  return (await Promise.all(files.map((path) => loadKolmogorovFile(path, { quiet: true, maxErrorsShown: 0 })))).flat();
}

/** The problems of `functionsProtectedFiles` (and of `more`), for exclusion from generated data. */
export function functionsProtectedProblems(more: readonly string[] = []): FunctionProblem[] {
  return [...new Set([...functionsProtectedFiles, ...more])].filter((path) => existsSync(path)).flatMap((path) => loadProblemsReport(path, { quiet: true, maxErrorsShown: 0 }).problems);
}

/**
 * The size of a file that is to be read whole, checked before reading: not a regular file (a
 * directory, /dev/zero, a pipe) or larger than `max` is refused with `what` and its path named.
 */
export function checkedSize(path: string, what: string, max: number): number {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) throw new Error(stat.isDirectory() ? 'it is a directory' : 'not a regular file');
    size = stat.size;
  } catch (error) {
    throw new Error(`cannot read ${what} ${path}: ${(error as Error).message.replace(/^ENOENT.*/, 'no such file')}`);
  }
  if (size > max) throw new Error(`${what} ${path} has ${size} bytes, more than the ${max} a ${what} may have`);
  return size;
}

/** Largest config file read (`--config`): far above any real one, far below what a parse of it would make slow. */
export const MAX_CONFIG_BYTES = 1 << 20;

/**
 * The one reader of a file read whole: its size and type are checked first (checkedSize), so a
 * device, a FIFO or a file past `max` is refused by name before a byte is read. Every file the
 * CLI reads whole goes through here (or through checkedSize and a capped stream, for JSONL).
 */
export function readFileChecked(path: string, what: string, max: number): Buffer {
  checkedSize(path, what, max);
  try {
    return readFileSync(path);
  } catch (error) {
    throw new Error(`cannot read ${what} ${path}: ${(error as Error).message}`);
  }
}

/** The text of a file read whole, through readFileChecked. */
export function readTextChecked(path: string, what: string, max: number): string {
  return readFileChecked(path, what, max).toString('utf8');
}

/** Largest JSON result file read back (a recipe's own results, a run's config.json). */
export const MAX_JSON_BYTES = 64 << 20;

/** A JSON file read whole through readFileChecked; a parse error names the file. */
export function readJsonChecked(path: string, what: string): unknown {
  const text = readTextChecked(path, what, MAX_JSON_BYTES);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${what} ${path} is not JSON: ${(error as Error).message}`);
  }
}

/** The bytes of a checkpoint file; `flag` (e.g. "init-from") prefixes the error when it cannot be read. */
export function readCheckpointFile(path: string, flag?: string): Uint8Array {
  try {
    return new Uint8Array(readFileChecked(path, 'checkpoint', DEFAULT_MAX_CHECKPOINT_BYTES));
  } catch (error) {
    const message = (error as Error).message;
    throw new Error(`${flag ? `--${flag}: ` : ''}${message.startsWith('cannot read') || message.startsWith('checkpoint') ? message : `cannot read checkpoint ${path}: ${message}`}`);
  }
}

/** Whether an error is the checkpoint file's fault: it does not decode, or its weights do not fit the model. */
export const isCheckpointProblem = (error: unknown): boolean => error instanceof CheckpointError || error instanceof SafetensorsError || error instanceof WeightsMismatchError;

/**
 * Runs `use`, which decodes or loads the checkpoint that `--flag path` gave; a checkpoint problem
 * it throws (all of them, with `any`) names the flag and the file before saying why, as the
 * reading of the file already does. Without it "checksum mismatch" would not say which file.
 */
export async function namingCheckpoint<T>(flag: string, path: string, use: () => Promise<T>, { any = false }: { any?: boolean } = {}): Promise<T> {
  try {
    return await use();
  } catch (error) {
    const message = (error as Error).message;
    if ((!any && !isCheckpointProblem(error)) || message.startsWith(`--${flag}`)) throw error;
    throw new Error(`--${flag} ${path}: ${message}`);
  }
}

/**
 * Preference pairs `{prompt, chosen, rejected}` (the task's text form, as `npm run rollouts
 * --pairs` writes them) in the task's tokens; a line the task cannot read is reported with its
 * number and reason, the rest load.
 */
export async function loadPreferencesFile(path: string, task: Pick<Task<unknown>, 'pairFromText' | 'vocab'>, options: { quiet?: boolean; maxErrorsShown?: number } = {}): Promise<TokenPair[]> {
  const fromText = task.pairFromText;
  if (!fromText) throw new Error(`${path}: preference pairs in text form are read for the kolmogorov task; the ${task.vocab.name} task learns DPO from its own samples (algorithm dpo without a pair file)`);
  checkedSize(path, 'preference file', MAX_DATASET_BYTES);
  let result: Awaited<ReturnType<typeof loadJsonl<TokenPair>>>;
  try {
    result = await loadJsonl(createReadStream(path), (value) => fromText(parsePreferenceRecord(value)));
  } catch (error) {
    throw new Error(`preference file ${path}: ${(error as Error).message}`);
  }
  reportBadLines(path, result, options);
  if (result.records.length === 0) throw new Error(`${path}: no valid preference pair`);
  return result.records;
}

function reportBadLines(path: string, result: Awaited<ReturnType<typeof loadJsonl<unknown>>>, options: { quiet?: boolean; maxErrorsShown?: number }): void {
  const shown = options.maxErrorsShown ?? 10;
  for (const error of result.errors.slice(0, shown)) {
    console.error(`${path}:${error.line}: ${error.reason}${error.snippet ? `  [${error.snippet}]` : ''}`);
  }
  // errorCount, not errors.length: the loader keeps the first errors only (1,000), and counts them all.
  if (result.errorCount > shown) console.error(`${path}: ... and ${result.errorCount - Math.min(shown, result.errors.length)} more bad lines`);
  if (!options.quiet) console.error(`${path}: ${summarizeLoad(result)}`);
}

export async function loadKolmogorovFile(path: string, options: { quiet?: boolean; maxErrorsShown?: number } = {}): Promise<KolmogorovRecord[]> {
  return (await loadKolmogorovLines(path, options)).records;
}

/** The records of a JSONL file of sequences with the line each came from, bad lines reported on stderr. */
export async function loadKolmogorovLines(path: string, options: { quiet?: boolean; maxErrorsShown?: number } = {}): Promise<{ records: KolmogorovRecord[]; lines: number[] }> {
  checkedSize(path, 'dataset', MAX_DATASET_BYTES);
  let result: Awaited<ReturnType<typeof loadJsonl<KolmogorovRecord>>>;
  try {
    result = await loadJsonl(createReadStream(path), parseKolmogorovRecord);
  } catch (error) {
    throw new Error(`dataset ${path}: ${(error as Error).message}`);
  }
  reportBadLines(path, result, options);
  if (result.records.length === 0) throw new Error(`${path}: no valid sequences${otherTaskHint('kolmogorov', path)}`);
  return { records: result.records, lines: result.recordLines };
}

/** Writes a file whole or not at all (a crash mid-write keeps the previous one); a failure names the file and leaves no .tmp behind. */
export function writeAtomic(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.tmp`;
  try {
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
  } catch (error) {
    rmSync(temporary, { force: true, recursive: true });
    throw new Error(`cannot write ${path}: ${(error as Error).message}`);
  }
}

/** When a file of no valid items looks like another task's (its definition sniffs the first bytes): said, with the flag that picks the task. */
function otherTaskHint(task: string, path: string): string {
  let head = '';
  try {
    const handle = openSync(path, 'r');
    try {
      const bytes = Buffer.alloc(4096);
      head = bytes.subarray(0, readSync(handle, bytes, 0, bytes.length, 0)).toString('utf8');
    } finally {
      closeSync(handle);
    }
  } catch {
    return '';
  }
  const other = taskOfFileHead(head, task);
  return other && other.data.kind === 'file' ? ` (the file looks like ${other.name} ${other.data.itemName}, and this run's task is ${task}: check --task, or the checkpoint's task)` : '';
}

/** A task's items from a file, read the way its definition says (JSONL streamed, or the whole text); bad items are reported with where they are, the rest load. */
export async function loadItemsFile(definition: TaskDefinition, path: string, options: { quiet?: boolean; maxErrorsShown?: number; counts?: { loaded: number; rejected: number } } = {}): Promise<unknown[]> {
  const data = definition.data;
  if (data.kind !== 'file') throw new Error(`the ${definition.name} task's items are generated, not read from ${path}`);
  if (data.format === 'jsonl') {
    checkedSize(path, 'dataset', MAX_DATASET_BYTES);
    let result: Awaited<ReturnType<typeof loadJsonl<unknown>>>;
    try {
      result = await loadJsonl(createReadStream(path), (value) => data.parseRecord!(value));
    } catch (error) {
      throw new Error(`dataset ${path}: ${(error as Error).message}`);
    }
    reportBadLines(path, result, options);
    if (result.records.length === 0) throw new Error(`${path}: no valid ${data.itemName}${otherTaskHint(definition.name, path)}`);
    if (options.counts) Object.assign(options.counts, { loaded: result.records.length, rejected: result.errorCount });
    return result.records;
  }
  const { items, errors } = readTextItems(path, data.itemName, definition.name, data.parseText!, options);
  if (options.counts) Object.assign(options.counts, { loaded: items.length, rejected: errors.length });
  return items;
}
