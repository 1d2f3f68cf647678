/**
 * The functions task's own config section, and the config as its code sees it: the shared
 * sections (configSections.ts) with this one. The definition (definition.ts) hands the section
 * to registry.ts, which assembles the whole schema.
 */
import { z } from 'zod';
import { int, type BaseConfig, type Infer } from '../configSections';

export const functionsFields = {
  rewardType: z.enum(['test_cases', 'code_quality', 'sparse', 'curriculum']).default('test_cases')
    .describe('Functions: test_cases (share of tests passed + a bonus when all pass), code_quality (the DQN seed\'s weighted sum), sparse (1 when all pass), curriculum (test_cases, problems easiest first).'),
  allPassBonus: z.number().min(0).default(1).describe('Functions: reward added when every test passes (test_cases and curriculum).'),
  rewardScale: z.number().positive().default(1).describe('Functions: the test_cases reward is multiplied by this.'),
  promptTests: int(1, 16).default(5).describe('Functions: shown test cases written into the prompt (at most; fewer when the prompt would not fit).'),
  curriculumStart: z.number().min(0).max(1).default(0.2).describe('Functions, curriculum: share of the problems (easiest first) in the pool at the start.'),
  curriculumWiden: z.number().min(0).max(1).default(0.5).describe('Functions, curriculum: the pool widens by a tenth of the problems whenever a step\'s success rate reaches this.'),
};

export type FunctionsConfig = BaseConfig & { functions: Infer<typeof functionsFields> };
