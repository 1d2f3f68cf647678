/**
 * Joining programs of the Kolmogorov DSL into one: the lines of each, one after the other, with
 * references moved, then one line that concatenates or interleaves their outputs. Split search
 * (split.ts) writes a long sequence this way from the pieces the policy wrote for it.
 */
import type { Arg, Program, ProgramLine } from './program';

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
 * The program with each run of `set_list` lines that a concatenate takes one after the other
 * written as one `set_list` of their values: the same output, a line (and a reference) cheaper
 * for each line merged. Only a line used once is merged (a line used again is cheaper referred
 * to); a concatenate left with one argument becomes that `set_list`, and lines nothing uses any
 * more are dropped. Split search writes a piece the policy wrote as values beside another often.
 */
export function mergeLiterals(program: Program): Program {
  const uses = new Array<number>(program.lines.length).fill(0);
  for (const line of program.lines) for (const arg of line.args) if (arg.kind === 'ref') uses[arg.line]++;
  const single = (line: number) => program.lines[line].fn === 'set_list' && uses[line] === 1;
  const lines = program.lines.map((line) => ({ ...line }));
  lines.forEach((line, i) => {
    if (line.fn !== 'concatenate') return;
    const args: Arg[] = [];
    for (const arg of line.args) {
      const before = args.at(-1);
      // A line used once is used only here: its values may move into the line before it.
      if (arg.kind === 'ref' && single(arg.line) && before?.kind === 'ref' && single(before.line)) {
        lines[before.line] = literalLine([...valuesOf(lines[before.line]), ...valuesOf(lines[arg.line])]);
      } else args.push(arg);
    }
    const [only] = args;
    lines[i] = args.length === 1 && only.kind === 'ref' ? lines[only.line] : { fn: 'concatenate', args };
  });
  return pruneLines({ lines, output: program.output });
}

function literalLine(values: number[]): ProgramLine {
  return { fn: 'set_list', args: [{ kind: 'list', values }] };
}

function valuesOf(line: ProgramLine): number[] {
  const [arg] = line.args;
  return arg.kind === 'list' ? arg.values : [];
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
