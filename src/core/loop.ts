/**
 * The one training loop of every task (task.ts): sample a batch of programs from the policy
 * under the task's grammar, let the task run them in the sandbox and reward them, update the
 * policy, report metrics. Checkpoints (weights, optimizer, step, RNG, data cursor) and the warm
 * start (`initFrom`, also the KL reference) live here, so every task has them. The CLI, the
 * trainer worker and the tests drive this loop through a task's runner (runner.ts).
 *
 * The algorithm is chosen by `algorithm.name`: REINFORCE as the KoLMogorov seed writes it
 * (algorithms/reinforce.ts) or as the Monarch example does (algorithms/tokenMeanReinforce.ts).
 * The loop gives it episodes (prompt, program tokens, line ends, reward, group, the sampler's
 * log-probabilities) and reads back its statistics (`PolicyUpdate`): the whole contract another
 * algorithm has to meet.
 *
 * Sampling happens here, or in parallel generators with versioned weight sync
 * (generators.ts, `deps.generators`) for any task: after each update the new weights go out
 * tagged with a version. With `overlap`, the next batch is requested before the update, so the
 * generators sample batch n+1 (one version behind) while the trainer learns from batch n; the
 * Monarch update weighs such tokens by min(1, p/mu).
 *
 * Episodes whose program the sandbox could not judge (infra_error: a worker died, wasm failed)
 * are not the program's fault: they stay out of the update and are counted apart
 * (RELIABILITY.md), instead of being rewarded like a wrong program.
 *
 * The loop is on-policy and sequential: sampling of batch n+1 needs the weights after update n.
 */
import { CheckpointError, MAX_WEIGHT, compatibleWith, decodeCheckpoint, encodeCheckpoint, tensorArrays, type NamedTensor } from './checkpoint';
import { configProblem, type LabConfig } from './config';
import { Reinforce, type Episode } from './algorithms/reinforce';
import { isSafetensors, safetensorsWeights } from './safetensors';
import { TokenMeanReinforce } from './algorithms/tokenMeanReinforce';
import { Grpo } from './algorithms/grpo';
import { Rloo } from './algorithms/rloo';
import { Dpo, type TokenPair } from './algorithms/dpo';
import { Dqn } from './algorithms/dqn';
import type { RewardModel } from './algorithms/rewardModel';
import type { GeneratorPool } from './generators';
import type { Grammar } from './grammar';
import type { Adam } from './model/adam';
import { checkUpdateFits } from './model/memory';
import { sampleBatch, type SampledSequence } from './model/sampler';
import { TransformerPolicy, type WeightArray } from './model/transformer';
import { Rng, type RngState } from './rng';
import type { SampleRecord, StepResult } from './runnerTypes';
import type { SandboxPool } from './sandbox/pool';
import { outcomeKinds } from './sandbox/outcome';
import type { Scored, Task } from './task';

export interface LoopDeps {
  pool: SandboxPool;
  /** Parallel generators that sample the programs instead of this thread. */
  generators?: { pool: GeneratorPool; overlap?: boolean };
  onLog?: (text: string) => void;
  /**
   * A checkpoint whose weights start the policy (a warm start). Its step, optimizer and RNG
   * are not taken: the run starts at step 0. With algorithm.klCoef > 0 the same weights
   * also become the frozen reference policy of the KL penalty.
   */
  initFrom?: Uint8Array;
  /**
   * The KL reference's weights when they are not `initFrom`'s: a run that carries on from trained
   * weights under a new configuration keeps the warm start it drifted from as its reference.
   */
  referenceFrom?: Uint8Array;
  /**
   * Preference pairs to learn from instead of sampling (algorithm dpo with a pair file): each step
   * takes batchSize of them, in a seeded order per epoch.
   */
  preferences?: readonly TokenPair[];
  /**
   * A learned reward model (algorithms/rewardModel.ts) scoring every complete program: its score
   * times `weight` is added to the task's reward, or replaces it (`alone`).
   */
  rewardModel?: { model: RewardModel; weight: number; alone: boolean };
}

export interface TrainingLoop {
  readonly config: LabConfig;
  readonly globalStep: number;
  readonly policy: TransformerPolicy;
  step(): Promise<StepResult>;
  /** Sets the learning rate of the next updates (schedules). */
  setLearningRate(rate: number): void;
  saveCheckpoint(): Promise<Uint8Array>;
  /** Validates the whole file, then swaps it in; on any failure the live run is left as it was. */
  loadCheckpoint(bytes: Uint8Array): Promise<void>;
  dispose(): void;
}

/** What the loop needs of an algorithm. */
export interface PolicyAlgorithm {
  step(episodes: readonly Episode[]): Promise<PolicyUpdate>;
  /** An update on given preference pairs (dpo). */
  stepPairs?(pairs: readonly TokenPair[]): Promise<PolicyUpdate>;
  /** Epsilon-greedy sampling (dqn): the exploration rate of the next batch; the policy is then greedy otherwise. */
  samplingEpsilon?(): number;
  readonly optimizer: Adam;
  readonly baseline: number | undefined;
  setBaseline(value: number): void;
  optimizerWeights(): WeightArray[];
  setOptimizerWeights(state: readonly WeightArray[]): void;
  dispose(): void;
}

/** An update's statistics; the optional ones are reported by the algorithms that have them. */
export interface PolicyUpdate {
  loss: number;
  gradNorm: number;
  skipped: boolean;
  reason?: string;
  entropy?: number;
  kl?: number;
  importanceWeight?: number;
  baseline?: number;
  /** GRPO: share of tokens whose probability ratio was clipped. */
  clipRatio?: number;
  /** Metrics under their TRL names (dpo's rewards/chosen, ...), reported as they are. */
  named?: Record<string, number>;
}

/** Whether the run's algorithm needs a frozen reference policy (its KL term is on). */
export function wantsReference(config: LabConfig): boolean {
  const { name, klCoef, beta } = config.algorithm;
  return name === 'reinforce' ? klCoef > 0 : name === 'grpo' || name === 'rloo' ? beta > 0 : name === 'dpo';
}

/** The run's algorithm (`algorithm.name`) on its policy. */
export function createAlgorithm(config: LabConfig, policy: TransformerPolicy, grammar: Grammar<unknown>, reference?: TransformerPolicy, maxTokens = config.model.maxProgramTokens): PolicyAlgorithm {
  const settings = config.algorithm;
  if (settings.name === 'grpo') {
    return adapt(new Grpo(policy, grammar, settings, maxTokens, reference), (stats) => ({
      loss: stats.loss, gradNorm: stats.gradNorm, skipped: stats.skipped, reason: stats.reason, kl: stats.kl, clipRatio: stats.clipRatio,
    }));
  }
  if (settings.name === 'rloo') {
    return adapt(new Rloo(policy, grammar, settings, reference), (stats) => ({
      loss: stats.loss, gradNorm: stats.gradNorm, skipped: stats.skipped, reason: stats.reason, kl: stats.kl,
    }));
  }
  if (settings.name === 'dpo') {
    if (!reference) throw new Error('dpo needs a reference policy');
    const dpo = new Dpo(policy, grammar, settings, reference);
    const update = (stats: Awaited<ReturnType<typeof dpo.step>>): PolicyUpdate => {
      const { loss, gradNorm, skipped, reason, pairs, ...named } = stats;
      // A batch with no pair has no figures to chart: only its count (0) is reported.
      return { loss, gradNorm, skipped, reason, named: pairs > 0 ? { ...named, pairs } : { pairs } };
    };
    return { ...adapt(dpo, update), stepPairs: async (pairs) => update(await dpo.stepPairs(pairs)) };
  }
  if (settings.name === 'dqn') {
    const dqn = new Dqn(policy, grammar, settings, config.run.seed);
    return { ...adapt(dqn, ({ loss, gradNorm, skipped, reason, named }) => ({ loss, gradNorm, skipped, reason, named })), samplingEpsilon: () => dqn.samplingEpsilon() };
  }
  if (settings.name === 'reinforce_monarch') {
    return adapt(new TokenMeanReinforce(policy, grammar, settings), (stats) => ({
      loss: stats.loss, gradNorm: stats.gradNorm, skipped: stats.skipped, reason: stats.reason, importanceWeight: stats.importanceWeight, baseline: stats.baseline,
    }));
  }
  return adapt(new Reinforce(policy, grammar, settings, reference), (stats) => ({
    loss: stats.loss, gradNorm: stats.gradNorm, skipped: stats.skipped, reason: stats.reason, entropy: stats.entropy, kl: stats.kl,
  }));
}

/** An algorithm class as the loop sees it: its own statistics mapped to a PolicyUpdate. */
function adapt<S>(algorithm: Omit<PolicyAlgorithm, 'step'> & { step(episodes: readonly Episode[]): Promise<S> }, stats: (raw: S) => PolicyUpdate): PolicyAlgorithm {
  return {
    optimizer: algorithm.optimizer,
    get baseline() {
      return algorithm.baseline;
    },
    setBaseline: (value) => algorithm.setBaseline(value),
    optimizerWeights: () => algorithm.optimizerWeights(),
    setOptimizerWeights: (state) => algorithm.setOptimizerWeights(state),
    dispose: () => algorithm.dispose(),
    step: async (episodes) => stats(await algorithm.step(episodes)),
  };
}

/** A batch drawn for one step: its items, prompts and samples (from this thread or the generators). */
interface Drawn<Item> {
  itemIndices: number[];
  batch: Item[];
  prompts: number[][];
  samples: SampledSequence[];
  /** Weights version each sample was written with (generators only). */
  versions?: number[];
  generationsPerSecond?: number;
  sampleMs: number;
}

const mean = (values: readonly number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

/**
 * The weights of a checkpoint, validated for a model of `config` and the task's vocabulary, before
 * anything is touched. A safetensors file (weights a PyTorch user saved with modeling_prl.py) is
 * read too: it carries no config, so the policy's own check of every name and shape judges it.
 */
export async function checkpointWeights(bytes: Uint8Array, config: LabConfig, vocab: { size: number }): Promise<WeightArray[]> {
  if (isSafetensors(bytes)) {
    try {
      return safetensorsWeights(bytes, MAX_WEIGHT);
    } catch (error) {
      throw new CheckpointError(`the safetensors file is malformed: ${(error as Error).message}`);
    }
  }
  return tensorArrays((await decodeCompatible(bytes, config, vocab)).tensors, 'weights');
}

/** A decoded checkpoint, refused unless it fits a model of `config` with the task's vocabulary. */
async function decodeCompatible(bytes: Uint8Array, config: LabConfig, vocab: { size: number }): Promise<Awaited<ReturnType<typeof decodeCheckpoint>>> {
  const decoded = await decodeCheckpoint(bytes);
  const problem = compatibleWith(decoded.meta, config);
  if (problem) throw new CheckpointError(problem);
  if (decoded.meta.vocab && decoded.meta.vocab.size !== vocab.size) {
    throw new CheckpointError(`checkpoint vocabulary has ${decoded.meta.vocab.size} tokens, this model has ${vocab.size}`);
  }
  return decoded;
}

export async function createTrainingLoop<Item, S extends Scored>(
  config: LabConfig,
  task: Task<Item, S>,
  train: readonly Item[],
  deps: LoopDeps,
): Promise<TrainingLoop> {
  const problem = configProblem(config);
  if (problem) throw new Error(problem);
  const items = task.trainingItems(train);
  const { grammar } = task;
  const policyConfig = task.policyConfig(config);
  // Refused before anything is made: a batch past the heap aborts inside wasm with no word of why.
  checkUpdateFits(policyConfig, task.maxTokens ?? config.model.maxProgramTokens, Math.ceil(config.algorithm.batchSize / config.algorithm.gradientAccumulationSteps));
  const policy = new TransformerPolicy(policyConfig, config.run.seed);
  let reference: TransformerPolicy | undefined;
  if (deps.initFrom) {
    const weights = await checkpointWeights(deps.initFrom, config, task.vocab);
    policy.setWeights(weights);
    if (wantsReference(config)) {
      reference = new TransformerPolicy(policyConfig, config.run.seed);
      reference.setWeights(deps.referenceFrom ? await checkpointWeights(deps.referenceFrom, config, task.vocab) : weights);
    }
  }
  if (config.algorithm.name === 'dpo' && !reference) {
    // No warm start: the policy's initial weights are DPO's reference.
    reference = new TransformerPolicy(policyConfig, config.run.seed);
    reference.setWeights(policy.getWeights());
  }
  const preferences = deps.preferences;
  if (preferences && config.algorithm.name !== 'dpo') throw new Error(`preference pairs are learned from by algorithm dpo, not ${config.algorithm.name}`);
  if (preferences?.length === 0) throw new Error('the preference file holds no valid pair');
  if (config.algorithm.name === 'dpo' && !preferences && config.algorithm.groupSize < 2) {
    throw new Error(`algorithm.groupSize (${config.algorithm.groupSize}) must be at least 2 for dpo on its own samples: a pair is two programs sampled for one prompt (or give a preference file)`);
  }
  const maxTokens = task.maxTokens ?? config.model.maxProgramTokens;
  const algorithm = createAlgorithm(config, policy, grammar, reference, maxTokens);
  let rng = new Rng(config.run.seed);
  // Generated items (task.sampleItems) come from a stream of their own, so the sampler's stays as it was.
  let itemRng = new Rng(config.run.seed ^ 0x17e45);
  // Generator workers sample from the policy's softmax; DQN acts epsilon-greedily, so it samples on this thread.
  const generators = config.algorithm.name === 'dqn' ? undefined : deps.generators;
  if (deps.generators && !generators) deps.onLog?.('dqn samples epsilon-greedily in the trainer: the generator workers stay idle');
  let version = 0;
  let pending: Promise<Drawn<Item>> | null = null;
  let globalStep = 0;
  // Data order: a seeded permutation per epoch; the cursor is saved in checkpoints.
  let epoch = 0;
  let cursor = 0;
  // A curriculum samples from the easiest `pool` items, widening as the policy succeeds.
  const curriculum = preferences ? undefined : task.curriculum?.(items.length);
  let pool = preferences ? preferences.length : curriculum ? Math.min(items.length, curriculum.start) : items.length;
  let order = permutation(pool, config.run.seed);
  let wallBefore = 0; // wall time of the run before this process (from a resumed checkpoint)
  const startedAt = performance.now();

  function permutation(n: number, seed: number): number[] {
    return new Rng(seed).shuffle(Array.from({ length: n }, (_, i) => i));
  }

  function nextItems(count: number): number[] {
    const picked: number[] = [];
    while (picked.length < count) {
      if (cursor >= order.length) {
        epoch += 1;
        cursor = 0;
        order = permutation(pool, config.run.seed + epoch);
      }
      picked.push(order[cursor++]);
    }
    return picked;
  }

  /** The generators hold the trainer's weights under a new version. */
  async function syncGenerators(): Promise<void> {
    if (!generators) return;
    if (version === 0) {
      await generators.pool.start({ policy: policyConfig, grammar: task.grammarSpec, maxTokens, temperature: config.algorithm.temperature, seed: config.run.seed * 101 + 7, padToken: task.padToken });
    }
    generators.pool.sync(policy.getWeights(), ++version);
  }

  /** The next batch's items and their sampled programs. */
  async function draw(): Promise<Drawn<Item>> {
    const groupSize = config.algorithm.groupSize;
    const groups = Math.max(1, Math.round(config.algorithm.batchSize / groupSize));
    let itemIndices: number[];
    let batch: Item[];
    if (task.sampleItems) {
      const fresh = task.sampleItems(itemRng, groups);
      batch = fresh.flatMap((item) => Array(groupSize).fill(item) as Item[]);
      itemIndices = batch.map((_, i) => Math.floor(i / groupSize));
    } else {
      itemIndices = nextItems(groups).flatMap((index) => Array(groupSize).fill(index) as number[]);
      batch = itemIndices.map((index) => items[index]);
    }
    const prompts = batch.map((item) => task.prompt(item));
    const sampleStart = performance.now();
    if (generators) {
      if (version === 0) await syncGenerators();
      const generated = await generators.pool.generate(prompts, groupSize);
      const samples = generated.samples.map((sample) => ({ ...sample, alternatives: undefined }));
      return { itemIndices, batch, prompts, samples, versions: generated.versions, generationsPerSecond: generated.generationsPerSecond, sampleMs: performance.now() - sampleStart };
    }
    // DQN acts epsilon-greedily on its Q-values (the policy's logits); the others sample.
    const epsilon = algorithm.samplingEpsilon?.();
    const samples = await sampleBatch(policy, grammar, prompts, {
      maxTokens,
      temperature: config.algorithm.temperature,
      rng,
      padToken: task.padToken,
      alternatives: task.sampleAlternatives?.() ?? 0,
      ...(epsilon !== undefined ? { greedy: true, epsilon } : {}),
    });
    return { itemIndices, batch, prompts, samples, sampleMs: performance.now() - sampleStart };
  }

  /**
   * The reward model's score of each complete program, added to the task's reward (or in its
   * place); an incomplete program keeps the task's reward, there being no program to judge.
   */
  async function learnedRewards(prompts: readonly number[][], samples: readonly SampledSequence[], judged: readonly S[]): Promise<{ scored: S[]; scores: (number | undefined)[]; mean: number; taskMean: number }> {
    const { model, weight, alone } = deps.rewardModel!;
    const complete = judged.flatMap((s, i) => (s.outcome !== 'incomplete' && samples[i].tokens.length > 0 ? [i] : []));
    const values = await model.score(complete.map((i) => ({ prompt: prompts[i], tokens: samples[i].tokens })));
    const byRow = new Map(complete.map((row, j) => [row, values[j]]));
    const scored = judged.map((s, i) => {
      const value = byRow.get(i);
      return value === undefined ? s : { ...s, reward: (alone ? 0 : s.reward) + weight * value };
    });
    return { scored, scores: judged.map((_, i) => byRow.get(i)), mean: mean(values), taskMean: mean(judged.map((s) => s.reward)) };
  }

  /** A step of DPO on the preference file: no sampling, no sandbox. */
  async function preferenceStep(pairs: readonly TokenPair[]): Promise<StepResult> {
    const stepStart = performance.now();
    const batch = nextItems(Math.min(config.algorithm.batchSize, pairs.length)).map((index) => pairs[index]);
    const update = await algorithm.stepPairs!(batch);
    const updateMs = performance.now() - stepStart;
    globalStep += 1;
    if (update.skipped) deps.onLog?.(`step ${globalStep}: update skipped (${update.reason})`);
    return {
      step: globalStep,
      metrics: { ...update.named, policy_loss: update.loss, grad_norm: update.gradNorm, learning_rate: algorithm.optimizer.learningRate, update_ms: updateMs, step_ms: performance.now() - stepStart, epoch },
      samples: [],
      skipped: update.skipped,
      reason: update.reason,
    };
  }

  async function step(): Promise<StepResult> {
    if (preferences) return preferenceStep(preferences);
    if (items.length === 0 && !task.sampleItems) throw new Error('the training set is empty: load a dataset with at least one valid record');
    const stepStart = performance.now();
    const groupSize = config.algorithm.groupSize;
    const drawn = await (pending ?? draw());
    pending = null;
    // A request still in flight when the run stops must not surface as an unhandled rejection.
    if (generators?.overlap) (pending = draw()).catch(() => undefined);
    const { itemIndices, batch, prompts, samples, sampleMs } = drawn;
    const tokensSampled = samples.reduce((sum, s) => sum + s.tokens.length, 0);

    const evalStart = performance.now();
    const context = { pool: deps.pool, seed: config.run.seed + globalStep };
    const judgedByTask = await task.score(batch, samples, context);
    const learned = deps.rewardModel ? await learnedRewards(prompts, samples, judgedByTask) : null;
    const scored = learned ? learned.scored : judgedByTask;
    const evalMs = performance.now() - evalStart;

    const judged = scored.map((s) => s.outcome !== 'infra_error');
    const episodes: Episode[] = samples.flatMap((sample, i) =>
      judged[i] ? [{ prompt: prompts[i], tokens: sample.tokens, lineEnds: sample.lineEnds, reward: scored[i].reward, correct: scored[i].correct, group: Math.floor(i / groupSize), behaviourLogProbs: sample.logProbs }] : [],
    );
    const demos = task.demonstrations ? await task.demonstrations(batch, prompts, samples, scored, groupSize, context) : [];
    episodes.push(...demos);
    const updateStart = performance.now();
    const update: PolicyUpdate = episodes.length ? await algorithm.step(episodes) : { loss: NaN, gradNorm: NaN, skipped: true, reason: 'no episode to learn from' };
    const updateMs = performance.now() - updateStart;
    globalStep += 1;
    if (generators && !update.skipped) await syncGenerators();

    const rewards = scored.filter((_, i) => judged[i]).map((s) => s.reward);
    const successRate = scored.filter((s) => s.correct).length / scored.length;
    if (curriculum && pool < items.length && successRate >= curriculum.widenAt) {
      pool = Math.min(items.length, pool + curriculum.step);
      epoch += 1; // a new pass over the wider pool
      cursor = 0;
      order = permutation(pool, config.run.seed + epoch);
    }
    const metrics: Record<string, number> = {
      avg_reward: mean(rewards),
      ...(learned ? { reward_model: learned.mean, task_reward: learned.taskMean } : {}),
      ...(task.demonstrations && (task.sampleAlternatives?.() ?? 0) > 0 ? { repair_demos: demos.length } : {}),
      accuracy: successRate,
      ...(curriculum ? { curriculum_pool: pool } : {}),
      ...task.metrics(batch, scored, groupSize),
      policy_loss: update.loss,
      ...(update.entropy !== undefined ? { entropy: update.entropy } : {}),
      ...(update.kl !== undefined ? { kl: update.kl } : {}),
      ...(update.importanceWeight !== undefined ? { importance_weight: update.importanceWeight } : {}),
      ...(update.baseline !== undefined ? { baseline: update.baseline } : {}),
      ...(update.clipRatio !== undefined ? { clip_ratio: update.clipRatio } : {}),
      ...update.named,
      grad_norm: update.gradNorm,
      learning_rate: algorithm.optimizer.learningRate,
      ...(generators ? { generations_per_s: drawn.generationsPerSecond ?? 0, weights_version: version } : {}),
      tokens_per_s: tokensSampled / (sampleMs / 1000),
      evals_per_s: scored.length / (evalMs / 1000),
      sample_ms: sampleMs,
      eval_ms: evalMs,
      update_ms: updateMs,
      step_ms: performance.now() - stepStart,
      epoch,
    };
    for (const kind of outcomeKinds) metrics[`outcome_${kind}`] = scored.filter((s) => s.outcome === kind).length;

    const groupOf = (i: number) => (groupSize > 1 ? Math.floor(i / groupSize) : 0);
    const groupMeans = new Map<number, number>();
    for (const g of new Set(scored.map((_, i) => groupOf(i)))) groupMeans.set(g, mean(scored.filter((_, i) => groupOf(i) === g).map((s) => s.reward)));
    const sampleRecords: SampleRecord[] = scored.map((s, i) => ({
      step: globalStep,
      itemIndex: itemIndices[i],
      program: s.text,
      outcome: s.outcome === 'incomplete' ? 'output_invalid' : s.outcome,
      reward: s.reward,
      correct: s.correct,
      advantage: s.reward - groupMeans.get(groupOf(i))!,
      ...(learned?.scores[i] !== undefined ? { rewardParts: { task: judgedByTask[i].reward, reward_model: learned.scores[i]! } } : {}),
      ...task.sampleRecord(batch[i], s),
    }));
    if (metrics.outcome_infra_error > 0) deps.onLog?.(`step ${globalStep}: ${metrics.outcome_infra_error} sandbox failures (infra_error) kept out of the update`);
    if (update.skipped) deps.onLog?.(`step ${globalStep}: update skipped (${update.reason})`);
    return {
      step: globalStep,
      metrics,
      samples: sampleRecords,
      skipped: update.skipped,
      reason: update.reason,
      ...(generators ? { generators: generators.pool.statuses(), versions: drawn.versions } : {}),
    };
  }

  async function saveCheckpoint(): Promise<Uint8Array> {
    const tensors: NamedTensor[] = [
      ...policy.getWeights().map((w) => ({ ...w, group: 'weights' as const, dtype: 'float32' as const })),
      ...algorithm.optimizerWeights().map((w) => ({ ...w, group: 'optimizer' as const, dtype: 'float32' as const })),
    ];
    return encodeCheckpoint(
      {
        config,
        step: globalStep,
        rngState: rng.state(),
        dataCursor: { epoch, cursor },
        vocab: task.vocab,
        extra: {
          baseline: algorithm.baseline,
          wallMs: wallBefore + performance.now() - startedAt,
          ...(curriculum ? { curriculumPool: pool } : {}),
          ...(task.sampleItems ? { itemRng: itemRng.state() } : {}),
        },
      },
      tensors,
    );
  }

  async function loadCheckpoint(bytes: Uint8Array): Promise<void> {
    const { meta, tensors } = await decodeCompatible(bytes, config, task.vocab);
    const weights = tensorArrays(tensors, 'weights');
    const optimizer = tensorArrays(tensors, 'optimizer');
    // Swap both in, or neither: a file whose optimizer state is bad must not leave new weights behind.
    const before = { weights: policy.getWeights(), optimizer: algorithm.optimizerWeights() };
    try {
      policy.setWeights(weights);
      if (optimizer.length) algorithm.setOptimizerWeights(optimizer);
    } catch (error) {
      policy.setWeights(before.weights);
      algorithm.setOptimizerWeights(before.optimizer);
      throw new CheckpointError((error as Error).message);
    }
    globalStep = meta.step;
    rng = new Rng(meta.rngState);
    const extra = meta.extra as { baseline?: number; wallMs?: number; curriculumPool?: number; itemRng?: RngState } | undefined;
    if (task.sampleItems && Array.isArray(extra?.itemRng)) itemRng = new Rng(extra.itemRng);
    pending = null; // a batch drawn ahead belongs to the run being replaced
    if (curriculum && Number.isInteger(extra?.curriculumPool)) pool = Math.max(1, Math.min(items.length, extra!.curriculumPool!));
    if (meta.dataCursor) {
      epoch = meta.dataCursor.epoch;
      cursor = meta.dataCursor.cursor;
      order = permutation(pool, config.run.seed + epoch);
    }
    if (typeof extra?.baseline === 'number' && Number.isFinite(extra.baseline)) algorithm.setBaseline(extra.baseline);
    if (typeof extra?.wallMs === 'number' && Number.isFinite(extra.wallMs)) wallBefore = extra.wallMs - (performance.now() - startedAt);
    if (generators && version > 0) await syncGenerators();
  }

  return {
    config,
    get globalStep() {
      return globalStep;
    },
    policy,
    step,
    setLearningRate(rate: number) {
      algorithm.optimizer.learningRate = rate;
    },
    saveCheckpoint,
    loadCheckpoint,
    dispose() {
      algorithm.dispose();
      policy.dispose();
      reference?.dispose();
    },
  };
}
