/**
 * The config sections every task and algorithm shares (the one typed config object, with a
 * default and a one-line doc per field): the model, the sandbox, the run's bookkeeping, the
 * fields every algorithm reads, and the options several algorithms read. A task adds its own
 * fields in its folder's definition, an algorithm its own in its file; registry.ts assembles the
 * whole schema from these pieces, and config.ts reads and writes it (CLI flags, the page's form,
 * the URL hash, checkpoints). This file imports nothing of the lab, so tasks and algorithms can
 * type their own view of the config without a circle.
 */
import { z } from 'zod';

export const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** The fields of a shape, as the parsed values they hold. */
export type Infer<S extends z.ZodRawShape> = z.infer<z.ZodObject<S>>;

export const taskCommonFields = {
  name: z.string().default('kolmogorov').describe('Which task the policy learns (registry.ts lists them): kolmogorov (sequence compression), functions (a function from a docstring and tests), sum_digits or reverse_digits.'),
};

export const modelFields = {
  layers: int(1, 12).default(2).describe('Transformer blocks.'),
  dModel: int(16, 1024).default(128).describe('Width of the residual stream.'),
  heads: int(1, 16).default(4).describe('Attention heads (must divide dModel).'),
  context: int(16, 2048).default(256).describe('Maximum tokens of prompt plus program.'),
  maxProgramTokens: int(8, 1024).default(96).describe('Longest program the sampler may write, in tokens.'),
  previousToken: z.boolean().default(true).describe('Also embed each position\'s previous token (smeared keys): copying from the prompt then takes one attention layer, and the warm start learns it far sooner.'),
  secondPrevious: z.boolean().default(false).describe('Also embed the token two back, each previous token\'s number code in a direction of its own (with previousToken): a copy of the prompt keeps its place where a value occurs twice.'),
  numberCode: z.boolean().default(true).describe('Add a fixed sinusoidal code of each number to the value tokens\' embeddings, so equal and consecutive numbers are alike from the start.'),
  valueDeltas: z.boolean().default(false).describe('Also embed the difference between consecutive numbers (clipped to -9..9): runs, repeats and steps, and the breaks between them, are visible at each position.'),
  runLengths: z.boolean().default(false).describe('Also embed, at each number, how many values of one constant difference end there (a repeat, a range, a step): the key at a run\'s end says its length, which a count copies.'),
  strideTwo: z.boolean().default(false).describe('With runLengths: also the runs over every other value, and each number\'s difference from the number two back: the two streams an interleave weaves.'),
  copyPointer: z.boolean().default(false).describe('Also embed, at each number a program writes, the prompt value after the longest stretch of the prompt that ends in the numbers it just wrote, and that stretch\'s length: a copy of the prompt keeps its place where a value occurs twice (tasks whose prompt is numbers: kolmogorov; the others build no pointer).'),
  copyResume: z.boolean().default(false).describe('With copyPointer: read the program\'s statements as one copy, so a list written after another is pointed to where that one stopped.'),
};

export const algorithmCommonFields = {
  name: z.string().default('reinforce').describe('The update (registry.ts lists them): reinforce, reinforce_monarch, grpo, rloo, dpo, dqn or expert_iteration; each one\'s own fields apply only with it.'),
  batchSize: int(1, 1024).default(32).describe('Episodes (sampled programs) per policy update.'),
  learningRate: z.number().positive().max(1).default(3e-4).describe('Adam learning rate.'),
  groupSize: int(1, 64).default(1).describe('Samples per prompt (programs per sequence, answers per question); >1 uses the group-mean baseline.'),
  temperature: z.number().positive().max(10).default(1).describe('Sampling temperature during training.'),
  gradClip: z.number().positive().default(1).describe('Global gradient-norm clip.'),
  gradientAccumulationSteps: int(1, 64).default(1).describe('The update\'s gradient is computed in this many micro-batches of whole groups and summed (TRL\'s gradient_accumulation_steps): the same step in less memory. batchSize stays the episodes per update (TRL\'s effective batch).'),
};

/** Options more than one algorithm reads; each algorithm names the ones it reads (`reads`), and only those apply to it. */
export const algorithmSharedFields = {
  gamma: z.number().min(0).max(1).default(0.99).describe('Discount of returns over program lines.'),
  baselineMomentum: z.number().min(0).max(1).default(0.9).describe('EMA momentum of the reward baseline.'),
  beta: z.number().min(0).default(0).describe('grpo, rloo and dpo: weight of the KL to the reference (warm-start) policy (TRL\'s beta): a k3 term in the grpo loss, a penalty on the reward in rloo, the scale of the implicit reward in dpo (TRL\'s DPO default is 0.1; dpo needs it above 0).'),
  numIterations: int(1, 16).default(1).describe('grpo and rloo: updates on each sampled batch (TRL\'s num_iterations); ratios are to the sampler\'s probabilities.'),
};

export const sandboxFields = {
  deadlineMs: int(1, 60_000).default(100).describe('Wall-clock limit per program inside QuickJS.'),
  watchdogMs: int(10, 120_000).default(1000).describe('Host limit after which a stuck sandbox worker is terminated.'),
  memoryBytes: int(1 << 20, 1 << 30).default(32 << 20).describe('QuickJS memory limit per program.'),
  stackBytes: int(16 << 10, 1 << 20).default(128 << 10).describe('QuickJS stack limit per program.'),
  maxSourceBytes: int(1, 1 << 24).default(64 << 10).describe('Programs larger than this are rejected before evaluation.'),
  maxOutputLength: int(1, 1 << 20).default(4096).describe('Longest output list accepted.'),
  workers: int(1, 32).default(2).describe('Sandbox worker threads in the pool.'),
};

export const runFields = {
  seed: int(0, 2 ** 31 - 1).default(1).describe('Seed of every random choice of the run.'),
  dataPath: z.string().default('datasets/train.jsonl').describe('Training JSONL file.'),
  evalDataPath: z.string().default('datasets/heldout.jsonl').describe('Held-out file: scored at the end of a run, for the report only (nothing is chosen on it).'),
  validationDataPath: z.string().default('').describe('Validation file the periodic evaluations (evalFreq) score and best.prl is chosen on; empty: a split of the training data (a tenth of its distinct items, every n-th, at most 200, kept out of training with every copy).'),
  initFrom: z.string().default('').describe('Checkpoint (or safetensors weights) whose weights start the policy: a warm start, also the reference of a KL term; its model and task are adopted unless set.'),
  outputDir: z.string().default('runs/latest').describe('Where metrics.jsonl and checkpoints are written.'),
  numEpochs: int(1, 100_000).default(1).describe('Passes over the training data.'),
  maxSteps: int(0, 10_000_000).default(0).describe('Stop after this many updates (0: no limit).'),
  checkpointFreq: int(0, 1_000_000).default(50).describe('Write a checkpoint every N steps (0: only at the end).'),
  keepCheckpoints: int(0, 1_000_000).default(5).describe('Numbered checkpoints kept in the output dir, newest first (0: all); latest.prl and best.prl always stay.'),
  timeLimit: z.number().min(0).max(1e7).default(0).describe('Stop after this many seconds of training (at a step boundary), as if maxSteps were reached: a wall-clock budget for comparisons (0: none).'),
  evalFreq: int(0, 1_000_000).default(0).describe('Evaluate every N steps (0: never during training): npm run train scores the validation items and keeps the best policy there as best.prl; the page and npm run digits score the held-out items.'),
  evalSamples: int(1, 100_000).default(200).describe('Items an evaluation scores: each periodic one (evalFreq), and the held-out report at the end of a CLI run.'),
  backend: z.enum(['auto', 'webgpu', 'webgl', 'wasm', 'cpu']).default('auto').describe('tfjs backend; auto picks the fastest that works.'),
};

export type TaskCommonConfig = Infer<typeof taskCommonFields>;
export type ModelConfig = Infer<typeof modelFields>;
export type AlgorithmCommonConfig = Infer<typeof algorithmCommonFields> & Infer<typeof algorithmSharedFields>;
export type SandboxConfig = Infer<typeof sandboxFields>;
export type RunConfig = Infer<typeof runFields>;

/** The config as every task and algorithm sees it; a task's or an algorithm's own view adds its fields (LabConfig has them all). */
export interface BaseConfig {
  task: TaskCommonConfig;
  model: ModelConfig;
  algorithm: AlgorithmCommonConfig;
  sandbox: SandboxConfig;
  run: RunConfig;
}
