/**
 * Fixed codes of numbers, added to the learned embeddings of number tokens (and read out by the
 * policy's head): equal numbers look alike and n + 1 is a fixed rotation of n from the first
 * step, as position codes work for positions. transformer.ts explains where each is used.
 */

/** The fixed number code [V, d]: sinusoids of the number at geometric frequencies, 0 elsewhere. */
export function numberCode(vocabSize: number, dModel: number, numbers: { first: number; count: number }): Float32Array {
  const data = new Float32Array(vocabSize * dModel);
  const amplitude = 0.03; // about the learned embeddings' scale (std 0.02), so neither drowns the other
  for (let n = 0; n < numbers.count; n++) {
    const row = (numbers.first + n) * dModel;
    for (let i = 0; i < dModel / 2; i++) {
      const angle = n / numbers.count ** ((2 * i) / dModel);
      data[row + 2 * i] = amplitude * Math.sin(angle);
      data[row + 2 * i + 1] = amplitude * Math.cos(angle);
    }
  }
  return data;
}

/**
 * The number code [V, d] with its dimensions moved by a fixed signed permutation drawn from
 * `seed` (a 31-bit linear congruential generator, the same in modeling_prl.py): a code of its
 * own for the k-th previous token (seed k), nearly orthogonal to the token's own code and to
 * the other previous token's, where the shared code would add them up in one direction.
 */
export function movedCode(code: Float32Array, vocabSize: number, dModel: number, seed: number): Float32Array {
  let state = seed;
  const next = () => (state = ((Math.imul(state, 1103515245) + 12345) >>> 0) & 0x7fffffff);
  const order = Array.from({ length: dModel }, (_, i) => i);
  for (let i = dModel - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [order[i], order[j]] = [order[j], order[i]];
  }
  const signs = order.map(() => ((next() >> 16) & 1 ? -1 : 1));
  const moved = new Float32Array(vocabSize * dModel);
  for (let v = 0; v < vocabSize; v++) for (let i = 0; i < dModel; i++) moved[v * dModel + order[i]] = signs[i] * code[v * dModel + i];
  return moved;
}
