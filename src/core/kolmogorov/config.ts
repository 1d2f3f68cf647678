/**
 * The Kolmogorov task's own config fields, by section, and the config as its code sees it: the
 * shared sections (configSections.ts) with these. The definition (definition.ts) hands the fields
 * to registry.ts, which assembles the whole schema.
 */
import { z } from 'zod';
import { int, type BaseConfig, type Infer } from '../configSections';

/** The Kolmogorov task's own fields, by section. */
export const kolmogorovFields = {
  task: {
    prior: z.enum(['kt', 'strict']).default('kt')
      .describe('Bit prior for program length: kt matches the KoLMogorov Test, strict also pays for filter predicates and concatenate arity.'),
    maxSequenceLength: int(5, 1024).default(128)
      .describe('Sequences longer than this are cut to their first values in the prompt.'),
    maxTrainLength: int(0, 100_000).default(0)
      .describe('RL trains only on training sequences of at most this many values (0: all), e.g. the lengths a warm start learned; evaluation always uses every held-out sequence.'),
    trainPieces: int(0, 16).default(0)
      .describe('RL also trains on this many pieces of each longer training sequence, cut where split search cuts (needs maxTrainLength): the pieces split search asks the policy for.'),
  },
  algorithm: {
    rewardConstant: z.number().default(1).describe('Reward C of a correct program: C - lengthPenalty * bits.'),
    lengthPenalty: z.number().min(0).default(0.001).describe('Reward lost per bit of a correct program (bits from the prior).'),
    prefixCredit: z.number().min(0).max(1).default(0).describe('Reward of a wrong program that runs: this times the share of the sequence its output reproduces from the start. A denser signal where no sample of a group is correct; 0 = all or nothing.'),
    repairDemos: int(0, 32).default(0).describe('RL with demonstrations: for each group whose samples all fail, search repairs of its closest samples (this many runner-ups per token, 2 rounds) and add the correct program found as one more episode. 0 = off.'),
  },
};

export type KolmogorovConfig = BaseConfig & {
  task: Infer<typeof kolmogorovFields.task>;
  algorithm: Infer<typeof kolmogorovFields.algorithm>;
};

