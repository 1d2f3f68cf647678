/**
 * DQN's replay buffer of whole programs (dqn.ts): at most `capacity` transitions (tokens) in all,
 * the oldest programs leaving first; drawn uniformly, or by priority (Schaul et al. 2016: each
 * program's priority^alpha, stratified draws, importance weights (N p)^-beta over their max).
 * Priorities are per program (the mean |TD error| of its transitions): the buffer is small (a few
 * thousand programs), so draws take a prefix sum in O(N) rather than a sum tree. It travels in
 * checkpoints as two tensors (`dqn/replay/...`).
 */
import type { WeightArray } from '../model/transformer';
import type { Rng } from '../rng';

export interface StoredProgram {
  prompt: number[];
  tokens: number[];
  reward: number;
}

export class ReplayBuffer {
  private items: StoredProgram[] = [];
  private priorities: number[] = [];
  private stored = 0;
  private maxPriority = 1;

  constructor(readonly capacity: number, private readonly prioritized = false, private readonly alpha = 0.6) {}

  /** Programs held. */
  get size(): number {
    return this.items.length;
  }

  /** Transitions (tokens) held. */
  get transitions(): number {
    return this.stored;
  }

  add(program: StoredProgram): void {
    // Held as a checkpoint holds it (float32), so a resumed buffer is this one exactly.
    this.items.push({ ...program, reward: Math.fround(program.reward) });
    this.priorities.push(this.maxPriority);
    this.stored += program.tokens.length;
    while (this.stored > this.capacity && this.items.length > 1) {
      this.stored -= this.items[0].tokens.length;
      this.items.shift();
      this.priorities.shift();
    }
  }

  at(index: number): StoredProgram {
    return this.items[index];
  }

  /** `count` indices, uniformly or by priority, with their importance weights (1 when uniform; max-normalised). */
  sample(count: number, rng: Rng, beta = 1): { indices: number[]; weights: number[] } {
    const n = this.items.length;
    if (n === 0) throw new Error('the replay buffer is empty');
    if (!this.prioritized) {
      const indices = Array.from({ length: count }, () => rng.int(0, n - 1));
      return { indices, weights: indices.map(() => 1) };
    }
    const mass = this.priorities.map((p) => p ** this.alpha);
    const prefix: number[] = [];
    mass.reduce((sum, m, i) => (prefix[i] = sum + m), 0);
    const total = prefix[n - 1];
    const indices: number[] = [];
    for (let i = 0; i < count; i++) {
      // Stratified: one draw from each of `count` equal slices of the total.
      const target = ((i + rng.next()) / count) * total;
      let lo = 0;
      let hi = n - 1;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (prefix[mid] < target) lo = mid + 1;
        else hi = mid;
      }
      indices.push(lo);
    }
    const raw = indices.map((index) => (n * (mass[index] / total)) ** -beta);
    const max = Math.max(...raw);
    return { indices, weights: raw.map((w) => w / max) };
  }

  /** Sets a program's priority (its mean |TD error| + a small constant, before alpha). */
  setPriority(index: number, priority: number): void {
    if (!this.prioritized || index >= this.items.length) return;
    this.priorities[index] = Math.fround(priority);
    this.maxPriority = Math.max(this.maxPriority, this.priorities[index]);
  }

  /** The buffer as tensors: every prompt and program end to end, and per program its lengths, reward and priority. */
  toWeights(): WeightArray[] {
    const tokens = new Float32Array(this.items.reduce((sum, p) => sum + p.prompt.length + p.tokens.length, 0));
    const index = new Float32Array(this.items.length * 4);
    let at = 0;
    this.items.forEach((p, i) => {
      tokens.set(p.prompt, at);
      tokens.set(p.tokens, at + p.prompt.length);
      at += p.prompt.length + p.tokens.length;
      index.set([p.prompt.length, p.tokens.length, p.reward, this.priorities[i]], i * 4);
    });
    return [
      { name: 'dqn/replay/tokens', shape: [tokens.length], data: tokens },
      { name: 'dqn/replay/index', shape: [this.items.length, 4], data: index },
      // The largest priority ever set, which new programs take: it may belong to a program gone since.
      { name: 'dqn/replay/max_priority', shape: [1], data: new Float32Array([this.maxPriority]) },
    ];
  }

  /** The buffer a checkpoint holds, replacing this one's (nothing when the checkpoint has none). */
  fromWeights(weights: readonly WeightArray[]): void {
    const tokens = weights.find((w) => w.name === 'dqn/replay/tokens');
    const index = weights.find((w) => w.name === 'dqn/replay/index');
    if (!tokens || !index) return;
    const items: StoredProgram[] = [];
    const priorities: number[] = [];
    let at = 0;
    for (let i = 0; i < index.data.length / 4; i++) {
      const [promptLength, tokenLength, reward, priority] = index.data.subarray(i * 4, i * 4 + 4);
      if (!Number.isInteger(promptLength) || !Number.isInteger(tokenLength) || at + promptLength + tokenLength > tokens.data.length) throw new Error('dqn/replay: its index does not match its tokens');
      items.push({ prompt: [...tokens.data.subarray(at, at + promptLength)], tokens: [...tokens.data.subarray(at + promptLength, at + promptLength + tokenLength)], reward });
      priorities.push(priority);
      at += promptLength + tokenLength;
    }
    this.items = items;
    this.priorities = priorities;
    this.stored = items.reduce((sum, p) => sum + p.tokens.length, 0);
    const max = weights.find((w) => w.name === 'dqn/replay/max_priority');
    this.maxPriority = max ? max.data[0] : Math.max(1, ...priorities);
  }
}
