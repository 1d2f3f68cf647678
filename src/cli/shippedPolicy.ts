/**
 * What a shipped policy file is (public/pretrained.prl, public/functions.prl): the page loads it
 * at start as a warm start, so it holds the policy's weights and a config to train with, and
 * nothing of the run that made it: step 0, no optimizer state, and the lab's default run
 * settings (the recipe stage's `--max-steps`, output directory, data paths and evaluation size
 * would otherwise become the page's: an RL stage of 50 steps ended the page's run at step 50).
 */
import { decodeCheckpoint, encodeCheckpoint } from '../core/checkpoint';
import { defaultConfig, type LabConfig } from '../core/config';

/**
 * The shipped file of `bytes`' weights with the config `configure` makes of the checkpoint's own
 * (default: that one), its run settings the lab's defaults for the task (the seed kept). `extra`
 * is recorded beside it.
 */
export async function shippedPolicy(bytes: Uint8Array, configure: (own: LabConfig) => LabConfig = (own) => own, extra?: Record<string, unknown>): Promise<Uint8Array> {
  const { meta, tensors } = await decodeCheckpoint(bytes);
  const chosen = configure(meta.config);
  const run = { ...defaultConfig(chosen.task.name).run, seed: chosen.run.seed };
  return encodeCheckpoint({ config: { ...chosen, run }, step: 0, rngState: meta.rngState, vocab: meta.vocab, ...(extra ? { extra } : {}) }, tensors.filter((tensor) => tensor.group === 'weights'));
}
