/**
 * Joining programs of the Kolmogorov DSL into one: the lines of each, one after the other, with
 * references moved, then one line that concatenates or interleaves their outputs. Split search
 * (split.ts) writes a long sequence this way from the pieces the policy wrote for it.
 */
import type { Program, ProgramLine } from './program';

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

/** A `set_list` line of the values. */
export function literalLine(values: number[]): ProgramLine {
  return { fn: 'set_list', args: [{ kind: 'list', values }] };
}
