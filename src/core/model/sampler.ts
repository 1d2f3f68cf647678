/**
 * Grammar-constrained batched sampling with a KV cache. Each step runs the model on one token
 * per row and reads the logits to the host once (the grammar mask needs them there); masking,
 * temperature and the categorical draw happen on the host from the seeded Rng, so samples are
 * reproducible on every backend. Rows that finish keep feeding a PAD token until all are done.
 * The log-probabilities returned are those of the masked, temperature-scaled distribution:
 * the same distribution the update later differentiates.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Grammar } from '../grammar';
import type { Rng } from '../rng';
import type { TransformerPolicy } from './transformer';

export interface SampledSequence {
  tokens: number[];
  logProbs: number[];
  /** Indices into tokens of the tokens that end a line. */
  lineEnds: number[];
  complete: boolean;
  /** With options.alternatives = m: per token, the m next most likely tokens the grammar allowed there, best first. */
  alternatives?: number[][];
}

interface SampleSettings {
  maxTokens: number;
  temperature: number;
  /** Token fed to finished rows. */
  padToken?: number;
  /** Also record, per token, this many runner-up tokens (for search around a program). */
  alternatives?: number;
  /** Epsilon-greedy (DQN): with this probability a token is drawn uniformly among the allowed ones instead; needs `rng`. */
  epsilon?: number;
}

/**
 * `greedy`: argmax instead of sampling, for every row or per row (e.g. one greedy row among k
 * samples). Decoding that is greedy for every row draws nothing, so it needs no `rng`.
 */
export type SampleOptions = SampleSettings & ({ greedy: true; rng?: Rng } | { greedy?: boolean | readonly boolean[]; rng: Rng });

/** Left-pads prompts into one [B, T] batch; returns the tokens and where each row starts. */
export function leftPad(prompts: readonly number[][], padToken = 0): { data: Int32Array; length: number; starts: number[] } {
  const length = Math.max(...prompts.map((p) => p.length));
  const data = new Int32Array(prompts.length * length).fill(padToken);
  const starts = prompts.map((prompt, b) => {
    const start = length - prompt.length;
    data.set(prompt, b * length + start);
    return start;
  });
  return { data, length, starts };
}

/**
 * The masked, temperature-scaled softmax's pieces at one position: the allowed token with the
 * largest logit, that largest scaled logit, and the normaliser's sum of exp(z - max) over the
 * allowed tokens; an allowed token v's log-probability is `logits[offset + v] / temperature -
 * max - Math.log(total)`. Every sampler (independent draws, the stochastic beam) reads it here.
 */
export function maskedSoftmax(logits: Float32Array, offset: number, mask: Uint8Array, temperature: number): { argmax: number; max: number; total: number } {
  const V = mask.length;
  let max = -Infinity;
  let argmax = -1;
  for (let v = 0; v < V; v++) {
    if (!mask[v]) continue;
    const z = logits[offset + v] / temperature;
    if (z > max) {
      max = z;
      argmax = v;
    }
  }
  if (argmax < 0) throw new Error(mask.includes(1) ? 'the policy\'s scores of every token the grammar allows here are not finite (NaN or -Infinity)' : 'the grammar allows no token here');
  let total = 0;
  for (let v = 0; v < V; v++) if (mask[v]) total += Math.exp(logits[offset + v] / temperature - max);
  // One NaN (or +Infinity) among finite scores would make every draw the argmax, with a NaN log-probability.
  if (Number.isNaN(total)) throw new Error('the policy\'s score of a token the grammar allows here is not finite (NaN or Infinity)');
  return { argmax, max, total };
}

/** Picks a token from masked logits; returns the token and its log-probability. */
export function pickToken(logits: Float32Array, offset: number, mask: Uint8Array, temperature: number, greedy: boolean, rng: Rng | undefined): [number, number] {
  const { argmax, max, total } = maskedSoftmax(logits, offset, mask, temperature);
  const logTotal = Math.log(total);
  if (greedy) return [argmax, -logTotal];
  if (!rng) throw new Error('sampling (greedy: false) needs an rng');
  let u = rng.next() * total;
  let chosen = argmax;
  for (let v = 0; v < mask.length; v++) {
    if (!mask[v]) continue;
    u -= Math.exp(logits[offset + v] / temperature - max);
    if (u <= 0) {
      chosen = v;
      break;
    }
  }
  return [chosen, logits[offset + chosen] / temperature - max - logTotal];
}

/** A token drawn uniformly among the allowed ones (epsilon-greedy exploration), with its log-probability under that draw. */
export function uniformToken(mask: Uint8Array, rng: Rng): [number, number] {
  const allowed: number[] = [];
  for (let v = 0; v < mask.length; v++) if (mask[v]) allowed.push(v);
  if (allowed.length === 0) throw new Error('the grammar allows no token here');
  return [allowed[rng.int(0, allowed.length - 1)], -Math.log(allowed.length)];
}

/** The `m` allowed tokens with the highest logits other than `chosen`, best first. */
export function runnersUp(logits: Float32Array, offset: number, mask: Uint8Array, chosen: number, m: number): number[] {
  const best: number[] = [];
  if (m <= 0) return best;
  for (let v = 0; v < mask.length; v++) {
    if (!mask[v] || v === chosen) continue;
    const z = logits[offset + v];
    if (best.length === m && z <= logits[offset + best[m - 1]]) continue;
    let at = best.length < m ? best.length : m - 1;
    while (at > 0 && logits[offset + best[at - 1]] < z) at--;
    best.splice(at, 0, v);
    if (best.length > m) best.pop();
  }
  return best;
}

export async function sampleBatch<S>(policy: TransformerPolicy, grammar: Grammar<S>, prompts: readonly number[][], options: SampleOptions): Promise<SampledSequence[]> {
  const B = prompts.length;
  if (B === 0) return [];
  const V = grammar.vocabSize;
  const pad = options.padToken ?? 0;
  const { data, length, starts } = leftPad(prompts, pad);
  const budget = Math.min(options.maxTokens, policy.config.context - length);
  if (budget <= 0) throw new Error(`prompts of ${length} tokens leave no room in a context of ${policy.config.context}`);
  const states = prompts.map((prompt) => grammar.initial(prompt));
  const alternatives = options.alternatives ?? 0;
  const results: SampledSequence[] = prompts.map(() => ({ tokens: [], logProbs: [], lineEnds: [], complete: false, ...(alternatives > 0 ? { alternatives: [] } : {}) }));
  const mask = new Uint8Array(V);
  const rowsGreedy = options.greedy ?? false;
  const greedy = prompts.map((_, b) => (typeof rowsGreedy === 'boolean' ? rowsGreedy : (rowsGreedy[b] ?? false)));
  if (!options.rng && greedy.some((row) => !row)) throw new Error('sampling (greedy: false) needs an rng');
  const epsilon = options.epsilon ?? 0;
  if (epsilon > 0 && !options.rng) throw new Error('epsilon-greedy sampling needs an rng');

  const promptTensor = tf.tensor2d(data, [B, length], 'int32');
  const { cache, logits: first } = policy.prefill(promptTensor, starts);
  promptTensor.dispose();
  let logits = first;
  // live[i]: the row of the batch that row i of the cache and the logits decodes. Rows that
  // finish are dropped from the cache once they are half of it, so a long program does not make
  // every short one in its batch pay for its steps.
  let live = prompts.map((_, b) => b);
  try {
    for (let step = 0; step < budget; step++) {
      const host = (await logits.data()) as Float32Array;
      logits.dispose();
      const next = new Int32Array(live.length).fill(pad);
      const active: number[] = [];
      live.forEach((b, i) => {
        if (results[b].complete) return;
        grammar.allowed(states[b], mask);
        const [token, logProb] = epsilon > 0 && options.rng!.chance(epsilon) ? uniformToken(mask, options.rng!) : pickToken(host, i * V, mask, options.temperature, greedy[b], options.rng);
        states[b] = grammar.advance(states[b], token);
        const result = results[b];
        if (grammar.endsLine(token)) result.lineEnds.push(result.tokens.length);
        result.tokens.push(token);
        result.logProbs.push(logProb);
        if (alternatives > 0) result.alternatives!.push(runnersUp(host, i * V, mask, token, alternatives));
        if (grammar.isDone(states[b])) result.complete = true;
        else active.push(i);
        next[i] = token;
      });
      if (active.length === 0 || step === budget - 1) {
        logits = tf.zeros([1, 1]);
        break;
      }
      let fed = next;
      if (2 * active.length <= live.length) {
        policy.compactCache(cache, active);
        fed = Int32Array.from(active, (i) => next[i]);
        live = active.map((i) => live[i]);
      }
      const input = tf.tensor1d(fed, 'int32');
      logits = policy.decodeStep(cache, input);
      input.dispose();
    }
  } finally {
    logits.dispose();
    policy.disposeCache(cache);
  }
  return results;
}
