/**
 * Files dropped on the page (or the shipped ones) as a task's training or held-out items: the
 * task is the one whose definition recognises the file's first bytes (registry.ts), else the live
 * run's. JSONL is parsed streaming with per-line errors; a whole-text format at once. A file that
 * yields nothing leaves the set it would have replaced (a binary dropped by mistake must not
 * empty the training set), and says why.
 */
import { sha256Hex } from '../provenance';
import { isRunFileHead } from '../runFile';
import { hasLabCheckpointMagic, isSafetensors } from '../../core/safetensors';
import { MAX_DATASET_BYTES, countOf, decodeTextFile, loadJsonl, summarizeLoad } from '../../core/data/jsonl';
import { allTasks, taskDefinition, taskOfFileHead } from '../../core/registry';
import type { TaskDefinition } from '../../core/task';
import { CANCELLED, type DatasetSummary } from '../protocol';
import { itemsOf, type ServiceState } from './state';

/** Largest whole-text file the page reads (a JSON array is parsed whole). */
const MAX_TEXT_BYTES = 64 << 20;

/** The task a file's items belong to: the one that recognises its first 4 KB, else the live run's (or the first with files). */
async function taskOf(state: ServiceState, file: Blob): Promise<TaskDefinition> {
  const head = await file.slice(0, 4096).text();
  const sniffed = taskOfFileHead(head);
  if (sniffed) return sniffed;
  const withFiles = allTasks().filter((task) => task.data.kind === 'file');
  const live = state.run ? taskDefinition(state.run.config.task.name) : null;
  return live?.data.kind === 'file' ? live : withFiles[0];
}

/** Checks a progress report against Cancel: work the user cancelled ends here, with nothing half-done kept. */
export function progress(state: ServiceState, task: string, done: number, total: number): void {
  if (state.cancelRequested) {
    state.cancelRequested = false;
    throw new Error(CANCELLED);
  }
  state.events.send({ type: 'progress', task, done, total });
}

/** "the training set is unchanged (12 sequences)": what a refused file left as it was. */
function unchanged(role: 'train' | 'heldout', kept = 0, what = ''): string {
  return `the ${role === 'train' ? 'training' : 'held-out'} set is unchanged${kept ? ` (${countOf(kept, what)})` : ''}`;
}

function noItems(name: string, role: 'train' | 'heldout', kept: number, what: string, first: string | undefined, rejected: number, bytes: number): Error {
  const why = rejected ? `${rejected} rejected${first ? `, the first: ${first}` : ''}` : bytes > 0 ? 'the file has only blank lines' : 'the file is empty';
  return new Error(`${name} holds no valid ${what} (${why}); ${unchanged(role, kept, what)}`);
}

/** What a file no task reads is, when its first bytes say: a checkpoint or weights (by name it went to the datasets), or DPO's preference pairs. */
export function notADataset(name: string, head: Uint8Array): string | null {
  if (hasLabCheckpointMagic(head) || isSafetensors(head)) {
    return `${name} is a checkpoint, not a dataset (its first bytes say so): load it with Load checkpoint, or drop it named .prl (.safetensors for PyTorch weights)`;
  }
  const firstLine = new TextDecoder().decode(head).split('\n', 1)[0].trim();
  if (isRunFileHead(firstLine)) return `${name} is a downloaded run, not a dataset: bring it back with Import run in Saved runs, or drop it on the page`;
  try {
    const value = JSON.parse(firstLine) as unknown;
    if (value && typeof value === 'object' && 'chosen' in value && 'rejected' in value) {
      return `${name} holds preference pairs ({prompt, chosen, rejected}), which the page does not read: its DPO makes pairs from its own samples. The CLI trains on a pair file: npm run train -- --algorithm dpo --preferences ${name}`;
    }
  } catch {
    // not one JSON object on its first line (or a line longer than the head): not a pair file
  }
  return null;
}

/** Parses a file into its task's training or held-out set, or throws leaving the set as it was. */
export async function parseDataset(state: ServiceState, role: 'train' | 'heldout', name: string, file: Blob): Promise<DatasetSummary> {
  if (file.size > MAX_DATASET_BYTES) throw new Error(`${name} has ${file.size} bytes, more than the ${MAX_DATASET_BYTES} a dataset may have`);
  const other = notADataset(name, new Uint8Array(await file.slice(0, 65536).arrayBuffer()));
  if (other) throw new Error(`${other}; ${unchanged(role)}`);
  const task = await taskOf(state, file);
  const data = task.data;
  if (data.kind !== 'file') throw new Error(`no task reads files like ${name}`);
  const items = itemsOf(state, task.name);
  let loaded: unknown[];
  let summary: Pick<DatasetSummary, 'errorCount' | 'errors' | 'lines' | 'summary'>;
  if (data.format === 'jsonl') {
    const result = await loadJsonl(file.stream(), (value) => data.parseRecord!(value), { onProgress: (bytes) => progress(state, `parsing ${name}`, bytes, file.size) });
    if (result.records.length === 0) {
      const first = result.errors[0];
      throw noItems(name, role, items[role].length, data.itemName, first && `line ${first.line}: ${first.reason}`, result.errorCount, file.size);
    }
    loaded = result.records;
    summary = { errorCount: result.errorCount, errors: result.errors.slice(0, 200), lines: result.lines, summary: summarizeLoad(result) };
  } else {
    if (file.size > MAX_TEXT_BYTES) throw new Error(`${name} has ${file.size} bytes, more than the ${MAX_TEXT_BYTES} a ${data.itemName} file may have`);
    let read: ReturnType<NonNullable<typeof data.parseText>>;
    try {
      read = data.parseText!(decodeTextFile(new Uint8Array(await file.arrayBuffer())));
    } catch (error) {
      // A file refused whole (a broken JSON array, UTF-16): said with its name, and that nothing was replaced.
      throw new Error(`${name}: ${(error as Error).message}; ${unchanged(role, items[role].length, data.itemName)}`);
    }
    const { items: parsed, errors } = read;
    if (parsed.length === 0) throw noItems(name, role, items[role].length, data.itemName, errors[0] && `${errors[0].where} ${errors[0].index}: ${errors[0].reason}`, errors.length, file.size);
    loaded = parsed;
    summary = {
      errorCount: errors.length,
      errors: errors.slice(0, 200).map((error) => ({ line: error.index, byteOffset: 0, reason: `${error.where} ${error.index}: ${error.reason}`, snippet: '' })),
      lines: parsed.length + errors.length,
      summary: `${countOf(parsed.length, data.itemName)} loaded${errors.length ? `, ${errors.length} rejected` : ''}`,
    };
  }
  items[role] = loaded;
  const files = state.files.data.get(task.name) ?? {};
  files[role] = { role, name, sha256: await sha256Hex(file), bytes: file.size, loaded: loaded.length, rejected: summary.errorCount };
  state.files.data.set(task.name, files);
  return {
    name,
    role,
    task: task.name,
    itemName: data.itemName,
    records: loaded.length,
    ...summary,
    preview: loaded.slice(0, 10).map((item) => data.preview(item)),
    bytes: file.size,
    references: data.references?.(loaded),
  };
}
