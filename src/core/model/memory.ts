/**
 * Will an update fit? The largest tensors of a policy update are the attention scores
 * [B, heads, T, T] of every layer and the masked logits [B, P, V], each held in several copies at
 * once (forward values, softmax, gradients). tfjs-wasm's heap cannot grow past 4 GiB, and a batch
 * past that aborts inside wasm with no word of why (`_malloc(272892032) failed`), so a run whose
 * estimate is over the budget is refused before its first step, with the batch size that fits.
 *
 * Calibrated on the default Kolmogorov policy (context 256, 2 layers, 4 heads, 96 program tokens)
 * in Node on wasm: batch 128 updates (resident set 4.0 GB), batch 192 fails ("memory access out of
 * bounds"). COPIES is set so that 128 fits and 136 does not: a conservative bound, not a measurement
 * of each tensor.
 */
import type { PolicyConfig } from './transformer';

const COPIES = 13;
export const UPDATE_BUDGET_BYTES = 3.5 * 2 ** 30;

/** Bytes the largest tensors of one update of `batch` rows need, estimated. */
export function updateBytes(policy: Pick<PolicyConfig, 'vocabSize' | 'layers' | 'heads' | 'context'>, programTokens: number, batch: number): number {
  const { vocabSize, layers, heads, context } = policy;
  const perRow = programTokens * vocabSize + heads * context * context * layers;
  return 4 * COPIES * batch * perRow;
}

/** The largest batch whose update fits the budget. */
export function largestBatch(policy: Pick<PolicyConfig, 'vocabSize' | 'layers' | 'heads' | 'context'>, programTokens: number): number {
  return Math.max(0, Math.floor(UPDATE_BUDGET_BYTES / updateBytes(policy, programTokens, 1)));
}

/** Throws when a batch of `batch` rows would not fit, saying what does. */
export function checkUpdateFits(policy: Pick<PolicyConfig, 'vocabSize' | 'layers' | 'heads' | 'context'>, programTokens: number, batch: number): void {
  const need = updateBytes(policy, programTokens, batch);
  if (need <= UPDATE_BUDGET_BYTES) return;
  const fits = largestBatch(policy, programTokens);
  throw new Error(
    `a batch of ${batch} needs about ${(need / 2 ** 30).toFixed(1)} GiB in an update (attention over a context of ${policy.context}, ${policy.layers} layers x ${policy.heads} heads, ` +
      `and ${programTokens} x ${policy.vocabSize} logits per row), more than the ${(UPDATE_BUDGET_BYTES / 2 ** 30).toFixed(1)} GiB the wasm heap allows: ` +
      `use --batch-size ${fits} or less, split the update with --gradient-accumulation-steps, or use a shorter --context`,
  );
}
