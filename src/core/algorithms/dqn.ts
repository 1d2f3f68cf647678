/**
 * DQN that writes programs token by token, as the DQN code-generation seed specifies and with
 * CleanRL's dqn.py as the standard of how: a state is the prompt plus the program so far, an
 * action the next token among those the task's grammar allows, the reward the task's, paid at the
 * program's last token. Programs sit whole in a replay buffer; an update draws a batch of them and
 * takes every transition of each in one pass of the network (a causal transformer's position t is
 * the state before token t), with the target network's values from one more pass.
 *
 * Two forms of Q on the policy's own token head (`qForm`):
 * - `soft` (the default): soft Q-learning with a value head, Q(s, a) = V(s) + alpha log(pi(a | s)
 *   / prior(a | s)), pi the grammar-masked softmax of the logits at the run's sampling temperature
 *   (the distribution Boltzmann exploration samples from, so the policy that explores is the one
 *   whose Q is learned; at temperature 1, the logits' own softmax). The prior (`softPrior`) is the
 *   target network's policy (KL-regularised soft Q: each target sync moves the prior to where the
 *   policy got to) or uniform (maximum-entropy soft Q, Haarnoja et al. 2017). The soft value of a
 *   state, alpha log sum prior exp(Q / alpha), is then V(s) itself, so the soft Bellman target of
 *   Q(s_t, a_t) is r + gamma V_target(s_t+1) (n-step: with the -alpha log(pi / prior) terms of the
 *   steps between; Nachum et al. 2017's path consistency). A warm start is already the soft-greedy
 *   policy of its own Q, with V started at zero: the update moves it only where returns disagree,
 *   instead of turning log-odds into Q-values (which scrambled the warm start: docs/algorithms.md).
 *   The value head reads the trunk without moving it. With the uniform prior the objective pays
 *   alpha per nat of entropy, and a confident warm start drifts toward randomness (functions,
 *   alpha 0.1: training accuracy 0.94 -> 0.3 in 180 s); the target prior pays nothing for
 *   entropy.
 * - `hard`: Q is the token head itself, or with `dueling` V + A - mean(A over the allowed tokens);
 *   targets r + gamma^n Q_target(s', a'), a' the online network's argmax (`doubleDqn`) or the
 *   target's, both masked to the grammar.
 *
 * Exploration (`exploration`): Boltzmann, sampling from the policy's softmax (softmax(Q / alpha)
 * in the soft form: a warm start explores as it writes), or epsilon-greedy over the allowed tokens
 * on the seed's schedule (x decay per program) or CleanRL's straight line.
 *
 * The target network is synced every `targetNetworkFrequency` updates (copied, or Polyak-averaged
 * with `tau` < 1). Programs are drawn uniformly, or by priority (their mean |TD error|^alpha, with
 * importance weights whose beta anneals to 1). The buffer holds at most `bufferSize` transitions
 * (tokens), the oldest programs leaving first, and travels in checkpoints with the target network,
 * the value heads and the counters, so a resume continues what it was doing.
 *
 * Deliberate simplification: a program cut at the token budget ends its episode like a finished
 * one (its reward is what the task gives an incomplete program), rather than bootstrapping from
 * the state after its last token.
 */
import * as tf from '@tensorflow/tfjs-core';
import { z } from 'zod';
import { variableFrom } from '../model/variable';
import type { AlgorithmDefinition, Episode, Sampling } from '../algorithm';
import { int, type AlgorithmCommonConfig, type BaseConfig, type Infer } from '../configSections';
import type { Grammar } from '../grammar';
import { Adam } from '../model/adam';
import { stopGradient } from '../model/stopGradient';
import { applyClipped, buildSequenceBatch, disposeBatch, type SequenceBatch } from '../model/training';
import { TransformerPolicy, type WeightArray } from '../model/transformer';
import { Rng, type RngState } from '../rng';
import { ReplayBuffer, type StoredProgram } from './replay';

export { ReplayBuffer, type StoredProgram };

/** dqn's own fields (the DQN seed's and CleanRL's names); it also reads the shared gamma. */
export const dqnFields = {
  qForm: z.enum(['soft', 'hard']).default('soft').describe('dqn: soft (Q = V + alpha log pi with a value head: soft Q-learning, which keeps a warm start\'s policy as its own soft-greedy one) or hard (Q is the token head, or the dueling V + A; classic DQN).'),
  softPrior: z.enum(['reference', 'target', 'uniform']).default('reference').describe('dqn, soft form: what alpha log pi is measured against. reference: the run\'s start (the warm start), Q = V + alpha log(pi / pi_ref), KL-regularised soft Q whose policy is the start reweighted by exp(Q / alpha), so it stays the start where returns do not tell tokens apart; target: the target network\'s policy (a trust region that moves at each sync: errors of the value head add up across syncs); uniform: nothing, Q = V + alpha log pi (maximum-entropy soft Q, which pays alpha per nat of entropy and drifts a confident warm start toward randomness).'),
  softAlpha: z.number().positive().max(10).default(0.1).describe('dqn, soft form: the temperature alpha: how much a token\'s log-probability counts in its Q-value, in reward units.'),
  exploration: z.enum(['boltzmann', 'epsilon']).default('boltzmann').describe('dqn: sample from the policy\'s softmax (boltzmann; softmax(Q / alpha) in the soft form) or act greedily with epsilon-random tokens (epsilon, the seed\'s).'),
  valueLearningRate: z.number().positive().max(1).default(0.01).describe('dqn: the value head\'s own learning rate (its own Adam). The head must reach the returns\' scale within the first updates: until it does, its error is read as every token\'s advantage, and at the policy\'s rate (1e-4) that takes thousands of updates.'),
  bufferSize: int(16, 1_000_000).default(20_000).describe('dqn: replay buffer capacity, in transitions (one per token written); whole programs leave, oldest first.'),
  learningStarts: int(0, 1_000_000).default(64).describe('dqn: programs in the buffer before the first update (or fewer, once a buffer too small for them has let a program go).'),
  trainFrequency: int(1, 100_000).default(32).describe('dqn: one update per this many programs added (CleanRL\'s train_frequency, counted in programs: 32 is one update per step of 32).'),
  dqnBatchSize: int(1, 1024).default(32).describe('dqn: programs per update (each brings all its transitions).'),
  targetNetworkFrequency: int(1, 100_000).default(50).describe('dqn: updates between target-network syncs.'),
  tau: z.number().min(0).max(1).default(1).describe('dqn: target sync weight (1 = copy, CleanRL\'s hard update; below 1 = Polyak averaging at every sync).'),
  doubleDqn: z.boolean().default(true).describe('dqn, hard form: the online network picks the next action, the target network values it (van Hasselt et al. 2016).'),
  dueling: z.boolean().default(true).describe('dqn, hard form: Q = V + A - mean of A over the allowed tokens (Wang et al. 2016), a value head beside the token head.'),
  tdLoss: z.enum(['huber', 'mse']).default('huber').describe('dqn: loss of the TD error.'),
  epsilonSchedule: z.enum(['exponential', 'linear']).default('exponential').describe('dqn, epsilon exploration: epsilon x epsilonDecay per program (the seed\'s), or a straight line over explorationSteps transitions (CleanRL\'s).'),
  epsilonStart: z.number().min(0).max(1).default(1).describe('dqn, epsilon exploration: the rate at the start.'),
  epsilonEnd: z.number().min(0).max(1).default(0.01).describe('dqn, epsilon exploration: the lowest rate.'),
  epsilonDecay: z.number().min(0).max(1).default(0.995).describe('dqn, exponential schedule: epsilon is multiplied by this per program.'),
  explorationSteps: int(1, 10_000_000).default(20_000).describe('dqn, linear schedule: transitions over which epsilon goes from start to end.'),
  prioritized: z.boolean().default(false).describe('dqn: prioritized replay (Schaul et al. 2016): programs drawn by their mean |TD error|^alpha, updates weighted by importance.'),
  priorityAlpha: z.number().min(0).max(1).default(0.6).describe('dqn, prioritized: how much priorities count (0 = uniform).'),
  priorityBeta: z.number().min(0).max(1).default(0.4).describe('dqn, prioritized: importance-weight exponent at the start, annealed to 1 over priorityBetaUpdates.'),
  priorityBetaUpdates: int(1, 10_000_000).default(2_000).describe('dqn, prioritized: updates over which beta reaches 1.'),
  nStep: int(1, 128).default(1).describe('dqn: n-step returns (rewards over n tokens, then the bootstrapped value).'),
};

export type DqnConfig = Pick<AlgorithmCommonConfig, 'learningRate' | 'gradClip' | 'gamma' | 'temperature'> & Infer<typeof dqnFields>;

/**
 * The target of Q(s_t, a_t) for every token t of one program of `length` tokens whose reward is
 * paid at its last: the n-step return, discounted from the program's end when it ends within n
 * tokens, else bootstrapped with `value(t + n)` (the target network's value of the state before
 * token t + n); `between(i)` adds the soft form's -alpha log pi of each action in between.
 */
export function programTargets(length: number, reward: number, n: number, gamma: number, value: (t: number) => number, between: (t: number) => number = () => 0): number[] {
  return Array.from({ length }, (_, t) => {
    const steps = Math.min(n, length - t);
    let y = 0;
    for (let i = 1; i < steps; i++) y += gamma ** i * between(t + i);
    return t + steps === length ? y + gamma ** (steps - 1) * reward : y + gamma ** steps * value(t + steps);
  });
}

/** The hard form's bootstrap value at one state: Q_target of the action the chooser (online for double DQN) ranks first among the allowed. */
export function hardValue(chooser: ArrayLike<number>, target: ArrayLike<number>, allowed: ArrayLike<number>): number {
  let best = -1;
  for (let v = 0; v < allowed.length; v++) if (allowed[v] === 0 && (best < 0 || chooser[v] > chooser[best])) best = v;
  return best < 0 ? 0 : target[best];
}

/** Q = V + A - mean(A over the allowed tokens): the dueling combination, [..., V] with the value broadcast. */
export function duelingQ(value: tf.Tensor, advantages: tf.Tensor, allowedMask: tf.Tensor): tf.Tensor {
  return tf.tidy(() => {
    const count = tf.maximum(allowedMask.sum(-1, true), 1);
    const meanAdvantage = advantages.mul(allowedMask).sum(-1, true).div(count);
    return value.add(advantages).sub(meanAdvantage);
  });
}

/** Exploration rate after `episodes` programs and `transitions` tokens. */
export function epsilonAt(config: Pick<DqnConfig, 'epsilonSchedule' | 'epsilonStart' | 'epsilonEnd' | 'epsilonDecay' | 'explorationSteps'>, episodes: number, transitions: number): number {
  const { epsilonStart: start, epsilonEnd: end } = config;
  if (config.epsilonSchedule === 'exponential') return Math.max(end, start * config.epsilonDecay ** episodes);
  return Math.max(end, start + ((end - start) * transitions) / config.explorationSteps);
}

export interface DqnStats {
  loss: number;
  gradNorm: number;
  skipped: boolean;
  reason?: string;
  /** A skip by design (PolicyUpdate.expected): the buffer still filling, no training step owed. */
  expected?: boolean;
  /** CleanRL's names. */
  named: Record<string, number>;
}

/** One network's view of a batch of programs: per program position, its value and the Q of the token taken, or every Q. */
interface NetworkOutputs {
  value: tf.Tensor2D; // [B, P]
  /** Soft: log pi of every token [B, P, V]; hard: Q of every token [B, P, V]. */
  perToken: tf.Tensor3D;
}

/** The value head's weights, as the checkpoint names them. */
const VALUE_HEAD = ['dueling/w', 'dueling/b'];

export class Dqn<S = unknown> {
  readonly optimizer: Adam;
  /** The value head's own Adam, at valueLearningRate (null when there is no value head). */
  private readonly valueOptimizer: Adam | null;
  readonly baseline = undefined;
  readonly buffer: ReplayBuffer;
  private readonly target: TransformerPolicy;
  private readonly valueW: tf.Variable;
  private readonly valueB: tf.Variable;
  private readonly targetValue: [tf.Variable, tf.Variable];
  private rng: Rng;
  private episodes = 0;
  private transitions = 0;
  private updates = 0;
  /** Programs added since the last update, toward the next one (trainFrequency). */
  private pending = 0;

  constructor(
    private readonly policy: TransformerPolicy,
    private readonly grammar: Grammar<S>,
    private readonly config: DqnConfig,
    seed = 1,
    /** The frozen start, the prior of softPrior 'reference'. */
    private readonly reference?: TransformerPolicy,
  ) {
    if (config.qForm === 'soft' && config.softPrior === 'reference' && !reference) throw new Error('dqn: softPrior reference needs the run\'s reference policy');
    this.buffer = new ReplayBuffer(config.bufferSize, config.prioritized, config.priorityAlpha);
    this.rng = new Rng(seed * 7919 + 3);
    this.target = new TransformerPolicy(policy.config, seed);
    this.target.setWeights(policy.getWeights());
    const d = policy.config.dModel;
    // The value head starts at zero: Q is then alpha log pi (soft) or the advantages (hard), a warm start's own ranking.
    this.valueW = variableFrom(tf.zeros([d, 1]), true, `${policy.prefix}/dueling/w`);
    this.valueB = variableFrom(tf.zeros([1]), true, `${policy.prefix}/dueling/b`);
    this.targetValue = [variableFrom(tf.zeros([d, 1]), false), variableFrom(tf.zeros([1]), false)];
    this.optimizer = new Adam(policy.variables, { learningRate: config.learningRate });
    this.valueOptimizer = this.usesValue ? new Adam([this.valueW, this.valueB], { learningRate: config.valueLearningRate }) : null;
  }

  /** The hard form without dueling has no value head to train. */
  private get usesValue(): boolean {
    return this.config.qForm === 'soft' || this.config.dueling;
  }

  private get trainable(): tf.Variable[] {
    return [...this.policy.variables, ...(this.usesValue ? [this.valueW, this.valueB] : [])];
  }

  /** How the loop samples the next batch: from the softmax (Boltzmann), or greedily with epsilon. */
  sampling(): Sampling | undefined {
    return this.config.exploration === 'epsilon' ? { greedy: true, epsilon: this.samplingEpsilon() } : undefined;
  }

  /** The exploration rate of epsilon-greedy sampling (0 under Boltzmann exploration). */
  samplingEpsilon(): number {
    return this.config.exploration === 'epsilon' ? epsilonAt(this.config, this.episodes, this.transitions) : 0;
  }

  /** Per position of each program in `batch`: V and, per token, log pi (soft) or Q (hard). */
  private outputs(network: TransformerPolicy, value: readonly [tf.Variable, tf.Variable], batch: SequenceBatch): NetworkOutputs {
    const { logits, hidden } = network.forwardWithHidden(batch.input, batch.starts); // [B, T, V], [B, T, d]
    const [B, , V] = logits.shape;
    const d = network.config.dModel;
    const P = batch.programLength;
    const programLogits = logits.slice([0, batch.first, 0], [B, P, V]); // [B, P, V]
    const programHidden = hidden.slice([0, batch.first, 0], [B, P, d]).reshape([B * P, d]); // [B P, d]
    // Soft form: the value head reads the trunk's features without moving them. Its regression
    // onto returns would otherwise pull the shared trunk, and with it the policy, at full strength
    // (a warm start's training accuracy fell from 0.94 to 0.3 in 180 s); the trunk learns only
    // from alpha log pi, the part of Q that is the policy.
    const features = this.config.qForm === 'soft' ? stopGradient(programHidden) : programHidden;
    const v = tf.matMul(features, value[0]).add(value[1]).reshape([B, P]) as tf.Tensor2D; // [B, P]
    if (this.config.qForm === 'soft') return { value: v, perToken: tf.logSoftmax(programLogits.div(this.config.temperature).add(batch.allowed)) as tf.Tensor3D };
    if (!this.config.dueling) return { value: v, perToken: programLogits as tf.Tensor3D };
    const allowedMask = batch.allowed.equal(0).cast('float32'); // [B, P, V]
    return { value: v, perToken: duelingQ(v.expandDims(2), programLogits, allowedMask) as tf.Tensor3D };
  }

  /** Q(s_t, a_t) of each program position [B, P] from a network's outputs. */
  private takenQ(out: NetworkOutputs, batch: SequenceBatch): tf.Tensor2D {
    const taken = out.perToken.mul(tf.oneHot(batch.targets, out.perToken.shape[2])).sum(2) as tf.Tensor2D; // [B, P]
    return this.config.qForm === 'soft' ? (out.value.add(taken.mul(this.config.softAlpha)) as tf.Tensor2D) : taken;
  }

  /** Adds the batch's programs to the buffer and takes the updates they are owed. */
  async step(episodes: readonly Episode[]): Promise<DqnStats> {
    const usable = episodes.filter((e) => e.tokens.length > 0);
    if (usable.some((e) => !Number.isFinite(e.reward))) return { loss: NaN, gradNorm: NaN, skipped: true, reason: 'non-finite reward; nothing stored', named: {} };
    for (const e of usable) {
      this.buffer.add({ prompt: [...e.prompt], tokens: [...e.tokens], reward: e.reward });
      this.episodes += 1;
      this.transitions += e.tokens.length;
      this.pending += 1;
    }
    const named: Record<string, number> = {
      'charts/epsilon': this.samplingEpsilon(),
      'charts/episodic_return': usable.reduce((sum, e) => sum + e.reward, 0) / Math.max(1, usable.length),
      'charts/buffer_size': this.buffer.transitions,
    };
    // Filling until learningStarts programs are held, or until the buffer has let one go: a
    // buffer too small for learningStarts programs is as full as it will get, not forever filling.
    const dropped = this.episodes > this.buffer.size;
    if (this.buffer.size < Math.max(this.config.learningStarts, 1) && !dropped) {
      this.pending = 0;
      return { loss: NaN, gradNorm: NaN, skipped: true, reason: `filling the replay buffer (${this.buffer.size} of ${this.config.learningStarts} programs before learning starts)`, named, expected: true };
    }
    const owed = Math.floor(this.pending / this.config.trainFrequency);
    this.pending -= owed * this.config.trainFrequency;
    let loss = 0;
    let q = 0;
    let gradNorm = 0;
    let done = 0;
    for (let u = 0; u < owed; u++) {
      const result = await this.update();
      if (result.skipped) {
        this.pending += (owed - u - 1) * this.config.trainFrequency; // the updates not tried stay owed
        // Updates before it were applied: the step is an update (the generators must get its weights), said by their figures.
        if (done === 0) return { loss: result.loss, gradNorm: result.gradNorm, skipped: true, reason: result.reason, named };
        break;
      }
      loss += result.loss;
      q += result.q;
      gradNorm += result.gradNorm;
      done += 1;
    }
    if (done === 0) return { loss: NaN, gradNorm: NaN, skipped: true, reason: 'no update owed yet (trainFrequency)', named, expected: true };
    return { loss: loss / done, gradNorm: gradNorm / done, skipped: false, named: { ...named, 'losses/td_loss': loss / done, 'losses/q_values': q / done, updates: this.updates } };
  }

  /** The targets of every transition of the drawn programs [B, P], from the target network's pass (and the online one's for double DQN). */
  private async targets(programs: readonly StoredProgram[], batch: SequenceBatch): Promise<{ y: Float32Array; priorLogProbs: Float32Array | null }> {
    const { gamma, nStep: n, qForm, softAlpha } = this.config;
    const B = programs.length;
    const P = batch.programLength;
    const V = this.grammar.vocabSize;
    const soft = qForm === 'soft';
    const prior = soft ? this.config.softPrior : null;
    type Outputs = [tf.Tensor2D, tf.Tensor, tf.Tensor3D | null, tf.Tensor3D | null, tf.Tensor2D | null];
    const [targetValue, targetPerToken, onlinePerToken, allowed, referencePerToken] = tf.tidy((): tf.TensorContainer => {
      const target = this.outputs(this.target, this.targetValue, batch);
      const online = !soft && this.config.doubleDqn ? this.outputs(this.policy, [this.valueW, this.valueB], batch).perToken : null;
      const taken = (perToken: tf.Tensor3D) => perToken.mul(tf.oneHot(batch.targets, V)).sum(2) as tf.Tensor2D;
      const reference = prior === 'reference' ? taken(this.outputs(this.reference!, this.targetValue, batch).perToken) : null;
      return [target.value, soft ? taken(target.perToken) : target.perToken, online, soft ? null : batch.allowed, reference] as Outputs as unknown as tf.TensorContainer;
    }) as unknown as Outputs;
    const [tv, tp, op, al, rp] = await Promise.all([targetValue.data(), targetPerToken.data(), onlinePerToken?.data(), allowed?.data(), referencePerToken?.data()]);
    tf.dispose([targetValue, targetPerToken, ...(onlinePerToken ? [onlinePerToken] : []), ...(referencePerToken ? [referencePerToken] : [])]);
    const y = new Float32Array(B * P);
    programs.forEach((program, b) => {
      const value = soft
        ? (t: number) => tv[b * P + t]
        : (t: number) => {
            const at = (b * P + t) * V;
            const targetQ = tp.subarray(at, at + V);
            return hardValue(op ? op.subarray(at, at + V) : targetQ, targetQ, al!.subarray(at, at + V));
          };
      // The steps between of an n-step target: -alpha log(pi_target / prior) of each token (zero when the target is the prior).
      const between = prior === 'uniform' ? (t: number) => -softAlpha * tp[b * P + t] : prior === 'reference' ? (t: number) => -softAlpha * (tp[b * P + t] - rp![b * P + t]) : undefined;
      y.set(programTargets(program.tokens.length, program.reward, n, gamma, value, between), b * P);
    });
    const priorLogProbs = prior === 'target' ? tp : prior === 'reference' ? rp! : null;
    return { y, priorLogProbs: priorLogProbs as Float32Array | null };
  }

  /**
   * Before the first update, the value head's bias is set to the mean discounted return of the
   * buffer's tokens (online and target). A value head at zero reads every token as better than
   * expected: in the soft form each sampled token, wrong ones included, is then pushed up, and
   * a warm start's accuracy fell within a dozen updates (functions, 0.998 -> 0.8).
   */
  private calibrateValue(): void {
    let sum = 0;
    let count = 0;
    for (let i = 0; i < this.buffer.size; i++) {
      const { tokens, reward } = this.buffer.at(i);
      for (let t = 0; t < tokens.length; t++) sum += this.config.gamma ** (tokens.length - 1 - t) * reward;
      count += tokens.length;
    }
    const mean = count ? sum / count : 0;
    tf.tidy(() => {
      this.valueB.assign(tf.tensor1d([mean]));
      this.targetValue[1].assign(tf.tensor1d([mean]));
    });
  }

  /** One gradient step on a batch of programs from the buffer: every transition of each, in one pass. */
  async update(): Promise<{ loss: number; q: number; gradNorm: number; skipped: boolean; reason?: string }> {
    if (this.updates === 0 && this.usesValue) this.calibrateValue();
    const beta = Math.min(1, this.config.priorityBeta + ((1 - this.config.priorityBeta) * this.updates) / this.config.priorityBetaUpdates);
    const { indices, weights } = this.buffer.sample(this.config.dqnBatchSize, this.rng, beta);
    const programs = indices.map((i) => this.buffer.at(i));
    const batch = buildSequenceBatch(programs, this.grammar, this.policy.config.context);
    const B = programs.length;
    const P = batch.programLength;
    try {
      const targets = await this.targets(programs, batch);
      const y = tf.tensor2d(targets.y, [B, P]);
      // KL-regularised soft Q: alpha log pi_target of each token taken comes off Q (a constant here).
      const priorLogProbs = targets.priorLogProbs;
      const prior = priorLogProbs ? tf.tidy(() => tf.tensor2d(priorLogProbs, [B, P]).mul(this.config.softAlpha)) : null;
      // Each program counts once (its mean over its tokens), weighted by importance.
      const rowWeight = tf.tensor2d(weights.map((w, b) => w / programs[b].tokens.length), [B, 1]);
      let errors: tf.Tensor2D | null = null;
      let qTaken: tf.Scalar | null = null;
      const { value, grads } = tf.variableGrads(() => {
        const online = this.takenQ(this.outputs(this.policy, [this.valueW, this.valueB], batch), batch); // [B, P]
        const taken = prior ? (online.sub(prior) as tf.Tensor2D) : online;
        const delta = taken.sub(y).mul(batch.tokenMask) as tf.Tensor2D;
        errors = tf.keep(delta.abs() as tf.Tensor2D);
        qTaken = tf.keep(taken.mul(batch.tokenMask).sum().div(batch.tokenCount) as tf.Scalar);
        const perToken = this.config.tdLoss === 'huber' ? tf.losses.huberLoss(y, taken, batch.tokenMask, 1, tf.Reduction.NONE) : delta.square();
        return perToken.mul(batch.tokenMask).mul(rowWeight).sum().div(B) as tf.Scalar;
      }, this.trainable);
      const [lossValue, qValue, errorData] = await Promise.all([value.data(), qTaken!.data(), errors!.data()]);
      tf.dispose([value, qTaken!, errors!, y, rowWeight, ...(prior ? [prior] : [])]);
      const applied = await applyClipped(this.optimizer, this.policy.variables.map((v) => grads[v.name]), lossValue[0], this.config.gradClip);
      if (this.valueOptimizer && !applied.skipped) await applyClipped(this.valueOptimizer, [grads[this.valueW.name], grads[this.valueB.name]], lossValue[0], this.config.gradClip);
      tf.dispose(Object.values(grads));
      if (applied.skipped) return { loss: lossValue[0], q: qValue[0], ...applied };
      indices.forEach((index, b) => {
        const length = programs[b].tokens.length;
        let sum = 0;
        for (let t = 0; t < length; t++) sum += errorData[b * P + t];
        this.buffer.setPriority(index, sum / length + 1e-6);
      });
      this.updates += 1;
      if (this.updates % this.config.targetNetworkFrequency === 0) this.syncTarget();
      return { loss: lossValue[0], q: qValue[0], gradNorm: applied.gradNorm, skipped: false };
    } finally {
      disposeBatch(batch);
    }
  }

  /** The target network (and its value head) follows the online one: a copy, or a Polyak step with tau (`copy` forces a copy: new weights to start from). */
  syncTarget({ copy = false }: { copy?: boolean } = {}): void {
    const tau = copy ? 1 : this.config.tau;
    const blend = (online: readonly WeightArray[], target: readonly WeightArray[]) =>
      tau >= 1 ? online : online.map((w, i) => ({ ...w, data: w.data.map((x, j) => tau * x + (1 - tau) * target[i].data[j]) }));
    this.target.setWeights(blend(this.policy.getWeights(), this.target.getWeights()));
    tf.tidy(() => {
      this.targetValue[0].assign(tau >= 1 ? this.valueW : this.valueW.mul(tau).add(this.targetValue[0].mul(1 - tau)));
      this.targetValue[1].assign(tau >= 1 ? this.valueB : this.valueB.mul(tau).add(this.targetValue[1].mul(1 - tau)));
    });
  }

  /** The weights start here (a warm start put in from outside): the target network becomes them, not a Polyak step toward them. */
  rebase(): void {
    this.syncTarget({ copy: true });
  }

  /** The target network's weights (tests, checkpoints). */
  targetWeights(): WeightArray[] {
    return this.target.getWeights();
  }

  /** Adam's state, the target network, the value heads, the counters and the replay buffer: what resumes the run exactly. */
  optimizerWeights(): WeightArray[] {
    const extra = (name: string, v: tf.Variable): WeightArray => ({ name, shape: [...v.shape], data: v.dataSync() as Float32Array });
    return [
      ...this.optimizer.getState(this.policy.weightNames()),
      ...(this.valueOptimizer?.getState(VALUE_HEAD).map((w) => ({ ...w, name: `value-${w.name}` })) ?? []),
      ...this.target.getWeights().map((w) => ({ ...w, name: `target/${w.name}` })),
      extra('dueling/w', this.valueW),
      extra('dueling/b', this.valueB),
      extra('target/dueling/w', this.targetValue[0]),
      extra('target/dueling/b', this.targetValue[1]),
      { name: 'dqn/counters', shape: [4], data: new Float32Array([this.episodes, this.transitions, this.updates, this.pending]) },
      ...this.buffer.toWeights(),
    ];
  }

  setOptimizerWeights(state: readonly WeightArray[]): void {
    const byName = new Map(state.map((w) => [w.name, w]));
    this.optimizer.setState(state.filter((w) => w.name.startsWith('adam/')), this.policy.weightNames());
    this.valueOptimizer?.setState(state.filter((w) => w.name.startsWith('value-adam/')).map((w) => ({ ...w, name: w.name.slice('value-'.length) })), VALUE_HEAD);
    const target = state.filter((w) => w.name.startsWith('target/') && !w.name.startsWith('target/dueling/')).map((w) => ({ ...w, name: w.name.slice('target/'.length) }));
    if (target.length) this.target.setWeights(target);
    const assign = (v: tf.Variable, name: string) => {
      const w = byName.get(name);
      if (w) tf.tidy(() => v.assign(tf.tensor(w.data, w.shape)));
    };
    assign(this.valueW, 'dueling/w');
    assign(this.valueB, 'dueling/b');
    assign(this.targetValue[0], 'target/dueling/w');
    assign(this.targetValue[1], 'target/dueling/b');
    const counters = byName.get('dqn/counters');
    if (counters) [this.episodes, this.transitions, this.updates, this.pending = 0] = [...counters.data];
    this.buffer.fromWeights(state);
  }

  /** The replay draws' RNG, for an exact resume. */
  state(): { rng: RngState } {
    return { rng: this.rng.state() };
  }

  restore(state: unknown): void {
    const saved = state as { rng?: unknown };
    if (Array.isArray(saved?.rng)) this.rng = new Rng(saved.rng as RngState);
  }

  setBaseline(): void {
    // DQN has no baseline.
  }

  dispose(): void {
    this.optimizer.dispose();
    this.valueOptimizer?.dispose();
    this.target.dispose();
    tf.dispose([this.valueW, this.valueB, ...this.targetValue]);
  }
}

type DqnRun = BaseConfig & { algorithm: DqnConfig };

export const dqn: AlgorithmDefinition<DqnRun> = {
  name: 'dqn',
  doc: 'DQN over tokens (the DQN code-generation seed, CleanRL\'s dqn.py): soft Q-learning on the policy with a value head (or classic hard Q, double, dueling), whole programs replayed (uniform or prioritized), n-step, a target network, Boltzmann or epsilon-greedy exploration.',
  fields: dqnFields,
  reads: ['gamma'],
  accumulates: false,
  mixesBatches: true,
  samplesOnTrainer: true,
  charts: [
    { name: 'losses/td_loss', title: 'losses/td_loss (dqn)', optional: true, caption: 'The TD error loss (Huber or squared) on replayed programs; it need not fall steadily, as the targets move with the network.' },
    { name: 'losses/q_values', title: 'losses/q_values (dqn)', optional: true, caption: 'Mean Q-value of the tokens taken in the replayed programs: it should approach the discounted reward the programs earn.' },
    { name: 'charts/epsilon', title: 'charts/epsilon (dqn)', optional: true, caption: 'The exploration rate of epsilon-greedy sampling: the share of tokens drawn at random (0 under Boltzmann exploration).' },
    { name: 'charts/episodic_return', title: 'charts/episodic_return (dqn)', optional: true, caption: 'Mean reward of the programs written at each step, exploration included.' },
  ],
  needsReference: (config) => config.algorithm.qForm === 'soft' && config.algorithm.softPrior === 'reference',
  create({ config, policy, grammar, reference }) {
    const algorithm = new Dqn(policy, grammar, config.algorithm, config.run.seed, reference);
    return {
      optimizer: algorithm.optimizer,
      baseline: undefined,
      setBaseline: () => undefined,
      optimizerWeights: () => algorithm.optimizerWeights(),
      setOptimizerWeights: (state) => algorithm.setOptimizerWeights(state),
      state: () => algorithm.state(),
      restore: (state) => algorithm.restore(state),
      dispose: () => algorithm.dispose(),
      rebase: () => algorithm.rebase(),
      update: async (episodes) => {
        const { loss, gradNorm, skipped, reason, named, expected } = await algorithm.step(episodes);
        return { loss, gradNorm, skipped, reason, metrics: named, expected };
      },
      sampling: () => algorithm.sampling(),
    };
  },
};
