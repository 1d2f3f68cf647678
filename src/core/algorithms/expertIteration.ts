/**
 * Expert iteration: the search teaches the policy (Anthony et al. 2017, ExIt; Zelikman et al.
 * 2022, STaR; Singh et al. 2023, ReST-EM). A round, on the one loop (loop.ts): the loop samples
 * `numSamples` programs for each of a batch of training items and the task scores them; for the
 * items none of them solved, the loop runs the task's own search (`search`: Kolmogorov's repair,
 * then split); every correct program, sampled or found, is offered to a demonstration store that
 * keeps the best per item (lowest cost, the task's length measure, then fewest tokens; a better
 * one replaces a worse; the oldest go past `storeSize`). Then `sftStepsPerRound` supervised steps
 * (cross-entropy on the program tokens under the grammar's mask, training.ts) on batches drawn
 * from the store. With `restartEachRound` (ReST-EM) the policy goes back to the warm start, with a
 * fresh optimizer, before each round's steps, so each round fits the whole store afresh.
 *
 * The store travels in checkpoints (beside Adam's state, as tensors: `expert/store/...`), with
 * the round count and the draw's RNG, so a resume continues exactly. A round whose store is still
 * empty says so and changes nothing.
 *
 * Figures of a round: search_solved (share of the round's items with a correct program, sampled
 * or found), store_size, store_mean_cost, store_added and store_improved, sft_loss; the loop adds
 * policy_solved (the policy alone, greedy, on a fixed slice of the training items: `greedyProbe`).
 */
import { z } from 'zod';
import type { AlgorithmDefinition, Episode, PolicyAlgorithm } from '../algorithm';
import { int, type AlgorithmCommonConfig, type BaseConfig, type Infer } from '../configSections';
import type { Grammar } from '../grammar';
import type { TransformerPolicy, WeightArray } from '../model/transformer';
import { Rng, type RngState } from '../rng';
import { shardFailureNote, type GradientShard } from '../gradientShards';
import { SupervisedTrainer } from './supervised';

export const expertIterationFields = {
  numSamples: int(1, 256).default(8).describe('expert_iteration: programs sampled per training item each round (the search starts from them).'),
  search: z.enum(['samples', 'repair', 'full']).default('full').describe('expert_iteration: the search run on the items no sample solved: none (samples), the task\'s repair search (repair), or repair then split search (full); a task without them keeps its samples.'),
  rounds: int(0, 10_000_000).default(0).describe('expert_iteration: rounds to run (each is one loop step); 0 leaves it to run.maxSteps.'),
  sftStepsPerRound: int(0, 10_000).default(4).describe('expert_iteration: supervised steps on the demonstration store after each round\'s search (0: the store grows, the policy stays).'),
  storeSize: int(1, 1_000_000).default(4096).describe('expert_iteration: most items the demonstration store keeps (the oldest go first).'),
  restartEachRound: z.boolean().default(false).describe('expert_iteration: ReST-EM\'s restart: each round\'s supervised steps start from the warm start (fresh optimizer) instead of continuing.'),
  rehearsal: z.number().min(0).max(1).default(0.5).describe('expert_iteration: share of each supervised batch drawn from the task\'s own warm-start pairs (its generator, never a held-out item) rather than the store, so the policy keeps what its warm start knew; 0 = the store alone.'),
  greedyProbe: int(0, 4096).default(32).describe('expert_iteration: training items (a fixed slice) the policy alone writes greedily each round, for the policy_solved figure; 0 = off.'),
};

export type ExpertIterationConfig = AlgorithmCommonConfig & Infer<typeof expertIterationFields>;

/** The best solution known for one item. */
export interface Demonstration {
  prompt: number[];
  tokens: number[];
  /** The task's length measure (bits), or the token count where the task has none. */
  cost: number;
  /** The round it was found in. */
  round: number;
}

/** Whether `a` beats `b`: lower cost, then fewer tokens. */
const better = (a: Pick<Demonstration, 'cost' | 'tokens'>, b: Pick<Demonstration, 'cost' | 'tokens'>) => a.cost < b.cost || (a.cost === b.cost && a.tokens.length < b.tokens.length);

/** The best solution per item, capped at `capacity` items (the oldest go first); a Map keeps insertion order. */
export class DemonstrationStore {
  private readonly byItem = new Map<string, Demonstration>();

  constructor(readonly capacity: number) {}

  get size(): number {
    return this.byItem.size;
  }

  entries(): Demonstration[] {
    return [...this.byItem.values()];
  }

  /** Offers a correct program; returns what happened to it. */
  offer(offered: Demonstration): 'added' | 'improved' | 'kept' {
    // The cost as a checkpoint stores it (float32): a resumed store then judges every offer as the live one did.
    const demonstration = { ...offered, cost: Math.fround(offered.cost) };
    const key = demonstration.prompt.join(',');
    const held = this.byItem.get(key);
    if (held && !better(demonstration, held)) return 'kept';
    this.byItem.delete(key); // re-inserted last: a better solution makes an item new again
    this.byItem.set(key, demonstration);
    while (this.byItem.size > this.capacity) this.byItem.delete(this.byItem.keys().next().value!);
    return held ? 'improved' : 'added';
  }

  meanCost(): number {
    return this.size ? this.entries().reduce((sum, d) => sum + d.cost, 0) / this.size : NaN;
  }

  /** The store as tensors for a checkpoint: every prompt and program end to end, and per item its lengths, cost and round. */
  toWeights(): WeightArray[] {
    const entries = this.entries();
    const tokens = new Float32Array(entries.reduce((sum, d) => sum + d.prompt.length + d.tokens.length, 0));
    const index = new Float32Array(entries.length * 4);
    let at = 0;
    entries.forEach((d, i) => {
      tokens.set(d.prompt, at);
      tokens.set(d.tokens, at + d.prompt.length);
      at += d.prompt.length + d.tokens.length;
      index.set([d.prompt.length, d.tokens.length, d.cost, d.round], i * 4);
    });
    return [
      { name: 'expert/store/tokens', shape: [tokens.length], data: tokens },
      { name: 'expert/store/index', shape: [entries.length, 4], data: index },
    ];
  }

  /** The store a checkpoint holds (replacing this one's); refused whole when its tensors disagree. */
  fromWeights(weights: readonly WeightArray[]): void {
    const tokens = weights.find((w) => w.name === 'expert/store/tokens');
    const index = weights.find((w) => w.name === 'expert/store/index');
    if (!tokens || !index) return;
    const entries: Demonstration[] = [];
    let at = 0;
    for (let i = 0; i < index.data.length / 4; i++) {
      const [promptLength, tokenLength, cost, round] = index.data.subarray(i * 4, i * 4 + 4);
      if (!Number.isInteger(promptLength) || !Number.isInteger(tokenLength) || at + promptLength + tokenLength > tokens.data.length) throw new Error('expert/store: its index does not match its tokens');
      entries.push({ prompt: [...tokens.data.subarray(at, at + promptLength)], tokens: [...tokens.data.subarray(at + promptLength, at + promptLength + tokenLength)], cost, round });
      at += promptLength + tokenLength;
    }
    this.byItem.clear();
    for (const d of entries) this.byItem.set(d.prompt.join(','), d);
  }
}

export class ExpertIteration implements PolicyAlgorithm {
  readonly baseline = undefined;
  readonly store: DemonstrationStore;
  private trainer: SupervisedTrainer;
  private round = 0;
  private rng: Rng;
  /** The task's warm-start pairs, made on the first rehearsal; how many were drawn (a resume draws as many again to go on where it was). */
  private rehearse: ((size: number) => { prompt: number[]; tokens: number[] }[]) | null = null;
  private rehearsedCount = 0;
  private shardsFailed = false;

  constructor(
    private readonly policy: TransformerPolicy,
    private readonly grammar: Grammar<unknown>,
    private readonly config: ExpertIterationConfig,
    private readonly reference: TransformerPolicy | undefined,
    seed: number,
    private readonly warmStartPairs?: () => (size: number) => { prompt: number[]; tokens: number[] }[],
    private readonly shards: readonly GradientShard[] = [],
    private readonly log?: (text: string) => void,
  ) {
    this.store = new DemonstrationStore(config.storeSize);
    this.trainer = this.newTrainer();
    this.rng = new Rng(seed ^ 0xe1e1);
  }

  /** The supervised trainer, its steps split with the gradient shards while they work (data parallelism). */
  private newTrainer(): SupervisedTrainer {
    const trainer = new SupervisedTrainer(this.policy, this.grammar, { learningRate: this.config.learningRate, gradClip: this.config.gradClip });
    if (!this.shardsFailed) {
      trainer.useShards(this.shards, (message) => {
        this.shardsFailed = true;
        this.log?.(shardFailureNote(message));
      });
    }
    return trainer;
  }

  get optimizer() {
    return this.trainer.optimizer;
  }

  async update(episodes: readonly Episode[]) {
    this.round += 1;
    const groups = new Set(episodes.map((e) => e.group ?? 0));
    const solved = new Set<number>();
    let added = 0;
    let improved = 0;
    for (const e of episodes) {
      if (!e.correct || e.tokens.length === 0) continue;
      solved.add(e.group ?? 0);
      const result = this.store.offer({ prompt: [...e.prompt], tokens: [...e.tokens], cost: e.cost ?? e.tokens.length, round: this.round });
      if (result === 'added') added += 1;
      if (result === 'improved') improved += 1;
    }
    const metrics: Record<string, number> = {
      search_solved: solved.size / Math.max(1, groups.size),
      store_size: this.store.size,
      store_mean_cost: this.store.meanCost(),
      store_added: added,
      store_improved: improved,
    };
    if (this.store.size === 0) return { loss: NaN, gradNorm: NaN, skipped: true, reason: 'the demonstration store is empty: no program of this round was correct, sampled or found', metrics, expected: true };
    if (this.config.restartEachRound && this.reference) {
      // ReST-EM: each round fits the whole store from the warm start, with a fresh optimizer.
      this.policy.setWeights(this.reference.getWeights());
      const rate = this.trainer.optimizer.learningRate; // the run's schedule (or a rate set by hand) stays
      this.trainer.dispose();
      this.trainer = this.newTrainer();
      this.trainer.optimizer.learningRate = rate;
    }
    const entries = this.store.entries();
    // Rehearsal: part of each batch from the task's own warm-start pairs, so what the warm start knew stays.
    const rehearsed = this.warmStartPairs ? Math.round(this.config.batchSize * this.config.rehearsal) : 0;
    if (rehearsed > 0 && !this.rehearse) {
      this.rehearse = this.warmStartPairs!();
      // A resumed run's stream goes on where it was: drawn again as it was drawn, a batch's share at a time (a stream may draw by the call).
      for (let drawn = 0; drawn < this.rehearsedCount; drawn += rehearsed) this.rehearse(Math.min(rehearsed, this.rehearsedCount - drawn));
    }
    const fromStore = Math.min(this.config.batchSize - rehearsed, entries.length);
    let loss = 0;
    let steps = 0;
    for (let s = 0; s < this.config.sftStepsPerRound; s++) {
      const pairs = [...Array.from({ length: fromStore }, () => entries[this.rng.int(0, entries.length - 1)]), ...(rehearsed > 0 ? this.rehearse!(rehearsed) : [])];
      this.rehearsedCount += rehearsed;
      const result = await this.trainer.step(pairs.map((d) => ({ prompt: d.prompt, tokens: d.tokens })));
      metrics.update_threads = result.threads;
      if (result.skipped) {
        if (steps === 0) return { loss: NaN, gradNorm: NaN, skipped: true, reason: `supervised step ${s + 1}: ${result.reason}`, metrics };
        // The steps before it changed the weights: the round is an update, its later steps not taken.
        this.log?.(`expert iteration round ${this.round}: supervised step ${s + 1} of ${this.config.sftStepsPerRound} skipped (${result.reason}); the round keeps its first ${steps}`);
        break;
      }
      loss += result.loss;
      steps += 1;
    }
    if (steps === 0) return { loss: NaN, gradNorm: NaN, skipped: true, reason: 'no supervised step asked for (sftStepsPerRound 0)', metrics };
    metrics.sft_loss = loss / steps;
    return { loss: loss / steps, gradNorm: NaN, skipped: false, metrics };
  }

  search() {
    if (this.config.search === 'samples') return null;
    return { name: this.config.search === 'full' ? 'greedy + repair + split' : 'greedy + repair', k: 1, options: { repair: true, split: this.config.search === 'full' } };
  }

  probe(): number {
    return this.config.greedyProbe;
  }

  setBaseline(): void {
    // Expert iteration has no baseline.
  }

  optimizerWeights(): WeightArray[] {
    return [...this.trainer.optimizer.getState(this.policy.weightNames()), ...this.store.toWeights()];
  }

  setOptimizerWeights(state: readonly WeightArray[]): void {
    this.trainer.optimizer.setState(state.filter((w) => !w.name.startsWith('expert/')), this.policy.weightNames());
    this.store.fromWeights(state);
  }

  state(): { round: number; rng: RngState; rehearsed: number } {
    return { round: this.round, rng: this.rng.state(), rehearsed: this.rehearsedCount };
  }

  restore(state: unknown): void {
    const saved = state as { round?: unknown; rng?: unknown; rehearsed?: unknown };
    if (typeof saved?.round === 'number' && Number.isInteger(saved.round)) this.round = saved.round;
    if (Array.isArray(saved?.rng)) this.rng = new Rng(saved.rng as RngState);
    if (typeof saved?.rehearsed === 'number' && Number.isInteger(saved.rehearsed) && saved.rehearsed >= 0) {
      this.rehearsedCount = saved.rehearsed;
      this.rehearse = null; // made again on the next round, and moved on as far
    }
  }

  dispose(): void {
    this.trainer.dispose();
  }
}

type ExpertIterationRun = BaseConfig & { algorithm: ExpertIterationConfig };

export const expertIteration: AlgorithmDefinition<ExpertIterationRun> = {
  name: 'expert_iteration',
  doc: 'expert iteration (ExIt, STaR, ReST-EM): the task\'s search around the policy\'s samples finds programs, the best per item is kept, and supervised steps teach them to the policy.',
  fields: expertIterationFields,
  accumulates: false,
  mixesBatches: true,
  dataParallel: true,
  charts: [
    { name: 'search_solved', title: 'solved by the search (expert iteration)', optional: true, caption: 'Share of each round\'s training items with a correct program: sampled, or found by the task\'s search around the samples.' },
    { name: 'policy_solved', title: 'solved by the policy alone (greedy)', optional: true, caption: 'Share of a fixed slice of the training items the policy solves greedily, without search: what the search has taught it.' },
    { name: 'store_size', title: 'demonstration store', optional: true, caption: 'Items with a known solution in the store the supervised steps learn from.' },
    { name: 'store_mean_cost', title: 'store: mean cost (bits)', optional: true, caption: 'Mean length of the stored solutions, in the task\'s measure (Kolmogorov: prior bits); it falls as better programs replace worse ones.' },
  ],
  groupSize: (config) => config.algorithm.numSamples,
  stepLimit: (config) => config.algorithm.rounds,
  needsReference: (config) => config.algorithm.restartEachRound,
  create: ({ config, policy, grammar, reference, warmStartPairs, gradientShards, log }) => new ExpertIteration(policy, grammar, config.algorithm, reference, config.run.seed, warmStartPairs, gradientShards, log),
};
