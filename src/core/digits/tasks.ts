/**
 * The two digit tasks of the Monarch RL example (docs/digits.md):
 *
 * - sum_digits: 2 to 4 integers from 10 to 999; the answer is the total digit sum of all of
 *   them ("What is the total digit sum of [123, 45, 67]?" -> 28).
 * - reverse_digits: one integer from 100000 to 9999999; the answer is its digits reversed,
 *   leading zeros dropped (1200 -> 21).
 *
 * A task is tiny (docs/architecture.md): it samples an item and knows its question and answer; it
 * never touches tensors. Held-out prompts come from a fixed seed and training items equal to
 * one of them are dropped, so evaluation never sees a question trained on.
 */
import type { Rng } from '../rng';

export const digitTaskNames = ['sum_digits', 'reverse_digits'] as const;
export type DigitTaskName = (typeof digitTaskNames)[number];

/** Whether a task name is one of the digit tasks (the page and the engine both ask). */
export function isDigitTask(name: string): name is DigitTaskName {
  return (digitTaskNames as readonly string[]).includes(name);
}

export interface DigitItem {
  task: DigitTaskName;
  question: string;
  answer: number;
}

export const digitRanges = {
  sum_digits: { minCount: 2, maxCount: 4, min: 10, max: 999 },
  reverse_digits: { min: 100_000, max: 9_999_999 },
} as const;

export function digitSum(numbers: readonly number[]): number {
  let total = 0;
  for (const n of numbers) for (const c of String(Math.abs(n))) total += c.charCodeAt(0) - 48;
  return total;
}

/** Digits reversed, leading zeros dropped (1200 -> 21). */
export function reverseDigits(n: number): number {
  return Number(String(n).split('').reverse().join(''));
}

export function sumDigitsQuestion(numbers: readonly number[]): string {
  return `What is the total digit sum of [${numbers.join(', ')}]?`;
}

export function reverseDigitsQuestion(n: number): string {
  return `Reverse the digits of ${n}.`;
}

export function sampleDigitItem(task: DigitTaskName, rng: Rng): DigitItem {
  if (task === 'sum_digits') {
    const r = digitRanges.sum_digits;
    const numbers = Array.from({ length: rng.int(r.minCount, r.maxCount) }, () => rng.int(r.min, r.max));
    return { task, question: sumDigitsQuestion(numbers), answer: digitSum(numbers) };
  }
  const n = rng.int(digitRanges.reverse_digits.min, digitRanges.reverse_digits.max);
  return { task, question: reverseDigitsQuestion(n), answer: reverseDigits(n) };
}

/** The numbers a question was built from (for range checks and display). */
export function questionNumbers(question: string): number[] {
  return (question.match(/\d+/g) ?? []).map(Number);
}

/**
 * What makes two items the same question: the numbers for sum_digits, in any order ("[12, 34]"
 * and "[34, 12]" are one question with one answer), the number for reverse_digits. Held-out
 * items are distinct by it, and training items are kept apart from them by it.
 */
export function questionKey(item: Pick<DigitItem, 'task' | 'question'>): string {
  const numbers = questionNumbers(item.question);
  return item.task === 'sum_digits' ? `${item.task}:${numbers.sort((a, b) => a - b).join(',')}` : `${item.task}:${numbers.join(',')}`;
}

/** `count` distinct held-out items from a fixed seed. */
export function heldOutItems(task: DigitTaskName, count: number, rng: Rng): DigitItem[] {
  const seen = new Set<string>();
  const items: DigitItem[] = [];
  for (let tries = 0; items.length < count && tries < count * 100; tries++) {
    const item = sampleDigitItem(task, rng);
    if (seen.has(questionKey(item))) continue;
    seen.add(questionKey(item));
    items.push(item);
  }
  return items;
}

/** Samples training items, redrawing any whose question is held out (`excluded`: their questionKeys). */
export function sampleTrainingItem(task: DigitTaskName, rng: Rng, excluded: ReadonlySet<string>): DigitItem {
  for (;;) {
    const item = sampleDigitItem(task, rng);
    if (!excluded.has(questionKey(item))) return item;
  }
}
