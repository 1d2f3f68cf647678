/**
 * The Kolmogorov task's token vocabulary: PAD, BOS, SEP (end of prompt), EOL, OUTPUT, 256
 * value tokens (0..255, both the prompt's values and integer literals, so the model can copy a
 * value it reads into a program), one token per DSL function, per predicate and per line
 * reference (sequence_1..sequence_MAX_LINES). grammar.ts says which token may come next.
 */
import { dslFunctions, predicates } from './program';

export const MAX_LINES = 32;
export const MAX_LIST = 32;
export const MAX_CONCAT = 6;
/** Range of the small arguments (steps, jumps, times): the prior pays log2(8) bits for them. */
export const SMALL_MIN = 1;
export const SMALL_MAX = 8;
/** Values are the integers 0..VALUES - 1, one token each. */
export const VALUES = 256;

export const PAD = 0;
export const BOS = 1;
export const SEP = 2;
export const EOL = 3;
export const OUTPUT = 4;
export const VALUE0 = 5; // tokens VALUE0 .. VALUE0 + 255 are the integers 0..255
export const FN0 = VALUE0 + 256;
export const PRED0 = FN0 + dslFunctions.length;
export const REF0 = PRED0 + predicates.length; // REF0 + i refers to line i (0-based)
export const vocabSize = REF0 + MAX_LINES;

export const valueToken = (value: number) => VALUE0 + value;
export const isValue = (token: number) => token >= VALUE0 && token < FN0;

export function tokenText(token: number): string {
  if (token === PAD) return '<pad>';
  if (token === BOS) return '<bos>';
  if (token === SEP) return '<sep>';
  if (token === EOL) return '<eol>';
  if (token === OUTPUT) return 'output';
  if (isValue(token)) return String(token - VALUE0);
  if (token >= FN0 && token < PRED0) return dslFunctions[token - FN0];
  if (token >= PRED0 && token < REF0) return predicates[token - PRED0];
  if (token >= REF0 && token < vocabSize) return `sequence_${token - REF0 + 1}`;
  return `<unk ${token}>`;
}

/** Prompt tokens for a sequence: values clamped to 0..255 and cut to `maxSequenceLength`. */
export function encodePrompt(sequence: readonly number[], maxSequenceLength: number): number[] {
  const values = sequence.slice(0, maxSequenceLength).map((v) => valueToken(Math.max(0, Math.min(255, v))));
  return [BOS, ...values, SEP];
}
