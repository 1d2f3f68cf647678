/**
 * The policy: a small decoder-only transformer in tfjs, the same definition as the Python
 * reference (/shared/bench/policy_bench.py): learned token and position embeddings,
 * pre-LayerNorm blocks of causal multi-head attention and a GELU MLP (4x), a final LayerNorm
 * and an untied output head.
 *
 * Batches of prompts of different lengths are left-padded: row b starts at `starts[b]`, its
 * positions count from there, and keys before it are masked, so a row's logits do not depend
 * on the other rows. A KV cache (per layer keys and values, [B, h, T, dh]) makes sampling cost
 * one token's work per step.
 *
 * Deliberate choices: embeddings are oneHot(x) @ table rather than gather, because the wasm
 * backend lacks the UnsortedSegmentSum kernel that gather's gradient needs; GELU is the tanh
 * approximation (the difference from erf-GELU is below 1e-3); GELU and LayerNorm are fused
 * kernels on wasm (wasmElementwise.ts), the same formulas from tfjs ops elsewhere. Products
 * are plain tf.matMul, their gradients with transpose flags: on wasm every float32 product runs
 * on our SIMD kernel (wasmBatchMatMul.ts), which reads any transpose while packing.
 */
import * as tf from '@tensorflow/tfjs-core';
import { variableFrom } from './variable';
import { gelu, layerNorm } from './wasmElementwise';
import { movedCode, numberCode } from './numberCode';
import { RunLengths } from './runLengths';
import { CopyPointer } from './copyPointer';
import { TokenInputs, type InputRows, type InputStates } from './tokenInputs';

export interface PolicyConfig {
  vocabSize: number;
  layers: number;
  dModel: number;
  heads: number;
  context: number;
  /**
   * Also embed each position's previous token ("smeared keys", Olsson et al. 2022, induction
   * heads): a key then says which token came before it, so copying a run of the prompt (what a
   * set_list or range argument does) takes one attention layer instead of a previous-token head
   * feeding an induction head. Off by default: the Python reference has no such table.
   */
  previousToken?: boolean;
  /**
   * Also embed each position's token two back, and give each previous token's number code a
   * direction of its own (a fixed signed permutation of the code, movedCode): a key then says
   * which two tokens came before it, and one attention product can match a pair. Copying a
   * run of the prompt by its previous token alone loses its place where a value occurs twice
   * (the shipped Kolmogorov policy solved 5 of 101 short sequences whose set_list holds such a
   * value, docs/kolmogorov.md); a pair of values occurs twice far more rarely. Needs previousToken.
   */
  secondPrevious?: boolean;
  /**
   * Tokens first .. first+count-1 stand for the numbers 0 .. count-1. Each gets a fixed
   * sinusoidal code of its number added to its learned embedding (both tables), the way
   * position codes work for positions: equal numbers then look alike and n+1 is a fixed
   * rotation of n from the first step, so matching a value against the prompt (copying) and
   * spotting a run (a range) are learned once for all numbers, not number by number.
   */
  numberTokens?: { first: number; count: number };
  /**
   * Tokens first .. first+count-1 stand for the numbers 0 .. count-1. When a number token follows
   * another, a learned embedding of their difference (clipped to -max-1 .. max+1) is added: a run
   * (+1), a repeat (0) or a step (+k) is then visible at each position, and the break that ends a
   * range is a key whose smeared previous token is the range's last value. The sinusoidal code
   * makes differences a product of two codes, which a small network learns slowly.
   */
  valueDeltas?: { first: number; count: number; max: number };
  /**
   * Tokens first .. first+count-1 stand for the numbers 0 .. count-1. Each number also embeds the
   * length of the run of constant difference that ends at it (runLengths.ts), from a learned table
   * plus the number code of the length moved to a direction of its own: the key at a run's end
   * then holds its length, which a count (`repeat_num(16, 208)`) copies as a value is copied.
   * With strides 2, also the run over every other value and the difference from the number two
   * back (learned, clipped to -9..9): the two streams an interleave weaves.
   */
  runLengths?: { first: number; count: number; strides?: number };
  /**
   * Tokens first .. first+count-1 stand for the numbers 0 .. count-1 and `end` ends a prompt of
   * numbers. Each program number also embeds where a copy of the prompt stands (copyPointer.ts):
   * the prompt value after the longest stretch that ends in the program's last numbers, and that
   * stretch's length, so a copy keeps its place where a value occurs twice. With resume, the
   * program's statements are matched as one copy (copyPointer.ts).
   */
  copyPointer?: { first: number; count: number; end: number; resume?: boolean };
}

export interface WeightArray {
  name: string;
  shape: number[];
  data: Float32Array;
}

/** Per-layer keys and values of the tokens seen so far, plus where each row starts. */
export interface KvCache {
  keys: tf.Tensor4D[]; // per layer [B, h, T, dh]
  values: tf.Tensor4D[];
  /** Additive key mask [B, 1, 1, T]: -1e9 for left padding. */
  keyMask: tf.Tensor4D;
  /** Next position of each row. */
  positions: number[];
  /** The last token fed to each row [B] (the previous token of the next one). */
  lastTokens: tf.Tensor1D;
  /** The token before it [B] (the next one's second previous), kept with secondPrevious. */
  secondLastTokens?: tf.Tensor1D;
  /** Each row's token-input states so far (run lengths, copy pointer), kept with either. */
  inputs?: InputStates[];
  length: number;
}

const NEG = -1e9;
/**
 * Gain of the number code in the output head. Held-out loss after 400 warm-start steps on
 * single-base sequences (batch 16, lr 3e-3, d 64, previous-token embedding on): no code 2.42,
 * code in the embeddings only 2.38, also in the head at gain 1 2.12, gain 4 1.90, gain 10 1.79.
 */
const HEAD_CODE_GAIN = 10;

interface Block {
  ln1g: tf.Variable; ln1b: tf.Variable;
  qkvW: tf.Variable; qkvB: tf.Variable;
  projW: tf.Variable; projB: tf.Variable;
  ln2g: tf.Variable; ln2b: tf.Variable;
  fc1W: tf.Variable; fc1B: tf.Variable;
  fc2W: tf.Variable; fc2B: tf.Variable;
}

/**
 * A small seeded normal initialiser (std 0.02, as GPT-2), independent of tfjs's global RNG.
 * tfjs reads a seed of 0 as none (`Math.random()`), so 0 is passed as -1, which no other
 * variable's seed is: a run with `--seed 0` starts from the same weights every time.
 */
function initTensor(shape: number[], seed: number, std: number): tf.Tensor {
  return tf.randomNormal(shape, 0, std, 'float32', seed === 0 ? -1 : seed);
}

/** Weights that do not fit the model (a name missing, a shape different): the file's fault, not the run's. */
export class WeightsMismatchError extends Error {
  override name = 'WeightsMismatchError';
}

export class TransformerPolicy {
  readonly variables: tf.Variable[] = [];
  private readonly tokenEmbedding: tf.Variable;
  private readonly previousEmbedding: tf.Variable | null;
  private readonly secondPreviousEmbedding: tf.Variable | null;
  private readonly numberCode: tf.Tensor2D | null;
  /** The previous tokens' number codes: the token's own (numberCode), or, with secondPrevious, codes of their own. */
  private readonly previousCodes: [tf.Tensor2D | null, tf.Tensor2D | null];
  private readonly deltaEmbedding: tf.Variable | null;
  /** Inputs read from the tokens on the host (run lengths, copy pointer), or null. */
  private readonly tokenInputs: TokenInputs | null;
  /** Per table of `tokenInputs`, its learned rows, plus a fixed number code moved to a direction of its own where it has one. */
  private readonly inputTables: { table: tf.Variable; code: tf.Tensor2D | null }[] = [];
  private readonly positionEmbedding: tf.Variable;
  private readonly blocks: Block[] = [];
  private readonly lnfG: tf.Variable;
  private readonly lnfB: tf.Variable;
  private readonly headW: tf.Variable;
  private readonly headB: tf.Variable;
  private readonly headDim: number;
  private static instances = 0;
  /** Prefix of this instance's variable names (tfjs names must be unique per engine). */
  readonly prefix: string;

  constructor(readonly config: PolicyConfig, seed: number) {
    const { vocabSize, dModel, heads, context, layers } = config;
    if (dModel % heads !== 0) throw new Error(`dModel ${dModel} is not divisible by heads ${heads}`);
    this.headDim = dModel / heads;
    this.prefix = `policy${TransformerPolicy.instances++}`;
    let s = seed * 1000;
    const v = (name: string, shape: number[], init: 'normal' | 'zeros' | 'ones', std = 0.02) => {
      const value = init === 'normal' ? initTensor(shape, s++, std) : init === 'zeros' ? tf.zeros(shape) : tf.ones(shape);
      const variable = variableFrom(value, true, `${this.prefix}/${name}`);
      this.variables.push(variable);
      return variable;
    };
    this.tokenEmbedding = v('tok', [vocabSize, dModel], 'normal');
    this.positionEmbedding = v('pos', [context, dModel], 'normal');
    if (config.secondPrevious && !config.previousToken) throw new Error('secondPrevious needs previousToken: the token two back is embedded beside the previous one');
    this.previousEmbedding = config.previousToken ? v('prev', [vocabSize, dModel], 'normal') : null;
    this.secondPreviousEmbedding = config.secondPrevious ? v('prev2', [vocabSize, dModel], 'normal') : null;
    const code = config.numberTokens ? numberCode(vocabSize, dModel, config.numberTokens) : null;
    this.numberCode = code ? tf.tensor2d(code, [vocabSize, dModel]) : null;
    const moved = (seed: number) => (code ? tf.tensor2d(movedCode(code, vocabSize, dModel, seed), [vocabSize, dModel]) : null);
    this.previousCodes = config.secondPrevious ? [moved(1), moved(2)] : [this.numberCode, null];
    this.deltaEmbedding = config.valueDeltas ? v('delta', [2 * config.valueDeltas.max + 4, dModel], 'normal') : null;
    const { runLengths: runs, copyPointer: copy } = config;
    const parts = [
      ...(runs ? [new RunLengths(runs.first, runs.count, runs.strides ?? 1)] : []),
      ...(copy ? [new CopyPointer(copy.first, copy.count, copy.end, copy.resume ?? false)] : []),
    ];
    this.tokenInputs = parts.length ? new TokenInputs(parts) : null;
    this.tokenInputs?.inputs().forEach(({ name, rows, code }) => {
      const moved = code ? tf.tensor2d(movedCode(numberCode(rows, dModel, { first: 0, count: code.count }), rows, dModel, code.seed), [rows, dModel]) : null;
      this.inputTables.push({ table: v(name, [rows, dModel], 'normal'), code: moved });
    });
    // Residual projections scaled down with depth (GPT-2), so deeper stacks start near identity.
    const residualStd = 0.02 / Math.sqrt(2 * layers);
    for (let i = 0; i < layers; i++) {
      this.blocks.push({
        ln1g: v(`b${i}/ln1/g`, [dModel], 'ones'), ln1b: v(`b${i}/ln1/b`, [dModel], 'zeros'),
        qkvW: v(`b${i}/qkv/w`, [dModel, 3 * dModel], 'normal'), qkvB: v(`b${i}/qkv/b`, [3 * dModel], 'zeros'),
        projW: v(`b${i}/proj/w`, [dModel, dModel], 'normal', residualStd), projB: v(`b${i}/proj/b`, [dModel], 'zeros'),
        ln2g: v(`b${i}/ln2/g`, [dModel], 'ones'), ln2b: v(`b${i}/ln2/b`, [dModel], 'zeros'),
        fc1W: v(`b${i}/fc1/w`, [dModel, 4 * dModel], 'normal'), fc1B: v(`b${i}/fc1/b`, [4 * dModel], 'zeros'),
        fc2W: v(`b${i}/fc2/w`, [4 * dModel, dModel], 'normal', residualStd), fc2B: v(`b${i}/fc2/b`, [dModel], 'zeros'),
      });
    }
    this.lnfG = v('lnf/g', [dModel], 'ones');
    this.lnfB = v('lnf/b', [dModel], 'zeros');
    this.headW = v('head/w', [dModel, vocabSize], 'normal');
    this.headB = v('head/b', [vocabSize], 'zeros');
  }

  /** Variable names without the instance prefix: the names checkpoints use. */
  private shortName(variable: tf.Variable): string {
    return variable.name.slice(this.prefix.length + 1);
  }

  /**
   * previous [B, T]: the token before each one (PAD at a row's start), used with previousToken;
   * secondPrevious [B, T]: the one before that, used with secondPrevious; inputRows: per table of
   * the token inputs, each token's row [B, T], used with runLengths or copyPointer.
   */
  private embed(tokens: tf.Tensor2D, positions: tf.Tensor2D, previous: tf.Tensor2D, secondPrevious?: tf.Tensor2D, inputRows: tf.Tensor2D[] = []): tf.Tensor3D {
    const [B, T] = tokens.shape;
    const { dModel } = this.config;
    const coded = (table: tf.Tensor, code: tf.Tensor2D | null) => (code ? table.add(code) : table); // [V, d]
    // A row of `table` per id: oneHot(ids) @ table (wasm has no gradient for gather).
    const lookUp = (ids: tf.Tensor, table: tf.Tensor) => tf.matMul(tf.oneHot(ids.reshape([B * T]) as tf.Tensor1D, table.shape[0]), table); // [B*T, d]
    const tok = lookUp(tokens, coded(this.tokenEmbedding, this.numberCode));
    const pos = lookUp(positions, this.positionEmbedding);
    let x = tok.add(pos);
    if (this.previousEmbedding) x = x.add(lookUp(previous, coded(this.previousEmbedding, this.previousCodes[0])));
    if (this.secondPreviousEmbedding && secondPrevious) x = x.add(lookUp(secondPrevious, coded(this.secondPreviousEmbedding, this.previousCodes[1])));
    if (this.deltaEmbedding) x = x.add(lookUp(this.deltaIndex(tokens.reshape([B * T]), previous.reshape([B * T])), this.deltaEmbedding));
    inputRows.forEach((ids, i) => {
      const { table, code } = this.inputTables[i];
      x = x.add(lookUp(ids, coded(table, code)));
    });
    return x.reshape([B, T, dModel]);
  }

  /** Row of the difference table for each token [N]: its difference from the previous number, or the last row. */
  private deltaIndex(tokens: tf.Tensor1D, previous: tf.Tensor1D): tf.Tensor1D {
    const { first, count, max } = this.config.valueDeltas!;
    const int = (value: number) => tf.scalar(value, 'int32');
    const isNumber = (t: tf.Tensor1D) => t.greaterEqual(int(first)).logicalAnd(t.less(int(first + count)));
    const clipped = tf.minimum(tf.maximum(tokens.sub(previous), int(-max - 1)), int(max + 1)).add(int(max + 1)); // 0 .. 2 max + 2
    return tf.where(isNumber(tokens).logicalAnd(isNumber(previous)), clipped, tf.fill(tokens.shape, 2 * max + 3, 'int32')) as tf.Tensor1D;
  }

  /** Each token's predecessor in its row, [B, T]: the tokens shifted right by one, PAD (0) first. */
  private static shifted(tokens: tf.Tensor2D): tf.Tensor2D {
    const [B, T] = tokens.shape;
    return tf.concat([tf.zeros([B, 1], 'int32'), tokens.slice([0, 0], [B, T - 1])], 1) as tf.Tensor2D;
  }

  /** One block over x [B, T, d]; keys/values of earlier tokens may be prepended (KV cache). */
  private block(
    b: Block,
    x: tf.Tensor3D,
    mask: tf.Tensor,
    past?: { keys: tf.Tensor4D; values: tf.Tensor4D },
  ): { x: tf.Tensor3D; keys: tf.Tensor4D; values: tf.Tensor4D } {
    const [B, T, d] = x.shape;
    const h = this.config.heads;
    const dh = this.headDim;
    const normed = layerNorm(x, b.ln1g, b.ln1b).reshape([B * T, d]);
    // Queries, keys and values from column slices of the weights: slicing [d, 3d] is cheap, while
    // splitting the [B*T, 3d] product (tfjs-wasm's SplitV) cost 11 ms a layer on [2016, 384].
    const project = (i: number) =>
      tf.matMul(normed, b.qkvW.slice([0, i * d], [d, d])).add(b.qkvB.slice([i * d], [d])).reshape([B, T, h, dh]).transpose([0, 2, 1, 3]) as tf.Tensor4D; // [B, h, T, dh]
    const [q, k, v] = [0, 1, 2].map(project);
    const keys = past ? (tf.concat([past.keys, k], 2) as tf.Tensor4D) : k; // [B, h, Tk, dh]
    const values = past ? (tf.concat([past.values, v], 2) as tf.Tensor4D) : v;
    const scores = tf.matMul(q, keys, false, true).mul(1 / Math.sqrt(dh)).add(mask); // [B, h, T, Tk]
    const attended = tf.matMul(tf.softmax(scores), values); // [B, h, T, dh]
    const y = tf.matMul(attended.transpose([0, 2, 1, 3]).reshape([B * T, d]), b.projW).add(b.projB);
    const x1 = x.add(y.reshape([B, T, d])) as tf.Tensor3D;
    const hidden = gelu(tf.matMul(layerNorm(x1, b.ln2g, b.ln2b).reshape([B * T, d]), b.fc1W).add(b.fc1B));
    const out = x1.add(tf.matMul(hidden, b.fc2W).add(b.fc2B).reshape([B, T, d])) as tf.Tensor3D;
    return { x: out, keys, values };
  }

  private head(x: tf.Tensor3D): tf.Tensor3D {
    const [B, T, d] = x.shape;
    // The number code reads out too: a stream that carries a number's code raises that number's logit.
    const weights = this.numberCode ? this.headW.add(this.numberCode.transpose().mul(HEAD_CODE_GAIN)) : this.headW; // [d, V]
    return tf.matMul(layerNorm(x, this.lnfG, this.lnfB).reshape([B * T, d]), weights).add(this.headB).reshape([B, T, this.config.vocabSize]) as tf.Tensor3D;
  }

  /** Additive causal mask [B, 1, T, T] that also hides each row's left padding. */
  private causalMask(starts: number[], T: number): tf.Tensor4D {
    const B = starts.length;
    const data = new Float32Array(B * T * T);
    for (let b = 0; b < B; b++) {
      for (let i = 0; i < T; i++) {
        for (let j = 0; j < T; j++) {
          // A padded query row attends to itself only, which keeps its softmax finite.
          const visible = j <= i && (j >= starts[b] || j === i);
          data[(b * T + i) * T + j] = visible ? 0 : NEG;
        }
      }
    }
    return tf.tensor4d(data, [B, 1, T, T]);
  }

  private positionsFor(starts: number[], T: number): tf.Tensor2D {
    const data = new Int32Array(starts.length * T);
    starts.forEach((start, b) => {
      for (let t = 0; t < T; t++) data[b * T + t] = Math.max(0, t - start);
    });
    return tf.tensor2d(data, [starts.length, T], 'int32');
  }

  /**
   * Full forward. tokens [B, T] int32, left-padded; `starts[b]` is where row b's real tokens
   * begin (0 when unpadded). Returns logits [B, T, V].
   */
  forward(tokens: tf.Tensor2D, starts?: number[]): tf.Tensor3D {
    return tf.tidy(() => this.head(this.trunk(tokens, starts)));
  }

  /**
   * The final hidden states [B, T, d], after the last LayerNorm: what a head on the trunk reads
   * (the reward model's scalar head).
   */
  hidden(tokens: tf.Tensor2D, starts?: number[]): tf.Tensor3D {
    return tf.tidy(() => layerNorm(this.trunk(tokens, starts), this.lnfG, this.lnfB) as tf.Tensor3D);
  }

  /** Logits and final hidden states [B, T, d] from one pass (a head beside the policy's: DQN's dueling value). */
  forwardWithHidden(tokens: tf.Tensor2D, starts?: number[]): { logits: tf.Tensor3D; hidden: tf.Tensor3D } {
    return tf.tidy(() => {
      const x = this.trunk(tokens, starts);
      return { logits: this.head(x), hidden: layerNorm(x, this.lnfG, this.lnfB) as tf.Tensor3D };
    });
  }

  /** Embeddings of whole rows [B, T]: each token's previous ones are its row's. */
  private embedAll(tokens: tf.Tensor2D, positions: tf.Tensor2D, inputs?: InputRows): tf.Tensor3D {
    const previous = TransformerPolicy.shifted(tokens);
    const inputRows = inputs?.index.map((index) => tf.tensor2d(index, tokens.shape, 'int32'));
    return this.embed(tokens, positions, previous, this.secondPreviousEmbedding ? TransformerPolicy.shifted(previous) : undefined, inputRows);
  }

  /** The token inputs of whole rows (read from the tokens on the host), with runLengths or copyPointer. */
  private inputsOf(tokens: tf.Tensor2D): InputRows | undefined {
    return this.tokenInputs ? this.tokenInputs.ofRows(tokens.arraySync()) : undefined;
  }

  private trunk(tokens: tf.Tensor2D, starts?: number[]): tf.Tensor3D {
    const [B, T] = tokens.shape;
    if (T > this.config.context) throw new Error(`sequence of ${T} tokens exceeds the context of ${this.config.context}`);
    const rowStarts = starts ?? new Array(B).fill(0);
    const mask = this.causalMask(rowStarts, T);
    let x = this.embedAll(tokens, this.positionsFor(rowStarts, T), this.inputsOf(tokens));
    for (const b of this.blocks) x = this.block(b, x, mask).x;
    return x;
  }

  /** Runs the prompts through the model, filling a new cache; returns the last position's logits [B, V]. */
  prefill(tokens: tf.Tensor2D, starts: number[]): { cache: KvCache; logits: tf.Tensor2D } {
    const [B, T] = tokens.shape;
    if (T > this.config.context) throw new Error(`prompt of ${T} tokens exceeds the context of ${this.config.context}`);
    const keys: tf.Tensor4D[] = [];
    const values: tf.Tensor4D[] = [];
    const inputs = this.inputsOf(tokens);
    const logits = tf.tidy(() => {
      const mask = this.causalMask(starts, T);
      let x = this.embedAll(tokens, this.positionsFor(starts, T), inputs);
      for (const b of this.blocks) {
        const out = this.block(b, x, mask);
        x = out.x;
        keys.push(tf.keep(out.keys));
        values.push(tf.keep(out.values));
      }
      const last = x.slice([0, T - 1, 0], [B, 1, this.config.dModel]) as tf.Tensor3D;
      return this.head(last).reshape([B, this.config.vocabSize]) as tf.Tensor2D;
    });
    const keyMaskData = new Float32Array(B * T);
    starts.forEach((start, b) => keyMaskData.fill(NEG, b * T, b * T + start));
    return {
      cache: {
        keys,
        values,
        keyMask: tf.tensor4d(keyMaskData, [B, 1, 1, T]),
        positions: starts.map((start) => T - start),
        lastTokens: tf.tidy(() => tokens.slice([0, T - 1], [B, 1]).reshape([B]) as tf.Tensor1D),
        // A one-token prompt's second last token is PAD, as shifted() has it.
        secondLastTokens: this.secondPreviousEmbedding ? tf.tidy(() => (T > 1 ? tokens.slice([0, T - 2], [B, 1]).reshape([B]) : tf.zeros([B], 'int32')) as tf.Tensor1D) : undefined,
        inputs: inputs?.states,
        length: T,
      },
      logits,
    };
  }

  /** Feeds one token per row [B]; updates the cache in place and returns logits [B, V]. */
  decodeStep(cache: KvCache, tokens: tf.Tensor1D): tf.Tensor2D {
    const B = tokens.shape[0];
    if (cache.length >= this.config.context) throw new Error(`context of ${this.config.context} tokens is full`);
    const positions = tf.tensor2d(cache.positions.map((p) => Math.min(p, this.config.context - 1)), [B, 1], 'int32');
    const nextMask = tf.tidy(() => tf.concat([cache.keyMask, tf.zeros([B, 1, 1, 1])], 3) as tf.Tensor4D);
    let inputRows: tf.Tensor2D[] = [];
    if (this.tokenInputs && cache.inputs) {
      const fed = tokens.dataSync();
      cache.inputs = cache.inputs.map((states, b) => this.tokenInputs!.next(states, fed[b]));
      const rows = cache.inputs.map((states) => this.tokenInputs!.rows(states)); // [B][tables]
      inputRows = this.inputTables.map((_, i) => tf.tensor2d(Int32Array.from(rows, (row) => row[i]), [B, 1], 'int32'));
    }
    const logits = tf.tidy(() => {
      let x = this.embed(tokens.reshape([B, 1]) as tf.Tensor2D, positions, cache.lastTokens.reshape([B, 1]) as tf.Tensor2D, cache.secondLastTokens?.reshape([B, 1]) as tf.Tensor2D | undefined, inputRows);
      this.blocks.forEach((b, i) => {
        const out = this.block(b, x, nextMask, { keys: cache.keys[i], values: cache.values[i] });
        x = out.x;
        const [oldKeys, oldValues] = [cache.keys[i], cache.values[i]];
        cache.keys[i] = tf.keep(out.keys);
        cache.values[i] = tf.keep(out.values);
        oldKeys.dispose();
        oldValues.dispose();
      });
      return this.head(x).reshape([B, this.config.vocabSize]) as tf.Tensor2D;
    });
    positions.dispose();
    tf.dispose(inputRows);
    cache.keyMask.dispose();
    cache.keyMask = nextMask;
    if (cache.secondLastTokens) {
      cache.secondLastTokens.dispose();
      cache.secondLastTokens = cache.lastTokens;
    } else {
      cache.lastTokens.dispose();
    }
    cache.lastTokens = tokens.clone();
    cache.positions = cache.positions.map((p) => p + 1);
    cache.length += 1;
    return logits;
  }

  /** Keeps only the given rows of the cache, in that order (rows that finished decoding are dropped, so later steps skip them). */
  compactCache(cache: KvCache, rows: readonly number[]): void {
    const index = tf.tensor1d(Int32Array.from(rows), 'int32');
    const gather = <T extends tf.Tensor>(tensor: T): T => {
      const kept = tf.gather(tensor, index, 0) as T;
      tensor.dispose();
      return kept;
    };
    cache.keys = cache.keys.map(gather);
    cache.values = cache.values.map(gather);
    cache.keyMask = gather(cache.keyMask);
    cache.lastTokens = gather(cache.lastTokens);
    if (cache.secondLastTokens) cache.secondLastTokens = gather(cache.secondLastTokens);
    cache.positions = rows.map((row) => cache.positions[row]);
    if (cache.inputs) cache.inputs = rows.map((row) => cache.inputs![row]);
    index.dispose();
  }

  disposeCache(cache: KvCache): void {
    tf.dispose([...cache.keys, ...cache.values, cache.keyMask, cache.lastTokens, ...(cache.secondLastTokens ? [cache.secondLastTokens] : [])]);
  }

  /** Checkpoint names of the variables, in order. */
  weightNames(): string[] {
    return this.variables.map((variable) => this.shortName(variable));
  }

  getWeights(): WeightArray[] {
    return this.variables.map((variable) => ({ name: this.shortName(variable), shape: [...variable.shape], data: variable.dataSync() as Float32Array }));
  }

  /** Sets every weight; names and shapes must match exactly, and are checked before any is written (WeightsMismatchError). */
  setWeights(weights: readonly WeightArray[]): void {
    const byName = new Map(weights.map((w) => [w.name, w]));
    // A reward model is the policy's trunk with a scalar head (algorithms/rewardModel.ts): said as such, not as a count of tensors.
    if ([...byName.keys()].some((name) => name.startsWith('rm/'))) throw new WeightsMismatchError('these are a reward model\'s weights (a scalar head on the trunk), not a policy\'s: a reward model scores programs for a run (--use-reward-model), it does not write them');
    for (const variable of this.variables) {
      const name = this.shortName(variable);
      const weight = byName.get(name);
      if (!weight) throw new WeightsMismatchError(`weights lack ${name}`);
      if (weight.shape.join(',') !== variable.shape.join(',')) throw new WeightsMismatchError(`weight ${name} has shape [${weight.shape}], the model needs [${variable.shape}]`);
      // Checked here too, so that a bad tensor never leaves the model half written.
      if (!(weight.data instanceof Float32Array)) throw new WeightsMismatchError(`weight ${name} is not float32 (${(weight.data as object)?.constructor?.name ?? typeof weight.data}): a policy's weights are`);
      if (weight.data.length !== variable.size) throw new WeightsMismatchError(`weight ${name} has ${weight.data.length} values, its shape [${variable.shape}] ${variable.size}`);
    }
    if (byName.size !== this.variables.length) throw new WeightsMismatchError(`weights have ${byName.size} tensors, the model ${this.variables.length}`);
    for (const variable of this.variables) {
      const weight = byName.get(this.shortName(variable))!;
      tf.tidy(() => variable.assign(tf.tensor(weight.data, weight.shape)));
    }
  }

  dispose(): void {
    tf.dispose(this.variables);
    this.numberCode?.dispose();
    tf.dispose(this.inputTables.flatMap(({ code }) => (code ? [code] : [])));
    // With secondPrevious the previous tokens' codes are tensors of their own; without, the first is numberCode.
    if (this.config.secondPrevious) tf.dispose(this.previousCodes.filter((code): code is tf.Tensor2D => code !== null));
  }
}
