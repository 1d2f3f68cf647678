/**
 * DQN that writes programs token by token, as the DQN code-generation seed specifies and with
 * CleanRL's dqn.py (and tfjs-examples' snake-dqn) as the standard of how: a state is the prompt
 * plus the program so far, an action is the next token among those the task's grammar allows, the
 * reward is the task's, given at the program's last token. An episode ends with the program
 * (terminal) or at the token budget (a truncation: its last transition bootstraps).
 *
 * The Q-network is the policy itself: its token head gives one value per token at the last
 * position of the state. With `dueling` a value head on the same hidden state joins it,
 * Q = V + A - mean(A over the allowed tokens); argmax Q is argmax A, so the policy's greedy
 * sampler acts greedily with respect to Q. Targets: r + gamma^n Q_target(s', a'), a' the argmax
 * of the online network (`doubleDqn`) or of the target network, both masked to the tokens the
 * grammar allows in s'. The target network is synced every `targetNetworkFrequency` updates
 * (copied, or Polyak-averaged with `tau` < 1). Transitions sit in a replay buffer, drawn uniformly
 * or by priority (|TD error|^alpha, importance weights with beta annealed to 1). Exploration is
 * epsilon-greedy over the allowed tokens, on the seed's schedule (x decay per episode) or
 * CleanRL's straight line.
 *
 * The loop samples with epsilon (`samplingEpsilon`), hands over whole episodes, and this class
 * cuts them into transitions; its target network and value head travel in the checkpoint beside
 * the optimizer's state (`target/...`, `dueling/...`).
 */
import * as tf from '@tensorflow/tfjs';
import { z } from 'zod';
import { variableFrom } from '../model/variable';
import type { AlgorithmDefinition } from '../algorithm';
import { int, type AlgorithmCommonConfig, type BaseConfig, type Infer } from '../configSections';
import type { Grammar } from '../grammar';
import { Adam } from '../model/adam';
import { leftPad } from '../model/sampler';
import { applyClipped } from '../model/training';
import { TransformerPolicy, type WeightArray } from '../model/transformer';
import { Rng } from '../rng';
import type { Episode } from './reinforce';

/** dqn's own fields (the DQN seed's and CleanRL's names); it also reads the shared gamma. */
export const dqnFields = {
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
};

export type DqnConfig = Pick<
  AlgorithmCommonConfig & Infer<typeof dqnFields>,
  | 'learningRate' | 'gradClip' | 'gamma' | 'bufferSize' | 'learningStarts' | 'trainFrequency' | 'dqnBatchSize' | 'targetNetworkFrequency' | 'tau'
  | 'doubleDqn' | 'dueling' | 'tdLoss' | 'epsilonSchedule' | 'epsilonStart' | 'epsilonEnd' | 'epsilonDecay' | 'explorationSteps'
  | 'prioritized' | 'priorityAlpha' | 'priorityBeta' | 'priorityBetaUpdates' | 'nStep'
>;

/** One step of an episode: the state is prompt + tokens[0..t), the action tokens[t]. */
export interface Transition {
  prompt: readonly number[];
  tokens: readonly number[];
  t: number;
  /** The episode's reward, paid at its last token. */
  reward: number;
  /** Whether the episode ended with a complete program (else it was cut at the token budget). */
  complete: boolean;
}

/** The n-step return from transition t and where it bootstraps: the state index, or null when the program ended. */
export function nStepTarget(transition: Transition, n: number, gamma: number): { ret: number; next: number | null; discount: number } {
  const last = transition.tokens.length - 1;
  const steps = Math.min(n, last - transition.t + 1);
  const ends = transition.t + steps - 1 === last;
  const ret = ends ? gamma ** (steps - 1) * transition.reward : 0;
  if (ends && transition.complete) return { ret, next: null, discount: 0 };
  return { ret, next: transition.t + steps, discount: gamma ** steps };
}

/**
 * Double-DQN (or plain) targets from host arrays: per row the reward, the discount (0 when
 * terminal), the next state's Q-values of the online and the target network [B x V] and its
 * allowed-token mask.
 */
export function dqnTargets(
  returns: readonly number[],
  discounts: readonly number[],
  nextOnline: Float32Array,
  nextTarget: Float32Array,
  nextMask: Uint8Array,
  vocab: number,
  double: boolean,
): number[] {
  return returns.map((ret, b) => {
    if (discounts[b] === 0) return ret;
    const chooser = double ? nextOnline : nextTarget;
    let best = -1;
    for (let v = 0; v < vocab; v++) {
      if (!nextMask[b * vocab + v]) continue;
      if (best < 0 || chooser[b * vocab + v] > chooser[b * vocab + best]) best = v;
    }
    if (best < 0) return ret; // no token allowed: nothing to bootstrap from
    return ret + discounts[b] * nextTarget[b * vocab + best];
  });
}

/** Q = V + A - mean(A over the allowed tokens): the dueling combination, [B, V]. */
export function duelingQ(value: tf.Tensor2D, advantages: tf.Tensor2D, mask: tf.Tensor2D): tf.Tensor2D {
  return tf.tidy(() => {
    const allowed = tf.maximum(mask.sum(1, true), 1);
    const meanAdvantage = advantages.mul(mask).sum(1, true).div(allowed);
    return value.add(advantages).sub(meanAdvantage) as tf.Tensor2D;
  });
}

/** Exploration rate after `episodes` programs and `transitions` tokens. */
export function epsilonAt(config: Pick<DqnConfig, 'epsilonSchedule' | 'epsilonStart' | 'epsilonEnd' | 'epsilonDecay' | 'explorationSteps'>, episodes: number, transitions: number): number {
  const { epsilonStart: start, epsilonEnd: end } = config;
  if (config.epsilonSchedule === 'exponential') return Math.max(end, start * config.epsilonDecay ** episodes);
  return Math.max(end, start + ((end - start) * transitions) / config.explorationSteps);
}

/** A ring buffer of transitions drawn uniformly, or by priority through a sum tree. */
export class ReplayBuffer {
  private readonly items: Transition[] = [];
  private next = 0;
  /** Sum tree over priorities^alpha: leaves at [capacity, 2 capacity). */
  private readonly tree: Float64Array | null;
  private maxPriority = 1;

  constructor(readonly capacity: number, private readonly prioritized = false, private readonly alpha = 0.6) {
    this.tree = prioritized ? new Float64Array(2 * capacity) : null;
  }

  get size(): number {
    return this.items.length;
  }

  add(transition: Transition): void {
    const index = this.next;
    if (this.items.length < this.capacity) this.items.push(transition);
    else this.items[index] = transition;
    this.next = (index + 1) % this.capacity;
    if (this.tree) this.setPriority(index, this.maxPriority);
  }

  at(index: number): Transition {
    return this.items[index];
  }

  /** `count` indices, uniformly or by priority, with their importance weights (1 when uniform; max-normalised). */
  sample(count: number, rng: Rng, beta = 1): { indices: number[]; weights: number[] } {
    if (this.items.length === 0) throw new Error('the replay buffer is empty');
    if (!this.tree) {
      const indices = Array.from({ length: count }, () => rng.int(0, this.items.length - 1));
      return { indices, weights: indices.map(() => 1) };
    }
    const total = this.tree[1];
    const indices: number[] = [];
    // Stratified: one draw from each of `count` equal slices of the total, as Schaul et al.
    for (let i = 0; i < count; i++) indices.push(this.find(((i + rng.next()) / count) * total));
    const n = this.items.length;
    const probabilities = indices.map((index) => this.tree![this.capacity + index] / total);
    const raw = probabilities.map((p) => (n * p) ** -beta);
    const max = Math.max(...raw);
    return { indices, weights: raw.map((w) => w / max) };
  }

  /** Sets a transition's priority (|TD error| + a small constant, before alpha). */
  setPriority(index: number, priority: number): void {
    if (!this.tree) return;
    this.maxPriority = Math.max(this.maxPriority, priority);
    let node = this.capacity + index;
    this.tree[node] = priority ** this.alpha;
    for (node >>= 1; node >= 1; node >>= 1) this.tree[node] = this.tree[2 * node] + this.tree[2 * node + 1];
  }

  /** The leaf whose prefix sum range holds `mass`. */
  private find(mass: number): number {
    const tree = this.tree!;
    let node = 1;
    while (node < this.capacity) {
      const left = 2 * node;
      if (mass <= tree[left] || tree[left + 1] === 0) node = left;
      else {
        mass -= tree[left];
        node = left + 1;
      }
    }
    return Math.min(node - this.capacity, this.items.length - 1);
  }
}

export interface DqnStats {
  loss: number;
  gradNorm: number;
  skipped: boolean;
  reason?: string;
  /** CleanRL's names. */
  named: Record<string, number>;
}

export class Dqn<S = unknown> {
  readonly optimizer: Adam;
  readonly baseline = undefined;
  readonly buffer: ReplayBuffer;
  private readonly target: TransformerPolicy;
  private readonly valueW: tf.Variable | null;
  private readonly valueB: tf.Variable | null;
  /** The target network's value head (dueling). */
  private readonly targetValue: [tf.Variable, tf.Variable] | null;
  private readonly rng: Rng;
  private episodes = 0;
  private transitions = 0;
  private updates = 0;
  /** Transitions added since the last update, toward the next one (trainFrequency). */
  private pending = 0;

  constructor(
    private readonly policy: TransformerPolicy,
    private readonly grammar: Grammar<S>,
    private readonly config: DqnConfig,
    seed = 1,
  ) {
    this.buffer = new ReplayBuffer(config.bufferSize, config.prioritized, config.priorityAlpha);
    this.rng = new Rng(seed * 7919 + 3);
    this.target = new TransformerPolicy(policy.config, seed);
    this.target.setWeights(policy.getWeights());
    const d = policy.config.dModel;
    this.valueW = config.dueling ? variableFrom(tf.zeros([d, 1]), true, `${policy.prefix}/dueling/w`) : null;
    this.valueB = config.dueling ? variableFrom(tf.zeros([1]), true, `${policy.prefix}/dueling/b`) : null;
    this.targetValue = config.dueling ? [variableFrom(tf.zeros([d, 1]), false), variableFrom(tf.zeros([1]), false)] : null;
    this.optimizer = new Adam(this.trainable, { learningRate: config.learningRate });
  }

  private get trainable(): tf.Variable[] {
    return [...this.policy.variables, ...(this.valueW ? [this.valueW, this.valueB!] : [])];
  }

  /** The exploration rate the loop samples the next batch with. */
  samplingEpsilon(): number {
    return epsilonAt(this.config, this.episodes, this.transitions);
  }

  /** Q-values at the last position of each state [B, V] (masked entries are left as they are). */
  private qValues(network: TransformerPolicy, value: [tf.Variable, tf.Variable] | null, input: tf.Tensor2D, starts: number[], mask: tf.Tensor2D): tf.Tensor2D {
    const [B, T] = input.shape;
    const V = network.config.vocabSize;
    if (!value) {
      const logits = network.forward(input, starts);
      return logits.slice([0, T - 1, 0], [B, 1, V]).reshape([B, V]);
    }
    const { logits, hidden } = network.forwardWithHidden(input, starts);
    const advantages = logits.slice([0, T - 1, 0], [B, 1, V]).reshape([B, V]) as tf.Tensor2D;
    const last = hidden.slice([0, T - 1, 0], [B, 1, network.config.dModel]).reshape([B, network.config.dModel]) as tf.Tensor2D;
    return duelingQ(tf.matMul(last, value[0]).add(value[1]) as tf.Tensor2D, advantages, mask);
  }

  /** Left-padded states and the grammar's mask in each: states[i] = prompt + tokens[0..t). */
  private states(rows: readonly { prompt: readonly number[]; tokens: readonly number[]; t: number }[]): { input: tf.Tensor2D; starts: number[]; mask: Uint8Array } {
    const V = this.grammar.vocabSize;
    const mask = new Uint8Array(rows.length * V);
    const row = new Uint8Array(V);
    rows.forEach(({ prompt, tokens, t }, b) => {
      let state = this.grammar.initial(prompt);
      for (let i = 0; i < t; i++) state = this.grammar.advance(state, tokens[i]);
      if (!this.grammar.isDone(state)) {
        this.grammar.allowed(state, row);
        mask.set(row, b * V);
      }
    });
    const { data, length, starts } = leftPad(rows.map(({ prompt, tokens, t }) => [...prompt, ...tokens.slice(0, t)]));
    return { input: tf.tensor2d(data, [rows.length, length], 'int32'), starts, mask };
  }

  /** Adds the batch's episodes to the buffer and takes the updates they are owed. */
  async step(episodes: readonly Episode[]): Promise<DqnStats> {
    const usable = episodes.filter((e) => e.tokens.length > 0);
    if (usable.some((e) => !Number.isFinite(e.reward))) return { loss: NaN, gradNorm: NaN, skipped: true, reason: 'non-finite reward; nothing stored', named: {} };
    for (const e of usable) {
      const complete = this.grammarDone(e);
      for (let t = 0; t < e.tokens.length; t++) this.buffer.add({ prompt: e.prompt, tokens: e.tokens, t, reward: e.reward, complete });
      this.episodes += 1;
      this.transitions += e.tokens.length;
      this.pending += e.tokens.length;
    }
    const named: Record<string, number> = {
      'charts/epsilon': this.samplingEpsilon(),
      'charts/episodic_return': usable.reduce((sum, e) => sum + e.reward, 0) / Math.max(1, usable.length),
      'charts/buffer_size': this.buffer.size,
    };
    if (this.buffer.size < Math.max(this.config.learningStarts, 1)) {
      this.pending = 0;
      return { loss: NaN, gradNorm: NaN, skipped: true, reason: `filling the replay buffer (${this.buffer.size} of ${this.config.learningStarts} transitions before learning starts)`, named };
    }
    const owed = Math.floor(this.pending / this.config.trainFrequency);
    this.pending -= owed * this.config.trainFrequency;
    let loss = 0;
    let q = 0;
    let gradNorm = 0;
    let done = 0;
    for (let u = 0; u < owed; u++) {
      const result = await this.update();
      if (result.skipped) return { loss: result.loss, gradNorm: result.gradNorm, skipped: true, reason: result.reason, named };
      loss += result.loss;
      q += result.q;
      gradNorm += result.gradNorm;
      done += 1;
    }
    if (done === 0) return { loss: NaN, gradNorm: NaN, skipped: true, reason: 'no update owed yet (trainFrequency)', named };
    return { loss: loss / done, gradNorm: gradNorm / done, skipped: false, named: { ...named, 'losses/td_loss': loss / done, 'losses/q_values': q / done, updates: this.updates } };
  }

  /** Whether the episode's program was complete (a terminal state) rather than cut at the budget. */
  private grammarDone(e: Episode): boolean {
    let state = this.grammar.initial(e.prompt);
    for (const token of e.tokens) state = this.grammar.advance(state, token);
    return this.grammar.isDone(state);
  }

  /** One gradient step on a minibatch from the buffer. */
  async update(): Promise<{ loss: number; q: number; gradNorm: number; skipped: boolean; reason?: string }> {
    const { dqnBatchSize: B, gamma, nStep } = this.config;
    const beta = Math.min(1, this.config.priorityBeta + ((1 - this.config.priorityBeta) * this.updates) / this.config.priorityBetaUpdates);
    const { indices, weights } = this.buffer.sample(B, this.rng, beta);
    const batch = indices.map((i) => this.buffer.at(i));
    const V = this.grammar.vocabSize;
    const targets = batch.map((tr) => nStepTarget(tr, nStep, gamma));
    // Next states: a terminal row still needs a state to stack; its value is never used (discount 0).
    const next = this.states(batch.map((tr, b) => ({ prompt: tr.prompt, tokens: tr.tokens, t: targets[b].next ?? tr.t })));
    const current = this.states(batch);
    const nextMaskTensor = tf.tensor2d(Float32Array.from(next.mask), [B, V]);
    const currentMaskTensor = tf.tensor2d(Float32Array.from(current.mask), [B, V]);
    try {
      const [online, target] = tf.tidy(() => [
        this.config.doubleDqn ? this.qValues(this.policy, this.valueW ? [this.valueW, this.valueB!] : null, next.input, next.starts, nextMaskTensor) : tf.zeros([B, V]),
        this.qValues(this.target, this.targetValue, next.input, next.starts, nextMaskTensor),
      ]);
      const [onlineData, targetData] = await Promise.all([online.data() as Promise<Float32Array>, target.data() as Promise<Float32Array>]);
      tf.dispose([online, target]);
      const y = dqnTargets(targets.map((t) => t.ret), targets.map((t) => t.discount), onlineData, targetData, next.mask, V, this.config.doubleDqn);
      const yTensor = tf.tensor1d(y);
      const actions = tf.tensor1d(batch.map((tr) => tr.tokens[tr.t]), 'int32');
      const weightTensor = tf.tensor1d(weights);
      try {
        let tdErrors: tf.Tensor1D | null = null;
        let qTaken: tf.Scalar | null = null;
        const { value, grads } = tf.variableGrads(() => {
          const qs = this.qValues(this.policy, this.valueW ? [this.valueW, this.valueB!] : null, current.input, current.starts, currentMaskTensor);
          const taken = qs.mul(tf.oneHot(actions, V)).sum(1) as tf.Tensor1D;
          const errors = taken.sub(yTensor) as tf.Tensor1D;
          tdErrors = tf.keep(errors.abs() as tf.Tensor1D);
          qTaken = tf.keep(taken.mean() as tf.Scalar);
          const perRow = this.config.tdLoss === 'huber' ? tf.losses.huberLoss(yTensor, taken, undefined, 1, tf.Reduction.NONE) : errors.square();
          return perRow.mul(weightTensor).mean() as tf.Scalar;
        }, this.trainable);
        const [lossValue, qValue, errors] = await Promise.all([value.data(), qTaken!.data(), tdErrors!.data()]);
        tf.dispose([value, qTaken!, tdErrors!]);
        const ordered = this.trainable.map((v) => grads[v.name]);
        const applied = await applyClipped(this.optimizer, ordered, lossValue[0], this.config.gradClip);
        tf.dispose(Object.values(grads));
        if (applied.skipped) return { loss: lossValue[0], q: qValue[0], ...applied };
        indices.forEach((index, b) => this.buffer.setPriority(index, errors[b] + 1e-6));
        this.updates += 1;
        if (this.updates % this.config.targetNetworkFrequency === 0) this.syncTarget();
        return { loss: lossValue[0], q: qValue[0], gradNorm: applied.gradNorm, skipped: false };
      } finally {
        tf.dispose([yTensor, actions, weightTensor]);
      }
    } finally {
      tf.dispose([next.input, current.input, nextMaskTensor, currentMaskTensor]);
    }
  }

  /** Target <- tau online + (1 - tau) target (tau 1: an exact copy). */
  syncTarget(): void {
    const tau = this.config.tau;
    const pairs: [tf.Variable, tf.Variable][] = this.policy.variables.map((v, i) => [this.target.variables[i], v]);
    if (this.valueW && this.targetValue) pairs.push([this.targetValue[0], this.valueW], [this.targetValue[1], this.valueB!]);
    for (const [to, from] of pairs) tf.tidy(() => to.assign(tau === 1 ? from.clone() : from.mul(tau).add(to.mul(1 - tau))));
  }

  /** The target network's weights (tests, checkpoints). */
  targetWeights(): WeightArray[] {
    return this.target.getWeights();
  }

  /** Adam's state, the target network and the value heads: what resumes the run exactly. */
  optimizerWeights(): WeightArray[] {
    const names = [...this.policy.weightNames(), ...(this.valueW ? ['dueling/w', 'dueling/b'] : [])];
    const extra = (name: string, v: tf.Variable): WeightArray => ({ name, shape: [...v.shape], data: v.dataSync() as Float32Array });
    return [
      ...this.optimizer.getState(names),
      ...this.target.getWeights().map((w) => ({ ...w, name: `target/${w.name}` })),
      ...(this.valueW ? [extra('dueling/w', this.valueW), extra('dueling/b', this.valueB!), extra('target/dueling/w', this.targetValue![0]), extra('target/dueling/b', this.targetValue![1])] : []),
      { name: 'dqn/counters', shape: [3], data: new Float32Array([this.episodes, this.transitions, this.updates]) },
    ];
  }

  setOptimizerWeights(state: readonly WeightArray[]): void {
    const byName = new Map(state.map((w) => [w.name, w]));
    const names = [...this.policy.weightNames(), ...(this.valueW ? ['dueling/w', 'dueling/b'] : [])];
    this.optimizer.setState(state.filter((w) => w.name.startsWith('adam/')), names);
    const target = state.filter((w) => w.name.startsWith('target/') && !w.name.startsWith('target/dueling/')).map((w) => ({ ...w, name: w.name.slice('target/'.length) }));
    if (target.length) this.target.setWeights(target);
    const assign = (v: tf.Variable | null, name: string) => {
      const w = byName.get(name);
      if (v && w) tf.tidy(() => v.assign(tf.tensor(w.data, w.shape)));
    };
    assign(this.valueW, 'dueling/w');
    assign(this.valueB, 'dueling/b');
    assign(this.targetValue?.[0] ?? null, 'target/dueling/w');
    assign(this.targetValue?.[1] ?? null, 'target/dueling/b');
    const counters = byName.get('dqn/counters');
    if (counters) [this.episodes, this.transitions, this.updates] = [...counters.data];
  }

  setBaseline(): void {
    // DQN has no baseline.
  }

  dispose(): void {
    this.optimizer.dispose();
    this.target.dispose();
    tf.dispose([...(this.valueW ? [this.valueW, this.valueB!] : []), ...(this.targetValue ?? [])]);
  }
}

type DqnRun = BaseConfig & { algorithm: DqnConfig };

export const dqn: AlgorithmDefinition<DqnRun> = {
  name: 'dqn',
  doc: 'DQN over tokens (the DQN code-generation seed, CleanRL\'s dqn.py): double, dueling, replay (uniform or prioritized), n-step, a target network, epsilon-greedy.',
  fields: dqnFields,
  reads: ['gamma'],
  accumulates: false,
  samplesOnTrainer: true,
  charts: [
    { name: 'losses/td_loss', title: 'losses/td_loss (dqn)', optional: true, caption: 'The Q-network\'s TD error loss (Huber or squared) on replayed transitions; it need not fall steadily, as the targets move with the network.' },
    { name: 'losses/q_values', title: 'losses/q_values (dqn)', optional: true, caption: 'Mean Q-value of the tokens taken in the replayed transitions: it should approach the discounted reward the programs earn.' },
    { name: 'charts/epsilon', title: 'charts/epsilon (dqn)', optional: true, caption: 'The exploration rate: the share of tokens drawn at random instead of the Q-network\'s best.' },
    { name: 'charts/episodic_return', title: 'charts/episodic_return (dqn)', optional: true, caption: 'Mean reward of the programs written at each step, exploration included.' },
  ],
  needsReference: () => false,
  create({ config, policy, grammar }) {
    const algorithm = new Dqn(policy, grammar, config.algorithm, config.run.seed);
    return {
      optimizer: algorithm.optimizer,
      baseline: undefined,
      setBaseline: () => undefined,
      optimizerWeights: () => algorithm.optimizerWeights(),
      setOptimizerWeights: (state) => algorithm.setOptimizerWeights(state),
      dispose: () => algorithm.dispose(),
      update: async (episodes) => {
        const { loss, gradNorm, skipped, reason, named } = await algorithm.step(episodes);
        return { loss, gradNorm, skipped, reason, metrics: named };
      },
      // It acts epsilon-greedily on its Q-values (the policy's logits).
      sampling: () => ({ greedy: true, epsilon: algorithm.samplingEpsilon() }),
    };
  },
};
