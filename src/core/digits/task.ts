/**
 * The digit tasks (sum_digits, reverse_digits) as the one training loop sees them (task.ts):
 * items are generated questions (never a held-out one), the prompt is the question's tokens, the
 * policy writes free text under the loose digit grammar, and the answer is read back with the
 * Monarch example's fallback chain ([ANSWER] tag, "the answer is", last number): +1 when right
 * (and tagged, with digits.requireTag), -1 otherwise. An answer is text, not a program, so
 * scoring needs no sandbox.
 */
import type { DigitsConfig } from './config';
import type { PolicyConfig } from '../model/transformer';
import { Rng } from '../rng';
import type { Scored, Task } from '../task';
import { scoreAnswer } from './extractAnswer';
import { sampleTrainingItem, type DigitItem, type DigitTaskName } from './tasks';
import { DigitGrammar, SPECIAL, answerText, decodeText, digitPromptLength, digitVocabSize, promptTokens, responseTokens } from './vocab';

export interface DigitScored extends Scored {
  tagged: boolean;
  /** The number read from the answer's text, if any. */
  given: number | null;
}

export function digitPolicyConfig(config: DigitsConfig): PolicyConfig {
  const { layers, dModel, heads, context } = config.model;
  return { vocabSize: digitVocabSize, layers, dModel, heads, context };
}

/** The prompt of a question: right-aligned to the task's longest (vocab.ts says why). */
export const digitPrompt = (item: DigitItem): number[] => promptTokens(item.question, digitPromptLength[item.task]);

/** The warm start's (prompt, response) pair of a labelled item: `[ANSWER] n` then EOS. */
export const digitPair = (item: DigitItem) => ({ prompt: digitPrompt(item), tokens: responseTokens(answerText(item.answer)) });

/** `excluded`: the held-out questions, which training never samples. */
export function digitTask(config: DigitsConfig, excluded: ReadonlySet<string>): Task<DigitItem, DigitScored> {
  const task = config.task.name as DigitTaskName;
  const { requireTag, maxResponseTokens } = config.digits;
  return {
    vocab: { name: 'digits', size: digitVocabSize },
    grammar: new DigitGrammar(maxResponseTokens),
    grammarSpec: { task: config.task.name, maxResponseTokens },
    padToken: SPECIAL.PAD,
    maxTokens: maxResponseTokens,
    policyConfig: () => digitPolicyConfig(config),
    trainingItems: (items) => [...items],
    sampleItems: (rng: Rng, count: number) => Array.from({ length: count }, () => sampleTrainingItem(task, rng, excluded)),
    prompt: digitPrompt,
    async score(items, samples) {
      return samples.map((sample, i) => {
        const text = decodeText(sample.tokens);
        const score = scoreAnswer(text, items[i].answer, requireTag);
        return { text, outcome: score.correct ? 'ok' : 'wrong', reward: score.reward, correct: score.correct, tagged: score.tagged, given: score.value };
      });
    },
    metrics: (_items, scored) => ({ format_compliance: scored.filter((s) => s.tagged).length / scored.length }),
    sampleRecord: (item, scored) => ({ target: [item.answer], ...(scored.given === null ? {} : { output: [scored.given] }), bits: 0, label: item.question, detail: `answer ${item.answer}` }),
  };
}

/**
 * The warm start's batches: `warmStartExamples` labelled questions (never a held-out one) from
 * the run's seed, visited in random batches; null when there are none. The CLI and the page draw
 * the same batches.
 */
export function digitWarmStartBatches(config: Pick<DigitsConfig, 'run' | 'task' | 'digits'>, excluded: ReadonlySet<string>): ((size: number) => { prompt: number[]; tokens: number[] }[]) | null {
  const rng = new Rng(config.run.seed);
  const task = config.task.name as DigitTaskName;
  const labelled: DigitItem[] = Array.from({ length: config.digits.warmStartExamples }, () => sampleTrainingItem(task, rng, excluded));
  if (!labelled.length) return null;
  return (size) => Array.from({ length: size }, () => digitPair(rng.pick(labelled)));
}
