/**
 * Encoded length of a program under the uniform prior, in bits (docs/kolmogorov-spec.md). `kt` matches
 * the public KoLMogorov Test exactly, including its two simplifications: filter does not pay
 * for its predicate and concatenate pays for two references whatever its arity. `strict`
 * pays for both: log2(3) bits for the predicate, one reference per concatenated sequence and
 * log2(8) bits for the arity.
 */
import { dslFunctions, type Program, type ProgramLine } from './program';
import { SMALL_MAX, SMALL_MIN, VALUES } from './vocab';

export type PriorName = 'kt' | 'strict';

/** F: the DSL's 24 functions (21 list functions and the 3 predicates). */
const FUNCTION_COUNT = 24;
const nameBits = Math.log2(FUNCTION_COUNT + 1);
const valueBits = Math.log2(VALUES);
const smallBits = Math.log2(SMALL_MAX - SMALL_MIN + 1);
const countBits = Math.log2(20);

function bitsOfLine(line: ProgramLine, index: number, prior: PriorName): number {
  const refBits = Math.log2(index + 1);
  let bits = nameBits;
  if (line.fn === 'concatenate') {
    return bits + (prior === 'kt' ? 2 * refBits : line.args.length * refBits + smallBits);
  }
  for (const arg of line.args) {
    if (arg.kind === 'ref') bits += refBits;
    else if (arg.kind === 'list') bits += valueBits * arg.values.length;
    else if (arg.kind === 'pred') bits += prior === 'kt' ? 0 : Math.log2(3);
  }
  switch (line.fn) {
    case 'range_func_up':
    case 'get_subsequence_between_indices':
    case 'substitute':
      return bits + 2 * valueBits;
    case 'range_func_interval':
      return bits + 2 * valueBits + smallBits;
    case 'repeat_num':
      return bits + valueBits + countBits;
    case 'add_item_list':
    case 'subtract_item_list':
    case 'modulo_item_list':
    case 'max_n':
    case 'min_n':
      return bits + valueBits;
    case 'get_subsequence_with_jumps':
    case 'repeat_list':
      return bits + smallBits;
    default:
      return bits;
  }
}

/** Bits per line; the last entry is the output line (function-name bits only). */
export function lineBits(program: Program, prior: PriorName): number[] {
  return [...program.lines.map((line, i) => bitsOfLine(line, i, prior)), nameBits];
}

export function programBits(program: Program, prior: PriorName): number {
  return lineBits(program, prior).reduce((a, b) => a + b, 0);
}

export const priorConstants = { functionCount: FUNCTION_COUNT, listFunctions: dslFunctions.length, nameBits, valueBits, smallBits, countBits };
