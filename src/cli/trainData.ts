/**
 * The files a training run reads (`npm run train`): its training items (several files joined by
 * commas, FILE*N for N copies), its held-out items (the report's, never trained or chosen on) and
 * its validation items (a file, or the last tenth of the training items), each file recorded with
 * its hash for the run's record.
 */
import type { LabConfig } from '../core/config';
import { withoutHeldOut } from '../core/runner';
import type { TaskDefinition } from '../core/task';
import { loadItemsFile } from './data';
import { recordFile, type RecordedFile } from './runRecord';

/** Items kept out of training for validation when no validation file is given: the last tenth, at most this many. */
const VALIDATION_SPLIT_MAX = 200;

export interface TrainFiles {
  train: unknown[];
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
  if (config.run.validationDataPath) validation = [...withoutHeldOut(definition, await load('validation', config.run.validationDataPath), heldout, (text) => notes.push(text), 'validation')];
  else if (config.run.evalFreq > 0) {
    // No validation file: the last tenth of the training items is kept out of training to choose on.
    const size = Math.min(VALIDATION_SPLIT_MAX, Math.max(1, Math.floor(train.length / 10)));
    if (train.length < 2) throw new Error(`--eval-freq needs validation items: give --validation-data-path, or more than one training item to split`);
    validation = train.slice(-size);
    train = train.slice(0, -size);
    validationName = `the last ${size} training items, kept out of training`;
  }
  const task = definition.createTask(config, heldout);
  const used = task.trainingItems(train).length;
  if (used !== train.length) notes.push(`RL trains on ${used} items made from the ${train.length} training ${definition.data.itemName} (task.maxTrainLength, task.trainPieces)`);
  const note = notes.length ? notes.join('\n') : undefined;
  return { train, heldout, validation, validationName, note, files };
}
