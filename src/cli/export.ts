/**
 * `npm run export -- --checkpoint FILE --out DIR [--ids 3,17,42]`: a lab checkpoint as a folder
 * a PyTorch user loads (core/export.ts says what is in it): model.safetensors, config.json,
 * vocab.json and modeling_prl.py. With `--ids` it also prints the lab's own next-token logits
 * for that token sequence as one JSON list, to compare with `python3 DIR/modeling_prl.py DIR
 * --ids 3,17,42`.
 */
import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { decodeCheckpoint, tensorArrays } from '../core/checkpoint';
import { exportFiles, policyConfigOf } from '../core/export';
import { TransformerPolicy, type WeightArray } from '../core/model/transformer';
import { parseArgs, runMain, usage, type ExtraFlag } from './args';
import { namingCheckpoint, readCheckpointFile } from './data';
import { checkOutputs, refuseForeignFolder, writeFolderAtomic } from './outputs';
import { initTensorflow } from './tfBackend';

const extras: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'checkpoint', doc: 'the lab checkpoint (.prl) to export' },
  { name: 'out', doc: 'folder to write model.safetensors, config.json, vocab.json and modeling_prl.py to' },
  { name: 'ids', doc: 'token ids, comma-separated: print the lab policy\'s next-token logits for them as one JSON list' },
];

/** What an export folder holds (core/export.ts exportFiles): a folder with other files is not an earlier export. */
const EXPORT_FILES = ['model.safetensors', 'config.json', 'vocab.json', 'modeling_prl.py'];

/** The PyTorch module the folder carries, beside this file. */
export const modelingPyPath = new URL('./modeling_prl.py', import.meta.url);

/** The lab's next-token logits after `ids` (one row, no padding), as modeling_prl.py computes them. */
export function nextTokenLogits(config: ReturnType<typeof policyConfigOf>, weights: readonly WeightArray[], ids: readonly number[]): number[] {
  const policy = new TransformerPolicy(config, 0);
  try {
    policy.setWeights(weights);
    return tf.tidy(() => {
      const logits = policy.forward(tf.tensor2d([...ids], [1, ids.length], 'int32'));
      return [...logits.slice([0, ids.length - 1, 0], [1, 1, config.vocabSize]).dataSync()];
    });
  } finally {
    policy.dispose();
  }
}

/** `--ids 3,17,42` as token ids of the vocabulary, or a message that says which is wrong. */
export function parseIds(text: string, vocabSize: number, context: number): number[] {
  const ids = text.split(',').map((part) => part.trim());
  const bad = ids.find((part) => !/^\d+$/.test(part) || Number(part) >= vocabSize);
  if (bad !== undefined) throw new Error(`--ids: "${bad}" is not a token id of this vocabulary (0 to ${vocabSize - 1})`);
  if (ids.length > context) throw new Error(`--ids: ${ids.length} tokens, more than the context of ${context}`);
  return ids.map(Number);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage('export', 'A lab checkpoint as a folder PyTorch loads (model.safetensors, config.json, vocab.json, modeling_prl.py).', extras, false));
    return;
  }
  const { extra } = parseArgs(argv, extras, false);
  if (typeof extra.checkpoint !== 'string') throw new Error('--checkpoint FILE is required');
  if (typeof extra.out !== 'string' && typeof extra.ids !== 'string') throw new Error('--out DIR (or --ids) is required');
  if (typeof extra.out === 'string') {
    // Before any work: a folder that is a file, not writable, or someone else's (a run's) is refused.
    checkOutputs([{ flag: 'out', path: extra.out, kind: 'folder' }], [{ flag: 'checkpoint', path: extra.checkpoint }]);
    refuseForeignFolder('out', extra.out, EXPORT_FILES);
  }
  const checkpoint = extra.checkpoint;
  const { meta, tensors } = await namingCheckpoint('checkpoint', checkpoint, () => decodeCheckpoint(readCheckpointFile(checkpoint, 'checkpoint')));
  const weights = tensorArrays(tensors, 'weights');
  // modeling_prl.py builds the policy: a reward model's head has no place in it.
  if ((meta.extra as { rewardModel?: boolean } | undefined)?.rewardModel) throw new Error(`--checkpoint ${checkpoint}: a reward model, not a policy: export writes a policy for PyTorch (modeling_prl.py)`);
  if (typeof extra.out === 'string') {
    const files = exportFiles(meta, weights, readFileSync(modelingPyPath, 'utf8'));
    writeFolderAtomic('out', extra.out, files); // whole or not at all: never new files beside old ones
    console.error(`wrote ${Object.keys(files).join(', ')} to ${extra.out} (task ${meta.config.task.name}, step ${meta.step})`);
  }
  if (typeof extra.ids === 'string') {
    await initTensorflow('cpu'); // plain float32 ops, the closest to PyTorch's
    const policy = policyConfigOf(meta.config);
    console.log(JSON.stringify(nextTokenLogits(policy, weights, parseIds(extra.ids, policy.vocabSize, policy.context))));
  }
}

if (process.argv[1]?.endsWith('export.ts')) runMain(main);
