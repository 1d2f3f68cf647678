/**
 * The one training loop of every task (task.ts): sample a batch of programs from the policy
 * under the task's grammar, let the task run them in the sandbox and reward them, update the
 * policy, report metrics. Checkpoints (weights, optimizer, step, RNG, data cursor) and the warm
 * start (`initFrom`, also the KL reference) live here, so every task has them. The CLI, the
 * trainer worker and the tests drive this loop through a task's runner (runner.ts).
 *
 * The algorithm today is REINFORCE (algorithms/reinforce.ts); the loop gives it episodes
 * (prompt, program tokens, line ends, reward, group) and reads back its statistics, which is
 * the whole contract another algorithm has to meet.
 *
 * Episodes whose program the sandbox could not judge (infra_error: a worker died, wasm failed)
 * are not the program's fault: they stay out of the update and are counted apart
 * (RELIABILITY.md), instead of being rewarded like a wrong program.
 *
 * The loop is on-policy and sequential: sampling of batch n+1 needs the weights after update n.
 */
import { CheckpointError, compatibleWith, decodeCheckpoint, encodeCheckpoint, type NamedTensor } from './checkpoint';
import type { LabConfig } from './config';
import { Reinforce, type Episode } from './algorithms/reinforce';
import { sampleBatch } from './model/sampler';
import { TransformerPolicy, type WeightArray } from './model/transformer';
import { Rng } from './rng';
import type { SampleRecord, StepResult } from './runnerTypes';
import type { SandboxPool } from './sandbox/pool';
import { outcomeKinds } from './sandbox/outcome';
import type { Scored, Task } from './task';

export interface LoopDeps {
  pool: SandboxPool;
  onLog?: (text: string) => void;
  /**
   * A checkpoint whose weights start the policy (a warm start). Its step, optimizer and RNG
   * are not taken: the run starts at step 0. With algorithm.klCoef > 0 the same weights
   * also become the frozen reference policy of the KL penalty.
   */
  initFrom?: Uint8Array;
}

export interface TrainingLoop {
  readonly config: LabConfig;
  readonly globalStep: number;
  readonly policy: TransformerPolicy;
  step(): Promise<StepResult>;
  saveCheckpoint(): Promise<Uint8Array>;
  /** Validates the whole file, then swaps it in; on any failure the live run is left as it was. */
  loadCheckpoint(bytes: Uint8Array): Promise<void>;
  dispose(): void;
}

const mean = (values: readonly number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

/** The weights of a checkpoint, validated for a model of `config` and the task's vocabulary, before anything is touched. */
export async function checkpointWeights(bytes: Uint8Array, config: LabConfig, vocab: { size: number }): Promise<WeightArray[]> {
  const { meta, tensors } = await decodeCheckpoint(bytes);
  const problem = compatibleWith(meta, config);
  if (problem) throw new CheckpointError(problem);
  if (meta.vocab && meta.vocab.size !== vocab.size) {
    throw new CheckpointError(`checkpoint vocabulary has ${meta.vocab.size} tokens, this model has ${vocab.size}`);
  }
  return tensors.filter((t) => t.group === 'weights').map(({ name, shape, data }) => ({ name, shape, data: data as Float32Array }));
}

export async function createTrainingLoop<Item, S extends Scored>(
  config: LabConfig,
  task: Task<Item, S>,
  train: readonly Item[],
  deps: LoopDeps,
): Promise<TrainingLoop> {
  if (config.model.dModel % config.model.heads !== 0) {
    throw new Error(`model.dModel (${config.model.dModel}) must be divisible by model.heads (${config.model.heads})`);
  }
  const items = task.trainingItems(train);
  const { grammar } = task;
  const policyConfig = task.policyConfig(config);
  const policy = new TransformerPolicy(policyConfig, config.run.seed);
  let reference: TransformerPolicy | undefined;
  if (deps.initFrom) {
    const weights = await checkpointWeights(deps.initFrom, config, task.vocab);
    policy.setWeights(weights);
    if (config.algorithm.klCoef > 0) {
      reference = new TransformerPolicy(policyConfig, config.run.seed);
      reference.setWeights(weights);
    }
  }
  const algorithm = new Reinforce(policy, grammar, config.algorithm, reference);
  let rng = new Rng(config.run.seed);
  let globalStep = 0;
  // Data order: a seeded permutation per epoch; the cursor is saved in checkpoints.
  let epoch = 0;
  let cursor = 0;
  // A curriculum samples from the easiest `pool` items, widening as the policy succeeds.
  const curriculum = task.curriculum?.(items.length);
  let pool = curriculum ? Math.min(items.length, curriculum.start) : items.length;
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

  async function step(): Promise<StepResult> {
    if (items.length === 0) throw new Error('the training set is empty: load a dataset with at least one valid record');
    const stepStart = performance.now();
    const groupSize = config.algorithm.groupSize;
    const groups = Math.max(1, Math.round(config.algorithm.batchSize / groupSize));
    const itemIndices = nextItems(groups).flatMap((index) => Array(groupSize).fill(index) as number[]);
    const batch = itemIndices.map((index) => items[index]);
    const prompts = batch.map((item) => task.prompt(item));

    const sampleStart = performance.now();
    const samples = await sampleBatch(policy, grammar, prompts, {
      maxTokens: config.model.maxProgramTokens,
      temperature: config.algorithm.temperature,
      rng,
      alternatives: task.sampleAlternatives?.() ?? 0,
    });
    const sampleMs = performance.now() - sampleStart;
    const tokensSampled = samples.reduce((sum, s) => sum + s.tokens.length, 0);

    const evalStart = performance.now();
    const context = { pool: deps.pool, seed: config.run.seed + globalStep };
    const scored = await task.score(batch, samples, context);
    const evalMs = performance.now() - evalStart;

    const judged = scored.map((s) => s.outcome !== 'infra_error');
    const episodes: Episode[] = samples.flatMap((sample, i) =>
      judged[i] ? [{ prompt: prompts[i], tokens: sample.tokens, lineEnds: sample.lineEnds, reward: scored[i].reward, group: Math.floor(i / groupSize) }] : [],
    );
    const demos = task.demonstrations ? await task.demonstrations(batch, prompts, samples, scored, groupSize, context) : [];
    episodes.push(...demos);
    const updateStart = performance.now();
    const update = await algorithm.step(episodes);
    const updateMs = performance.now() - updateStart;
    globalStep += 1;

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
      ...(task.demonstrations && (task.sampleAlternatives?.() ?? 0) > 0 ? { repair_demos: demos.length } : {}),
      accuracy: successRate,
      ...(curriculum ? { curriculum_pool: pool } : {}),
      ...task.metrics(batch, scored, groupSize),
      policy_loss: update.loss,
      entropy: update.entropy,
      kl: update.kl,
      grad_norm: update.gradNorm,
      tokens_per_s: tokensSampled / (sampleMs / 1000),
      evals_per_s: scored.length / (evalMs / 1000),
      sample_ms: sampleMs,
      eval_ms: evalMs,
      update_ms: updateMs,
      step_ms: performance.now() - stepStart,
      epoch,
    };
    for (const kind of outcomeKinds) metrics[`outcome_${kind}`] = scored.filter((s) => s.outcome === kind).length;

    const sampleRecords: SampleRecord[] = scored.map((s, i) => ({
      step: globalStep,
      itemIndex: itemIndices[i],
      program: s.text,
      outcome: s.outcome === 'incomplete' ? 'output_invalid' : s.outcome,
      reward: s.reward,
      correct: s.correct,
      ...task.sampleRecord(batch[i], s),
    }));
    if (metrics.outcome_infra_error > 0) deps.onLog?.(`step ${globalStep}: ${metrics.outcome_infra_error} sandbox failures (infra_error) kept out of the update`);
    if (update.skipped) deps.onLog?.(`step ${globalStep}: update skipped (${update.reason})`);
    return { step: globalStep, metrics, samples: sampleRecords, skipped: update.skipped, reason: update.reason };
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
        extra: { baseline: algorithm.baseline, wallMs: wallBefore + performance.now() - startedAt, ...(curriculum ? { curriculumPool: pool } : {}) },
      },
      tensors,
    );
  }

  async function loadCheckpoint(bytes: Uint8Array): Promise<void> {
    const { meta, tensors } = await decodeCheckpoint(bytes);
    const problem = compatibleWith(meta, config);
    if (problem) throw new CheckpointError(problem);
    if (meta.vocab && meta.vocab.size !== task.vocab.size) {
      throw new CheckpointError(`checkpoint vocabulary has ${meta.vocab.size} tokens, this model has ${task.vocab.size}`);
    }
    const asArrays = (group: 'weights' | 'optimizer') =>
      tensors.filter((t) => t.group === group).map(({ name, shape, data }) => ({ name, shape, data: data as Float32Array }));
    const weights = asArrays('weights');
    const optimizer = asArrays('optimizer');
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
    const extra = meta.extra as { baseline?: number; wallMs?: number; curriculumPool?: number } | undefined;
    if (curriculum && Number.isInteger(extra?.curriculumPool)) pool = Math.max(1, Math.min(items.length, extra!.curriculumPool!));
    if (meta.dataCursor) {
      epoch = meta.dataCursor.epoch;
      cursor = meta.dataCursor.cursor;
      order = permutation(pool, config.run.seed + epoch);
    }
    if (typeof extra?.baseline === 'number' && Number.isFinite(extra.baseline)) algorithm.setBaseline(extra.baseline);
    if (typeof extra?.wallMs === 'number' && Number.isFinite(extra.wallMs)) wallBefore = extra.wallMs - (performance.now() - startedAt);
  }

  return {
    config,
    get globalStep() {
      return globalStep;
    },
    policy,
    step,
    saveCheckpoint,
    loadCheckpoint,
    dispose() {
      algorithm.dispose();
      policy.dispose();
      reference?.dispose();
    },
  };
}
