/**
 * The export folder of `npm run export` (core/export.ts) as one zip: what a PyTorch user loads.
 * Made in the trainer worker (Export for PyTorch): decoding the checkpoint, writing safetensors
 * and deflating took a main-thread task of 65 ms for the shipped policy, more for larger ones.
 */
import { strToU8, zipSync } from 'fflate';
import { decodeCheckpoint, tensorArrays } from '../core/checkpoint';
import { exportFiles } from '../core/export';
import modelingPy from '../cli/modeling_prl.py?raw';

export async function pytorchZip(checkpoint: Uint8Array): Promise<Uint8Array<ArrayBuffer>> {
  const { meta, tensors } = await decodeCheckpoint(checkpoint);
  const files = exportFiles(meta, tensorArrays(tensors, 'weights'), modelingPy);
  const entries = Object.fromEntries(Object.entries(files).map(([name, content]) => [`program-rl-lab/${name}`, typeof content === 'string' ? strToU8(content) : content]));
  return zipSync(entries) as Uint8Array<ArrayBuffer>;
}
