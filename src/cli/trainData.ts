/**
 * The files a training run reads (`npm run train`): its training items (several files joined by
 * commas, FILE*N for N copies), its held-out items (the report's, never trained or chosen on) and
 * its validation items (a file, or a tenth of the distinct training items), each file recorded with
 * its hash for the run's record.
 */
import type { LabConfig } from '../core/config';
import { withoutHeldOut } from '../core/runner';
import type { TaskDefinition } from '../core/task';
import { loadItemsFile } from './data';
import { recordFile, type RecordedFile } from './runRecord';

/** Items kept out of training for validation when no validation file is given: a tenth of the distinct ones, at most this many. */
const VALIDATION_SPLIT_MAX = 200;

export interface TrainFiles {
  train: unknown[];
  /** The items RL samples from, made from `train` (a task may cut pieces of long items): what an epoch passes over. */
  trainedItems: number;
  heldout: unknown[];
  /** What the periodic evaluations score and best.prl is chosen on. */
  validation: unknown[];
  validationName: string;
  note?: string;
  /** Every data file read, with its hash and counts, for the run's record. */
  files: RecordedFile[];
}

/** The run's training, validation and held-out items from its files (several training files joined by commas, FILE*N for N copies). */
export async function taskData(definition: TaskDefinition, config: LabConfig): Promise<TrainFiles> {
  let train: unknown[] = [];
  const files: RecordedFile[] = [];
  const load = async (role: string, path: string) => {
    const counts = { loaded: 0, rejected: 0 };
    const items = await loadItemsFile(definition, path, { counts });
    files.push(recordFile(role, path, counts));
    return items;
  };
  for (const entry of config.run.dataPath.split(',')) {
    const [, path, times] = /^(.*?)(?:\*(\d+))?$/.exec(entry)!;
    const items = await load('train', path);
    for (let i = 0; i < Number(times ?? 1); i++) train.push(...items);
  }
  const heldout = await load('heldout', config.run.evalDataPath);
  // Held-out items are neither trained nor chosen on: left out before the validation split too.
  const notes: string[] = [];
  train = [...withoutHeldOut(definition, train, heldout, (text) => notes.push(text))];
  let validation: unknown[] = [];
  let validationName = config.run.validationDataPath;
  const identity = (definition.data.kind === 'file' && definition.data.identity ? definition.data.identity : JSON.stringify) as (item: unknown) => string;
  if (config.run.validationDataPath) {
    validation = [...withoutHeldOut(definition, await load('validation', config.run.validationDataPath), heldout, (text) => notes.push(text), 'validation')];
    const chosen = new Set(validation.map(identity));
    const shared = train.filter((item) => chosen.has(identity(item))).length;
    if (shared > 0) notes.push(`${shared} of the ${train.length} training items are also validation items: best.prl is chosen partly on items it trains on`);
  } else if (config.run.evalFreq > 0) {
    // No validation file: a tenth of the distinct training items, spread through them (every n-th),
    // is kept out of training to choose on, every copy of each: a file given as FILE*N, or items
    // repeated, would else be in both, and a small file repeated at the end would be all of it.
    const distinct = [...new Map(train.map((item) => [identity(item), item] as const).reverse()).values()].reverse();
    if (distinct.length < 2) throw new Error(`--eval-freq needs validation items: give --validation-data-path, or more than one distinct training item to split`);
    const size = Math.min(VALIDATION_SPLIT_MAX, Math.max(1, Math.floor(distinct.length / 10)));
    const every = Math.floor(distinct.length / size);
    validation = distinct.filter((_, i) => (i + 1) % every === 0).slice(0, size);
    const chosen = new Set(validation.map(identity));
    train = train.filter((item) => !chosen.has(identity(item)));
    validationName = `${size} of the ${distinct.length} distinct training items (every ${every}th), kept out of training`;
  }
  const task = definition.createTask(config, heldout);
  const used = task.trainingItems(train).length;
  if (used !== train.length) notes.push(`RL trains on ${used} items made from the ${train.length} training ${definition.data.itemName} (task.maxTrainLength, task.trainPieces)`);
  const note = notes.length ? notes.join('\n') : undefined;
  return { train, trainedItems: used, heldout, validation, validationName, note, files };
}
