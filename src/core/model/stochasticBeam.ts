/**
 * Sampling without replacement: k distinct programs per prompt, by stochastic beam search
 * (Kool, van Hoof and Welling 2019, "Stochastic Beams and Where to Find Them"). Every partial
 * program carries its log-probability phi and a Gumbel-perturbed value G; a child's value is
 * drawn given its parent's, so that the largest value among a node's descendants is the node's
 * own. Keeping the k largest values at each step then yields exactly the k whole programs with
 * the largest perturbed log-probabilities: a sample of k without replacement from the policy's
 * (grammar-masked, temperature-scaled) distribution over programs, ordered as drawn one after
 * another. Independent draws repeat what a confident policy likes: on handwritten functions,
 * 256 draws held 5 to 60 distinct programs for most unsolved problems (docs/functions.md).
 *
 * It runs on the same KV cache as `sampleBatch`: a step gathers the cache rows of the kept
 * children's parents (a parent kept twice is copied) and decodes one token per live beam.
 * Several prompts share a batch; each keeps its own k beams. Beams that finish stay among the
 * k, carrying their value, until children with larger values push them out.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Grammar } from '../grammar';
import type { Rng } from '../rng';
import type { SampledSequence } from './sampler';
import { leftPad, maskedSoftmax } from './sampler';
import type { TransformerPolicy } from './transformer';

export interface DistinctSample extends SampledSequence {
  /** Log-probability of the whole program under the temperature-scaled distribution. */
  logProb: number;
  /** Its Gumbel-perturbed log-probability; samples come largest first (the order they were drawn in). */
  perturbed: number;
}

export interface DistinctOptions {
  /** Most distinct programs per prompt (fewer when the grammar allows fewer). */
  k: number;
  maxTokens: number;
  temperature: number;
  rng: Rng;
  padToken?: number;
}

interface Beam<S> {
  prompt: number;
  state: S;
  tokens: number[];
  logProbs: number[];
  lineEnds: number[];
  phi: number;
  g: number;
  done: boolean;
}

/** log(1 - exp(a)) for a <= 0, accurate near 0 and far below it. */
function log1mexp(a: number): number {
  return a > -Math.LN2 ? Math.log(-Math.expm1(a)) : Math.log1p(-Math.exp(a));
}

/** A Gumbel(mu) draw. */
function gumbel(mu: number, rng: Rng): number {
  const u = Math.min(Math.max(rng.next(), 1e-300), 1 - 1e-16);
  return mu - Math.log(-Math.log(u));
}

/**
 * The values of a node's children given the parent's value `parent` (appendix B of the paper):
 * each child's own Gumbel draw, shifted so that their largest equals the parent's.
 */
export function conditionGumbels(parent: number, drawn: readonly number[]): number[] {
  const z = Math.max(...drawn);
  return drawn.map((g) => {
    const v = parent - g + log1mexp(g - z);
    return parent - Math.max(v, 0) - Math.log1p(Math.exp(-Math.abs(v)));
  });
}

/** Up to `options.k` distinct programs per prompt, each ordered by its perturbed value, largest first. */
export async function sampleDistinct<S>(policy: TransformerPolicy, grammar: Grammar<S>, prompts: readonly number[][], options: DistinctOptions): Promise<DistinctSample[][]> {
  const P = prompts.length;
  if (P === 0) return [];
  const V = grammar.vocabSize;
  const k = Math.max(1, options.k);
  const pad = options.padToken ?? 0;
  const { data, length, starts } = leftPad(prompts, pad);
  const budget = Math.min(options.maxTokens, policy.config.context - length);
  if (budget <= 0) throw new Error(`prompts of ${length} tokens leave no room in a context of ${policy.config.context}`);
  const mask = new Uint8Array(V);
  const finished: Beam<S>[][] = prompts.map(() => []);
  // live[i]: the beam that row i of the cache and the logits decodes.
  let live: Beam<S>[] = prompts.map((prompt, p) => ({ prompt: p, state: grammar.initial(prompt), tokens: [], logProbs: [], lineEnds: [], phi: 0, g: 0, done: false }));
  const promptTensor = tf.tensor2d(data, [P, length], 'int32');
  const { cache, logits: first } = policy.prefill(promptTensor, starts);
  promptTensor.dispose();
  let logits = first;
  try {
    for (let step = 0; step < budget && live.length > 0; step++) {
      const host = (await logits.data()) as Float32Array;
      logits.dispose();
      logits = tf.zeros([1, 1]);
      // Every child of every live beam, with its conditioned value, grouped by prompt.
      const children: { row: number; token: number; logProb: number; g: number }[][] = prompts.map(() => []);
      live.forEach((beam, row) => {
        grammar.allowed(beam.state, mask);
        const offset = row * V;
        const { max, total } = maskedSoftmax(host, offset, mask, options.temperature);
        const logTotal = Math.log(total) + max;
        const tokens: number[] = [];
        const logProbs: number[] = [];
        const drawn: number[] = [];
        for (let v = 0; v < V; v++) {
          if (!mask[v]) continue;
          const logProb = host[offset + v] / options.temperature - logTotal;
          tokens.push(v);
          logProbs.push(logProb);
          drawn.push(gumbel(beam.phi + logProb, options.rng));
        }
        const g = conditionGumbels(beam.g, drawn);
        tokens.forEach((token, j) => children[beam.prompt].push({ row, token, logProb: logProbs[j], g: g[j] }));
      });
      const nextLive: Beam<S>[] = [];
      const parents: number[] = [];
      const fed: number[] = [];
      for (let p = 0; p < P; p++) {
        // The k largest values among this prompt's finished beams and the new children.
        const pool = [...finished[p].map((beam) => ({ beam, g: beam.g })), ...children[p].map((child) => ({ child, g: child.g }))];
        pool.sort((a, b) => b.g - a.g);
        finished[p] = [];
        for (const entry of pool.slice(0, k)) {
          if ('beam' in entry) {
            finished[p].push(entry.beam);
            continue;
          }
          const { row, token, logProb, g } = entry.child;
          const parent = live[row];
          const state = grammar.advance(parent.state, token);
          const beam: Beam<S> = {
            prompt: p,
            state,
            tokens: [...parent.tokens, token],
            logProbs: [...parent.logProbs, logProb],
            lineEnds: grammar.endsLine(token) ? [...parent.lineEnds, parent.tokens.length] : parent.lineEnds,
            phi: parent.phi + logProb,
            g,
            done: grammar.isDone(state),
          };
          // A beam at the token budget ends unfinished, as `sampleBatch`'s rows do.
          if (beam.done || step === budget - 1) finished[p].push(beam);
          else {
            nextLive.push(beam);
            parents.push(row);
            fed.push(token);
          }
        }
      }
      live = nextLive;
      if (live.length === 0) break;
      policy.compactCache(cache, parents);
      const input = tf.tensor1d(Int32Array.from(fed), 'int32');
      logits.dispose();
      logits = policy.decodeStep(cache, input);
      input.dispose();
    }
  } finally {
    logits.dispose();
    policy.disposeCache(cache);
  }
  return finished.map((beams) =>
    [...beams]
      .sort((a, b) => b.g - a.g)
      .map((beam) => ({ tokens: beam.tokens, logProbs: beam.logProbs, lineEnds: beam.lineEnds, complete: beam.done, logProb: beam.phi, perturbed: beam.g })),
  );
}
