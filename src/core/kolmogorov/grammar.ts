/**
 * The Kolmogorov task's token vocabulary and grammar. A prompt is `BOS v1 v2 ... SEP` with
 * one token per sequence value (0..255); a program is a run of lines `FN arg... EOL` and
 * ends with `OUTPUT ref EOL`. The grammar knows each function's argument kinds
 * (program.ts `signatures`), so constrained sampling only ever produces programs that parse:
 * references point to earlier lines, small arguments stay in 1..8, set_list takes 1..MAX_LIST
 * values and concatenate 2..MAX_CONCAT references.
 *
 * Value tokens serve both the prompt's values and integer literals, so the model can copy a
 * value it reads into a program. The grammar state is a small immutable object.
 */
import type { Grammar } from '../grammar';
import { dslFunctions, predicates, signatures, type Arg, type ArgKind, type DslName, type Program } from './program';
import { EOL, FN0, MAX_CONCAT, MAX_LINES, MAX_LIST, OUTPUT, SMALL_MAX, SMALL_MIN, PRED0, REF0, VALUE0, tokenText, valueToken, vocabSize } from './vocab';

// Re-exported so that grammar.ts stays the one import for the policy's side of the task.
export * from './vocab';


export interface GrammarState {
  /** Completed lines. */
  lines: number;
  /** Function of the line being written, or null at a line start. */
  fn: DslName | null;
  /** Index of the argument being written. */
  arg: number;
  /** Items written so far in a variable-length argument (set_list values, concatenate refs). */
  items: number;
  /** Writing the output line. */
  output: boolean;
  /** The output line has its reference: only EOL is left. */
  outputRef: boolean;
  done: boolean;
}

const start: GrammarState = { lines: 0, fn: null, arg: 0, items: 0, output: false, outputRef: false, done: false };

/** Tokens as inclusive ranges [from, to]; an empty range (from > to) allows nothing. */
type Ranges = readonly (readonly [number, number])[];

const needsRef = (fn: DslName) => signatures[fn].some((kind) => kind === 'ref' || kind === 'refs');
/** Line starts: with no earlier line, only the functions that take no reference. */
const firstLineFunctions: Ranges = dslFunctions.flatMap((fn, i) => (needsRef(fn) ? [] : [[FN0 + i, FN0 + i] as const]));
const laterLineStarts: Ranges = [[FN0, FN0 + dslFunctions.length - 1], [OUTPUT, OUTPUT]];
// The ranges that do not depend on the state, made once: the sampler asks for every token.
const values = [VALUE0, VALUE0 + 255] as const;
const eol = [EOL, EOL] as const;
const onlyEol: Ranges = [eol];
const onlyOutput: Ranges = [[OUTPUT, OUTPUT]];
const onlyValues: Ranges = [values];
const valuesOrEol: Ranges = [values, eol];
const small: Ranges = [[VALUE0 + SMALL_MIN, VALUE0 + SMALL_MAX]];
const predicateNames: Ranges = [[PRED0, PRED0 + predicates.length - 1]];

/** What the grammar allows in `state`: the one rule that both `allowed` (a mask) and `permits` (one token) read. */
function allowedRanges(state: GrammarState): Ranges {
  if (state.done) return [];
  const refs = [REF0, REF0 + state.lines - 1] as const;
  if (state.output) return state.outputRef ? onlyEol : [refs];
  if (state.fn === null) {
    if (state.lines === 0) return firstLineFunctions;
    return state.lines < MAX_LINES ? laterLineStarts : onlyOutput;
  }
  const kinds = signatures[state.fn];
  if (state.arg >= kinds.length) return onlyEol;
  const kind: ArgKind = kinds[state.arg];
  switch (kind) {
    case 'value':
    case 'count':
      return onlyValues;
    case 'small':
      return small;
    case 'ref':
      return [refs];
    case 'pred':
      return predicateNames;
    case 'list':
      if (state.items === 0) return onlyValues;
      return state.items < MAX_LIST ? valuesOrEol : onlyEol;
    case 'refs':
      return [...(state.items < MAX_CONCAT ? [refs] : []), ...(state.items >= 2 ? [eol] : [])];
  }
}

export class KolmogorovGrammar implements Grammar<GrammarState> {
  readonly vocabSize = vocabSize;

  initial(): GrammarState {
    return start;
  }

  isDone(state: GrammarState): boolean {
    return state.done;
  }

  endsLine(token: number): boolean {
    return token === EOL;
  }

  allowed(state: GrammarState, mask: Uint8Array): void {
    mask.fill(0);
    for (const [from, to] of allowedRanges(state)) mask.fill(1, from, to + 1);
  }

  /** Whether `token` may come next: `allowed`'s answer for one token, without building a mask. */
  permits(state: GrammarState, token: number): boolean {
    return allowedRanges(state).some(([from, to]) => token >= from && token <= to);
  }

  advance(state: GrammarState, token: number): GrammarState {
    if (state.done) throw new Error('the program is complete');
    if (state.output) {
      return state.outputRef ? { ...state, done: true } : { ...state, outputRef: true };
    }
    if (state.fn === null) {
      if (token === OUTPUT) return { ...state, output: true };
      return { ...state, fn: dslFunctions[token - FN0], arg: 0, items: 0 };
    }
    if (token === EOL) return { ...start, lines: state.lines + 1 };
    const kind = signatures[state.fn][state.arg];
    if (kind === 'list' || kind === 'refs') return { ...state, items: state.items + 1 };
    return { ...state, arg: state.arg + 1 };
  }
}

/** Checks every token against the grammar; throws with the position of the first bad one. */
export function validateTokens(tokens: readonly number[], grammar = new KolmogorovGrammar()): void {
  let state = grammar.initial();
  tokens.forEach((token, i) => {
    if (!grammar.permits(state, token)) throw new Error(`token ${i} (${tokenText(token)}) is not allowed here`);
    state = grammar.advance(state, token);
  });
  if (!grammar.isDone(state)) throw new Error('the program is incomplete');
}

export function programToTokens(program: Program): number[] {
  const tokens: number[] = [];
  const argTokens = (arg: Arg): number[] => {
    switch (arg.kind) {
      case 'int':
        if (!Number.isInteger(arg.value) || arg.value < 0 || arg.value > 255) throw new Error(`value ${arg.value} is outside 0..255`);
        return [valueToken(arg.value)];
      case 'list':
        return arg.values.map((v) => {
          if (!Number.isInteger(v) || v < 0 || v > 255) throw new Error(`value ${v} is outside 0..255`);
          return valueToken(v);
        });
      case 'ref':
        return [REF0 + arg.line];
      case 'pred':
        return [PRED0 + predicates.indexOf(arg.name)];
    }
  };
  for (const line of program.lines) {
    tokens.push(FN0 + dslFunctions.indexOf(line.fn));
    for (const arg of line.args) tokens.push(...argTokens(arg));
    tokens.push(EOL);
  }
  tokens.push(OUTPUT, REF0 + program.output, EOL);
  validateTokens(tokens);
  return tokens;
}

/** Decodes a complete, grammar-valid token sequence into a program; throws otherwise. */
export function tokensToProgram(tokens: readonly number[]): Program {
  validateTokens(tokens);
  const lines: Program['lines'] = [];
  let i = 0;
  for (;;) {
    const token = tokens[i++];
    if (token === OUTPUT) return { lines, output: tokens[i] - REF0 };
    const fn = dslFunctions[token - FN0];
    const args: Arg[] = [];
    for (const kind of signatures[fn]) {
      if (kind === 'list') {
        const values: number[] = [];
        while (tokens[i] !== EOL) values.push(tokens[i++] - VALUE0);
        args.push({ kind: 'list', values });
      } else if (kind === 'refs') {
        while (tokens[i] !== EOL) args.push({ kind: 'ref', line: tokens[i++] - REF0 });
      } else if (kind === 'ref') args.push({ kind: 'ref', line: tokens[i++] - REF0 });
      else if (kind === 'pred') args.push({ kind: 'pred', name: predicates[tokens[i++] - PRED0] });
      else args.push({ kind: 'int', value: tokens[i++] - VALUE0 });
    }
    i++; // EOL
    lines.push({ fn, args });
  }
}
