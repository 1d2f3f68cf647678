/**
 * Reading the number a response answers with, by the seed's fallback chain: the `[ANSWER] n`
 * tag first, then "the answer is n" or "= n", then the last number in the text. Where a rule
 * matches several times the last match wins (a response ends with its answer). Format
 * compliance counts only the tag; a tag without a number is not compliant and falls through.
 *
 * A minus sign belongs to a number only when it does not follow a digit ("3-5" holds 3 and 5,
 * "x = -5" holds -5).
 */

export interface ExtractedAnswer {
  value: number | null;
  /** True when the value came from an `[ANSWER] n` tag. */
  tagged: boolean;
}

const NUMBER = String.raw`(?<!\d)-?\d+`;
const tagPattern = new RegExp(String.raw`\[ANSWER\]\s*:?\s*(${NUMBER})`, 'g');
const phrasePattern = new RegExp(String.raw`(?:the answer is|=)\s*(${NUMBER})`, 'gi');
const numberPattern = new RegExp(NUMBER, 'g');

function lastGroup(pattern: RegExp, text: string): number | null {
  let value: number | null = null;
  for (const match of text.matchAll(pattern)) value = Number(match[1] ?? match[0]);
  return value;
}

export function extractAnswer(text: string): ExtractedAnswer {
  const tagged = lastGroup(tagPattern, text);
  if (tagged !== null) return { value: tagged, tagged: true };
  const phrase = lastGroup(phrasePattern, text);
  if (phrase !== null) return { value: phrase, tagged: false };
  return { value: lastGroup(numberPattern, text), tagged: false };
}

export interface ScoredAnswer extends ExtractedAnswer {
  correct: boolean;
  reward: number;
}

/** Reward +1 for a correct answer, -1 otherwise; with `requireTag`, only a tagged answer earns +1. */
export function scoreAnswer(text: string, answer: number, requireTag: boolean): ScoredAnswer {
  const extracted = extractAnswer(text);
  const correct = extracted.value === answer;
  const earned = correct && (extracted.tagged || !requireTag);
  return { ...extracted, correct, reward: earned ? 1 : -1 };
}
