/**
 * Joining programs of the Kolmogorov DSL into one: the lines of each, one after the other, with
 * references moved, then one line that concatenates or interleaves their outputs. Split search
 * (split.ts) writes a long sequence this way from the pieces the policy wrote for it.
 */
import { dsl } from './dsl';
import { programBits, priorConstants } from './prior';
import type { Arg, DslName, Program, ProgramLine } from './program';
import { MAX_CONCAT, MAX_LINES, MAX_LIST } from './vocab';

/**
 * The programs' lines one after the other, references moved to their new lines, and where each
 * program's output now is. A line equal to one already written (same function, same arguments,
 * references to the same lines) is not written again: the DSL has no side effects, so its
 * output is the earlier line's. A repeated piece costs one reference, not its lines twice, and
 * `reverse_list` of an earlier piece costs one line.
 */
function appendPrograms(parts: readonly Program[]): { lines: ProgramLine[]; outputs: number[] } {
  const lines: ProgramLine[] = [];
  const written = new Map<string, number>();
  const outputs = parts.map((part) => {
    const moved: number[] = [];
    for (const line of part.lines) {
      const args = line.args.map((arg) => (arg.kind === 'ref' ? { kind: 'ref' as const, line: moved[arg.line] } : arg));
      const key = JSON.stringify([line.fn, args]);
      let at = written.get(key);
      if (at === undefined) {
        at = lines.push({ fn: line.fn, args }) - 1;
        written.set(key, at);
      }
      moved.push(at);
    }
    return moved[part.output];
  });
  return { lines, outputs };
}

/** The programs' lines, then one line that calls `fn` on their outputs, which is the program's output. */
function joinPrograms(parts: readonly Program[], fn: 'concatenate' | 'interleave'): Program {
  const { lines, outputs } = appendPrograms(parts);
  lines.push({ fn, args: outputs.map((line) => ({ kind: 'ref', line })) });
  return { lines, output: lines.length - 1 };
}

/** `rest`'s program and `woven`'s, then one line interleaving their outputs. */
export function interleavePrograms(rest: Program, woven: Program): Program {
  return joinPrograms([rest, woven], 'interleave');
}

/** The programs one after the other, then one line concatenating their outputs (the program itself when there is one). */
export function concatenatePrograms(parts: readonly Program[]): Program {
  if (parts.length === 0) throw new Error('concatenatePrograms needs at least one program');
  return parts.length === 1 ? parts[0] : joinPrograms(parts, 'concatenate');
}

/** `set_list` of the values: what a bridge writes. */
export function literalProgram(values: readonly number[]): Program {
  return { lines: [literalLine([...values])], output: 0 };
}

/**
 * The program with pieces that a concatenate takes one after the other written as one line
 * where one line writes their values for fewer bits: two ranges that go on from each other are
 * one range, two repeats of a value one repeat, values beside values one `set_list`; and a
 * concatenate that only another concatenate uses written into it. The same output, a line (and
 * a reference) cheaper for each merge. Only lines used once are merged (a line used again is
 * cheaper referred to); a concatenate left with one argument becomes that line, and lines
 * nothing uses any more are dropped. A program the policy's grammar can write is merged only as
 * far as it stays writable (no `set_list` past MAX_LIST values, no concatenate past MAX_CONCAT
 * pieces). Split search cuts runs where its pieces end and joins pieces that end in a
 * concatenate, so its joined programs often hold such neighbours.
 */
export function mergeRuns(program: Program): Program {
  const uses = new Array<number>(program.lines.length).fill(0);
  for (const line of program.lines) for (const arg of line.args) if (arg.kind === 'ref') uses[arg.line]++;
  // A program the policy's grammar can write stays one it can (expert iteration learns from such programs).
  const limited = withinGrammar(program);
  const lines = program.lines.map((line) => ({ ...line }));
  lines.forEach((line, i) => {
    if (line.fn !== 'concatenate') return;
    // A concatenate used only here is its arguments, in place: one line fewer, and its pieces meet their neighbours.
    const opened = line.args.flatMap((arg) => (arg.kind === 'ref' && uses[arg.line] === 1 && lines[arg.line].fn === 'concatenate' ? lines[arg.line].args : [arg]));
    let merged = mergeNeighbours(opened, lines, uses, limited);
    if (limited && merged.args.length > MAX_CONCAT) merged = mergeNeighbours(line.args, lines, uses, limited);
    for (const [at, written] of merged.written) lines[at] = written;
    const [only] = merged.args;
    lines[i] = merged.args.length === 1 && only.kind === 'ref' ? lines[only.line] : { fn: 'concatenate', args: merged.args };
  });
  return pruneLines({ lines, output: program.output });
}

/** A concatenate's arguments with neighbours merged where one line writes them for fewer bits, and the lines that now hold the merged values. */
function mergeNeighbours(args: readonly Arg[], lines: readonly ProgramLine[], uses: readonly number[], limited: boolean): { args: Arg[]; written: Map<number, ProgramLine> } {
  const written = new Map<number, ProgramLine>();
  const lineAt = (at: number) => written.get(at) ?? lines[at];
  // A line used once is used only here: its values may move into the line before it.
  const single = (arg: Arg | undefined): arg is { kind: 'ref'; line: number } => arg?.kind === 'ref' && uses[arg.line] === 1 && valuesOf(lineAt(arg.line)) !== null;
  const kept: Arg[] = [];
  for (const arg of args) {
    const before = kept.at(-1);
    if (single(arg) && single(before)) {
      const [a, b] = [lineAt(before.line), lineAt(arg.line)];
      const merged = oneLine([...valuesOf(a)!, ...valuesOf(b)!]);
      const fits = !limited || merged.fn !== 'set_list' || valuesOf(merged)!.length <= MAX_LIST;
      if (fits && lineBits(merged) < lineBits(a) + lineBits(b)) {
        written.set(before.line, merged);
        continue;
      }
    }
    kept.push(arg);
  }
  return { args: kept, written };
}

/** Whether the policy's grammar (grammar.ts) can write the program: its number of lines, of values in a `set_list`, of pieces in a concatenate. */
function withinGrammar(program: Program): boolean {
  return (
    program.lines.length <= MAX_LINES &&
    program.lines.every((line) => (line.fn === 'concatenate' ? line.args.length <= MAX_CONCAT : line.fn !== 'set_list' || valuesOf(line)!.length <= MAX_LIST))
  );
}

const runs = new Set<DslName>(['set_list', 'range_func_up', 'range_func_interval', 'repeat_num']);

/** The values of a line that takes no reference (a literal, a range or a repeat), else null. */
function valuesOf(line: ProgramLine): number[] | null {
  if (!runs.has(line.fn)) return null;
  return dsl[line.fn](...line.args.map((arg) => (arg.kind === 'int' ? arg.value : arg.kind === 'list' ? arg.values : null)));
}

/** A line alone, in bits (a line without references costs the same under either prior). */
function lineBits(line: ProgramLine): number {
  return programBits({ lines: [line], output: 0 }, 'kt');
}

/** The cheapest one line that writes `values` within the grammar's ranges: a repeat, a range, a range with a step, or the values. */
function oneLine(values: number[]): ProgramLine {
  const int = (value: number): Arg => ({ kind: 'int', value });
  const [first, last] = [values[0], values[values.length - 1]];
  const step = values[1] - values[0];
  const lines = [literalLine(values)];
  if (values.length > 1 && values.every((value, i) => i === 0 || value - values[i - 1] === step)) {
    if (step === 0 && values.length <= priorConstants.valueRange - 1) lines.push({ fn: 'repeat_num', args: [int(values.length), int(first)] });
    if (step === 1) lines.push({ fn: 'range_func_up', args: [int(first), int(last)] });
    if (step >= 2 && step <= priorConstants.smallMax && last + 1 < priorConstants.valueRange) lines.push({ fn: 'range_func_interval', args: [int(first), int(last + 1), int(step)] });
  }
  return lines.reduce((best, line) => (lineBits(line) < lineBits(best) ? line : best));
}

function literalLine(values: number[]): ProgramLine {
  return { fn: 'set_list', args: [{ kind: 'list', values }] };
}

/** The lines the output depends on, in their order, references renumbered. */
function pruneLines(program: Program): Program {
  const needed = new Array<boolean>(program.lines.length).fill(false);
  needed[program.output] = true;
  for (let i = program.output; i >= 0; i--) {
    if (!needed[i]) continue;
    for (const arg of program.lines[i].args) if (arg.kind === 'ref') needed[arg.line] = true;
  }
  const index: number[] = [];
  const lines: ProgramLine[] = [];
  program.lines.forEach((line, i) => {
    if (!needed[i]) return;
    index[i] = lines.length;
    lines.push({ fn: line.fn, args: line.args.map((arg) => (arg.kind === 'ref' ? { kind: 'ref', line: index[arg.line] } : arg)) });
  });
  return { lines, output: index[program.output] };
}
