/**
 * A deeper policy that computes exactly what a shallower one does, so a warm start can grow
 * without losing what it learned. The blocks are pre-LayerNorm residual blocks,
 * x + proj(attn(ln1(x))) then x + fc2(gelu(fc1(ln2(x)))): a new block on top of the old ones
 * whose output projections (proj and fc2, weights and biases) are zero adds nothing to the
 * residual stream, and the final LayerNorm and head see what they saw before. Its other weights
 * take the usual initialisation, so the first update moves proj and fc2 (their gradients are
 * the block's activations) and from then on the whole block learns.
 */
import { CheckpointError, encodeCheckpoint, tensorArrays, type decodeCheckpoint } from '../checkpoint';
import { TransformerPolicy, type PolicyConfig } from './transformer';

/** The output projections of a block: zero in a new block, which is then the identity. */
const OUTPUTS = ['proj/w', 'proj/b', 'fc2/w', 'fc2/b'];

/**
 * A decoded checkpoint's weights deepened to `target.layers` blocks (the new ones on top), as a
 * checkpoint of step 0 without optimizer state: a warm start for a deeper run. Everything but
 * the depth must match; the new blocks' other weights are initialised from `seed`.
 */
export async function deepenCheckpoint({ meta, tensors }: Awaited<ReturnType<typeof decodeCheckpoint>>, target: PolicyConfig, seed: number): Promise<{ bytes: Uint8Array; fromLayers: number }> {
  const fromLayers = meta.config.model.layers;
  if (fromLayers >= target.layers) throw new CheckpointError(`cannot deepen a ${fromLayers}-layer checkpoint to ${target.layers} layers`);
  const old = new Map(tensorArrays(tensors, 'weights').map((w) => [w.name, w]));
  const fresh = new TransformerPolicy(target, seed);
  try {
    const weights = fresh.getWeights().map((w) => {
      const block = /^b(\d+)\/(.*)$/.exec(w.name);
      if (block && Number(block[1]) >= fromLayers) return OUTPUTS.includes(block[2]) ? { ...w, data: new Float32Array(w.data.length) } : w;
      const kept = old.get(w.name);
      if (!kept) throw new CheckpointError(`the checkpoint lacks ${w.name}: only its depth may differ from the deeper model's`);
      if (kept.shape.join(',') !== w.shape.join(',')) throw new CheckpointError(`the checkpoint's ${w.name} has shape [${kept.shape}], the deeper model needs [${w.shape}]: only the depth may differ`);
      return kept;
    });
    const config = { ...meta.config, model: { ...meta.config.model, layers: target.layers } };
    const deepened = await encodeCheckpoint(
      { config, step: 0, rngState: meta.rngState, vocab: meta.vocab },
      weights.map((w) => ({ name: w.name, group: 'weights', dtype: 'float32', shape: w.shape, data: w.data })),
    );
    return { bytes: deepened, fromLayers };
  } finally {
    fresh.dispose();
  }
}
