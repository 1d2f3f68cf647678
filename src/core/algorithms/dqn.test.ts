/** DQN's parts against hand-computed values, and toy programs it must learn to write, or keep writing. */
import * as tf from '@tensorflow/tfjs';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Episode } from '../algorithm';
import { defaultConfig } from '../config';
import { sampleBatch, uniformToken } from '../model/sampler';
import { TOY, ToyGrammar } from '../model/testGrammar';
import { buildSequenceBatch, disposeBatch, programTokenLogProbs } from '../model/training';
import { TransformerPolicy } from '../model/transformer';
import { Rng } from '../rng';
import { SupervisedTrainer } from './supervised';
import { Dqn, ReplayBuffer, duelingQ, epsilonAt, hardValue, programTargets, type DqnConfig } from './dqn';

beforeAll(async () => {
  await tf.setBackend('cpu');
});

const base: DqnConfig = { ...defaultConfig('kolmogorov', 'dqn').algorithm } as DqnConfig;

/** A frozen copy of a policy's weights now: the run's start, the soft form's default prior. */
function frozen(policy: TransformerPolicy): TransformerPolicy {
  const copy = new TransformerPolicy(policy.config, 99);
  copy.setWeights(policy.getWeights());
  return copy;
}

describe('DQN targets', () => {
  it('n-step returns: the reward discounted from the program\'s end, else the value n tokens on; the soft form adds -alpha log pi of the steps between', () => {
    const value = (t: number) => 10 * t; // a recognisable value per state
    // Three tokens, reward 1 at the last; one step: bootstrap at t + 1 until the last token, which earns the reward.
    expect(programTargets(3, 1, 1, 0.9, value)).toEqual([0.9 * 10, 0.9 * 20, 1]);
    // Three steps reach the end from every token: the reward discounted by the tokens after it.
    expect(programTargets(3, 1, 3, 0.9, value).map((y) => +y.toFixed(9))).toEqual([0.81, 0.9, 1]);
    // Two steps from t = 0 stop before the end: gamma^2 V(s_2), plus the soft term of the action between.
    const between = (t: number) => -0.1 * -t; // -alpha log pi with log pi = -t
    expect(programTargets(4, 1, 2, 0.5, value, between)[0]).toBeCloseTo(0.5 * 0.1 + 0.25 * 20, 9);
  });

  it('hard form: double DQN values the online network\'s choice with the target\'s Q; plain DQN the target\'s max; both masked', () => {
    const online = [1, 3, 9];
    const target = [10, 20, 99];
    const allowed = [0, 0, -1e9]; // token 2 is not allowed
    expect(hardValue(online, target, allowed)).toBe(20); // online picks 1 among {0, 1}
    expect(hardValue(target, target, allowed)).toBe(20); // the target's own max, not the masked 99
    expect(hardValue([5, 1, 0], target, allowed)).toBe(10);
  });

  it('dueling: Q - V has mean zero over the allowed tokens', () => {
    const q = duelingQ(tf.tensor2d([[2], [-1]]), tf.tensor2d([[1, 5, 100], [3, 3, 0]]), tf.tensor2d([[1, 1, 0], [1, 1, 1]])).arraySync() as number[][];
    expect(q[0][0] - 2 + q[0][1] - 2).toBeCloseTo(0, 5);
    expect(q[1][0] + 1 + q[1][1] + 1 + q[1][2] + 1).toBeCloseTo(0, 5);
    expect(q[0][1] - q[0][0]).toBeCloseTo(4, 5); // differences between actions are the advantages'
  });

  it('epsilon: the seed\'s decay per program and CleanRL\'s straight line, floored at the end value', () => {
    expect(epsilonAt({ ...base, epsilonSchedule: 'exponential' }, 2, 999)).toBeCloseTo(0.995 ** 2, 9);
    expect(epsilonAt({ ...base, epsilonSchedule: 'exponential' }, 10_000, 0)).toBe(0.01);
    expect(epsilonAt({ ...base, epsilonSchedule: 'linear', explorationSteps: 100 }, 0, 50)).toBeCloseTo(1 - 0.99 / 2, 9);
    expect(epsilonAt({ ...base, epsilonSchedule: 'linear', explorationSteps: 100 }, 0, 500)).toBe(0.01);
  });
});

describe('replay buffer of whole programs', () => {
  const program = (id: number, length = 2) => ({ prompt: [1, id], tokens: Array(length).fill(2), reward: id });

  it('holds at most its capacity in transitions, the oldest programs leaving first, and samples uniformly', () => {
    const buffer = new ReplayBuffer(8);
    for (let id = 0; id < 6; id++) buffer.add(program(id));
    expect(buffer.transitions).toBe(8);
    expect(Array.from({ length: buffer.size }, (_, i) => buffer.at(i).reward)).toEqual([2, 3, 4, 5]);
    const counts = [0, 0, 0, 0];
    const { indices, weights } = buffer.sample(8000, new Rng(3));
    for (const i of indices) counts[i] += 1;
    for (const c of counts) expect(Math.abs(c - 2000)).toBeLessThan(200);
    expect(new Set(weights)).toEqual(new Set([1]));
  });

  it('prioritized: draws follow priority^alpha, and importance weights are (N p)^-beta over their max', () => {
    const buffer = new ReplayBuffer(100, true, 1);
    for (let id = 0; id < 4; id++) buffer.add(program(id));
    [1, 2, 3, 4].forEach((p, i) => buffer.setPriority(i, p));
    const counts = [0, 0, 0, 0];
    const { indices, weights } = buffer.sample(10_000, new Rng(5), 0.5);
    indices.forEach((i) => (counts[i] += 1));
    counts.forEach((c, i) => expect(c / 10_000).toBeCloseTo((i + 1) / 10, 1));
    const weightOf = (i: number) => (4 * ((i + 1) / 10)) ** -0.5 / (4 * 0.1) ** -0.5;
    indices.slice(0, 50).forEach((index, k) => expect(weights[k]).toBeCloseTo(weightOf(index), 9));
  });

  it('travels in a checkpoint as tensors and comes back whole', () => {
    const buffer = new ReplayBuffer(100, true);
    buffer.add(program(1, 3));
    buffer.add(program(2, 5));
    buffer.setPriority(1, 7);
    const back = new ReplayBuffer(100, true);
    back.fromWeights(buffer.toWeights());
    expect([back.size, back.transitions, back.at(1)]).toEqual([2, 8, buffer.at(1)]);
    expect(back.toWeights()).toEqual(buffer.toWeights());
  });
});

describe('DQN on the toy grammar', () => {
  const grammar = new ToyGrammar();
  const policyConfig = { vocabSize: TOY.vocabSize, layers: 1, dModel: 16, heads: 2, context: 16 };
  const prompt = [TOY.BOS, 6];
  const answer = [TOY.B, TOY.EOL, TOY.DONE];
  /** The toy task: only "B then stop" earns 1; so the first choice must be B and the second DONE. */
  const reward = (tokens: readonly number[]) => (tokens.join(',') === answer.join(',') ? 1 : 0);
  const greedy = async (policy: TransformerPolicy) => (await sampleBatch(policy, grammar, [prompt], { maxTokens: 6, temperature: 1, greedy: true }))[0].tokens;

  async function train(policy: TransformerPolicy, dqn: Dqn, rounds: number, seed: number | Rng, check?: (round: number) => void): Promise<void> {
    const rng = typeof seed === 'number' ? new Rng(seed) : seed;
    for (let round = 0; round < rounds; round++) {
      const samples = await sampleBatch(policy, grammar, Array(8).fill(prompt), { maxTokens: 6, temperature: 1, rng, ...dqn.sampling() });
      const episodes: Episode[] = samples.map((s) => ({ prompt, tokens: s.tokens, lineEnds: s.lineEnds, reward: reward(s.tokens) }));
      await dqn.step(episodes);
      check?.(round);
    }
  }

  it('never chooses a masked token, even when exploring', () => {
    const rng = new Rng(1);
    const mask = Uint8Array.from([0, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
    for (let i = 0; i < 200; i++) expect([TOY.A, TOY.B]).toContain(uniformToken(mask, rng)[0]);
  });

  for (const form of [
    { qForm: 'soft', exploration: 'boltzmann', softAlpha: 0.3 },
    { qForm: 'hard', exploration: 'epsilon', doubleDqn: true, dueling: true, prioritized: true, epsilonDecay: 0.97 },
  ] as const) {
    it(`learns the two-step task from scratch (${form.qForm} Q, ${form.exploration}); the target syncs exactly; tensors stay flat`, async () => {
      const policy = new TransformerPolicy(policyConfig, 4);
      const dqn = new Dqn(policy, grammar, { ...base, ...form, learningRate: 3e-3, learningStarts: 8, trainFrequency: 4, dqnBatchSize: 16, targetNetworkFrequency: 10, gamma: 0.9 }, 2, frozen(policy));
      expect(await greedy(policy)).not.toEqual(answer); // not solved by the initial weights
      let tensors = 0;
      await train(policy, dqn, 60, 9, (round) => {
        if (round === 20) tensors = tf.memory().numTensors;
      });
      expect(tf.memory().numTensors).toBe(tensors);
      expect(await greedy(policy)).toEqual(answer);
      // A sync makes the target network the online one, bit for bit.
      dqn.syncTarget();
      const online = policy.getWeights();
      dqn.targetWeights().forEach((w, i) => expect(w.data).toEqual(online[i].data));
      dqn.dispose();
      policy.dispose();
    }, 60_000);
  }

  it('rebase (the loop told its weights start here) makes the target network those weights, also with a soft update (tau < 1)', () => {
    const policy = new TransformerPolicy(policyConfig, 4);
    const dqn = new Dqn(policy, grammar, { ...base, qForm: 'hard', tau: 0.005 }, 2);
    policy.setWeights(new TransformerPolicy(policyConfig, 42).getWeights()); // a warm start put in from outside (digits' warm start, the page's Pretrain)
    dqn.rebase();
    const online = policy.getWeights();
    dqn.targetWeights().forEach((w, i) => expect(w.data).toEqual(online[i].data));
    dqn.dispose();
    policy.dispose();
  });

  it('starts learning once the buffer is full, when it holds fewer programs than learningStarts', async () => {
    const policy = new TransformerPolicy(policyConfig, 9);
    // 16 tokens (the schema's least) hold five 3-token programs, never the 8 learningStarts asks for.
    const dqn = new Dqn(policy, grammar, { ...base, bufferSize: 16, learningStarts: 8, trainFrequency: 3, dqnBatchSize: 3 }, 1, frozen(policy));
    const episodes: Episode[] = [0, 1, 2].map(() => ({ prompt, tokens: answer, lineEnds: [], reward: 1 }));
    const first = await dqn.step(episodes);
    expect(first.skipped).toBe(true);
    expect(first.reason).toMatch(/filling the replay buffer/);
    const second = await dqn.step(episodes); // 6 programs added, 5 held: one has left
    expect(second.skipped).toBe(false);
    expect(Number.isFinite(second.loss)).toBe(true);
    dqn.dispose();
    policy.dispose();
  });

  it('soft form: Q reads log pi at the run\'s sampling temperature, the distribution Boltzmann exploration draws from', async () => {
    const policy = new TransformerPolicy(policyConfig, 8);
    // Some steps toward another answer, so that the tokens of this one are neither sure nor uniform.
    const warm = new SupervisedTrainer(policy, grammar, { learningRate: 1e-2, gradClip: 1 });
    for (let s = 0; s < 5; s++) await warm.step(Array(8).fill({ prompt, tokens: [TOY.A, TOY.EOL, TOY.DONE] }));
    warm.dispose();
    const meanLogProb = (temperature: number) => tf.tidy(() => {
      const batch = buildSequenceBatch([{ prompt, tokens: answer }], grammar, 16);
      const value = programTokenLogProbs(policy, batch, temperature).mean().arraySync() as number;
      disposeBatch(batch);
      return value;
    });
    const [atHalf, atOne] = [meanLogProb(0.5), meanLogProb(1)];
    expect(Math.abs(atHalf - atOne)).toBeGreaterThan(0.05); // the check below can tell them apart
    for (const temperature of [0.5, 1]) {
      // Uniform prior: Q = V + alpha log pi; with every reward 0 the calibrated V is 0, so the mean Q of the tokens taken is alpha times their mean log pi.
      const dqn = new Dqn(policy, grammar, { ...base, softPrior: 'uniform', softAlpha: 0.5, temperature, learningRate: 1e-9, dqnBatchSize: 4 }, 1);
      for (let i = 0; i < 4; i++) dqn.buffer.add({ prompt, tokens: answer, reward: 0 });
      const { q } = await dqn.update();
      expect(q).toBeCloseTo(0.5 * (temperature === 0.5 ? atHalf : atOne), 4);
      dqn.dispose();
    }
    policy.dispose();
  });

  it('soft Q keeps a warm start: a policy that already writes the answer still writes it, and grows surer, after 40 updates', async () => {
    const policy = new TransformerPolicy(policyConfig, 7);
    const warm = new SupervisedTrainer(policy, grammar, { learningRate: 1e-2, gradClip: 1 });
    for (let s = 0; s < 60; s++) await warm.step(Array(8).fill({ prompt, tokens: answer }));
    warm.dispose();
    const logProb = () => tf.tidy(() => {
      const batch = buildSequenceBatch([{ prompt, tokens: answer }], grammar, 16);
      const value = programTokenLogProbs(policy, batch).sum().arraySync() as number;
      disposeBatch(batch);
      return value;
    });
    expect(await greedy(policy)).toEqual(answer);
    const before = logProb();
    const dqn = new Dqn(policy, grammar, { ...base, learningRate: 1e-3, learningStarts: 8, trainFrequency: 8, dqnBatchSize: 16, gamma: 0.9 }, 3, frozen(policy));
    await train(policy, dqn, 40, 11);
    expect(await greedy(policy)).toEqual(answer);
    expect(logProb()).toBeGreaterThan(before - 0.05);
    dqn.dispose();
    policy.dispose();
  }, 60_000);

  it('resumes exactly: its buffer, counters, target network and draws travel in its state', async () => {
    const make = () => {
      const policy = new TransformerPolicy(policyConfig, 5);
      return { policy, dqn: new Dqn(policy, grammar, { ...base, learningStarts: 8, trainFrequency: 8, dqnBatchSize: 8, prioritized: true }, 6, frozen(policy)) };
    };
    const straight = make();
    await train(straight.policy, straight.dqn, 6, 21);
    const first = make();
    const sampling = new Rng(21);
    await train(first.policy, first.dqn, 3, sampling);
    const saved = { weights: first.policy.getWeights(), optimizer: first.dqn.optimizerWeights(), state: first.dqn.state(), sampling: sampling.state() };
    const resumed = make();
    resumed.policy.setWeights(saved.weights);
    resumed.dqn.setOptimizerWeights(saved.optimizer);
    resumed.dqn.restore(saved.state);
    // The sampling RNG goes on from where the first run saved it, as a checkpoint's does.
    await train(resumed.policy, resumed.dqn, 3, new Rng(saved.sampling));
    expect(resumed.policy.getWeights().map((w) => [...w.data])).toEqual(straight.policy.getWeights().map((w) => [...w.data]));
    expect(resumed.dqn.buffer.toWeights()).toEqual(straight.dqn.buffer.toWeights());
    for (const { policy, dqn } of [straight, first, resumed]) {
      dqn.dispose();
      policy.dispose();
    }
  }, 60_000);
});
