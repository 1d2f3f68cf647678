import { describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { digitRanges, digitSum, heldOutItems, questionKey, questionNumbers, reverseDigits, sampleDigitItem, sampleTrainingItem, sumDigitsQuestion } from './tasks';
import { DigitGrammar, SPECIAL, answerText, decodeText, digitPromptLength, digitVocabSize, encodeText, promptTokens, responseTokens } from './vocab';

describe('digit tasks', () => {
  it('answer as the seed defines: total digit sum, digits reversed without leading zeros', () => {
    expect(sumDigitsQuestion([123, 45, 67])).toBe('What is the total digit sum of [123, 45, 67]?');
    expect(digitSum([123, 45, 67])).toBe(28);
    expect(reverseDigits(1200)).toBe(21);
    expect(reverseDigits(1234567)).toBe(7654321);
  });

  it('sum_digits items stay in range: 2 to 4 integers from 10 to 999', () => {
    const rng = new Rng(3);
    const counts = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const item = sampleDigitItem('sum_digits', rng);
      const numbers = questionNumbers(item.question);
      counts.add(numbers.length);
      for (const n of numbers) expect(n >= digitRanges.sum_digits.min && n <= digitRanges.sum_digits.max).toBe(true);
      expect(item.answer).toBe(digitSum(numbers));
    }
    expect([...counts].sort()).toEqual([2, 3, 4]);
  });

  it('reverse_digits items stay in range: one integer from 100000 to 9999999', () => {
    const rng = new Rng(4);
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < 2000; i++) {
      const item = sampleDigitItem('reverse_digits', rng);
      const [n, ...rest] = questionNumbers(item.question);
      expect(rest).toEqual([]);
      expect(n >= digitRanges.reverse_digits.min && n <= digitRanges.reverse_digits.max).toBe(true);
      expect(item.answer).toBe(reverseDigits(n));
      min = Math.min(min, n);
      max = Math.max(max, n);
    }
    expect(min).toBeLessThan(1_000_000); // six-digit numbers occur too
    expect(max).toBeGreaterThan(9_000_000);
  });

  it('held-out prompts are fixed by their seed, distinct, and never drawn for training', () => {
    const held = heldOutItems('reverse_digits', 200, new Rng(12345));
    expect(heldOutItems('reverse_digits', 200, new Rng(12345))).toEqual(held);
    const questions = new Set(held.map((item) => item.question));
    expect(questions.size).toBe(200);
    // sum_digits has few enough prompts that collisions happen; they must be redrawn.
    const heldSum = heldOutItems('sum_digits', 200, new Rng(12345));
    const excluded = new Set(heldSum.map(questionKey));
    const replay = new Rng(12345);
    for (let i = 0; i < 200; i++) expect(excluded.has(questionKey(sampleTrainingItem('sum_digits', replay, excluded)))).toBe(false);
  });

  it('a sum_digits question is the same question with its numbers in another order: held out, its twin is not trained on', () => {
    const held = { task: 'sum_digits' as const, question: sumDigitsQuestion([12, 34]), answer: 10 };
    const twin = { ...held, question: sumDigitsQuestion([34, 12]) };
    expect(questionKey(twin)).toBe(questionKey(held));
    expect(questionKey({ task: 'reverse_digits', question: 'Reverse the digits of 1234567.' })).not.toBe(questionKey({ task: 'reverse_digits', question: 'Reverse the digits of 7654321.' }));
    // Held-out items are distinct by it too.
    const heldSum = heldOutItems('sum_digits', 2000, new Rng(7));
    expect(new Set(heldSum.map(questionKey)).size).toBe(heldSum.length);
  });

  it('tokenises questions and answers losslessly into short prompts', () => {
    const rng = new Rng(5);
    for (let i = 0; i < 200; i++) {
      const item = sampleDigitItem(i % 2 ? 'sum_digits' : 'reverse_digits', rng);
      expect(decodeText(encodeText(item.question))).toBe(item.question);
      expect(promptTokens(item.question).length).toBeLessThanOrEqual(digitPromptLength[item.task]);
      const aligned = promptTokens(item.question, digitPromptLength[item.task]);
      expect(aligned.length).toBe(digitPromptLength[item.task]);
      expect(decodeText(aligned)).toBe(item.question);
      const response = responseTokens(answerText(item.answer));
      expect(response.at(-1)).toBe(SPECIAL.EOS);
      expect(decodeText(response)).toBe(answerText(item.answer));
    }
    expect(() => encodeText('é')).toThrow(/alphabet/);
  });

  it('the grammar allows any text token or EOS, and forces EOS at the budget', () => {
    const grammar = new DigitGrammar(3);
    const mask = new Uint8Array(digitVocabSize);
    grammar.allowed(grammar.initial(), mask);
    expect(mask[SPECIAL.EOS]).toBe(1);
    expect(mask[SPECIAL.PAD] + mask[SPECIAL.BOS] + mask[SPECIAL.SEP]).toBe(0);
    expect(mask.reduce((a, b) => a + b, 0)).toBe(digitVocabSize - 3);
    grammar.allowed(grammar.advance(grammar.advance(grammar.initial(), 5), 6), mask);
    expect([...mask].flatMap((v, i) => (v ? [i] : []))).toEqual([SPECIAL.EOS]);
    expect(grammar.isDone(grammar.advance(0, SPECIAL.EOS))).toBe(true);
  });
});
