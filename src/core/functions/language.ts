/**
 * The functions task's language: a typed subset of JavaScript the policy writes token by token,
 * and the one vocabulary of prompts and programs.
 *
 * A program is the body of a function in prefix order: every token is a production with a
 * fixed result type and argument types (`ADD int int -> int`, `FILTER list bool(x) -> list`),
 * statements included (`LET_INT`, `IF`, `FOR`, `RETURN`, `END`). The grammar (grammar.ts)
 * allows only the tokens that keep the program well typed, in scope and completable within the
 * token budget, so every sample prints as JavaScript that parses and runs (`print` below).
 *
 * What the subset has: parameters, integer literals, arithmetic, comparison, logic, ternary,
 * `let`, assignment, `if`, counted `for` loops and `for ... of`, `return`, and the array
 * methods map, filter, reduce, slice, concat, sort, reverse, includes, indexOf, length and
 * spread (`Math.max(...xs)`, `[...xs, x]`) with arrow functions. Deliberate simplifications:
 * lists hold integers (a list of booleans is only ever a map's result), no strings, no
 * objects, no recursion, no while loops (every loop is counted, so most programs end).
 *
 * Types: int, bool, list (of int), blist (of bool).
 */

import { wordPieces } from './wordpieces';

export type ValueType = 'int' | 'bool' | 'list' | 'blist';

// Specials and prompt structure.
export const PAD = 0;
export const BOS = 1;
export const SEP = 2;
export const DOC = 3;
export const TEST = 4;
export const OUT = 5;
export const ARROW = 6;
export const LBRACK = 7;
export const RBRACK = 8;
export const UNK = 9;
export const BIG_POS = 10;
export const BIG_NEG = 11;
export const TYPE0 = 12;
export const typeNames: readonly ValueType[] = ['int', 'bool', 'list', 'blist'];
export const typeToken = (type: ValueType) => TYPE0 + typeNames.indexOf(type);

/** A production: its result type, its argument types (`lambda` args open a scope), and how it prints. */
export interface Production {
  name: string;
  result: ValueType | 'stmt';
  args: readonly Arg[];
}

/** An argument: an expression of a type; `bind` names the variables its scope gains (lambda parameters). */
export interface Arg {
  type: ValueType;
  bind?: readonly ('elem' | 'acc')[];
}

const e = (type: ValueType, bind?: Arg['bind']): Arg => (bind ? { type, bind } : { type });

/** Expression productions (the variables and literals are tokens of their own, below). */
export const expressions: readonly Production[] = [
  { name: 'ADD', result: 'int', args: [e('int'), e('int')] },
  { name: 'SUB', result: 'int', args: [e('int'), e('int')] },
  { name: 'MUL', result: 'int', args: [e('int'), e('int')] },
  { name: 'DIV', result: 'int', args: [e('int'), e('int')] },
  { name: 'MOD', result: 'int', args: [e('int'), e('int')] },
  { name: 'NEG', result: 'int', args: [e('int')] },
  { name: 'ABS', result: 'int', args: [e('int')] },
  { name: 'MAX2', result: 'int', args: [e('int'), e('int')] },
  { name: 'MIN2', result: 'int', args: [e('int'), e('int')] },
  { name: 'COND', result: 'int', args: [e('bool'), e('int'), e('int')] },
  { name: 'LEN', result: 'int', args: [e('list')] },
  { name: 'AT', result: 'int', args: [e('list'), e('int')] },
  { name: 'INDEXOF', result: 'int', args: [e('list'), e('int')] },
  { name: 'MAXL', result: 'int', args: [e('list')] },
  { name: 'MINL', result: 'int', args: [e('list')] },
  { name: 'REDUCE', result: 'int', args: [e('list'), e('int'), e('int', ['acc', 'elem'])] },
  { name: 'TRUE', result: 'bool', args: [] },
  { name: 'FALSE', result: 'bool', args: [] },
  { name: 'LT', result: 'bool', args: [e('int'), e('int')] },
  { name: 'LE', result: 'bool', args: [e('int'), e('int')] },
  { name: 'GT', result: 'bool', args: [e('int'), e('int')] },
  { name: 'GE', result: 'bool', args: [e('int'), e('int')] },
  { name: 'EQ', result: 'bool', args: [e('int'), e('int')] },
  { name: 'NE', result: 'bool', args: [e('int'), e('int')] },
  { name: 'AND', result: 'bool', args: [e('bool'), e('bool')] },
  { name: 'OR', result: 'bool', args: [e('bool'), e('bool')] },
  { name: 'NOT', result: 'bool', args: [e('bool')] },
  { name: 'INCLUDES', result: 'bool', args: [e('list'), e('int')] },
  { name: 'BCOND', result: 'bool', args: [e('bool'), e('bool'), e('bool')] },
  { name: 'EMPTY', result: 'list', args: [] },
  { name: 'SINGLE', result: 'list', args: [e('int')] },
  { name: 'APPEND', result: 'list', args: [e('list'), e('int')] },
  { name: 'RANGE', result: 'list', args: [e('int')] },
  { name: 'MAP', result: 'list', args: [e('list'), e('int', ['elem'])] },
  { name: 'FILTER', result: 'list', args: [e('list'), e('bool', ['elem'])] },
  { name: 'SLICE', result: 'list', args: [e('list'), e('int'), e('int')] },
  { name: 'DROP', result: 'list', args: [e('list'), e('int')] },
  { name: 'CONCAT', result: 'list', args: [e('list'), e('list')] },
  { name: 'SORT', result: 'list', args: [e('list')] },
  { name: 'REVERSE', result: 'list', args: [e('list')] },
  { name: 'LCOND', result: 'list', args: [e('bool'), e('list'), e('list')] },
  { name: 'MAPB', result: 'blist', args: [e('list'), e('bool', ['elem'])] },
];

/**
 * Statements. A block (the function body, an if's or a loop's body) is statements until
 * `RETURN e` (which ends the block) or `END` (not in the function body, which must return).
 */
export const statements: readonly Production[] = [
  { name: 'RETURN', result: 'stmt', args: [] }, // then an expression of the return type
  { name: 'LET_INT', result: 'stmt', args: [e('int')] },
  { name: 'LET_LIST', result: 'stmt', args: [e('list')] },
  { name: 'LET_BOOL', result: 'stmt', args: [e('bool')] },
  { name: 'IF', result: 'stmt', args: [e('bool')] }, // then a block
  { name: 'FOR', result: 'stmt', args: [e('int'), e('int')] }, // for (let i = a; i < b; i++) block
  { name: 'FOR_OF', result: 'stmt', args: [e('list')] }, // for (const x of xs) block
  { name: 'END', result: 'stmt', args: [] },
];

/** Variables: parameters, locals, loop indices, lambda elements and the reduce accumulator. */
export const MAX_PARAMS = 4;
export const MAX_LOCALS = 4;
export const variableNames = ['P0', 'P1', 'P2', 'P3', 'V0', 'V1', 'V2', 'V3', 'I', 'J', 'X', 'Y', 'ACC'] as const;
export type VariableName = (typeof variableNames)[number];
export const SLOT = Object.fromEntries(variableNames.map((name, i) => [name, i])) as Record<VariableName, number>;
export const LOOP_SLOTS = [SLOT.I, SLOT.J];
export const ELEM_SLOTS = [SLOT.X, SLOT.Y];

/** Integer literals and prompt numbers share the value tokens, so the policy can copy a number it reads. */
export const VALUE_MIN = -64;
export const VALUE_MAX = 127;

export const EXPR0 = TYPE0 + typeNames.length;
export const STMT0 = EXPR0 + expressions.length;
export const SET0 = STMT0 + statements.length; // SET_k: assign to local k
export const VAR0 = SET0 + MAX_LOCALS;
export const VALUE0 = VAR0 + variableNames.length;
export const WORD0 = VALUE0 + (VALUE_MAX - VALUE_MIN + 1);

export const exprToken = (name: string) => EXPR0 + expressions.findIndex((p) => p.name === name);
export const stmtToken = (name: string) => STMT0 + statements.findIndex((p) => p.name === name);
export const valueToken = (n: number) => VALUE0 + (n - VALUE_MIN);
export const isValueToken = (token: number) => token >= VALUE0 && token < WORD0;
export const tokenValue = (token: number) => token - VALUE0 + VALUE_MIN;

/**
 * Docstring words: the words of the generator's phrasings and of the seed problems; any other
 * word is UNK. Numbers in a docstring are value tokens.
 */
export const words: readonly string[] = [
  'a', 'all', 'an', 'and', 'any', 'are', 'array', 'as', 'at', 'be', 'between', 'both', 'by', 'check', 'compute', 'contains', 'count',
  'decreasing', 'difference', 'digit', 'digits', 'divisible', 'each', 'element', 'elements', 'empty', 'equal', 'even', 'every', 'except',
  'factorial', 'fibonacci', 'find', 'first', 'for', 'from', 'get', 'given', 'greater', 'greatest', 'has', 'how', 'if', 'in', 'increasing',
  'index', 'input', 'integer', 'integers', 'is', 'it', 'its', 'items', 'last', 'largest', 'least', 'length', 'less', 'list', 'lists', 'many',
  'max', 'maximum', 'mean', 'min', 'minimum', 'minus', 'multiply', 'multiplied', 'n', 'negative', 'negatives', 'nth', 'number', 'numbers',
  'odd', 'of', 'one', 'only', 'or', 'order', 'other', 'otherwise', 'pair', 'plus', 'position', 'positive', 'positives', 'power', 'prime',
  'product', 'range', 'remainder', 'remove', 'return', 'returns', 'reverse', 'reversed', 'same', 'second', 'sequence', 'smaller', 'smallest',
  'sort', 'sorted', 'square', 'squares', 'squared', 'sum', 'take', 'than', 'that', 'the', 'them', 'three', 'times', 'to', 'total', 'true',
  'false', 'two', 'value', 'values', 'whether', 'which', 'with', 'without', 'zero', 'zeros', 'absolute', 'add', 'added', 'after', 'before',
  'double', 'doubled', 'half', 'halved', 'up', 'keep', 'drop', 'skip', 'new', 'copy', 'ascending', 'descending', 'not', 'no', 'there',
  'next', 'previous', 'cube', 'cubes', 'third', 'divided', 'divide', 'integer', 'exceed', 'exceeds', 'below', 'above', 'most', 'fewest',
  'appear', 'appears', 'occurrences', 'occurs', 'contain', 'include', 'includes', 'start', 'end', 'ends', 'starts', 'middle', 'slice',
  'sublist', 'prefix', 'suffix', 'concatenate', 'join', 'append', 'element-wise', 'shift', 'increment', 'decrement', 'alternate', 'rotate',
  'unique', 'distinct', 'duplicates', 'range', 'inclusive', 'exclusive', 'clamp', 'sign', 'parity', 'is_even', 'max_of_three', 'greater',
  'larger', 'bigger', 'k', 'x', 'b', 'c', 'multiple', 'multiples', 'non-negative', 'nonzero', 'non-zero', 'strictly', 'at', 'most',
  'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'twice', 'triple', 'tripled', 'cubed', 'negate', 'negated', 'flip', 'increase',
  'increased', 'decrease', 'decreased', 'halve', 'rounded', 'rounding', 'down', 'replace', 'modulo', 'results', 'positions', 'only',
  'others', 'result', 'computed', 'arguments', 'condition', 'property', 'transform', 'raised', 'far', 'apart', 'plus', 'counting',
  'absent', 'none', 'item', 'true', 'every', 'whether', 'occurrence', 'greatest', 'highest', 'lowest', 'smallest', 'largest',
].filter((word, i, all) => all.indexOf(word) === i);

export const vocabSize = WORD0 + words.length;
const wordIndex = new Map(words.map((word, i) => [word, WORD0 + i]));

/** Words never read as a parameter's name, even when a parameter has it ("Return a plus b": the article stays a word). Single letters that are words (k, n, x) are read as names. */
const notNames = new Set(['a', 'an', 'the', 'of', 'in', 'is', 'to', 'and', 'or', 'at', 'by', 'it', 'be', 'as']);

/**
 * Docstring tokens: lowercase words and integers as value tokens. A word that is a parameter's
 * name (`parameters`, in order) is that parameter's variable token (P0 ... P3), so "Insert v at
 * index i of xs" says which argument is which; a word outside the vocabulary is read as known
 * pieces of it (wordpieces.ts: a synonym, a stem, a compound's parts), and UNK only when none fit.
 */
export function docstringTokens(text: string, max = 32, parameters: readonly string[] = []): number[] {
  const out: number[] = [];
  // A name that is also a longer vocabulary word ("numbers", "value") stays a word: "the odd numbers" says more than "the odd P0".
  const names = new Map(parameters.slice(0, MAX_PARAMS).map((name, k) => [name.toLowerCase(), VAR0 + k] as const).filter(([name]) => !notNames.has(name) && !(name.length > 1 && wordIndex.has(name))));
  for (const piece of docstringPieces(text.toLowerCase(), [...names.keys()])) {
    if (/^-?\d+$/.test(piece)) {
      out.push(...valueTokens(Number(piece)));
      continue;
    }
    const said = Object.prototype.hasOwnProperty.call(operatorWords, piece) ? operatorWords[piece] : undefined;
    if (said) {
      out.push(...said.map((word) => wordIndex.get(word)!));
      continue;
    }
    // "k-th" with a parameter k: the name, then the rest.
    const parts = piece.includes('-') && piece.split('-').some((part) => names.has(part)) ? piece.split('-').filter(Boolean) : [piece];
    for (const part of parts) {
      if (names.has(part)) out.push(names.get(part)!);
      else {
        const known = wordPieces(part, (word) => wordIndex.has(word));
        if (known.length) out.push(...known.map((word) => wordIndex.get(word)!));
        else if (parts.length === 1) out.push(UNK);
      }
    }
    if (out.length >= max) break;
  }
  return out.slice(0, max);
}

/**
 * Operators in a docstring's formulas, read as the vocabulary words that say them ("10 - x" is
 * "10 minus x", "a*x + b" is "a times x plus b", "x >= k" is "x at least k"): people write
 * formulas, and the words are ones the generator's phrasings teach. Before, every operator was
 * dropped ("10 x").
 */
const operatorWords: Readonly<Record<string, readonly string[]>> = {
  '+': ['plus'], '-': ['minus'], '*': ['times'], '×': ['times'], '/': ['divided'], '//': ['divided'], '%': ['modulo'],
  '**': ['power'], '^': ['power'], '<': ['less', 'than'], '>': ['greater', 'than'], '<=': ['at', 'most'], '>=': ['at', 'least'],
  '=': ['equal'], '==': ['equal'], '===': ['equal'], '!=': ['not', 'equal'], '!==': ['not', 'equal'], '->': ['to'], '=>': ['to'],
};

/** A docstring's pieces: an integer with its sign, a word (hyphens inside), or an operator. */
const PIECE = /(-?)(\d+)|[a-z_](?:[a-z_-]*[a-z_])?|\*\*|\/\/|[<>!=]==?|->|=>|[-+*/%^<>=×]/;

/**
 * A docstring's pieces: integers, words, and operators. A hyphen is minus only between operands of
 * a formula: after a number, a bracket or a one-letter name ("x-1", "n-k", "len(xs)-1", "2-x"),
 * never in a compound ("0-based", "top-3", "24-hour", "k-th", "non-empty"); a minus before a
 * number anywhere else ("-3", "by -1") is its sign. A parameter's name with digits in it
 * ("list1", "x_2") is one piece; other words end where digits begin ("top3" is top, 3).
 */
function docstringPieces(text: string, parameters: readonly string[] = []): string[] {
  const pieces: string[] = [];
  const wordBefore = (at: number) => /[a-z_]*$/.exec(text.slice(0, at))![0];
  const wordAfter = (at: number) => /^[a-z_]*/.exec(text.slice(at))![0];
  const withDigits = parameters.filter((name) => /^[a-z_][a-z0-9_]*$/.test(name) && /\d/.test(name)).sort((a, b) => b.length - a.length);
  const named = withDigits.length ? `(?<![a-z0-9_])(?:${withDigits.join('|')})(?![a-z0-9_])|` : '';
  for (const match of text.matchAll(new RegExp(named + PIECE.source, 'g'))) {
    const [piece, sign, digits] = match;
    const at = match.index;
    const before = at > 0 ? text[at - 1] : ' ';
    if (withDigits.includes(piece)) pieces.push(piece);
    else if (sign) {
      // "-3" after an operand is minus 3, unless the operand is a word of its own ("top-3").
      if (/[a-z0-9_)\]]/.test(before)) pieces.push(...(wordBefore(at).length > 1 ? [] : ['-']), digits);
      else pieces.push(piece);
    } else if (piece === '-' && /\S/.test(before) && /[a-z_]/.test(text[at + 1] ?? '') && wordAfter(at + 1).length > 1) {
      // "0-based", "(k-1)-th": a hyphen before a word.
    } else if (/^[a-z_]-[a-z_](-[a-z_])*$/.test(piece)) {
      // "n-k", "x-y": one-letter names with minus between them.
      pieces.push(...piece.split('-').flatMap((name, i) => (i ? ['-', name] : [name])));
    } else pieces.push(piece);
  }
  return pieces;
}

/** An integer as a value token, or BIG_POS / BIG_NEG outside the token range. */
function valueTokens(n: number): number[] {
  if (!Number.isFinite(n)) return [UNK];
  if (n > VALUE_MAX) return [BIG_POS];
  if (n < VALUE_MIN) return [BIG_NEG];
  return [valueToken(n)];
}

export type Value = number | boolean | readonly Value[];

/** A value as prompt tokens: numbers as value tokens, booleans as TRUE/FALSE, lists in brackets. */
export function valuePromptTokens(value: Value): number[] {
  if (typeof value === 'boolean') return [exprToken(value ? 'TRUE' : 'FALSE')];
  if (typeof value === 'number') return valueTokens(value);
  return [LBRACK, ...value.flatMap(valuePromptTokens), RBRACK];
}

/** Text of a token, for logs and tests. */
export function tokenText(token: number): string {
  const specials = ['<pad>', '<bos>', '<sep>', '<doc>', '<test>', '<out>', '->', '[', ']', '<unk>', '<big>', '<-big>'];
  if (token < TYPE0) return specials[token];
  if (token < EXPR0) return typeNames[token - TYPE0];
  if (token < STMT0) return expressions[token - EXPR0].name;
  if (token < SET0) return statements[token - STMT0].name;
  if (token < VAR0) return `SET_V${token - SET0}`;
  if (token < VALUE0) return variableNames[token - VAR0];
  if (token < WORD0) return String(tokenValue(token));
  if (token < vocabSize) return words[token - WORD0];
  throw new Error(`token ${token} is outside the functions vocabulary (${vocabSize})`);
}
