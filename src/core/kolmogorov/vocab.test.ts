import { describe, expect, it } from 'vitest';
import { dslFunctions, predicates } from './program';
import { BOS, EOL, FN0, MAX_LINES, OUTPUT, PAD, PRED0, REF0, SEP, VALUE0, encodePrompt, tokenText, vocabSize } from './vocab';

describe('Kolmogorov vocabulary', () => {
  it('gives every token one distinct text, in the DSL text form where it has one', () => {
    const texts = Array.from({ length: vocabSize }, (_, token) => tokenText(token));
    expect(new Set(texts).size).toBe(vocabSize);
    expect([PAD, BOS, SEP, EOL, OUTPUT].map(tokenText)).toEqual(['<pad>', '<bos>', '<sep>', '<eol>', 'output']);
    expect(tokenText(VALUE0)).toBe('0');
    expect(tokenText(VALUE0 + 255)).toBe('255');
    expect(dslFunctions.map((_, i) => tokenText(FN0 + i))).toEqual([...dslFunctions]);
    expect(predicates.map((_, i) => tokenText(PRED0 + i))).toEqual([...predicates]);
    expect(tokenText(REF0)).toBe('sequence_1');
    expect(tokenText(vocabSize - 1)).toBe(`sequence_${MAX_LINES}`);
    expect(tokenText(vocabSize)).toMatch(/unk/);
    // 5 specials + 256 values + 21 functions + 3 predicates + one reference per line.
    expect(vocabSize).toBe(5 + 256 + dslFunctions.length + predicates.length + MAX_LINES);
  });

  it('encodes a prompt as BOS, clamped values, SEP', () => {
    expect(encodePrompt([0, 255, -3, 300], 10)).toEqual([BOS, VALUE0, VALUE0 + 255, VALUE0, VALUE0 + 255, SEP]);
    expect(encodePrompt([7, 8, 9], 1)).toEqual([BOS, VALUE0 + 7, SEP]);
  });
});
