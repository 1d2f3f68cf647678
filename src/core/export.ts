/**
 * A lab policy for the Python stack: the folder `npm run export` writes (and the page zips),
 * which the exported `modeling_prl.py` loads with nothing but torch, json and struct:
 *
 *   model.safetensors  the weights, F32, under the lab's own names (tok, pos, b0/qkv/w, ...)
 *   config.json        the policy's shape ("policy", the PolicyConfig the lab builds from the
 *                      run's config) and the lab's whole config ("lab") with the step
 *   vocab.json         each token id and its text, in the task's vocabulary
 *   modeling_prl.py    the same transformer in PyTorch (src/cli/modeling_prl.py)
 *
 * and back: weights a PyTorch user saved with `modeling_prl.save` become a warm start
 * (`--init-from model.safetensors`, or a .safetensors file dropped on the page).
 */
import type { CheckpointMeta } from './checkpoint';
import type { LabConfig } from './config';
import type { PolicyConfig, WeightArray } from './model/transformer';
import { taskDefinition } from './registry';
import { encodeSafetensors } from './safetensors';

/** The policy shape a run of `config` builds, whatever its task. */
export function policyConfigOf(config: LabConfig): PolicyConfig {
  return taskDefinition(config.task.name).policyConfig(config);
}

/** Each token's text in the task's vocabulary, by id. */
export function vocabularyOf(config: LabConfig): string[] {
  const size = policyConfigOf(config).vocabSize;
  const { tokenText } = taskDefinition(config.task.name);
  return Array.from({ length: size }, (_, token) => tokenText(token));
}

/** The exported folder's files, by name: `modelingPy` is the text of modeling_prl.py. */
export function exportFiles(meta: CheckpointMeta, weights: readonly WeightArray[], modelingPy: string): Record<string, Uint8Array | string> {
  const policy = policyConfigOf(meta.config);
  return {
    'model.safetensors': encodeSafetensors(weights, { format: 'pt', task: meta.config.task.name, step: String(meta.step), written_by: 'program-rl-lab' }),
    'config.json': JSON.stringify({ policy, step: meta.step, lab: meta.config }, null, 2) + '\n',
    'vocab.json': JSON.stringify(vocabularyOf(meta.config).map((text, id) => ({ id, text }))) + '\n',
    'modeling_prl.py': modelingPy,
  };
}
