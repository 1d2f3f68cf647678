/**
 * The digit tasks' own config section, and the config as their code sees it: the shared
 * sections (configSections.ts) with this one. Both digit definitions (definition.ts) hand the
 * section to registry.ts, which assembles the whole schema.
 */
import { z } from 'zod';
import { int, type BaseConfig, type Infer } from '../configSections';

export const digitsFields = {
  numSteps: int(0, 1_000_000).default(200).describe('Digit tasks: RL updates after the warm start.'),
  numGenerators: int(1, 16).default(2).describe('Digit tasks: generator workers sampling trajectories in parallel.'),
  overlap: z.boolean().default(false).describe('Digit tasks: generators sample the next batch while the trainer updates (one weight version stale, importance-weighted): ~1.5x the RL throughput with one generator, but sum_digits learned less per step (41% -> 54% in 300 steps, against 68% on-policy).'),
  requireTag: z.boolean().default(false).describe('Digit tasks: only an answer in an [ANSWER] tag earns +1.'),
  lrDecay: z.boolean().default(false).describe('Digit tasks: the RL learning rate decays along a cosine to a tenth over --num-steps.'),
  warmStartExamples: int(0, 1_000_000).default(300).describe('Digit tasks: labelled examples of the supervised warm start.'),
  warmStartSteps: int(0, 1_000_000).default(150).describe('Digit tasks: supervised updates (batches of batchSize) before RL.'),
  warmStartLearningRate: z.number().positive().max(1).default(1e-3).describe('Digit tasks: Adam learning rate of the warm start.'),
  maxResponseTokens: int(2, 64).default(12).describe('Digit tasks: longest response, in tokens, EOS included.'),
  evalSeed: int(0, 2 ** 31 - 1).default(12345).describe('Digit tasks: seed of the held-out prompts (never trained on).'),
};

export type DigitsConfig = BaseConfig & { digits: Infer<typeof digitsFields> };
