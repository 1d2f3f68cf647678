/**
 * Greedy evaluation on held-out prompts: accuracy (the extracted answer is right, tag or not)
 * and format compliance (share of answers that used the `[ANSWER] n` tag). Greedy decoding is
 * deterministic; the RNG only satisfies the sampler's interface and is fixed anyway.
 */
import { sampleBatch } from '../model/sampler';
import type { TransformerPolicy } from '../model/transformer';
import { scoreAnswer } from './extractAnswer';
import type { DigitItem } from './tasks';
import { DigitGrammar, SPECIAL, decodeText, digitPromptLength, promptTokens } from './vocab';

export interface DigitEvalResult {
  n: number;
  accuracy: number;
  formatCompliance: number;
  samples: { question: string; answer: number; text: string; correct: boolean; given: number | null }[];
}

export async function evaluateDigits(policy: TransformerPolicy, items: readonly DigitItem[], maxResponseTokens: number, batchSize = 100): Promise<DigitEvalResult> {
  const grammar = new DigitGrammar(maxResponseTokens);
  let correct = 0;
  let tagged = 0;
  const samples: DigitEvalResult['samples'] = [];
  for (let i = 0; i < items.length; i += batchSize) {
    const part = items.slice(i, i + batchSize);
    const results = await sampleBatch(policy, grammar, part.map((item) => promptTokens(item.question, digitPromptLength[item.task])), { maxTokens: maxResponseTokens, temperature: 1, greedy: true, padToken: SPECIAL.PAD });
    part.forEach((item, j) => {
      const text = decodeText(results[j].tokens);
      const score = scoreAnswer(text, item.answer, false);
      if (score.correct) correct += 1;
      if (score.tagged) tagged += 1;
      samples.push({ question: item.question, answer: item.answer, text, correct: score.correct, given: score.value ?? null });
    });
  }
  const n = items.length;
  return { n, accuracy: n ? correct / n : 0, formatCompliance: n ? tagged / n : 0, samples };
}
