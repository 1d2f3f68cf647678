/**
 * Merging neighbouring pieces of a program into one line: split search (split.ts) cuts a
 * sequence where its segments end, not where the sequence's runs end, and joins the pieces with
 * one concatenate (join.ts), so its programs hold neighbours that one line writes for fewer
 * bits: a range cut in two, two repeats of a value, values beside short runs, a piece the policy
 * wrote as a concatenate of its own inside the joining one.
 */
import { dsl } from './dsl';
import { literalLine } from './join';
import { lineBits, programBits, type PriorName } from './prior';
import { pruneLines, type Arg, type DslName, type Program, type ProgramLine } from './program';
import { MAX_CONCAT, MAX_LINES, MAX_LIST, SMALL_MAX, VALUES } from './vocab';

/**
 * The program with neighbours merged: a concatenate used only by another is written into it,
 * then pieces next to each other in a concatenate that one line writes for fewer bits are that
 * line (a range, a range with a step, a repeat, or the values). The same output: only lines used
 * once (the output counts as a use) are merged, as a line used again is cheaper referred to; a
 * concatenate left with one piece becomes it; lines the output does not need are dropped. A
 * program the policy's grammar can write is merged only as far as it stays writable (no
 * `set_list` past MAX_LIST values, no concatenate past MAX_CONCAT pieces), since expert
 * iteration learns from such programs. Never more bits under `prior`: when the merges do not
 * pay as a whole (opening a concatenate moves references to a later line, which the strict
 * prior charges more for), the program is returned as it was, its unneeded lines dropped.
 */
export function mergeRuns(program: Program, prior: PriorName): Program {
  const pruned = pruneLines(program);
  const uses = new Array<number>(pruned.lines.length).fill(0);
  uses[pruned.output]++;
  for (const line of pruned.lines) for (const arg of line.args) if (arg.kind === 'ref') uses[arg.line]++;
  const limited = withinGrammar(pruned);
  const lines = pruned.lines.map((line) => ({ ...line }));
  lines.forEach((line, i) => {
    if (line.fn !== 'concatenate') return;
    // A concatenate used only here is its pieces, in place: one line fewer, and its pieces meet their neighbours.
    const opened = line.args.flatMap((arg) => (arg.kind === 'ref' && uses[arg.line] === 1 && lines[arg.line].fn === 'concatenate' ? lines[arg.line].args : [arg]));
    let merged = mergeNeighbours(opened, lines, uses, limited);
    if (limited && merged.args.length > MAX_CONCAT) merged = mergeNeighbours(line.args, lines, uses, limited);
    for (const [at, written] of merged.written) lines[at] = written;
    const [only] = merged.args;
    lines[i] = merged.args.length === 1 && only.kind === 'ref' ? lines[only.line] : { fn: 'concatenate', args: merged.args };
  });
  const result = pruneLines({ lines, output: pruned.output });
  return programBits(result, prior) <= programBits(pruned, prior) ? result : pruned;
}

/** A concatenate's pieces with neighbours merged where one line writes them for fewer bits, and the lines that now hold the merged values. */
function mergeNeighbours(args: readonly Arg[], lines: readonly ProgramLine[], uses: readonly number[], limited: boolean): { args: Arg[]; written: Map<number, ProgramLine> } {
  const written = new Map<number, ProgramLine>();
  const lineAt = (at: number) => written.get(at) ?? lines[at];
  // A line used once is used only here: its values may move into the line before it.
  const valuesAt = (arg: Arg | undefined) => (arg?.kind === 'ref' && uses[arg.line] === 1 ? valuesOf(lineAt(arg.line)) : null);
  const kept: Arg[] = [];
  for (const arg of args) {
    const before = kept.at(-1);
    const [first, second] = [valuesAt(before), valuesAt(arg)];
    if (first && second && before?.kind === 'ref' && arg.kind === 'ref') {
      const [a, b] = [lineAt(before.line), lineAt(arg.line)];
      const merged = oneLine([...first, ...second]);
      // The line saved costs its own bits; a reference's bits depend on where it stands and are left out (the whole program is compared in the end).
      const fits = merged !== null && (!limited || merged.fn !== 'set_list' || valuesOf(merged)!.length <= MAX_LIST);
      if (fits && bitsAlone(merged) < bitsAlone(a) + bitsAlone(b)) {
        written.set(before.line, merged);
        continue;
      }
    }
    kept.push(arg);
  }
  return { args: kept, written };
}

/** Functions whose line takes no reference and writes a run of values (or the values themselves). */
const runFunctions = new Set<DslName>(['set_list', 'range_func_up', 'range_func_interval', 'repeat_num']);

/** The values of a line that takes no reference (a literal, a range or a repeat), else null. */
function valuesOf(line: ProgramLine): number[] | null {
  if (!runFunctions.has(line.fn)) return null;
  return dsl[line.fn](...line.args.map((arg) => (arg.kind === 'int' ? arg.value : arg.kind === 'list' ? arg.values : null)));
}

/** A line's own bits, as the first line of a program (no reference in it, so the same under either prior). */
function bitsAlone(line: ProgramLine): number {
  return lineBits({ lines: [line], output: 0 }, 'kt')[0];
}

/** The cheapest one line the grammar allows that writes `values`: a repeat, a range, a range with a step, or the values; null for none. */
function oneLine(values: number[]): ProgramLine | null {
  if (values.length === 0) return null; // a set_list holds at least one value
  const int = (value: number): Arg => ({ kind: 'int', value });
  const [first, last] = [values[0], values[values.length - 1]];
  const step = values[1] - values[0];
  const lines = [literalLine(values)];
  if (values.length > 1 && values.every((value, i) => i === 0 || value - values[i - 1] === step)) {
    if (step === 0 && values.length < VALUES) lines.push({ fn: 'repeat_num', args: [int(values.length), int(first)] });
    if (step === 1) lines.push({ fn: 'range_func_up', args: [int(first), int(last)] });
    if (step >= 2 && step <= SMALL_MAX && last + 1 < VALUES) lines.push({ fn: 'range_func_interval', args: [int(first), int(last + 1), int(step)] });
  }
  return lines.reduce((best, line) => (bitsAlone(line) < bitsAlone(best) ? line : best));
}

/** Whether the policy's grammar (grammar.ts) can write the program: its number of lines, of values in a `set_list`, of pieces in a concatenate. */
function withinGrammar(program: Program): boolean {
  return (
    program.lines.length <= MAX_LINES &&
    program.lines.every((line) => (line.fn === 'concatenate' ? line.args.length <= MAX_CONCAT : line.fn !== 'set_list' || valuesOf(line)!.length <= MAX_LIST))
  );
}
