/**
 * Programs of the Kolmogorov DSL as data, and their text form: the benchmark's own format,
 * one `sequence_k = f(args)` line each (k 1-based), ending with `output = sequence_k`. The
 * text is also valid sloppy-mode JavaScript, so the sandbox runs it as printed after the
 * prelude. Parsing is strict (references only to earlier lines, known functions with their
 * argument kinds) so that the bit prior is defined for every program that parses.
 */

export const dslFunctions = [
  'range_func_up', 'range_func_interval', 'repeat_num', 'set_list', 'repeat_list', 'reverse_list', 'substitute',
  'get_subsequence_with_jumps', 'get_subsequence_between_indices', 'max_n', 'min_n', 'add_item_list',
  'subtract_item_list', 'modulo_item_list', 'filter', 'add_two_lists', 'subtract_two_lists', 'modulo_two_lists',
  'scan_add', 'concatenate', 'interleave',
] as const;
export type DslName = (typeof dslFunctions)[number];

export const predicates = ['is_even', 'is_odd', 'is_not_zero'] as const;
export type PredicateName = (typeof predicates)[number];

/**
 * Argument kinds, in call order. `value`: an integer 0..255 (8 bits); `small`: a step, jump or
 * times (3 bits); `count`: a repeat count; `ref`: an earlier line; `pred`: a predicate name;
 * `list`: a literal list of values; `refs`: two or more references (concatenate).
 */
export type ArgKind = 'value' | 'small' | 'count' | 'ref' | 'pred' | 'list' | 'refs';

export const signatures: Record<DslName, readonly ArgKind[]> = {
  range_func_up: ['value', 'value'],
  range_func_interval: ['value', 'value', 'small'],
  repeat_num: ['count', 'value'],
  set_list: ['list'],
  repeat_list: ['small', 'ref'],
  reverse_list: ['ref'],
  substitute: ['ref', 'value', 'value'],
  get_subsequence_with_jumps: ['ref', 'small'],
  get_subsequence_between_indices: ['ref', 'value', 'value'],
  max_n: ['ref', 'value'],
  min_n: ['ref', 'value'],
  add_item_list: ['ref', 'value'],
  subtract_item_list: ['ref', 'value'],
  modulo_item_list: ['ref', 'value'],
  filter: ['pred', 'ref'],
  add_two_lists: ['ref', 'ref'],
  subtract_two_lists: ['ref', 'ref'],
  modulo_two_lists: ['ref', 'ref'],
  scan_add: ['ref'],
  concatenate: ['refs'],
  interleave: ['ref', 'ref'],
};

export type Arg =
  | { kind: 'int'; value: number }
  | { kind: 'list'; values: number[] }
  | { kind: 'ref'; line: number }
  | { kind: 'pred'; name: PredicateName };

export interface ProgramLine {
  fn: DslName;
  args: Arg[];
}

export interface Program {
  lines: ProgramLine[];
  /** 0-based index of the line that is the output. */
  output: number;
}

export class ProgramSyntaxError extends Error {
  constructor(
    readonly line: number,
    readonly reason: string,
  ) {
    super(`line ${line}: ${reason}`);
    this.name = 'ProgramSyntaxError';
  }
}

const refName = (line: number) => `sequence_${line + 1}`;

function printArg(arg: Arg): string {
  switch (arg.kind) {
    case 'int':
      return String(arg.value);
    case 'list':
      return `[${arg.values.join(', ')}]`;
    case 'ref':
      return refName(arg.line);
    case 'pred':
      return arg.name;
  }
}

/** The program without the lines its output does not need, references renumbered. */
export function pruneLines(program: Program): Program {
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

export function printProgram(program: Program): string {
  const lines = program.lines.map((line, i) => `${refName(i)} = ${line.fn}(${line.args.map(printArg).join(', ')})`);
  lines.push(`output = ${refName(program.output)}`);
  return lines.join('\n');
}

const INT = /^-?\d+$/;

function splitArgs(text: string, lineNumber: number): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of text) {
    if (char === '[') depth++;
    if (char === ']') depth--;
    if (depth < 0) throw new ProgramSyntaxError(lineNumber, 'unbalanced brackets');
    if (char === ',' && depth === 0) {
      parts.push(current.trim());
      current = '';
    } else current += char;
  }
  if (depth !== 0) throw new ProgramSyntaxError(lineNumber, 'unbalanced brackets');
  if (current.trim() !== '' || parts.length > 0) parts.push(current.trim());
  return parts;
}

function parseInt32(text: string, lineNumber: number): number {
  if (!INT.test(text)) throw new ProgramSyntaxError(lineNumber, `expected an integer, got "${text.slice(0, 40)}"`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new ProgramSyntaxError(lineNumber, `integer out of range: ${text.slice(0, 40)}`);
  return value;
}

function parseRef(text: string, lineNumber: number, lineIndex: number): Arg {
  const match = /^sequence_(\d+)$/.exec(text);
  if (!match) throw new ProgramSyntaxError(lineNumber, `expected a reference sequence_k, got "${text.slice(0, 40)}"`);
  const line = Number(match[1]) - 1;
  if (line < 0 || line >= lineIndex) throw new ProgramSyntaxError(lineNumber, `${text} is not an earlier line`);
  return { kind: 'ref', line };
}

export function parseProgram(text: string): Program {
  const lines: ProgramLine[] = [];
  let output: number | null = null;
  const rows = text.split(/\r?\n/);
  rows.forEach((raw, index) => {
    const lineNumber = index + 1;
    const row = raw.trim();
    if (row === '') return;
    if (output !== null) throw new ProgramSyntaxError(lineNumber, 'nothing may follow the output line');
    const outputMatch = /^output\s*=\s*(\S+)$/.exec(row);
    if (outputMatch) {
      const ref = parseRef(outputMatch[1], lineNumber, lines.length) as { kind: 'ref'; line: number };
      output = ref.line;
      return;
    }
    const match = /^sequence_(\d+)\s*=\s*([a-z_]+)\s*\((.*)\)$/.exec(row);
    if (!match) throw new ProgramSyntaxError(lineNumber, `expected "sequence_k = function(args)" or "output = sequence_k"`);
    if (Number(match[1]) !== lines.length + 1) {
      throw new ProgramSyntaxError(lineNumber, `expected sequence_${lines.length + 1}, got sequence_${match[1]}`);
    }
    const fn = match[2] as DslName;
    if (!(dslFunctions as readonly string[]).includes(fn)) throw new ProgramSyntaxError(lineNumber, `unknown function ${match[2]}`);
    const texts = splitArgs(match[3], lineNumber);
    const kinds = signatures[fn];
    if (kinds[0] === 'refs') {
      if (texts.length < 2) throw new ProgramSyntaxError(lineNumber, `${fn} needs at least two sequences`);
      lines.push({ fn, args: texts.map((t) => parseRef(t, lineNumber, lines.length)) });
      return;
    }
    if (texts.length !== kinds.length) {
      throw new ProgramSyntaxError(lineNumber, `${fn} takes ${kinds.length} arguments, got ${texts.length}`);
    }
    const args = kinds.map((kind, i): Arg => {
      const t = texts[i];
      switch (kind) {
        case 'ref':
          return parseRef(t, lineNumber, lines.length);
        case 'pred':
          if (!(predicates as readonly string[]).includes(t)) throw new ProgramSyntaxError(lineNumber, `unknown predicate "${t.slice(0, 40)}"`);
          return { kind: 'pred', name: t as PredicateName };
        case 'list': {
          if (!t.startsWith('[') || !t.endsWith(']')) throw new ProgramSyntaxError(lineNumber, 'set_list takes a list [a, b, ...]');
          const inner = t.slice(1, -1).trim();
          return { kind: 'list', values: inner === '' ? [] : inner.split(',').map((v) => parseInt32(v.trim(), lineNumber)) };
        }
        default:
          return { kind: 'int', value: parseInt32(t, lineNumber) };
      }
    });
    lines.push({ fn, args });
  });
  if (output === null) throw new ProgramSyntaxError(rows.length, 'missing the final "output = sequence_k" line');
  return { lines, output };
}
