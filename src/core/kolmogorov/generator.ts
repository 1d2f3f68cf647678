/**
 * Seeded synthetic (sequence, program) pairs following the KoLMogorov Test generator's
 * default distribution (KOLMOGOROV.md, "The synthetic distribution"): base sequences, an
 * optional list-update pass, an optional math pass, then every kept sequence folded into the
 * output with concatenate or interleave.
 *
 * Interpretation where the specification is terse (documented so the numbers are honest):
 * - each pass visits every base sequence and applies each of its operations with the given
 *   probability; a transformed sequence joins the output and its original is then dropped
 *   from the output with probability 0.25;
 * - an operation whose precondition fails (range, distinctness, length) is skipped, and so is
 *   one whose result equals a sequence already present ("identical sequences keep the
 *   shortest program");
 * - lines the output does not use are removed and the rest renumbered;
 * - a dataset keeps one program per distinct sequence, the shortest under the kt prior.
 */
import { Rng } from '../rng';
import { runProgram } from './dsl';
import { printProgram, type Arg, type DslName, type PredicateName, type Program, type ProgramLine } from './program';
import { programBits } from './prior';

export interface GeneratedExample {
  sequence: number[];
  program: string;
}

export interface GeneratorOptions {
  minBase: number;
  maxBase: number;
  minLength: number;
  maxLength: number;
  listUpdateProbability: number;
  mathProbability: number;
}

export const defaultGeneratorOptions: GeneratorOptions = {
  minBase: 1,
  maxBase: 5,
  minLength: 5,
  maxLength: 25,
  listUpdateProbability: 0.4,
  mathProbability: 0.4,
};

interface Entry {
  line: number;
  values: number[];
  isSetList: boolean;
}

const distinct = (values: number[]) => new Set(values).size;
const inRange = (values: number[]) => values.every((v) => v >= 0 && v <= 255);
const ref = (line: number): Arg => ({ kind: 'ref', line });
const int = (value: number): Arg => ({ kind: 'int', value });

class Builder {
  readonly lines: ProgramLine[] = [];
  readonly values: number[][] = [];

  add(fn: DslName, args: Arg[]): Entry {
    const line: ProgramLine = { fn, args };
    const values = runProgram({ lines: [...this.lines, line], output: this.lines.length });
    this.lines.push(line);
    this.values.push(values);
    return { line: this.lines.length - 1, values, isSetList: fn === 'set_list' };
  }

  has(values: number[]): boolean {
    const key = values.join(',');
    return this.values.some((v) => v.join(',') === key);
  }

  /** Adds the line only if its result is new, in range and not empty. */
  tryAdd(fn: DslName, args: Arg[]): Entry | null {
    const values = runProgram({ lines: [...this.lines, { fn, args }], output: this.lines.length });
    if (values.length < 2 || !inRange(values) || this.has(values)) return null;
    return this.add(fn, args);
  }
}

function baseSequence(builder: Builder, rng: Rng, options: GeneratorOptions): Entry {
  const length = rng.int(options.minLength, options.maxLength);
  switch (rng.int(0, 3)) {
    case 0: {
      const start = rng.int(0, 256 - length);
      return builder.add('range_func_up', [int(start), int(start + length - 1)]);
    }
    case 1: {
      const step = rng.int(2, 5);
      // The exclusive end must itself be a value 0..255, so the last element is at most 254.
      const count = Math.min(length, Math.floor(254 / step) + 1);
      const start = rng.int(0, 254 - (count - 1) * step);
      return builder.add('range_func_interval', [int(start), int(start + (count - 1) * step + 1), int(step)]);
    }
    case 2:
      return builder.add('repeat_num', [int(length), int(rng.int(0, 255))]);
    default:
      return builder.add('set_list', [{ kind: 'list', values: Array.from({ length }, () => rng.int(0, 255)) }]);
  }
}

/** Programs with their unused lines removed and references renumbered. */
function prune(program: Program): Program {
  const used = new Set<number>([program.output]);
  for (let i = program.output; i >= 0; i--) {
    if (!used.has(i)) continue;
    for (const arg of program.lines[i].args) if (arg.kind === 'ref') used.add(arg.line);
  }
  const renumber = new Map<number, number>();
  const lines: ProgramLine[] = [];
  program.lines.forEach((line, i) => {
    if (!used.has(i)) return;
    renumber.set(i, lines.length);
    lines.push({ fn: line.fn, args: line.args.map((arg) => (arg.kind === 'ref' ? ref(renumber.get(arg.line)!) : arg)) });
  });
  return { lines, output: renumber.get(program.output)! };
}

export function generateProgram(rng: Rng, options: Partial<GeneratorOptions> = {}): Program {
  const opts = { ...defaultGeneratorOptions, ...options };
  const builder = new Builder();
  const bases: Entry[] = [];
  const baseCount = rng.int(opts.minBase, opts.maxBase);
  for (let i = 0; i < baseCount; i++) {
    const entry = baseSequence(builder, rng, opts);
    if (!bases.some((b) => b.values.join(',') === entry.values.join(','))) bases.push(entry);
  }
  const kept: Entry[] = [...bases];
  const derive = (original: Entry, result: Entry | null) => {
    if (!result) return;
    kept.push(result);
    if (rng.chance(0.25)) kept.splice(kept.indexOf(original), 1);
  };

  if (rng.chance(opts.listUpdateProbability)) {
    for (const base of bases) {
      const n = base.values.length;
      if (rng.chance(0.1)) derive(base, builder.tryAdd('reverse_list', [ref(base.line)]));
      if (rng.chance(0.1)) derive(base, builder.tryAdd('repeat_list', [int(rng.int(2, 4)), ref(base.line)]));
      if (rng.chance(0.05)) {
        const jump = rng.int(2, 5);
        if (n >= 2 * jump) derive(base, builder.tryAdd('get_subsequence_with_jumps', [ref(base.line), int(jump)]));
      }
      if (rng.chance(0.05) && n >= 4) {
        const start = rng.int(0, n - 3);
        const end = rng.int(start + 2, n);
        derive(base, builder.tryAdd('get_subsequence_between_indices', [ref(base.line), int(start), int(end)]));
      }
      if (rng.chance(0.1)) {
        const pattern = rng.pick(base.values);
        derive(base, builder.tryAdd('substitute', [ref(base.line), int(pattern), int(rng.int(0, 255))]));
      }
    }
  }

  if (rng.chance(opts.mathProbability)) {
    for (const base of bases) {
      const values = base.values;
      const n = values.length;
      const max = Math.max(...values);
      const min = Math.min(...values);
      if (rng.chance(0.1) && base.isSetList && n >= 5) {
        derive(base, builder.tryAdd(rng.chance(0.5) ? 'min_n' : 'max_n', [ref(base.line), int(rng.int(3, n - 2))]));
      }
      if (rng.chance(0.1)) {
        if (rng.chance(0.5) && max < 255) derive(base, builder.tryAdd('add_item_list', [ref(base.line), int(rng.int(1, 255 - max))]));
        else if (min > 0) derive(base, builder.tryAdd('subtract_item_list', [ref(base.line), int(rng.int(1, min))]));
      }
      if (rng.chance(0.1) && max >= 2) derive(base, builder.tryAdd('modulo_item_list', [ref(base.line), int(rng.int(2, max))]));
      if (rng.chance(0.1) && distinct(values) > 2) {
        const total = values.reduce((a, b) => a + b, 0);
        if (total <= 255) derive(base, builder.tryAdd('scan_add', [ref(base.line)]));
      }
      if (rng.chance(0.4 * 0.3)) {
        const predicate: PredicateName = rng.pick(['is_even', 'is_odd', 'is_not_zero'] as const);
        const test = { is_even: (v: number) => v % 2 === 0, is_odd: (v: number) => v % 2 === 1, is_not_zero: (v: number) => v !== 0 }[predicate];
        const passed = values.filter(test).length;
        if (passed < n && passed > 2) derive(base, builder.tryAdd('filter', [{ kind: 'pred', name: predicate }, ref(base.line)]));
      }
    }
    const twoList = rng.chance(0.1) ? (rng.chance(0.5) ? 'add_two_lists' : 'subtract_two_lists') : rng.chance(0.1 / 0.9) ? 'modulo_two_lists' : null;
    if (twoList) {
      const pairs: [Entry, Entry][] = [];
      for (const a of bases) for (const b of bases) if (a !== b && a.values.length === b.values.length) pairs.push([a, b]);
      if (pairs.length) {
        const [a, b] = rng.pick(pairs);
        const result = builder.tryAdd(twoList, [ref(a.line), ref(b.line)]);
        if (result && distinct(result.values) > 2) kept.push(result);
      }
    }
  }

  // Fold every kept sequence into the output; a few are reused.
  const parts = [...kept];
  for (const entry of kept) if (rng.chance(0.2)) parts.push(entry);
  rng.shuffle(parts);
  let accumulated = parts[0];
  for (const next of parts.slice(1)) {
    accumulated = builder.add(rng.chance(0.8) ? 'concatenate' : 'interleave', [ref(accumulated.line), ref(next.line)]);
  }
  return prune({ lines: builder.lines, output: accumulated.line });
}

export function generateExample(rng: Rng, options: Partial<GeneratorOptions> = {}): GeneratedExample {
  const program = generateProgram(rng, options);
  return { sequence: runProgram(program), program: printProgram(program) };
}

/** `count` distinct sequences, each with the shortest program (kt prior) the generator found for it. */
export function generateDataset(seed: number, count: number, options: Partial<GeneratorOptions> = {}): GeneratedExample[] {
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
  }
  return [...bySequence.values()].map(({ program }) => ({ sequence: runProgram(program), program: printProgram(program) }));
}
