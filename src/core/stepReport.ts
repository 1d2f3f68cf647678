/**
 * What one training step reports (loop.ts): its figures as named metrics (the task's, the
 * algorithm's, timing, outcomes), and its samples as records for the page's inspector, each with
 * TRL's unscaled advantage (its reward minus its group's mean).
 */
import type { PolicyUpdate } from './algorithm';
import type { SampledSequence } from './model/sampler';
import type { SampleRecord } from './runnerTypes';
import { outcomeKinds } from './sandbox/outcome';
import type { Scored, Task } from './task';

const mean = (values: readonly number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);

export interface StepFacts<Item, S extends Scored> {
  task: Task<Item, S>;
  batch: readonly Item[];
  scored: readonly S[];
  /** Whether the sandbox could judge each program (not an infra_error). */
  judged: readonly boolean[];
  groupSize: number;
  update: PolicyUpdate;
  /** The reward model's mean score and the task's mean reward, when one scored the programs. */
  learned: { mean: number; taskMean: number } | null;
  /** Demonstrations found by search and added to the update (when the task searches). */
  demos?: number;
  curriculumPool?: number;
  learningRate: number;
  generators?: { generationsPerSecond: number; version: number };
  timing: { samples: readonly SampledSequence[]; sampleMs: number; evalMs: number; updateMs: number; stepMs: number };
  epoch: number;
}

export function stepMetrics<Item, S extends Scored>(facts: StepFacts<Item, S>): Record<string, number> {
  const { task, batch, scored, judged, groupSize, update, learned, timing } = facts;
  const rewards = scored.filter((_, i) => judged[i]).map((s) => s.reward);
  const tokensSampled = timing.samples.reduce((sum, s) => sum + s.tokens.length, 0);
  const metrics: Record<string, number> = {
    avg_reward: mean(rewards),
    ...(learned ? { reward_model: learned.mean, task_reward: learned.taskMean } : {}),
    ...(facts.demos !== undefined ? { repair_demos: facts.demos } : {}),
    accuracy: scored.filter((s) => s.correct).length / scored.length,
    ...(facts.curriculumPool !== undefined ? { curriculum_pool: facts.curriculumPool } : {}),
    ...task.metrics(batch, scored, groupSize),
    policy_loss: update.loss,
    ...update.metrics,
    grad_norm: update.gradNorm,
    learning_rate: facts.learningRate,
    ...(facts.generators ? { generations_per_s: facts.generators.generationsPerSecond, weights_version: facts.generators.version } : {}),
    tokens_per_s: tokensSampled / (timing.sampleMs / 1000),
    evals_per_s: scored.length / (timing.evalMs / 1000),
    sample_ms: timing.sampleMs,
    eval_ms: timing.evalMs,
    update_ms: timing.updateMs,
    step_ms: timing.stepMs,
    epoch: facts.epoch,
  };
  for (const kind of outcomeKinds) metrics[`outcome_${kind}`] = scored.filter((s) => s.outcome === kind).length;
  return metrics;
}

/** The step's samples for the inspector; `rewardParts` when a reward model added its score to the task's. */
export function stepSamples<Item, S extends Scored>(
  task: Task<Item, S>,
  step: number,
  itemIndices: readonly number[],
  batch: readonly Item[],
  scored: readonly S[],
  groupSize: number,
  rewardParts?: { task: readonly S[]; model: readonly (number | undefined)[] },
): SampleRecord[] {
  const groupOf = (i: number) => (groupSize > 1 ? Math.floor(i / groupSize) : 0);
  const groupMeans = new Map<number, number>();
  for (const g of new Set(scored.map((_, i) => groupOf(i)))) groupMeans.set(g, mean(scored.filter((_, i) => groupOf(i) === g).map((s) => s.reward)));
  return scored.map((s, i) => ({
    step,
    itemIndex: itemIndices[i],
    program: s.text,
    outcome: s.outcome === 'incomplete' ? 'output_invalid' : s.outcome,
    reward: s.reward,
    correct: s.correct,
    advantage: s.reward - groupMeans.get(groupOf(i))!,
    ...(rewardParts?.model[i] !== undefined ? { rewardParts: { task: rewardParts.task[i].reward, reward_model: rewardParts.model[i]! } } : {}),
    ...task.sampleRecord(batch[i], s),
  }));
}
