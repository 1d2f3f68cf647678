/**
 * (prompt, program) pairs for the supervised warm start, streamed from the task's generator
 * or cycled from records that carry a `program`, never from a held-out sequence.
 *
 * Batches are bucketed by length: a pool of `poolBatches` batches is drawn, sorted by total
 * tokens, cut into batches and shuffled, so a batch pads to a similar length instead of to the
 * longest pair of a random draw (measured: 1.3x more pairs/s at d 64 with the default pool).
 * Attention costs grow with the square of the padded length, so this matters most for the
 * long tail of the distribution.
 */
import type { KolmogorovRecord } from '../data/records';
import { Rng } from '../rng';
import { generateExample, type GeneratorOptions } from './generator';
import { encodePrompt, programToTokens } from './grammar';
import { parseProgram } from './program';

export interface Pair {
  prompt: number[];
  tokens: number[];
}

export interface PairLimits {
  maxSequenceLength: number;
  /** The model's context: the longest prompt plus the longest program must fit in it. */
  context: number;
  maxProgramTokens: number;
}

export const sequenceKey = (sequence: readonly number[]) => sequence.join(',');

/** The pair of a record, or null when it has no program, does not fit, or cannot be tokenised. */
export function toPair(record: KolmogorovRecord, limits: PairLimits): Pair | null {
  if (record.program === undefined) return null;
  let tokens: number[];
  try {
    tokens = programToTokens(parseProgram(record.program));
  } catch {
    return null; // e.g. a slice index above 255, which the value tokens cannot spell
  }
  return tokens.length <= limits.maxProgramTokens ? { prompt: encodePrompt(record.sequence, limits.maxSequenceLength), tokens } : null;
}

export interface PairStreamOptions extends PairLimits {
  seed: number;
  /** Sequences that are never trained on (the held-out set). */
  exclude: ReadonlySet<string>;
  /** Records to cycle through instead of the generator. */
  records?: readonly KolmogorovRecord[];
  /** Batches drawn at once for length bucketing (1: no bucketing). */
  poolBatches?: number;
  /** Generator options (defaults: the task's distribution). */
  generator?: Partial<GeneratorOptions>;
  /**
   * Train only on sequences of at most this many values (0: all). Attention costs grow with
   * the square of the length, so a short budget buys more examples of the same skills on the
   * shorter part of the distribution; held-out evaluation still covers all of it.
   */
  maxTrainLength?: number;
}

export class PairStream {
  /** Generated or read pairs that were skipped (held-out, too long, not tokenisable). */
  dropped = 0;
  private readonly rng: Rng;
  private readonly pairs: Pair[] | null = null;
  private cursor = 0;
  private ready: Pair[][] = [];

  constructor(readonly options: PairStreamOptions) {
    // A batch pads prompts and programs separately (training.ts), so the worst case must fit.
    const worst = options.maxSequenceLength + 2 + options.maxProgramTokens - 1;
    if (worst > options.context) {
      throw new Error(`task.maxSequenceLength (${options.maxSequenceLength}) + 2 + model.maxProgramTokens (${options.maxProgramTokens}) - 1 = ${worst} tokens exceed model.context (${options.context})`);
    }
    this.rng = new Rng(options.seed);
    if (options.records) {
      const usable = options.records.filter((r) => !options.exclude.has(sequenceKey(r.sequence)));
      this.dropped += options.records.length - usable.length;
      this.pairs = usable.map((r) => toPair(r, options)).filter((p): p is Pair => p !== null);
      this.dropped += usable.length - this.pairs.length;
      if (this.pairs.length === 0) {
        const withPrograms = usable.filter((r) => r.program !== undefined).length;
        const why = options.records.length === 0 ? 'the file has no records'
          : usable.length === 0 ? `all ${options.records.length} sequences are held-out ones`
          : withPrograms === 0 ? `none of the ${usable.length} records has a "program" field (a warm start learns from sequences with their programs)`
          : `none of the ${withPrograms} records with a program fits the model's context (its sequence and program tokens) or parses`;
        throw new Error(`no usable (sequence, program) pairs: ${why}`);
      }
      this.rng.shuffle(this.pairs);
    }
  }

  next(): Pair {
    if (this.pairs) return this.pairs[this.cursor++ % this.pairs.length];
    for (;;) {
      const example = generateExample(this.rng, this.options.generator);
      const tooLong = (this.options.maxTrainLength ?? 0) > 0 && example.sequence.length > this.options.maxTrainLength!;
      const pair = tooLong || this.options.exclude.has(sequenceKey(example.sequence)) ? null : toPair(example, this.options);
      if (pair) return pair;
      this.dropped += 1;
    }
  }

  /** A batch of `size` pairs of similar length. */
  batch(size: number): Pair[] {
    if (this.ready.length === 0) {
      const pool = Array.from({ length: size * Math.max(1, this.options.poolBatches ?? 8) }, () => this.next());
      pool.sort((a, b) => a.prompt.length + a.tokens.length - (b.prompt.length + b.tokens.length));
      for (let i = 0; i < pool.length; i += size) this.ready.push(pool.slice(i, i + size));
      this.rng.shuffle(this.ready);
    }
    return this.ready.pop()!;
  }
}
