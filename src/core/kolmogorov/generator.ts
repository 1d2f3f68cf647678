/**
 * Seeded synthetic (sequence, program) pairs following the KoLMogorov Test generator's
 * default distribution (docs/kolmogorov-spec.md, "The synthetic distribution"; public repository
 * facebookresearch/KoLMogorov, src/synthetic_data_generation/generate_data.py, read for the
 * order of the passes where the specification is terse). The passes, in order:
 *
 * 1. 1..5 base sequences, 5..25 long, each range_func_up, range_func_interval (step 2..5),
 *    repeat_num or set_list, uniformly;
 * 2. with 0.4, a list-update pass: reverse (0.1, never a repeat_num sequence nor one already
 *    reversed), then over the growing list repeat_list 2..4 times (0.1) and, on sequences
 *    neither reversed nor excluded, jumps 2..5 (0.05) and a slice of at least 2 (0.05), then
 *    substitute a present value (0.1), the original then dropped from the output with 0.25;
 * 3. with 0.4, a math pass over the sequences so far: min_n/max_n with n in 3..len-2 on
 *    set_list sequences (0.1); otherwise one draw picks add/subtract a constant that keeps
 *    values in range (0.1) or modulo by 2..(third largest value) (0.1);
 * 4. scan_add (0.1 per sequence) when the input has more than two distinct values and the
 *    sums stay in range;
 * 5. with 0.4, one filter with a random predicate on a random sequence, kept with 0.3 when it
 *    changes the list and keeps more than 2 elements;
 * 6. with 0.4, every pair of equal-length sequences: add/subtract (0.1) or modulo (0.1),
 *    kept when the result is in 0..255 with more than two distinct values;
 * 7. every sequence not dropped is folded into the output in creation order, each step
 *    concatenate (0.8) or interleave (0.2); then, once per sequence, with 0.2 a sequence used
 *    fewer than twice is folded in again.
 *
 * Deliberate differences, each small: the reference's filter acts on whichever sequence its
 * previous loop ended on, ours on a random one; range_func_interval's exclusive end must be a
 * value token (0..255), so its last element is at most 254; programs with more lines than the
 * grammar's MAX_LINES (0.15%) or outputs outside 5..4096 values (a clipped lone interval) are
 * drawn again; a dataset keeps per distinct sequence the program with the fewest kt bits (the
 * reference keeps the fewest characters). Lines the output does not use are removed.
 */
import { Rng } from '../rng';
import { runProgram } from './dsl';
import { MAX_LINES } from './vocab';
import { printProgram, pruneLines, type Arg, type DslName, type PredicateName, type Program, type ProgramLine } from './program';
import { programBits } from './prior';

export interface GeneratedExample {
  sequence: number[];
  program: string;
}

export interface GeneratorOptions {
  maxBase: number;
  minLength: number;
  maxLength: number;
  listUpdateProbability: number;
  reverseProbability: number;
  repeatListProbability: number;
  subsequenceProbability: number;
  substituteProbability: number;
  dropSubstitutedProbability: number;
  mathProbability: number;
  minMaxProbability: number;
  addSubtractProbability: number;
  moduloProbability: number;
  scanAddProbability: number;
  filterProbability: number;
  filterKeepProbability: number;
  twoListProbability: number;
  twoListAddSubtractProbability: number;
  twoListModuloProbability: number;
  concatenateProbability: number;
  reuseProbability: number;
  /** Programs with more lines are drawn again (the grammar cannot write them). */
  maxLines: number;
  /** Outputs shorter than this are drawn again (the benchmark's sequences have 5 values or more). */
  minSequenceLength: number;
  /** Outputs longer than this are drawn again (the sandbox's default output cap). */
  maxSequenceLength: number;
}

export const defaultGeneratorOptions: GeneratorOptions = {
  maxBase: 5,
  minLength: 5,
  maxLength: 25,
  listUpdateProbability: 0.4,
  reverseProbability: 0.1,
  repeatListProbability: 0.1,
  subsequenceProbability: 0.05,
  substituteProbability: 0.1,
  dropSubstitutedProbability: 0.25,
  mathProbability: 0.4,
  minMaxProbability: 0.1,
  addSubtractProbability: 0.1,
  moduloProbability: 0.1,
  scanAddProbability: 0.1,
  filterProbability: 0.4,
  filterKeepProbability: 0.3,
  twoListProbability: 0.4,
  twoListAddSubtractProbability: 0.1,
  twoListModuloProbability: 0.1,
  concatenateProbability: 0.8,
  reuseProbability: 0.2,
  maxLines: MAX_LINES,
  minSequenceLength: 5,
  maxSequenceLength: 4096,
};

type Origin = 'range' | 'interval' | 'repeat' | 'set' | 'derived';

interface Entry {
  line: number;
  values: number[];
  origin: Origin;
}

const MAX_VALUE = 255;
const distinct = (values: readonly number[]) => new Set(values).size;
const inRange = (values: readonly number[]) => values.every((v) => v >= 0 && v <= MAX_VALUE);
const ref = (line: number): Arg => ({ kind: 'ref', line });
const int = (value: number): Arg => ({ kind: 'int', value });
const sameValues = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((v, i) => v === b[i]);

/** A program under construction; each line is run once, on the values already computed. */
class Builder {
  readonly lines: ProgramLine[] = [];
  readonly values: number[][] = [];

  /** Runs `fn(args)` without adding it, so a precondition on the result can be checked first. */
  preview(fn: DslName, args: Arg[]): number[] {
    return runProgram({ lines: [...this.lines, { fn, args }], output: this.lines.length });
  }

  add(fn: DslName, args: Arg[], values = this.preview(fn, args), origin: Origin = 'derived'): Entry {
    this.lines.push({ fn, args });
    this.values.push(values);
    return { line: this.lines.length - 1, values, origin };
  }
}

function baseSequence(builder: Builder, rng: Rng, options: GeneratorOptions): Entry {
  const length = rng.int(options.minLength, options.maxLength);
  const start = rng.int(0, MAX_VALUE - length);
  switch (rng.int(0, 3)) {
    case 0:
      return builder.add('range_func_up', [int(start), int(start + length - 1)], undefined, 'range');
    case 1: {
      const step = rng.int(2, 5);
      // Clipped like the reference, but so that the exclusive end (last + 1) is still a value.
      const count = Math.floor((Math.min(start + (length - 1) * step, MAX_VALUE - 1) - start) / step) + 1;
      return builder.add('range_func_interval', [int(start), int(start + (count - 1) * step + 1), int(step)], undefined, 'interval');
    }
    case 2:
      return builder.add('repeat_num', [int(length), int(rng.int(0, MAX_VALUE))], undefined, 'repeat');
    default:
      return builder.add('set_list', [{ kind: 'list', values: Array.from({ length }, () => rng.int(0, MAX_VALUE)) }], undefined, 'set');
  }
}

function listUpdatePass(builder: Builder, entries: Entry[], excluded: Set<Entry>, rng: Rng, o: GeneratorOptions): void {
  const reversed = new Set<Entry>();
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (reversed.has(entry) || entry.origin === 'repeat' || !rng.chance(o.reverseProbability)) continue;
    const result = builder.add('reverse_list', [ref(entry.line)]);
    entries.push(result);
    reversed.add(entry).add(result);
  }
  // The list grows while it is walked, as in the reference: a repeat can itself be repeated.
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    const n = entry.values.length;
    if (rng.chance(o.repeatListProbability)) entries.push(builder.add('repeat_list', [int(rng.int(2, 4)), ref(entry.line)]));
    if (reversed.has(entry) || excluded.has(entry)) continue;
    if (rng.chance(o.subsequenceProbability)) entries.push(builder.add('get_subsequence_with_jumps', [ref(entry.line), int(rng.int(2, 5))]));
    if (rng.chance(o.subsequenceProbability) && n > 1) {
      const start = rng.int(0, n - 2);
      entries.push(builder.add('get_subsequence_between_indices', [ref(entry.line), int(start), int(rng.int(start + 2, n))]));
    }
  }
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!rng.chance(o.substituteProbability)) continue;
    const pattern = rng.pick([...new Set(entry.values)].sort((a, b) => a - b));
    const replacement = rng.int(0, MAX_VALUE);
    if (pattern === replacement) continue;
    entries.push(builder.add('substitute', [ref(entry.line), int(pattern), int(replacement)]));
    if (rng.chance(o.dropSubstitutedProbability)) excluded.add(entry);
  }
}

function mathPass(builder: Builder, entries: Entry[], rng: Rng, o: GeneratorOptions): void {
  const count = entries.length; // only the sequences that exist before the pass
  for (let i = 0; i < count; i++) {
    const entry = entries[i];
    const values = entry.values;
    const draw = rng.next();
    if (entry.origin === 'set' && rng.chance(o.minMaxProbability)) {
      const fn = rng.chance(0.5) ? 'max_n' : 'min_n';
      entries.push(builder.add(fn, [ref(entry.line), int(rng.int(3, values.length - 2))]));
    } else if (draw < o.addSubtractProbability) {
      if (rng.chance(0.5)) {
        const room = MAX_VALUE - Math.max(...values);
        if (room > 1) entries.push(builder.add('add_item_list', [ref(entry.line), int(rng.int(1, room))]));
      } else {
        const room = Math.min(...values);
        if (room > 1) entries.push(builder.add('subtract_item_list', [ref(entry.line), int(rng.int(1, room))]));
      }
    } else if (draw < o.addSubtractProbability + o.moduloProbability) {
      const thirdLargest = [...values].sort((a, b) => b - a)[Math.min(2, values.length - 1)];
      if (thirdLargest > 2) entries.push(builder.add('modulo_item_list', [ref(entry.line), int(rng.int(2, thirdLargest))]));
    }
  }
}

function scanAddPass(builder: Builder, entries: Entry[], rng: Rng, o: GeneratorOptions): void {
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (!rng.chance(o.scanAddProbability) || distinct(entry.values) <= 2) continue;
    const result = builder.preview('scan_add', [ref(entry.line)]);
    if (inRange(result)) entries.push(builder.add('scan_add', [ref(entry.line)], result));
  }
}

function filterPass(builder: Builder, entries: Entry[], rng: Rng, o: GeneratorOptions): void {
  if (!rng.chance(o.filterProbability)) return;
  const predicate: PredicateName = rng.pick(['is_even', 'is_odd', 'is_not_zero'] as const);
  const entry = rng.pick(entries);
  const args: Arg[] = [{ kind: 'pred', name: predicate }, ref(entry.line)];
  const result = builder.preview('filter', args);
  if (!sameValues(result, entry.values) && result.length > 2 && rng.chance(o.filterKeepProbability)) {
    entries.push(builder.add('filter', args, result));
  }
}

function twoListPass(builder: Builder, entries: Entry[], rng: Rng, o: GeneratorOptions): void {
  if (!rng.chance(o.twoListProbability)) return;
  const count = entries.length;
  for (let i = 0; i < count; i++) {
    for (let j = i + 1; j < count; j++) {
      const draw = rng.next();
      let fn: DslName | null = null;
      if (draw < o.twoListAddSubtractProbability) fn = rng.chance(0.5) ? 'add_two_lists' : 'subtract_two_lists';
      else if (draw < o.twoListAddSubtractProbability + o.twoListModuloProbability) fn = 'modulo_two_lists';
      if (!fn || entries[i].values.length !== entries[j].values.length) continue;
      const args = [ref(entries[i].line), ref(entries[j].line)];
      const result = builder.preview(fn, args);
      if (inRange(result) && distinct(result) > 2) entries.push(builder.add(fn, args, result));
    }
  }
}

function foldIntoOutput(builder: Builder, entries: Entry[], excluded: Set<Entry>, rng: Rng, o: GeneratorOptions): number {
  const uses = new Map<Entry, number>(entries.map((entry) => [entry, 0]));
  let output: Entry | null = null;
  const fold = (entry: Entry) => {
    uses.set(entry, uses.get(entry)! + 1);
    if (!output) output = entry;
    else output = builder.add(rng.chance(o.concatenateProbability) ? 'concatenate' : 'interleave', [ref(output.line), ref(entry.line)]);
  };
  for (const entry of entries) if (!excluded.has(entry)) fold(entry);
  for (let i = 0; i < entries.length; i++) {
    if (!rng.chance(o.reuseProbability)) continue;
    const candidates = entries.filter((entry) => uses.get(entry)! < 2);
    if (candidates.length) fold(rng.pick(candidates));
  }
  // Substitution always adds the sequence it excludes the original for, so output is set.
  return (output as Entry | null)!.line;
}

function drawProgram(rng: Rng, o: GeneratorOptions): { program: Program; length: number } {
  const builder = new Builder();
  const entries: Entry[] = [];
  const baseCount = rng.int(1, o.maxBase);
  for (let i = 0; i < baseCount; i++) entries.push(baseSequence(builder, rng, o));
  const excluded = new Set<Entry>();
  if (rng.chance(o.listUpdateProbability)) listUpdatePass(builder, entries, excluded, rng, o);
  if (rng.chance(o.mathProbability)) mathPass(builder, entries, rng, o);
  scanAddPass(builder, entries, rng, o);
  filterPass(builder, entries, rng, o);
  twoListPass(builder, entries, rng, o);
  const output = foldIntoOutput(builder, entries, excluded, rng, o);
  return { program: pruneLines({ lines: builder.lines, output }), length: builder.values[output].length };
}

export function generateProgram(rng: Rng, options: Partial<GeneratorOptions> = {}): Program {
  const o = { ...defaultGeneratorOptions, ...options };
  for (let attempt = 0; attempt < 1000; attempt++) {
    let drawn: ReturnType<typeof drawProgram>;
    try {
      drawn = drawProgram(rng, o);
    } catch (error) {
      // A line past the DSL's guards (a list over MAX_LIST values, about once in a million
      // draws: pieces woven into themselves) fails the draw, as a sequence too long would.
      if (error instanceof RangeError) continue;
      throw error;
    }
    const { program, length } = drawn;
    if (program.lines.length <= o.maxLines && length >= o.minSequenceLength && length <= o.maxSequenceLength) return program;
  }
  throw new Error('the generator found no program within maxLines and the sequence length bounds in 1000 draws');
}

export function generateExample(rng: Rng, options: Partial<GeneratorOptions> = {}): GeneratedExample {
  const program = generateProgram(rng, options);
  return { sequence: runProgram(program), program: printProgram(program) };
}

/**
 * `count` distinct sequences, each with the shortest program (kt prior) the generator found for
 * it. `onProgress` hears the number of distinct sequences so far, every 1,000 draws.
 */
export function generateDataset(
  seed: number,
  count: number,
  options: Partial<GeneratorOptions> = {},
  onProgress?: (distinct: number) => void,
): GeneratedExample[] {
  const rng = new Rng(seed);
  const bySequence = new Map<string, { program: Program; bits: number }>();
  let attempts = 0;
  while (bySequence.size < count) {
    if (++attempts > count * 20) throw new Error(`generator produced only ${bySequence.size} distinct sequences in ${attempts} attempts`);
    const program = generateProgram(rng, options);
    const key = runProgram(program).join(',');
    const bits = programBits(program, 'kt');
    const known = bySequence.get(key);
    if (!known || bits < known.bits) bySequence.set(key, { program, bits });
    if (onProgress && attempts % 1000 === 0) onProgress(bySequence.size);
  }
  return [...bySequence.values()].map(({ program }) => ({ sequence: runProgram(program), program: printProgram(program) }));
}
