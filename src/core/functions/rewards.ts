/**
 * Rewards of the functions task, each a plain function of (problem, program, test results),
 * chosen by `functions.rewardType`:
 *
 * - `code_quality` (DQN code-generation seed): a weighted sum of
 *   correctness (weight 10): tests passed / total, plus 20 when all pass;
 *   quality (weight 2): syntax valid +0.5, proper structure +0.3 (a function that returns),
 *     reasonable length +0.2 (at most `reasonableStatements` statements), low complexity +0.2
 *     (nesting depth at most `lowComplexityDepth`);
 *   efficiency (weight 1): -0.1 x tokens / maxTokens, -0.5 for excessive length (above
 *     `excessiveTokens`), +0.1 for idiomatic code (an array method where a loop would do);
 *   progress (weight 0.5): syntax improved +0.3 and structure improved +0.2 (a complete,
 *     returning program where the episode started from nothing), continued generation +0.05
 *     per statement, the seed's per-step terms summed at the end of the episode.
 *   Every sample of the grammar parses, so the syntax terms are earned by every complete
 *   program; they separate complete programs from ones cut off by the token budget.
 * - `sparse`: 1 when every test passes, else 0.
 * - `test_cases` (Q-language RL system): partial credit tests passed / total, plus
 *   `allPassBonus` when all pass; times `rewardScale`.
 * - `curriculum`: the test_cases reward; what makes it a curriculum is the order of problems
 *   (task.ts: problems by difficulty, the pool widening as the success rate rises).
 */
import type { PrintedProgram } from './program';

export const rewardTypes = ['code_quality', 'sparse', 'test_cases', 'curriculum'] as const;
export type RewardType = (typeof rewardTypes)[number];

export interface RewardInput {
  /** The printed program, or null when sampling ran out of tokens before it was complete. */
  program: PrintedProgram | null;
  /** Tokens the program took. */
  tokens: number;
  maxTokens: number;
  /** Per test (shown and hidden), whether it passed. */
  passed: readonly boolean[];
}

export interface RewardSettings {
  allPassBonus: number;
  rewardScale: number;
}

export const codeQualityWeights = { correctness: 10, allPass: 20, quality: 2, efficiency: 1, progress: 0.5 } as const;
const reasonableStatements = 6;
const lowComplexityDepth = 6;
const excessiveTokens = 40;

/** The parts of a reward (for the page's reward-component charts); `total` is what RL sees. */
export interface RewardParts {
  total: number;
  correctness: number;
  quality: number;
  efficiency: number;
  progress: number;
}

const share = (passed: readonly boolean[]) => (passed.length ? passed.filter(Boolean).length / passed.length : 0);
const allPass = (passed: readonly boolean[]) => passed.length > 0 && passed.every(Boolean);

export function codeQualityReward(input: RewardInput): RewardParts {
  const { program, passed } = input;
  const correctness = codeQualityWeights.correctness * share(passed) + (allPass(passed) ? codeQualityWeights.allPass : 0);
  let quality = 0;
  let efficiency = -0.1 * (input.tokens / Math.max(1, input.maxTokens));
  let progress = 0;
  if (program) {
    quality = 0.5 + 0.3 + (program.statements <= reasonableStatements ? 0.2 : 0) + (program.depth <= lowComplexityDepth ? 0.2 : 0);
    if (input.tokens > excessiveTokens) efficiency -= 0.5;
    if (program.loops === 0 && /\.(map|filter|reduce)\(/.test(program.text)) efficiency += 0.1;
    progress = 0.3 + 0.2 + 0.05 * program.statements;
  }
  const parts = {
    correctness,
    quality: codeQualityWeights.quality * quality,
    efficiency: codeQualityWeights.efficiency * efficiency,
    progress: codeQualityWeights.progress * progress,
  };
  return { total: parts.correctness + parts.quality + parts.efficiency + parts.progress, ...parts };
}

export function sparseReward(input: RewardInput): number {
  return allPass(input.passed) ? 1 : 0;
}

export function testCaseReward(input: RewardInput, settings: RewardSettings): number {
  return settings.rewardScale * (share(input.passed) + (allPass(input.passed) ? settings.allPassBonus : 0));
}

export function functionReward(type: RewardType, input: RewardInput, settings: RewardSettings): RewardParts {
  if (type === 'code_quality') return codeQualityReward(input);
  const total = type === 'sparse' ? sparseReward(input) : testCaseReward(input, settings);
  return { total, correctness: total, quality: 0, efficiency: 0, progress: 0 };
}
