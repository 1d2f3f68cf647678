/**
 * The one training loop of every task (task.ts) and algorithm (algorithm.ts): sample a batch of
 * programs from the policy under the task's grammar, let the task run them in the sandbox and
 * reward them, update the policy with the run's algorithm, report metrics. Checkpoints (weights,
 * optimizer, step, RNG, data cursor, the algorithm's own state) and the warm start (`initFrom`,
 * also the reference policy) live here, so every task and algorithm has them. The CLI, the
 * trainer worker and the tests drive this loop through runner.ts.
 *
 * The algorithm is looked up by `algorithm.name` (registry.ts); the loop only knows the contract:
 * episodes in (prompt, program tokens, line ends, reward, group, the sampler's log-probabilities),
 * a `PolicyUpdate` out.
 *
 * Sampling happens here, or in parallel generators with versioned weight sync
 * (generators.ts, `deps.generators`) for any task: after each update the new weights go out
 * tagged with a version. With `overlap`, the next batch is requested before the update, so the
 * generators sample batch n+1 (one version behind) while the trainer learns from batch n; the
 * Monarch update weighs such tokens by min(1, p/mu).
 *
 * Episodes whose program the sandbox could not judge (infra_error: a worker died, wasm failed)
 * are not the program's fault: they stay out of the update and are counted apart
 * (docs/reliability.md), instead of being rewarded like a wrong program.
 */
import type { Episode, PolicyAlgorithm, PolicyUpdate, TokenPair } from './algorithm';
import type { RewardModel } from './algorithms/rewardModel';
import { CheckpointError, compatibleWith, decodeCheckpoint, encodeCheckpoint, MAX_WEIGHT, sha256Hex, tensorArrays, type CheckpointMeta, type NamedTensor } from './checkpoint';
import { configProblem, type LabConfig } from './config';
import type { GeneratorPool } from './generators';
import { ItemOrder } from './itemOrder';
import { checkUpdateFits } from './model/memory';
import { sampleBatch, type SampledSequence } from './model/sampler';
import { restoredDraw, savedDraw, type Drawn, type SavedDraw } from './drawn';
import { TransformerPolicy, type WeightArray } from './model/transformer';
import { algorithmDefinition, taskDefinition } from './registry';
import { Rng, type RngState } from './rng';
import type { StepResult } from './runnerTypes';
import { isSafetensors, safetensorsWeights } from './safetensors';
import type { GradientShard } from './gradientShards';
import type { SandboxPool } from './sandbox/pool';
import { stepMetrics, stepSamples } from './stepReport';
import { SearchStopped, stoppingProgress, type Scored, type SearchSpec, type Task, type TaskContext } from './task';

export type { PolicyAlgorithm, PolicyUpdate };

/** Expected skips in a row after which the loop says again that nothing is updating. */
export const SKIPS_SAID_AGAIN = 50;

export interface LoopDeps {
  pool: SandboxPool;
  /**
   * The run's wall time so far, in ms, as a checkpoint records it: the page's clock stands while
   * a run is paused; without it, the time since the loop was made (plus a resumed checkpoint's).
   */
  wallMs?: () => number;
  /** Supervised pretraining steps in the weights (the page's Pretrain), as a checkpoint records them (`extra.pretrainSteps`). */
  pretrainSteps?: () => number;
  /** Parallel generators that sample the programs instead of this thread. */
  generators?: { pool: GeneratorPool; overlap?: boolean };
  onLog?: (text: string) => void;
  /**
   * A checkpoint whose weights start the policy (a warm start). Its step, optimizer and RNG
   * are not taken: the run starts at step 0. When the algorithm needs a frozen reference
   * policy, the same weights become it.
   */
  initFrom?: Uint8Array;
  /**
   * The reference's weights when they are not `initFrom`'s: a run that carries on from trained
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
  /** The run's held-out items, which nothing the loop makes for training may be (the warm-start pairs an algorithm rehearses). */
  heldout?: readonly unknown[];
  /** Gradient shards for the policy's model and the task's grammar: the algorithm's updates may split their batch with them. */
  gradientShards?: readonly GradientShard[];
}

/** What a caller can tell a step while it runs. */
export interface StepOptions {
  /** Asked between the items of a long search: true ends the search there (Pause and Stop act within a second or so). */
  shouldStop?: () => boolean;
}

export interface TrainingLoop {
  readonly config: LabConfig;
  readonly globalStep: number;
  readonly policy: TransformerPolicy;
  step(options?: StepOptions): Promise<StepResult>;
  /** Sets the learning rate of the next updates (schedules). */
  setLearningRate(rate: number): void;
  /**
   * The policy's weights now (set by a warm start made outside the loop, the digit tasks') are the
   * run's start: the reference becomes a copy of them, and the algorithm takes them as its start
   * (DQN's target network). Without it the reference would be the weights the loop was made with.
   */
  startFromHere(): void;
  saveCheckpoint(): Promise<Uint8Array>;
  /** Validates the whole file, then swaps it in (and gives its meta); on any failure the live run is left as it was. */
  loadCheckpoint(bytes: Uint8Array): Promise<CheckpointMeta>;
  dispose(): void;
}

/** The run's algorithm (`algorithm.name`) on its policy. */
export function createAlgorithm(config: LabConfig, policy: TransformerPolicy, grammar: Task<unknown>['grammar'], reference?: TransformerPolicy, maxTokens = config.model.maxProgramTokens, log?: (text: string) => void, heldout: readonly unknown[] = [], gradientShards?: readonly GradientShard[]): PolicyAlgorithm {
  const warmStart = taskDefinition(config.task.name).warmStart;
  const warmStartPairs = warmStart ? () => warmStart.batches(config, heldout) : undefined;
  return algorithmDefinition(config.algorithm.name).create({ config, policy, grammar, reference, maxTokens, log, warmStartPairs, gradientShards });
}

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

/** Items per call of the task's search on the unsolved items of a batch. */
const SEARCH_CHUNK = 8;

const mean = (values: readonly number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

/** The policy, and the frozen reference when the algorithm needs one: a warm start's weights, else the initial ones for DPO. */
async function makePolicies(config: LabConfig, task: Task<unknown>, deps: LoopDeps): Promise<{ policy: TransformerPolicy; reference?: TransformerPolicy }> {
  const policyConfig = task.policyConfig(config);
  const policy = new TransformerPolicy(policyConfig, config.run.seed);
  const wanted = algorithmDefinition(config.algorithm.name).needsReference(config);
  let reference: TransformerPolicy | undefined;
  try {
    if (deps.initFrom) policy.setWeights(await checkpointWeights(deps.initFrom, config, task.vocab));
    if (wanted) {
      reference = new TransformerPolicy(policyConfig, config.run.seed);
      const from = deps.referenceFrom ?? deps.initFrom;
      // No warm start: the policy's initial weights are the reference (DPO's implicit reward needs one).
      reference.setWeights(from ? await checkpointWeights(from, config, task.vocab) : policy.getWeights());
    }
  } catch (error) {
    policy.dispose();
    reference?.dispose();
    throw error;
  }
  return { policy, reference };
}

export async function createTrainingLoop<Item, S extends Scored>(
  config: LabConfig,
  task: Task<Item, S>,
  train: readonly Item[],
  deps: LoopDeps,
): Promise<TrainingLoop> {
  const problem = configProblem(config, { opened: true }); // what a user enters is checked where it is entered
  if (problem) throw new Error(problem);
  const items = task.trainingItems(train);
  const { grammar } = task;
  const definition = algorithmDefinition(config.algorithm.name);
  const maxTokens = task.maxTokens ?? config.model.maxProgramTokens;
  // Programs sampled per prompt: the algorithm's own count (expert iteration's numSamples), else algorithm.groupSize.
  const groupSize = definition.groupSize?.(config) ?? config.algorithm.groupSize;
  // Refused before anything is made: a batch past the heap aborts inside wasm with no word of why.
  checkUpdateFits(task.policyConfig(config), maxTokens, Math.ceil(config.algorithm.batchSize / config.algorithm.gradientAccumulationSteps));
  const preferences = deps.preferences;
  const { policy, reference } = await makePolicies(config, task as Task<unknown>, deps);
  // The warm start the run drifts from, named by its hash in every checkpoint: a resume or a page that loads one then knows whether it has that warm start (its KL's reference), not guesses.
  const warmStart = deps.referenceFrom ?? deps.initFrom;
  let warmStartSha256 = warmStart ? await sha256Hex(warmStart) : undefined;
  /** An update's figures, without a KL when the run has no reference to measure one from (an algorithm reports 0 there, which a chart reads as "never moved"). */
  const measured = (update: PolicyUpdate): PolicyUpdate => {
    if (reference || !('kl' in update.metrics)) return update;
    const { kl: _unmeasured, ...metrics } = update.metrics;
    return { ...update, metrics };
  };
  const algorithm = createAlgorithm(config, policy, grammar, reference, maxTokens, deps.onLog, deps.heldout, deps.gradientShards);
  if (preferences && !algorithm.updatePairs) throw new Error(`preference pairs are learned from by algorithm dpo, not ${config.algorithm.name}`);
  if (preferences?.length === 0) throw new Error('the preference file holds no valid pair');
  if (config.algorithm.name === 'dpo' && !preferences && groupSize < 2) {
    throw new Error(`algorithm.groupSize (${groupSize}) must be at least 2 for dpo on its own samples: a pair is two programs sampled for one prompt (or give a preference file)`);
  }
  let rng = new Rng(config.run.seed);
  // Generated items (task.sampleItems) come from a stream of their own, so the sampler's stays as it was.
  let itemRng = new Rng(config.run.seed ^ 0x17e45);
  // An algorithm that samples on the trainer (dqn, epsilon-greedy) leaves the generator workers idle.
  const generators = definition.samplesOnTrainer ? undefined : deps.generators;
  if (deps.generators && !generators) deps.onLog?.(`${definition.name} samples on the trainer: the generator workers stay idle`);
  // A skipped update is said; one the algorithm skips by design (PolicyUpdate.expected) once per
  // kind, not at every step (DQN skips most steps between its training steps), and again after
  // SKIPS_SAID_AGAIN of them in a row (and twice as many, ...): a run that never updates (DPO that never finds a pair) says so.
  const saidOnce = new Set<string>();
  let skippedInARow = 0;
  const reportSkip = (update: PolicyUpdate) => {
    skippedInARow = update.skipped ? skippedInARow + 1 : 0;
    if (!update.skipped) return;
    const reason = update.reason ?? 'no reason given';
    const kind = reason.replace(/\d+/g, 'N'); // "filling the replay buffer (12 of 64 ...)" is one kind
    // Said again at SKIPS_SAID_AGAIN skips in a row, then each time the count doubles: a note, not a line every SKIPS_SAID_AGAIN steps.
    const times = skippedInARow / SKIPS_SAID_AGAIN;
    if (update.expected && Number.isInteger(times) && (times & (times - 1)) === 0) return void deps.onLog?.(`step ${globalStep}: no update in the last ${skippedInARow} steps (${reason})`);
    if (update.expected && saidOnce.has(kind)) return;
    if (update.expected) saidOnce.add(kind);
    deps.onLog?.(`step ${globalStep}: update skipped (${reason})${update.expected ? '; such steps are not reported again unless they go on' : ''}`);
  };
  let version = 0;
  let pending: Promise<Drawn<Item>> | null = null;
  let globalStep = 0;
  // A curriculum samples from the easiest items first, widening as the policy succeeds.
  const order = new ItemOrder(preferences ? preferences.length : items.length, config.run.seed, preferences ? undefined : task.curriculum?.(items.length));
  let wallBefore = 0; // wall time of the run before this process (from a resumed checkpoint)
  const startedAt = performance.now();
  let generatorsStarted = false;
  /** The generators hold the trainer's weights under a new version (`again`: the version they have, to fresh generators after a resume). */
  async function syncGenerators({ again = false } = {}): Promise<void> {
    if (!generators) return;
    if (!generatorsStarted) {
      await generators.pool.start({ policy: task.policyConfig(config), grammar: task.grammarSpec, maxTokens, temperature: config.algorithm.temperature, seed: config.run.seed * 101 + 7, padToken: task.padToken });
      generatorsStarted = true;
    }
    generators.pool.sync(policy.getWeights(), again ? version : ++version);
  }

  /** The next batch's items and their sampled programs. */
  async function draw(): Promise<Drawn<Item>> {
    const groups = Math.max(1, Math.round(config.algorithm.batchSize / groupSize));
    let itemIndices: number[];
    let batch: Item[];
    if (task.sampleItems) {
      const fresh = task.sampleItems(itemRng, groups);
      batch = fresh.flatMap((item) => Array(groupSize).fill(item) as Item[]);
      itemIndices = batch.map((_, i) => Math.floor(i / groupSize));
    } else {
      itemIndices = order.next(groups).flatMap((index) => Array(groupSize).fill(index) as number[]);
      batch = itemIndices.map((index) => items[index]);
    }
    const prompts = batch.map((item) => task.prompt(item));
    const sampleStart = performance.now();
    if (generators) {
      if (version === 0) await syncGenerators();
      // Seeded from the loop's RNG, which checkpoints keep: a resumed run samples what the straight one would.
      const generated = await generators.pool.generate(prompts, groupSize, rng.nextUint32());
      const samples = generated.samples.map((sample) => ({ ...sample, alternatives: undefined }));
      return { itemIndices, batch, prompts, samples, versions: generated.versions, generationsPerSecond: generated.generationsPerSecond, sampleMs: performance.now() - sampleStart };
    }
    const samples = await sampleBatch(policy, grammar, prompts, {
      maxTokens,
      temperature: config.algorithm.temperature,
      rng,
      padToken: task.padToken,
      alternatives: task.sampleAlternatives?.() ?? 0,
      ...algorithm.sampling?.(),
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

  /** A step on the preference file (dpo): no sampling, no sandbox. */
  async function preferenceStep(pairs: readonly TokenPair[]): Promise<StepResult> {
    const stepStart = performance.now();
    const batch = order.next(Math.min(config.algorithm.batchSize, pairs.length)).map((index) => pairs[index]);
    const update = measured(await algorithm.updatePairs!(batch));
    const updateMs = performance.now() - stepStart;
    globalStep += 1;
    reportSkip(update);
    return {
      step: globalStep,
      metrics: { ...update.metrics, policy_loss: update.loss, grad_norm: update.gradNorm, learning_rate: algorithm.optimizer.learningRate, update_ms: updateMs, step_ms: performance.now() - stepStart, epoch: order.epoch },
      samples: [],
      skipped: update.skipped,
      reason: update.reason,
    };
  }

  /**
   * The task's search (its evaluation search `spec`) on the items of the groups none of whose
   * samples is correct, one item at a time so that a stop request ends it between items; each
   * program found is scored again as the task scores samples, and joins the episodes.
   */
  async function searchUnsolved(spec: SearchSpec, batch: readonly Item[], prompts: readonly number[][], scored: readonly S[], context: TaskContext, shouldStop?: () => boolean): Promise<Episode[]> {
    const found: Episode[] = [];
    const taskDef = taskDefinition(config.task.name);
    const groups = Array.from({ length: scored.length / groupSize }, (_, g) => g).filter((g) => !scored.slice(g * groupSize, (g + 1) * groupSize).some((s) => s.correct));
    // A few items per search call, and a stop request acted on at the search's progress reports inside one (a functions search draws up to 256 a problem).
    for (let at = 0; at < groups.length && !shouldStop?.(); at += SEARCH_CHUNK) {
      const chunk = groups.slice(at, at + SEARCH_CHUNK);
      let result: Awaited<ReturnType<typeof taskDef.evaluate>>;
      try {
        result = await taskDef.evaluate({ policy, config, pool: deps.pool, shouldStop, onProgress: stoppingProgress(shouldStop) }, chunk.map((g) => batch[g * groupSize]), { search: spec });
      } catch (error) {
        if (error instanceof SearchStopped) break;
        throw error;
      }
      for (const [j, g] of chunk.entries()) {
        const tokens = result.items[j]?.correct ? result.items[j].tokens : undefined;
        if (!tokens) continue;
        const item = batch[g * groupSize];
        const sample: SampledSequence = { tokens, logProbs: tokens.map(() => 0), lineEnds: tokens.flatMap((token, i) => (grammar.endsLine(token) ? [i] : [])), complete: true };
        const [judged] = await task.score([item], [sample], context);
        if (!judged.correct) continue; // the search's program must hold up as a sample would
        found.push({ prompt: prompts[g * groupSize], tokens, lineEnds: sample.lineEnds, reward: judged.reward, correct: true, cost: judged.cost, group: g, searched: true });
      }
    }
    return found;
  }

  /** The policy alone, greedily, on a fixed slice of the training items: the share it solves. */
  async function probeGreedy(count: number): Promise<number> {
    const slice = items.slice(0, count);
    if (slice.length === 0) return NaN;
    const taskDef = taskDefinition(config.task.name);
    return (await taskDef.evaluate({ policy, config, pool: deps.pool }, slice, { search: taskDef.searches[0] })).score;
  }

  async function step(options: StepOptions = {}): Promise<StepResult> {
    if (preferences) return preferenceStep(preferences);
    if (items.length === 0 && !task.sampleItems) throw new Error('the training set is empty: load a dataset with at least one valid record');
    const stepStart = performance.now();
    const drawn = await (pending ?? draw());
    pending = null;
    // A request still in flight when the run stops must not surface as an unhandled rejection.
    if (generators?.overlap) (pending = draw()).catch(() => undefined);
    const { batch, prompts, samples } = drawn;

    const evalStart = performance.now();
    const context = { pool: deps.pool, seed: config.run.seed + globalStep };
    const judgedByTask = await task.score(batch, samples, context);
    const learned = deps.rewardModel ? await learnedRewards(prompts, samples, judgedByTask) : null;
    const scored = learned ? learned.scored : judgedByTask;
    const evalMs = performance.now() - evalStart;

    const judged = scored.map((s) => s.outcome !== 'infra_error');
    const episodes: Episode[] = samples.flatMap((sample, i) =>
      judged[i] ? [{ prompt: prompts[i], tokens: sample.tokens, lineEnds: sample.lineEnds, reward: scored[i].reward, correct: scored[i].correct, cost: scored[i].cost, group: Math.floor(i / groupSize), behaviourLogProbs: sample.logProbs }] : [],
    );
    const demos = task.demonstrations ? await task.demonstrations(batch, prompts, samples, scored, groupSize, context) : [];
    episodes.push(...demos);
    const searchSpec = algorithm.search?.();
    const searchStart = performance.now();
    const found = searchSpec ? await searchUnsolved(searchSpec, batch, prompts, scored, context, options.shouldStop) : [];
    episodes.push(...found);
    const searchMs = performance.now() - searchStart;
    const updateStart = performance.now();
    const update: PolicyUpdate = episodes.length ? measured(await algorithm.update(episodes)) : { loss: NaN, gradNorm: NaN, skipped: true, reason: 'no episode to learn from', metrics: {} };
    const updateMs = performance.now() - updateStart;
    globalStep += 1;
    if (generators && !update.skipped) await syncGenerators();

    const successRate = scored.filter((s) => s.correct).length / scored.length;
    order.observe(successRate);
    const probe = algorithm.probe?.() ?? 0;
    const probed = probe > 0 ? { policy_solved: await probeGreedy(probe) } : {};
    const metrics = stepMetrics({
      task, batch, scored, judged, groupSize, update, learned, demos: task.demonstrations && (task.sampleAlternatives?.() ?? 0) > 0 ? demos.length : undefined,
      curriculumPool: order.curriculum ? order.pool : undefined,
      learningRate: algorithm.optimizer.learningRate,
      generators: generators ? { generationsPerSecond: drawn.generationsPerSecond ?? 0, version } : undefined,
      timing: { samples, sampleMs: drawn.sampleMs, evalMs, updateMs, stepMs: performance.now() - stepStart },
      epoch: order.epoch,
    });
    Object.assign(metrics, probed, searchSpec ? { search_found: found.length, search_ms: searchMs } : {});
    if (metrics.outcome_infra_error > 0) deps.onLog?.(`step ${globalStep}: ${metrics.outcome_infra_error} sandbox failures (infra_error) kept out of the update`);
    reportSkip(update);
    return {
      step: globalStep,
      metrics,
      samples: stepSamples(task, globalStep, drawn.itemIndices, batch, scored, groupSize, learned ? { task: judgedByTask, model: learned.scores } : undefined),
      skipped: update.skipped,
      reason: update.reason,
      ...(generators ? { generators: generators.pool.statuses(), versions: drawn.versions } : {}),
    };
  }

  async function saveCheckpoint(): Promise<Uint8Array> {
    const pretrainSteps = deps.pretrainSteps?.() ?? 0;
    // The batch the generators drew ahead (overlap) was sampled with the weights before the last
    // update: kept with the checkpoint, or a resume would skip its items and sample them anew.
    const ahead = pending ? await pending.catch(() => null) : null;
    const tensors: NamedTensor[] = [
      ...policy.getWeights().map((w) => ({ ...w, group: 'weights' as const, dtype: 'float32' as const })),
      ...algorithm.optimizerWeights().map((w) => ({ ...w, group: 'optimizer' as const, dtype: 'float32' as const })),
    ];
    return encodeCheckpoint(
      {
        config,
        step: globalStep,
        rngState: rng.state(),
        dataCursor: { epoch: order.epoch, cursor: order.cursor },
        vocab: task.vocab,
        extra: {
          baseline: algorithm.baseline,
          wallMs: deps.wallMs?.() ?? wallBefore + performance.now() - startedAt,
          ...(order.curriculum ? { curriculumPool: order.pool } : {}),
          ...(task.sampleItems ? { itemRng: itemRng.state() } : {}),
          ...(algorithm.state ? { algorithm: algorithm.state() } : {}),
          ...(warmStartSha256 ? { warmStartSha256 } : {}),
          ...(pretrainSteps > 0 ? { pretrainSteps } : {}),
          ...(generators ? { generatorVersion: version } : {}),
          ...(ahead ? { drawnAhead: savedDraw(ahead, Boolean(task.sampleItems)) } : {}),
        },
      },
      tensors,
    );
  }

  async function loadCheckpoint(bytes: Uint8Array): Promise<CheckpointMeta> {
    const { meta, tensors } = await decodeCompatible(bytes, config, task.vocab);
    const weights = tensorArrays(tensors, 'weights');
    const optimizer = tensorArrays(tensors, 'optimizer');
    const extra = meta.extra as { baseline?: number; wallMs?: number; curriculumPool?: number; itemRng?: RngState; algorithm?: unknown; generatorVersion?: number; drawnAhead?: SavedDraw<Item> } | undefined;
    // Swap all of it in, or none: a file whose optimizer or algorithm state is bad must not leave new weights behind.
    const before = { weights: policy.getWeights(), optimizer: algorithm.optimizerWeights(), state: algorithm.state?.() };
    try {
      policy.setWeights(weights);
      if (optimizer.length) algorithm.setOptimizerWeights(optimizer);
      if (extra?.algorithm !== undefined) algorithm.restore?.(extra.algorithm);
    } catch (error) {
      policy.setWeights(before.weights);
      algorithm.setOptimizerWeights(before.optimizer);
      if (before.state !== undefined) algorithm.restore?.(before.state);
      throw new CheckpointError((error as Error).message);
    }
    globalStep = meta.step;
    rng = new Rng(meta.rngState);
    if (task.sampleItems && Array.isArray(extra?.itemRng)) itemRng = new Rng(extra.itemRng);
    // A batch drawn ahead belongs to the run being replaced; the checkpoint's own comes back with it.
    pending = generators?.overlap && extra?.drawnAhead ? Promise.resolve(restoredDraw(extra.drawnAhead, items)) : null;
    if (meta.dataCursor) order.restore(meta.dataCursor, extra?.curriculumPool);
    if (typeof extra?.baseline === 'number' && Number.isFinite(extra.baseline)) algorithm.setBaseline(extra.baseline);
    if (typeof extra?.wallMs === 'number' && Number.isFinite(extra.wallMs)) wallBefore = extra.wallMs - (performance.now() - startedAt);
    if (generators) {
      // Fresh generators given the checkpoint's weights under its version (a lower one than they hold would be ignored).
      [version, generatorsStarted] = [typeof extra?.generatorVersion === 'number' ? extra.generatorVersion : version, false];
      if (version > 0) await syncGenerators({ again: true });
    }
    return meta;
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
    startFromHere() {
      reference?.setWeights(policy.getWeights());
      warmStartSha256 = undefined; // weights of no file: a checkpoint says nothing of them
      algorithm.rebase?.();
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
