/**
 * Text tokens of the digit tasks and the grammar the policy writes under.
 *
 * The vocabulary is the characters of the questions and answers (digits, letters,
 * punctuation, space) plus the template's words as whole tokens (" total", "[ANSWER]"), so
 * prompts stay short; text is split by greedy longest match, and decode(encode(s)) === s for
 * any text over the alphabet. Specials: PAD, BOS (starts the prompt), SEP (ends the question,
 * the response follows), EOS (ends the response).
 *
 * The grammar is deliberately loose: any text token, then EOS; EOS is forced once the response
 * budget is spent. The policy may write free text before its `[ANSWER] n`, so format
 * compliance is something it learns, not something the grammar imposes.
 */
import type { Grammar } from '../grammar';

export const SPECIAL = { PAD: 0, BOS: 1, SEP: 2, EOS: 3 } as const;
const specialNames = ['<pad>', '<bos>', '<sep>', '<eos>'];

const words = ['What', ' is', ' the', ' total', ' digit', ' digits', ' sum', ' of', ' [', ', ', ']?', 'Reverse', '[ANSWER]', 'The', ' answer'];
const chars = [
  ...'0123456789',
  ...' []?,.=-+:',
  ...'abcdefghijklmnopqrstuvwxyz',
  ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ',
];

export const digitTokens: readonly string[] = [...specialNames, ...words, ...chars];
export const digitVocabSize = digitTokens.length;

const byText = new Map<string, number>();
digitTokens.forEach((text, id) => {
  if (id >= specialNames.length) byText.set(text, id);
});
const longest = Math.max(...words.map((w) => w.length));

/** Greedy longest-match tokenisation; throws on a character outside the alphabet. */
export function encodeText(text: string): number[] {
  const out: number[] = [];
  let i = 0;
  while (i < text.length) {
    let matched = 0;
    for (let len = Math.min(longest, text.length - i); len >= 1; len--) {
      const id = byText.get(text.slice(i, i + len));
      if (id !== undefined) {
        out.push(id);
        matched = len;
        break;
      }
    }
    if (!matched) throw new Error(`character "${text[i]}" at ${i} is outside the digit tasks' alphabet`);
    i += matched;
  }
  return out;
}

/** Text of tokens; specials are dropped (EOS ends the text). */
export function decodeText(tokens: readonly number[]): string {
  let text = '';
  for (const token of tokens) {
    if (token === SPECIAL.EOS) break;
    if (token >= specialNames.length) text += digitTokens[token];
  }
  return text;
}

/**
 * Longest prompt of each task in tokens. Prompts are right-aligned to it (extra BOS tokens in
 * front), so a digit keeps its position counted from the answer whatever the question's
 * length: the policy's positions count from a row's start, and without this a 6-digit
 * reversal needs other attention offsets than a 7-digit one (measured: the greedy policy then
 * failed nearly all 6-digit prompts, 9% of the task).
 */
export const digitPromptLength: Record<string, number> = { sum_digits: 26, reverse_digits: 15 };

/** Prompt tokens: BOS (repeated to right-align to `length`), the question, SEP. */
export function promptTokens(question: string, length = 0): number[] {
  const body = [...encodeText(question), SPECIAL.SEP];
  return [...new Array<number>(Math.max(1, length - body.length)).fill(SPECIAL.BOS), ...body];
}

/** The response the warm start teaches: `[ANSWER] n` then EOS. */
export function answerText(answer: number): string {
  return `[ANSWER] ${answer}`;
}

export function responseTokens(text: string): number[] {
  return [...encodeText(text), SPECIAL.EOS];
}

/** State: tokens written so far, or -1 once EOS was written. */
export class DigitGrammar implements Grammar<number> {
  readonly vocabSize = digitVocabSize;
  constructor(readonly maxResponseTokens: number) {
    if (maxResponseTokens < 2) throw new Error('a response needs at least 2 tokens');
  }
  initial(): number {
    return 0;
  }
  allowed(state: number, mask: Uint8Array): void {
    mask.fill(0);
    if (state < 0) return;
    mask[SPECIAL.EOS] = 1;
    if (state >= this.maxResponseTokens - 1) return;
    mask.fill(1, specialNames.length);
  }
  advance(state: number, token: number): number {
    return token === SPECIAL.EOS ? -1 : state + 1;
  }
  isDone(state: number): boolean {
    return state < 0;
  }
  endsLine(token: number): boolean {
    return token === SPECIAL.EOS;
  }
}
