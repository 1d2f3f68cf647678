/**
 * The one typed config object of a run (CONVENTIONS 2). Every field has a default and a
 * one-line doc; the CLI flags, the UI form, the URL hash and the checkpoint header all
 * derive from this schema, so a run is reproducible from its config and seed.
 *
 * Sections: task, model, algorithm (REINFORCE and its options), sandbox limits, run
 * bookkeeping. Field names are whole words; CLI flags are their kebab-case forms
 * (`learningRate` -> `--learning-rate`).
 */
import { z } from 'zod';

const int = (min: number, max: number) => z.number().int().min(min).max(max);

export const taskSchema = z.object({
  name: z.enum(['kolmogorov', 'sum_digits', 'reverse_digits', 'functions']).default('kolmogorov')
    .describe('Which task the policy learns: sequence compression, a digit task, or functions from a docstring and tests.'),
  prior: z.enum(['kt', 'strict']).default('kt')
    .describe('Bit prior for program length: kt matches the KoLMogorov Test, strict also pays for filter predicates and concatenate arity.'),
  maxSequenceLength: int(5, 1024).default(128)
    .describe('Sequences longer than this are cut to their first values in the prompt.'),
  maxTrainLength: int(0, 100_000).default(0)
    .describe('RL trains only on training sequences of at most this many values (0: all), e.g. the lengths a warm start learned; evaluation always uses every held-out sequence.'),
  trainPieces: int(0, 16).default(0)
    .describe('RL also trains on this many pieces of each longer training sequence, cut where split search cuts (needs maxTrainLength): the pieces split search asks the policy for.'),
});

export const modelSchema = z.object({
  layers: int(1, 12).default(2).describe('Transformer blocks.'),
  dModel: int(16, 1024).default(128).describe('Width of the residual stream.'),
  heads: int(1, 16).default(4).describe('Attention heads (must divide dModel).'),
  context: int(16, 2048).default(256).describe('Maximum tokens of prompt plus program.'),
  maxProgramTokens: int(8, 1024).default(96).describe('Longest program the sampler may write, in tokens.'),
  previousToken: z.boolean().default(true).describe('Also embed each position\'s previous token (smeared keys): copying from the prompt then takes one attention layer, and the warm start learns it far sooner.'),
  numberCode: z.boolean().default(true).describe('Add a fixed sinusoidal code of each number to the value tokens\' embeddings, so equal and consecutive numbers are alike from the start.'),
  valueDeltas: z.boolean().default(false).describe('Also embed the difference between consecutive numbers (clipped to -9..9): runs, repeats and steps, and the breaks between them, are visible at each position.'),
});

export const algorithmSchema = z.object({
  name: z.enum(['reinforce', 'reinforce_monarch', 'grpo', 'rloo', 'dpo', 'dqn']).default('reinforce')
    .describe('The update: reinforce (the KoLMogorov seed: returns discounted over program lines, normalised, entropy bonus and KL), reinforce_monarch (the Monarch example: per-token mean log-prob x (reward - EMA baseline), importance-weighted when generators sample with older weights), grpo (group-normalised advantages, clipped ratio, k3 KL; TRL\'s GRPOTrainer) rloo (leave-one-out baseline, KL folded into the reward) dpo (preference pairs, the best correct program of a group over the worst, or a pair file; TRL\'s DPOTrainer) or dqn (a Q-network over tokens: double, dueling, replay, target network; the DQN code-generation seed, CleanRL\'s dqn.py).'),
  batchSize: int(1, 1024).default(32).describe('Episodes (sampled programs) per policy update.'),
  learningRate: z.number().positive().max(1).default(3e-4).describe('Adam learning rate.'),
  rewardConstant: z.number().default(1).describe('Reward C of a correct program: C - lengthPenalty * bits.'),
  lengthPenalty: z.number().min(0).default(0.001).describe('Reward lost per bit of a correct program (bits from the prior).'),
  prefixCredit: z.number().min(0).max(1).default(0).describe('Reward of a wrong program that runs: this times the share of the sequence its output reproduces from the start. A denser signal where no sample of a group is correct; 0 = all or nothing.'),
  repairDemos: int(0, 32).default(0).describe('RL with demonstrations: for each group whose samples all fail, search repairs of its closest samples (this many runner-ups per token, 2 rounds) and add the correct program found as one more episode. 0 = off.'),
  gamma: z.number().min(0).max(1).default(0.99).describe('Discount of returns over program lines.'),
  normalizeReturns: z.boolean().default(true).describe('Normalise returns to zero mean and unit variance per batch.'),
  baselineMomentum: z.number().min(0).max(1).default(0.9).describe('EMA momentum of the reward baseline.'),
  entropyCoef: z.number().min(0).default(0.001).describe('Weight of the entropy bonus.'),
  klCoef: z.number().min(0).default(0).describe('Weight of the KL penalty to the reference (warm-start) policy.'),
  groupSize: int(1, 64).default(1).describe('Samples per prompt (programs per sequence, answers per question); >1 uses the group-mean baseline.'),
  temperature: z.number().positive().max(10).default(1).describe('Sampling temperature during training.'),
  gradClip: z.number().positive().default(1).describe('Global gradient-norm clip.'),
  gradientAccumulationSteps: int(1, 64).default(1).describe('The update\'s gradient is computed in this many micro-batches of whole groups and summed (TRL\'s gradient_accumulation_steps): the same step in less memory. batchSize stays the episodes per update (TRL\'s effective batch).'),
  beta: z.number().min(0).default(0).describe('grpo, rloo and dpo: weight of the KL to the reference (warm-start) policy (TRL\'s beta): a k3 term in the grpo loss, a penalty on the reward in rloo, the scale of the implicit reward in dpo (TRL\'s DPO default is 0.1; dpo needs it above 0).'),
  epsilon: z.number().min(0).max(1).default(0.2).describe('grpo: the probability ratio is clipped to [1 - epsilon, 1 + epsilonHigh].'),
  epsilonHigh: z.number().min(0).max(10).default(0.2).describe('grpo: upper clip of the ratio (DAPO\'s clip-higher when above epsilon).'),
  scaleRewards: z.enum(['group', 'batch', 'none']).default('group').describe('grpo: advantages are reward minus the group mean, divided by the group\'s std (group), the batch\'s std (batch), or not divided (none).'),
  lossType: z.enum(['grpo', 'dr_grpo', 'dapo']).default('grpo').describe('grpo: how token losses average: per sequence then over sequences (grpo), summed over the batch and divided by batch x max program tokens (dr_grpo), or over all tokens of the batch (dapo).'),
  dpoLossType: z.enum(['sigmoid', 'ipo', 'hinge']).default('sigmoid').describe('dpo: the loss of a pair from h, its log-ratio margin over the reference: -log sigmoid(beta h) (sigmoid, the paper\'s), (h - 1/(2 beta))^2 (ipo), max(0, 1 - beta h) (hinge). TRL\'s loss_type.'),
  bufferSize: int(16, 1_000_000).default(20_000).describe('dqn: replay buffer capacity, in transitions (one per token written).'),
  learningStarts: int(0, 1_000_000).default(500).describe('dqn: transitions in the buffer before the first update.'),
  trainFrequency: int(1, 100_000).default(64).describe('dqn: one update per this many transitions added (CleanRL\'s train_frequency; a batch of 32 ten-token programs is 320).'),
  dqnBatchSize: int(1, 1024).default(32).describe('dqn: transitions per update.'),
  targetNetworkFrequency: int(1, 100_000).default(100).describe('dqn: updates between target-network syncs.'),
  tau: z.number().min(0).max(1).default(1).describe('dqn: target sync weight (1 = copy, CleanRL\'s hard update; below 1 = Polyak averaging at every sync).'),
  doubleDqn: z.boolean().default(true).describe('dqn: the online network picks the next action, the target network values it (van Hasselt et al. 2016).'),
  dueling: z.boolean().default(true).describe('dqn: Q = V + A - mean of A over the allowed tokens (Wang et al. 2016), a value head beside the token head.'),
  tdLoss: z.enum(['huber', 'mse']).default('huber').describe('dqn: loss of the TD error.'),
  epsilonSchedule: z.enum(['exponential', 'linear']).default('exponential').describe('dqn: epsilon x epsilonDecay per episode (the seed\'s), or a straight line over explorationSteps transitions (CleanRL\'s).'),
  epsilonStart: z.number().min(0).max(1).default(1).describe('dqn: exploration rate at the start.'),
  epsilonEnd: z.number().min(0).max(1).default(0.01).describe('dqn: the lowest exploration rate.'),
  epsilonDecay: z.number().min(0).max(1).default(0.995).describe('dqn, exponential schedule: epsilon is multiplied by this per episode (program).'),
  explorationSteps: int(1, 10_000_000).default(20_000).describe('dqn, linear schedule: transitions over which epsilon goes from start to end.'),
  prioritized: z.boolean().default(false).describe('dqn: prioritized replay (Schaul et al. 2016): transitions drawn by |TD error|^alpha, updates weighted by importance.'),
  priorityAlpha: z.number().min(0).max(1).default(0.6).describe('dqn, prioritized: how much priorities count (0 = uniform).'),
  priorityBeta: z.number().min(0).max(1).default(0.4).describe('dqn, prioritized: importance-weight exponent at the start, annealed to 1 over priorityBetaUpdates.'),
  priorityBetaUpdates: int(1, 10_000_000).default(2_000).describe('dqn, prioritized: updates over which beta reaches 1.'),
  nStep: int(1, 16).default(1).describe('dqn: n-step returns (rewards over n tokens, then the bootstrapped value).'),
  numIterations: int(1, 16).default(1).describe('grpo and rloo: updates on each sampled batch (TRL\'s num_iterations); ratios are to the sampler\'s probabilities.'),
});

export const sandboxSchema = z.object({
  deadlineMs: int(1, 60_000).default(100).describe('Wall-clock limit per program inside QuickJS.'),
  watchdogMs: int(10, 120_000).default(1000).describe('Host limit after which a stuck sandbox worker is terminated.'),
  memoryBytes: int(1 << 20, 1 << 30).default(32 << 20).describe('QuickJS memory limit per program.'),
  stackBytes: int(16 << 10, 1 << 20).default(128 << 10).describe('QuickJS stack limit per program.'),
  maxSourceBytes: int(1, 1 << 24).default(64 << 10).describe('Programs larger than this are rejected before evaluation.'),
  maxOutputLength: int(1, 1 << 20).default(4096).describe('Longest output list accepted.'),
  workers: int(1, 32).default(2).describe('Sandbox worker threads in the pool.'),
});

export const runSchema = z.object({
  seed: int(0, 2 ** 31 - 1).default(1).describe('Seed of every random choice of the run.'),
  dataPath: z.string().default('datasets/train.jsonl').describe('Training JSONL file.'),
  evalDataPath: z.string().default('datasets/heldout.jsonl').describe('Held-out JSONL file for evaluation.'),
  outputDir: z.string().default('runs/latest').describe('Where metrics.jsonl and checkpoints are written.'),
  numEpochs: int(1, 100_000).default(1).describe('Passes over the training data.'),
  maxSteps: int(0, 10_000_000).default(0).describe('Stop after this many updates (0: no limit).'),
  checkpointFreq: int(0, 1_000_000).default(50).describe('Write a checkpoint every N steps (0: only at the end).'),
  keepCheckpoints: int(0, 1_000_000).default(5).describe('Numbered checkpoints kept in the output dir, newest first (0: all); latest.prl and best.prl always stay.'),
  evalFreq: int(0, 1_000_000).default(0).describe('Evaluate on the held-out data every N steps (0: never during training).'),
  evalSamples: int(1, 100_000).default(200).describe('Held-out items used by a periodic evaluation.'),
  backend: z.enum(['auto', 'webgpu', 'webgl', 'wasm', 'cpu']).default('auto').describe('tfjs backend; auto picks the fastest that works.'),
});

export const digitsSchema = z.object({
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
});

export const functionsSchema = z.object({
  rewardType: z.enum(['test_cases', 'code_quality', 'sparse', 'curriculum']).default('test_cases')
    .describe('Functions: test_cases (share of tests passed + a bonus when all pass), code_quality (the DQN seed\'s weighted sum), sparse (1 when all pass), curriculum (test_cases, problems easiest first).'),
  allPassBonus: z.number().min(0).default(1).describe('Functions: reward added when every test passes (test_cases and curriculum).'),
  rewardScale: z.number().positive().default(1).describe('Functions: the test_cases reward is multiplied by this.'),
  promptTests: int(1, 16).default(5).describe('Functions: shown test cases written into the prompt (at most; fewer when the prompt would not fit).'),
  curriculumStart: z.number().min(0).max(1).default(0.2).describe('Functions, curriculum: share of the problems (easiest first) in the pool at the start.'),
  curriculumWiden: z.number().min(0).max(1).default(0.5).describe('Functions, curriculum: the pool widens by a tenth of the problems whenever a step\'s success rate reaches this.'),
});

export const configSchema = z.object({
  task: taskSchema.prefault({}),
  model: modelSchema.prefault({}),
  algorithm: algorithmSchema.prefault({}),
  sandbox: sandboxSchema.prefault({}),
  run: runSchema.prefault({}),
  digits: digitsSchema.prefault({}),
  functions: functionsSchema.prefault({}),
});

export type TaskConfig = z.infer<typeof taskSchema>;
export type ModelConfig = z.infer<typeof modelSchema>;
export type AlgorithmConfig = z.infer<typeof algorithmSchema>;
export type SandboxConfig = z.infer<typeof sandboxSchema>;
export type RunConfig = z.infer<typeof runSchema>;
export type DigitsConfig = z.infer<typeof digitsSchema>;
export type FunctionsConfig = z.infer<typeof functionsSchema>;
export type LabConfig = z.infer<typeof configSchema>;
export type SectionName = keyof LabConfig;

export const sectionSchemas = {
  task: taskSchema,
  model: modelSchema,
  algorithm: algorithmSchema,
  sandbox: sandboxSchema,
  run: runSchema,
  digits: digitsSchema,
  functions: functionsSchema,
} as const;

export function defaultConfig(): LabConfig {
  return configSchema.parse({});
}

/**
 * The keys of `input` the schema does not know, as `section.key` paths, each with the known key
 * it differs from only in case or separators when there is one ("did you mean").
 */
export function unknownConfigKeys(input: unknown): string[] {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return [];
  const loose = (key: string) => key.toLowerCase().replace(/[-_]/g, '');
  const guess = (key: string, known: string[]) => {
    const match = known.find((k) => loose(k) === loose(key));
    return match ? ` (did you mean ${match}?)` : '';
  };
  const unknown: string[] = [];
  const sections = Object.keys(sectionSchemas);
  for (const [section, value] of Object.entries(input)) {
    if (!Object.hasOwn(sectionSchemas, section)) {
      unknown.push(`${section}${guess(section, sections)}`);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue; // the schema says what is wrong with it
    const known = Object.keys(sectionSchemas[section as SectionName].shape);
    for (const key of Object.keys(value)) if (!known.includes(key)) unknown.push(`${section}.${key}${guess(key, known)}`);
  }
  return unknown;
}

/**
 * Parses untrusted input (a file, a URL hash, a checkpoint header) into a config, with readable
 * errors. `strict` (a config file a person wrote) also refuses keys the schema does not know,
 * naming them, instead of dropping them (a misspelt `learningrate` would train at the default).
 */
export function parseConfig(input: unknown, { strict = false }: { strict?: boolean } = {}): LabConfig {
  if (strict) {
    const unknown = unknownConfigKeys(input);
    if (unknown.length) throw new Error(`invalid config: unknown key${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')}`);
  }
  const result = configSchema.safeParse(input);
  if (!result.success) {
    const lines = result.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
    throw new Error(`invalid config: ${lines.join('; ')}`);
  }
  return result.data;
}

/** One field of the config, as the CLI, the form and the URL see it. */
export interface ConfigField {
  section: SectionName;
  key: string;
  /** `--learning-rate` style flag name without dashes. */
  flag: string;
  kind: 'number' | 'integer' | 'boolean' | 'string' | 'enum';
  options?: readonly string[];
  defaultValue: unknown;
  doc: string;
  /** A field only the CLI reads (files and folders on disk): the page neither shows it nor puts it in its link. */
  cliOnly: boolean;
}

/** Fields about files on disk and how the CLI writes its run: meaningless in the page. */
const cliOnlyFields = new Set(['run.dataPath', 'run.evalDataPath', 'run.outputDir', 'run.checkpointFreq', 'run.keepCheckpoints', 'run.numEpochs']);

/** Fields that mean something for one task only (the rest apply to every task). */
const taskOnlyFields: Record<string, LabConfig['task']['name'][]> = {
  'task.prior': ['kolmogorov'],
  'task.maxSequenceLength': ['kolmogorov'],
  'task.maxTrainLength': ['kolmogorov'],
  'task.trainPieces': ['kolmogorov'],
  'model.valueDeltas': ['kolmogorov'],
  'algorithm.rewardConstant': ['kolmogorov'],
  'algorithm.lengthPenalty': ['kolmogorov'],
  'algorithm.prefixCredit': ['kolmogorov'],
  'algorithm.repairDemos': ['kolmogorov'],
};
const digitTasks: LabConfig['task']['name'][] = ['sum_digits', 'reverse_digits'];

/** Fields that one algorithm reads only (reinforce_monarch has no discount, normalisation, entropy bonus or KL). */
const algorithmOnlyFields: Record<string, LabConfig['algorithm']['name'][]> = {
  'algorithm.gamma': ['reinforce', 'dqn'],
  'algorithm.normalizeReturns': ['reinforce'],
  'algorithm.entropyCoef': ['reinforce'],
  'algorithm.klCoef': ['reinforce'],
  'algorithm.beta': ['grpo', 'rloo', 'dpo'],
  'algorithm.dpoLossType': ['dpo'],
  'algorithm.epsilon': ['grpo'],
  'algorithm.epsilonHigh': ['grpo'],
  'algorithm.scaleRewards': ['grpo'],
  'algorithm.lossType': ['grpo'],
  'algorithm.numIterations': ['grpo', 'rloo'],
  ...Object.fromEntries(['bufferSize', 'learningStarts', 'trainFrequency', 'dqnBatchSize', 'targetNetworkFrequency', 'tau', 'doubleDqn', 'dueling', 'tdLoss', 'epsilonSchedule', 'epsilonStart', 'epsilonEnd', 'epsilonDecay', 'explorationSteps', 'prioritized', 'priorityAlpha', 'priorityBeta', 'priorityBetaUpdates', 'nStep'].map((key) => [`algorithm.${key}`, ['dqn' as const]])),
};

/** Whether a field means anything for this config's task and algorithm (the page shows only those). */
export function fieldApplies(field: Pick<ConfigField, 'section' | 'key'>, config: LabConfig): boolean {
  const task = config.task.name;
  const algorithms = algorithmOnlyFields[`${field.section}.${field.key}`];
  if (algorithms && !algorithms.includes(config.algorithm.name)) return false;
  if (field.section === 'digits') return digitTasks.includes(task);
  if (field.section === 'functions') return task === 'functions';
  if (field.section === 'sandbox') return !digitTasks.includes(task); // digit answers are scored on the host
  const only = taskOnlyFields[`${field.section}.${field.key}`];
  return !only || only.includes(task);
}

/**
 * What makes a config unusable beyond each field's own range (the schema checks those): fields
 * that must agree with each other. Checked before a run is made, so a bad Apply never costs the
 * live run.
 */
export function configProblem(config: LabConfig): string | null {
  const { model } = config;
  if (model.dModel % model.heads !== 0) return `model.dModel (${model.dModel}) must be divisible by model.heads (${model.heads}): try heads ${[1, 2, 4, 8, 16].filter((h) => model.dModel % h === 0).join(', ')}`;
  const { name, repairDemos } = config.algorithm;
  // Demonstrations are found by search, not sampled: they have no sampling probability for GRPO's ratio or RLOO's KL.
  if (repairDemos > 0 && name !== 'reinforce') return `algorithm.repairDemos (${repairDemos}) works with algorithm reinforce only, not ${name}: set it to 0`;
  if (config.algorithm.gradientAccumulationSteps > 1 && (name === 'reinforce_monarch' || name === 'dqn')) return `algorithm.gradientAccumulationSteps works with reinforce, grpo, rloo and dpo, not ${name}: set it to 1`;
  if (name === 'dpo' && !(config.algorithm.beta > 0)) return 'algorithm.beta must be above 0 for dpo (it scales the implicit reward): try 0.1, TRL\'s default';
  return null;
}

/**
 * A config switched to algorithm `name`, with that algorithm's own defaults where a shared field's
 * would not work: dpo gets TRL's beta of 0.1 when beta is 0, and groups of 4 to make pairs from
 * when groups are of one.
 */
export function withAlgorithm(config: LabConfig, name: LabConfig['algorithm']['name']): LabConfig {
  const algorithm = { ...config.algorithm, name };
  if (name === 'dpo') {
    if (!(algorithm.beta > 0)) algorithm.beta = 0.1;
    if (algorithm.groupSize < 2) algorithm.groupSize = 4;
  }
  return { ...config, algorithm };
}

const kebab = (key: string) => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** Flags whose kebab-case key would be ambiguous or differ from the seeds' spelling. */
const flagOverrides: Record<string, string> = { 'task.name': 'task', 'algorithm.name': 'algorithm' };

function unwrap(schema: z.ZodType): z.ZodType {
  let current: any = schema;
  while (current?.def && (current.def.type === 'default' || current.def.type === 'prefault' || current.def.type === 'optional')) {
    current = current.def.innerType;
  }
  return current;
}

function fieldKind(schema: z.ZodType): Pick<ConfigField, 'kind' | 'options'> {
  const inner: any = unwrap(schema);
  switch (inner.def.type) {
    case 'boolean':
      return { kind: 'boolean' };
    case 'string':
      return { kind: 'string' };
    case 'enum':
      return { kind: 'enum', options: inner.options as string[] };
    case 'number':
      return { kind: inner.format === 'safeint' || inner.isInt ? 'integer' : 'number' };
    default:
      throw new Error(`config field of unsupported type ${inner.def.type}`);
  }
}

/** Every field of the config, in declaration order. */
export function configFields(): ConfigField[] {
  const defaults = defaultConfig();
  const fields: ConfigField[] = [];
  for (const [section, schema] of Object.entries(sectionSchemas) as [SectionName, z.ZodObject][]) {
    for (const [key, fieldSchema] of Object.entries(schema.shape) as [string, z.ZodType][]) {
      fields.push({
        section,
        key,
        flag: flagOverrides[`${section}.${key}`] ?? kebab(key),
        ...fieldKind(fieldSchema),
        defaultValue: (defaults[section] as Record<string, unknown>)[key],
        doc: fieldSchema.description ?? '',
        cliOnly: cliOnlyFields.has(`${section}.${key}`),
      });
    }
  }
  return fields;
}

/** Sets one field from its text form (a CLI flag value or a URL parameter), validating it. */
export function withField(config: LabConfig, field: ConfigField, text: string): LabConfig {
  let value: unknown = text;
  if (field.kind === 'number' || field.kind === 'integer') {
    value = Number(text);
    if (text.trim() === '' || !Number.isFinite(value)) throw new Error(`--${field.flag}: expected a number, got "${text}"`);
  } else if (field.kind === 'boolean') {
    if (!['true', 'false', '1', '0', ''].includes(text)) throw new Error(`--${field.flag}: expected true or false, got "${text}"`);
    value = text === 'true' || text === '1' || text === '';
  }
  const next = { ...config, [field.section]: { ...config[field.section], [field.key]: value } } as LabConfig;
  const result = configSchema.safeParse(next);
  if (!result.success) {
    // The flag is blamed for its own field only: a field made invalid before it (a config file's
    // mapping) is named by its path.
    const own = result.error.issues.find((issue) => issue.path.join('.') === `${field.section}.${field.key}`);
    const issue = own ?? result.error.issues[0];
    throw new Error(own ? `--${field.flag}: ${issue.message}` : `${issue.path.join('.')}: ${issue.message}`);
  }
  return result.data;
}

/**
 * The fields that differ from the defaults, as `flag=value` pairs: the URL hash of a run.
 * `page` leaves out the CLI-only fields (paths on disk), which a link of the page never carries.
 */
export function configToSearchParams(config: LabConfig, { page = false }: { page?: boolean } = {}): string {
  const params = new URLSearchParams();
  for (const field of configFields()) {
    if (page && field.cliOnly) continue;
    const value = (config[field.section] as Record<string, unknown>)[field.key];
    if (value !== field.defaultValue) params.set(field.flag, String(value));
  }
  return params.toString();
}

export function configFromSearchParams(text: string, base: LabConfig = defaultConfig()): LabConfig {
  const params = new URLSearchParams(text);
  const byFlag = new Map(configFields().map((field) => [field.flag, field]));
  let config = base;
  for (const [flag, value] of params) {
    const field = byFlag.get(flag);
    if (!field) throw new Error(`unknown config parameter "${flag}"`);
    config = withField(config, field, value);
  }
  return config;
}
