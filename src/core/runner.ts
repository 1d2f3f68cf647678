/**
 * The training runner of the Kolmogorov task: sample programs from the policy under the
 * DSL grammar, run them in the sandbox pool, turn outcomes into rewards, update the policy
 * with REINFORCE, and report metrics. The CLI, the trainer worker and the tests all drive
 * this one loop; where it runs only changes the sandbox pool and the tfjs backend.
 *
 * Reward (seed "Reinforcement Learning Training for Kolmogorov Complexity"):
 * rewardConstant - lengthPenalty * bits when the program's output equals the sequence, 0
 * otherwise (or, with prefixCredit, partial credit for the prefix a wrong output gets right);
 * bits come from the prior (KOLMOGOROV.md), not from characters.
 *
 * Pipelining: while the sandbox pool evaluates batch n, nothing else runs on the policy;
 * sampling of batch n+1 needs the weights after update n, so the loop is on-policy and
 * sequential by design. Evaluation overlaps sandbox work with sampling of the next chunk.
 */
import { decodeCheckpoint, encodeCheckpoint, compatibleWith, CheckpointError, type NamedTensor } from './checkpoint';
import type { LabConfig } from './config';
import type { KolmogorovRecord } from './data/records';
import { Reinforce, type Episode } from './algorithms/reinforce';
import { kolmogorovPrelude } from './kolmogorov/prelude';
import { printProgram, type Program } from './kolmogorov/program';
import { programBits } from './kolmogorov/prior';
import { ktMetrics, ktMetricsByLength, prefixShare, type LengthBucketMetrics, type ScoredSample } from './kolmogorov/metrics';
import { closeness, oneEditAway, repairSearch, type Annotated } from './kolmogorov/repair';
import { splitPrograms, splitSearch, trainingPieces, type WrittenPiece } from './kolmogorov/split';
import { KolmogorovGrammar, VALUE0, encodePrompt, tokensToProgram, vocabSize } from './kolmogorov/grammar';
import { sampleBatch, type SampledSequence } from './model/sampler';
import { TransformerPolicy, type PolicyConfig } from './model/transformer';
import { Rng } from './rng';
import type { KtMetrics, SampleRecord, StepResult } from './runnerTypes';
import type { SandboxPool } from './sandbox/pool';
import type { OutcomeKind, SandboxJob, SandboxOutcome } from './sandbox/outcome';
import { outcomeKinds } from './sandbox/outcome';

export const preludes = { kolmogorov: kolmogorovPrelude };

export interface RunnerDeps {
  pool: SandboxPool;
  onLog?: (text: string) => void;
  /**
   * A checkpoint whose weights start the policy (a warm start). Its step, optimizer and RNG
   * are not taken: the run starts at step 0. With algorithm.klCoef > 0 the same weights
   * also become the frozen reference policy of the KL penalty.
   */
  initFrom?: Uint8Array;
}

export interface RunnerData {
  train: KolmogorovRecord[];
  heldout: KolmogorovRecord[];
}

export interface EvaluateOptions {
  /** Evaluate only the first `limit` records. */
  limit?: number;
  /**
   * Programs per sequence; the shortest correct one counts (best-of-k). The first is the
   * greedy program and the other k - 1 are sampled, so best-of-k never scores below greedy.
   * 1 = greedy only.
   */
  k?: number;
  /** Sampling temperature of the k - 1 sampled programs. */
  temperature?: number;
  /**
   * Repair (kolmogorov/repair.ts): when none of the k programs is correct, search the programs
   * one edit away from the `repairBeam` closest ones, using `repair` runner-ups per token. 0 = off.
   */
  repair?: number;
  /** Rounds of repair: each edits the `repairBeam` closest wrong programs of the last once more. */
  repairRounds?: number;
  repairBeam?: number;
  /**
   * Split search (kolmogorov/split.ts): when no program is correct after sampling and repair,
   * the policy writes the sequence piece by piece (greedy, one program per piece) for up to
   * `split` rounds, pieces end to end or one woven in with interleave, and the cheapest
   * confirmed cover is joined into one program. 0 = off.
   */
  split?: number;
  /** Called after each chunk with the number of records done. */
  onProgress?: (done: number, total: number) => void;
}

/** Which search found the kept program: the k samples, repair around them, or split search. */
export type FoundBy = 'sample' | 'repair' | 'split';

export interface EvaluationResult extends KtMetrics {
  byLength: LengthBucketMetrics[];
  /**
   * The same programs scored as each narrower search would have kept them, narrowest first:
   * greedy (the first program), best-of-k, + repair, + split, as far as the options go. The
   * last is this result itself.
   */
  searches: (KtMetrics & { search: string; byLength: LengthBucketMetrics[] })[];
  /** One row per record: the kept program and its outcome. */
  rows: { program: string | null; outcome: OutcomeKind | 'incomplete'; bits: number; foundBy: FoundBy }[];
}

export interface Runner {
  readonly config: LabConfig;
  readonly globalStep: number;
  readonly policy: TransformerPolicy;
  step(): Promise<StepResult>;
  evaluate(records: KolmogorovRecord[], options?: EvaluateOptions): Promise<EvaluationResult>;
  saveCheckpoint(): Promise<Uint8Array>;
  loadCheckpoint(bytes: Uint8Array): Promise<void>;
  dispose(): void;
}

/** A sampled token sequence turned into a sandbox job, or the reason it cannot run. */
interface Candidate {
  program: Program | null;
  text: string;
  bits: number;
  lines: number;
}

function toCandidate(sample: SampledSequence, prior: LabConfig['task']['prior']): Candidate {
  if (!sample.complete) return { program: null, text: '', bits: 0, lines: 0 };
  return candidateOf(tokensToProgram(sample.tokens), prior);
}

function candidateOf(program: Program, prior: LabConfig['task']['prior']): Candidate {
  return { program, text: printProgram(program), bits: programBits(program, prior), lines: program.lines.length };
}

/** The well-formed programs one edit away from `program` not `seen` before (kolmogorov/repair.ts). */
function editsOf(program: Annotated, seen: Set<string>, prior: LabConfig['task']['prior']): { program: Annotated; candidate: Candidate }[] {
  const out: { program: Annotated; candidate: Candidate }[] = [];
  for (const edited of oneEditAway(program)) {
    let parsed: Program;
    try {
      parsed = tokensToProgram(edited.tokens);
    } catch {
      continue; // the edit breaks the grammar (a reference to a later line, a missing argument)
    }
    const candidate = candidateOf(parsed, prior);
    if (seen.has(candidate.text)) continue;
    seen.add(candidate.text);
    out.push({ program: edited, candidate });
  }
  return out;
}

/** The `beam` programs whose outputs come closest to `target` (kolmogorov/repair.ts), closest first; those without output are dropped. */
function closest(tried: readonly { program: Annotated; output?: readonly number[] | null }[], target: readonly number[], beam: number): Annotated[] {
  return tried
    .map(({ program, output }) => ({ program, score: closeness(output, target) }))
    .filter(({ score }) => score >= 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, beam)
    .map(({ program }) => program);
}

/** The `beam` sampled programs (with their runner-ups) whose outputs come closest to `target`: where repair starts. */
function closestSamples(samples: readonly SampledSequence[], outcomes: readonly SandboxOutcome[], target: readonly number[], beam: number): Annotated[] {
  const tried = samples.map((sample, j) => ({
    program: { tokens: sample.tokens, alternatives: sample.alternatives ?? [] },
    output: sample.complete ? outcomes[j].output : null,
  }));
  return closest(tried, target, beam);
}

function jobFor(candidate: Candidate, expected: readonly number[], seed: number): SandboxJob | null {
  return candidate.program ? { source: candidate.text, expected, seed, prelude: 'kolmogorov' } : null;
}

/** Runs the jobs that exist; a sample that never completed counts as invalid output. */
async function evaluateCandidates(pool: SandboxPool, jobs: (SandboxJob | null)[]): Promise<SandboxOutcome[]> {
  const runnable = jobs.filter((job): job is SandboxJob => job !== null);
  const outcomes = runnable.length ? await pool.evaluateBatch(runnable) : [];
  let next = 0;
  return jobs.map((job) =>
    job ? outcomes[next++] : { kind: 'output_invalid', message: 'program incomplete: token budget exhausted', elapsedMs: 0 },
  );
}

/**
 * The reward of one program: rewardConstant - lengthPenalty * bits when correct; when it runs
 * but is wrong, prefixCredit times the share of the sequence its output gets right from the
 * start (at most prefixCredit, which should stay below a correct program's reward); else 0.
 */
export function kolmogorovReward(
  algorithm: Pick<LabConfig['algorithm'], 'rewardConstant' | 'lengthPenalty' | 'prefixCredit'>,
  outcome: { kind: OutcomeKind; output?: readonly number[] | null },
  bits: number,
  target: readonly number[],
): number {
  if (outcome.kind === 'ok') return algorithm.rewardConstant - algorithm.lengthPenalty * bits;
  if (outcome.kind === 'wrong' && algorithm.prefixCredit > 0) return algorithm.prefixCredit * prefixShare(outcome.output, target);
  return 0;
}

/** Best-of-k (the benchmark's search at evaluation): the shortest correct sample, else the first. */
export function bestOfK(samples: readonly { correct: boolean; bits: number }[]): number {
  let best = -1;
  samples.forEach((sample, i) => {
    if (sample.correct && (best < 0 || sample.bits < samples[best].bits)) best = i;
  });
  return best >= 0 ? best : 0;
}

/** The weights of a checkpoint, validated for a model of `config`, before anything is touched. */
async function checkpointWeights(bytes: Uint8Array, config: LabConfig): Promise<{ name: string; shape: number[]; data: Float32Array }[]> {
  const { meta, tensors } = await decodeCheckpoint(bytes);
  const problem = compatibleWith(meta, config);
  if (problem) throw new CheckpointError(problem);
  if (meta.vocab && meta.vocab.size !== vocabSize) {
    throw new CheckpointError(`checkpoint vocabulary has ${meta.vocab.size} tokens, this model has ${vocabSize}`);
  }
  return tensors.filter((t) => t.group === 'weights').map(({ name, shape, data }) => ({ name, shape, data: data as Float32Array }));
}

/** The policy of the Kolmogorov task for a config: its vocabulary, and value tokens as numbers. */
export function kolmogorovPolicyConfig(config: LabConfig): PolicyConfig {
  const { numberCode, valueDeltas, ...model } = config.model;
  return {
    vocabSize,
    ...model,
    numberTokens: numberCode ? { first: VALUE0, count: 256 } : undefined,
    valueDeltas: valueDeltas ? { first: VALUE0, count: 256, max: 8 } : undefined,
  };
}

/**
 * The training records RL samples from: those within `task.maxTrainLength` values (0: all),
 * and `task.trainPieces` pieces of each longer one (`trainingPieces`).
 */
export function trainingRecords(config: LabConfig, train: KolmogorovRecord[]): KolmogorovRecord[] {
  const { maxTrainLength: max, trainPieces } = config.task;
  if (max === 0) {
    if (trainPieces > 0) throw new Error('task.trainPieces needs task.maxTrainLength: pieces are cut from the sequences longer than it');
    return train;
  }
  const kept = train.filter((record) => record.sequence.length <= max);
  if (trainPieces === 0) {
    if (kept.length === 0 && train.length > 0) throw new Error(`task.maxTrainLength ${max}: none of the ${train.length} training sequences is that short`);
    return kept;
  }
  const rng = new Rng(config.run.seed ^ 0x91ece5);
  const longer = train.filter((record) => record.sequence.length > max);
  return [...kept, ...longer.flatMap((record) => trainingPieces(record.sequence, trainPieces, max, rng).map((sequence) => ({ sequence })))];
}

export async function createRunner(config: LabConfig, loaded: RunnerData, deps: RunnerDeps): Promise<Runner> {
  if (config.model.dModel % config.model.heads !== 0) {
    throw new Error(`model.dModel (${config.model.dModel}) must be divisible by model.heads (${config.model.heads})`);
  }
  const data: RunnerData = { ...loaded, train: trainingRecords(config, loaded.train) };
  const grammar = new KolmogorovGrammar();
  const policyConfig = kolmogorovPolicyConfig(config);
  const policy = new TransformerPolicy(policyConfig, config.run.seed);
  let reference: TransformerPolicy | undefined;
  if (deps.initFrom) {
    const weights = await checkpointWeights(deps.initFrom, config);
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
  let order = permutation(data.train.length, config.run.seed);
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
        order = permutation(data.train.length, config.run.seed + epoch);
      }
      picked.push(order[cursor++]);
    }
    return picked;
  }

  function promptOf(record: KolmogorovRecord): number[] {
    return encodePrompt(record.sequence, config.task.maxSequenceLength);
  }

  async function step(): Promise<StepResult> {
    if (data.train.length === 0) throw new Error('the training set is empty: load a dataset with at least one valid record');
    const stepStart = performance.now();
    const groupSize = config.algorithm.groupSize;
    const groups = Math.max(1, Math.round(config.algorithm.batchSize / groupSize));
    const itemIndices = nextItems(groups).flatMap((index) => Array(groupSize).fill(index) as number[]);
    const prompts = itemIndices.map((index) => promptOf(data.train[index]));

    const sampleStart = performance.now();
    const { repairDemos } = config.algorithm;
    const samples = await sampleBatch(policy, grammar, prompts, {
      maxTokens: config.model.maxProgramTokens,
      temperature: config.algorithm.temperature,
      rng,
      alternatives: repairDemos,
    });
    const sampleMs = performance.now() - sampleStart;
    const tokensSampled = samples.reduce((sum, s) => sum + s.tokens.length, 0);

    const candidates = samples.map((sample) => toCandidate(sample, config.task.prior));
    const evalStart = performance.now();
    const outcomes = await evaluateCandidates(
      deps.pool,
      candidates.map((candidate, i) => jobFor(candidate, data.train[itemIndices[i]].sequence, config.run.seed + globalStep)),
    );
    const evalMs = performance.now() - evalStart;

    const rewards = outcomes.map((outcome, i) => kolmogorovReward(config.algorithm, outcome, candidates[i].bits, data.train[itemIndices[i]].sequence));
    const episodes: Episode[] = samples.map((sample, i) => ({
      prompt: prompts[i],
      tokens: sample.tokens,
      lineEnds: sample.lineEnds,
      reward: rewards[i],
      group: Math.floor(i / groupSize),
    }));
    const demos = repairDemos > 0 ? await repairDemonstrations(itemIndices, prompts, samples, outcomes, groupSize) : [];
    episodes.push(...demos);
    const updateStart = performance.now();
    const update = await algorithm.step(episodes);
    const updateMs = performance.now() - updateStart;
    globalStep += 1;

    // KT metrics count each sequence once: a group's samples share one, and gzip of a sequence
    // repeated groupSize times would flatter the failures. The group's shortest correct sample
    // stands for it (what best-of-k evaluation keeps); accuracy stays the share of samples.
    const scored: ScoredSample[] = [];
    for (let start = 0; start < outcomes.length; start += groupSize) {
      const group = outcomes.slice(start, start + groupSize);
      const i = start + bestOfK(group.map((o, j) => ({ correct: o.kind === 'ok', bits: candidates[start + j].bits })));
      scored.push({
        sequence: data.train[itemIndices[i]].sequence,
        output: outcomes[i].output ?? null,
        correct: outcomes[i].kind === 'ok',
        bits: candidates[i].bits,
        program: candidates[i].text,
      });
    }
    const batchMetrics = ktMetrics(scored);
    const correct = outcomes.map((o, i) => (o.kind === 'ok' ? i : -1)).filter((i) => i >= 0);
    const mean = (values: number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
    const stepMs = performance.now() - stepStart;
    const metrics: Record<string, number> = {
      avg_reward: mean(rewards),
      ...(repairDemos > 0 ? { repair_demos: demos.length } : {}),
      accuracy: outcomes.filter((o) => o.kind === 'ok').length / outcomes.length,
      compression_rate: batchMetrics.compressionRate,
      gzip_rate: batchMetrics.gzipRate,
      policy_loss: update.loss,
      entropy: update.entropy,
      kl: update.kl,
      grad_norm: update.gradNorm,
      program_bits: mean(correct.map((i) => candidates[i].bits)),
      all_program_bits: mean(candidates.filter((c) => c.program).map((c) => c.bits)),
      program_lines: mean(candidates.filter((c) => c.program).map((c) => c.lines)),
      tokens_per_s: tokensSampled / (sampleMs / 1000),
      evals_per_s: outcomes.length / (evalMs / 1000),
      sample_ms: sampleMs,
      eval_ms: evalMs,
      update_ms: updateMs,
      step_ms: stepMs,
      epoch,
    };
    for (const kind of outcomeKinds) metrics[`outcome_${kind}`] = outcomes.filter((o) => o.kind === kind).length;

    const sampleRecords: SampleRecord[] = outcomes.map((outcome, i) => ({
      step: globalStep,
      itemIndex: itemIndices[i],
      target: data.train[itemIndices[i]].sequence,
      program: candidates[i].text,
      output: outcome.output,
      outcome: outcome.kind,
      reward: rewards[i],
      bits: candidates[i].bits,
    }));
    if (update.skipped) deps.onLog?.(`step ${globalStep}: update skipped (${update.reason})`);
    return { step: globalStep, metrics, samples: sampleRecords, skipped: update.skipped, reason: update.reason };
  }

  /**
   * Repair search (kolmogorov/repair.ts) for a batch of records at once: each round tries every
   * program one edit away from the ones kept, in the sandbox; a record stops at its first
   * correct program, else keeps the `beam` wrong ones closest to its sequence for the next round.
   */
  async function climb(
    seeds: Annotated[][],
    targets: readonly (readonly number[])[],
    seen: Set<string>[],
    { rounds, beam }: { rounds: number; beam: number },
  ): Promise<{ candidates: Candidate[]; outcomes: SandboxOutcome[]; tokens: number[][] }[]> {
    const found = targets.map(() => ({ candidates: [] as Candidate[], outcomes: [] as SandboxOutcome[], tokens: [] as number[][] }));
    let frontier = seeds;
    for (let round = 0; round < rounds && frontier.some((f) => f.length > 0); round++) {
      const tries = frontier.map((programs, r) => programs.flatMap((program) => editsOf(program, seen[r], config.task.prior)));
      const outcomes = await evaluateCandidates(
        deps.pool,
        tries.flatMap((edits, r) => edits.map(({ candidate }) => jobFor(candidate, targets[r], config.run.seed))),
      );
      let next = 0;
      frontier = tries.map((edits, r) => {
        const got = outcomes.slice(next, (next += edits.length));
        found[r].candidates.push(...edits.map((edit) => edit.candidate));
        found[r].tokens.push(...edits.map((edit) => edit.program.tokens));
        found[r].outcomes.push(...got);
        if (got.some((o) => o.kind === 'ok')) return [];
        return closest(edits.map((edit, j) => ({ program: edit.program, output: got[j].output })), targets[r], beam);
      });
    }
    return found;
  }

  /**
   * RL with repair demonstrations (algorithm.repairDemos): for each group whose samples all
   * fail, the repair search runs from its closest samples, and the shortest correct program it
   * finds joins the group as one more episode with its own reward. The group-mean baseline then
   * gives it a positive advantage where the group had none to learn from. It is off-policy (no
   * importance weight): a demonstration found by search around the policy's own programs.
   */
  async function repairDemonstrations(
    itemIndices: readonly number[],
    prompts: readonly number[][],
    samples: readonly SampledSequence[],
    outcomes: readonly SandboxOutcome[],
    groupSize: number,
  ): Promise<Episode[]> {
    const groups = Array.from({ length: samples.length / groupSize }, (_, g) => g);
    const failing = groups.filter((g) => !outcomes.slice(g * groupSize, (g + 1) * groupSize).some((o) => o.kind === 'ok'));
    const targets = failing.map((g) => data.train[itemIndices[g * groupSize]].sequence);
    const seeds = failing.map((g, r) =>
      closestSamples(samples.slice(g * groupSize, (g + 1) * groupSize), outcomes.slice(g * groupSize, (g + 1) * groupSize), targets[r], repairSearch.beam),
    );
    const found = await climb(seeds, targets, failing.map(() => new Set<string>()), repairSearch);
    return found.flatMap(({ candidates, outcomes: got, tokens }, r) => {
      const solved = got.map((o, j) => ({ correct: o.kind === 'ok', bits: candidates[j].bits }));
      if (!solved.some((x) => x.correct)) return [];
      const best = bestOfK(solved);
      const g = failing[r];
      return [{
        prompt: prompts[g * groupSize],
        tokens: tokens[best],
        lineEnds: tokens[best].flatMap((token, i) => (grammar.endsLine(token) ? [i] : [])),
        reward: kolmogorovReward(config.algorithm, got[best], candidates[best].bits, targets[r]),
        group: g,
      }];
    });
  }

  /** Pieces decoded at once: on the validation file's first 120, 256 took 14% less time than 64 (same programs). */
  const PIECE_BATCH = 256;
  /** A piece's greedy program once the sandbox has checked it (null: it did not reproduce the piece), keyed by the piece's values. */
  type PieceCache = Map<string, WrittenPiece>;

  /**
   * The greedy program of each piece, when the sandbox confirms it reproduces the piece; else null.
   * Greedy decoding and the check depend only on the piece, so a piece already in `cache` (the
   * same segment of another search, or an interleave's rest sharing its tail with the end-to-end
   * search) is not written again.
   */
  async function writePieces(pieces: readonly (readonly number[])[], cache: PieceCache): Promise<WrittenPiece[]> {
    const keys = pieces.map((piece) => piece.join(','));
    const fresh = [...new Map(keys.flatMap((key, j) => (cache.has(key) ? [] : [[key, pieces[j]] as const]))).entries()];
    for (let at = 0; at < fresh.length; at += PIECE_BATCH) {
      const batch = fresh.slice(at, at + PIECE_BATCH);
      const samples = await sampleBatch(policy, grammar, batch.map(([, piece]) => encodePrompt(piece, config.task.maxSequenceLength)), {
        maxTokens: config.model.maxProgramTokens,
        temperature: 1,
        greedy: true,
      });
      const candidates = samples.map((sample) => toCandidate(sample, config.task.prior));
      const outcomes = await evaluateCandidates(deps.pool, candidates.map((candidate, j) => jobFor(candidate, batch[j][1], config.run.seed)));
      outcomes.forEach((outcome, j) => cache.set(batch[j][0], outcome.kind === 'ok' ? { program: candidates[j].program!, bits: candidates[j].bits } : null));
    }
    return keys.map((key) => cache.get(key)!);
  }

  async function evaluate(records: KolmogorovRecord[], options: EvaluateOptions = {}): Promise<EvaluationResult> {
    const selected = records.slice(0, options.limit ?? records.length);
    const k = Math.max(1, options.k ?? 1);
    const chunk = Math.max(1, Math.floor(64 / k));
    const repair = Math.max(0, options.repair ?? 0);
    const repairRounds = Math.max(1, options.repairRounds ?? 1);
    const repairBeam = Math.max(1, options.repairBeam ?? repairSearch.beam);
    const split = Math.max(0, options.split ?? 0);
    const evalRng = new Rng(config.run.seed ^ 0x5eed);
    const pieces: PieceCache = new Map();
    const rows: EvaluationResult['rows'] = [];
    // Each narrower search scored from the same programs: the first (greedy), the k samples, then
    // repair's, then split's; the last level is the whole search and gives the rows.
    let name = k > 1 ? `best-of-${k}` : 'greedy';
    const levels: { search: string; includes: (j: number, found: FoundBy) => boolean; samples: ScoredSample[] }[] = [];
    if (k > 1) levels.push({ search: 'greedy', includes: (j) => j === 0, samples: [] });
    levels.push({ search: name, includes: (_, found) => found === 'sample', samples: [] });
    if (repair > 0) levels.push({ search: (name += ' + repair'), includes: (_, found) => found !== 'split', samples: [] });
    if (split > 0) levels.push({ search: (name += ' + split'), includes: () => true, samples: [] });
    for (let start = 0; start < selected.length; start += chunk) {
      const part = selected.slice(start, start + chunk);
      const prompts = part.flatMap((record) => Array(k).fill(promptOf(record)) as number[][]);
      const samples = await sampleBatch(policy, grammar, prompts, {
        maxTokens: config.model.maxProgramTokens,
        temperature: options.temperature ?? 1,
        rng: evalRng,
        greedy: prompts.map((_, i) => i % k === 0),
        alternatives: repair,
      });
      // Each record's candidates: its k samples, then (when none is correct) the repair search's.
      const perRecord: Candidate[][] = part.map((_, r) => samples.slice(r * k, (r + 1) * k).map((sample) => toCandidate(sample, config.task.prior)));
      const outcomes = await evaluateCandidates(
        deps.pool,
        perRecord.flatMap((candidates, r) => candidates.map((candidate) => jobFor(candidate, part[r].sequence, config.run.seed))),
      );
      const perOutcomes = part.map((_, r) => outcomes.slice(r * k, (r + 1) * k));
      const foundBy: FoundBy[][] = part.map(() => Array<FoundBy>(k).fill('sample'));
      if (repair > 0) {
        // Start from the k samples whose outputs come closest to the sequence.
        const seeds = part.map((record, r) =>
          perOutcomes[r].some((o) => o.kind === 'ok') ? [] : closestSamples(samples.slice(r * k, (r + 1) * k), perOutcomes[r], record.sequence, repairBeam),
        );
        const targets = part.map((record) => record.sequence);
        const seen = perRecord.map((candidates) => new Set(candidates.map((c) => c.text)));
        const found = await climb(seeds, targets, seen, { rounds: repairRounds, beam: repairBeam });
        found.forEach(({ candidates, outcomes }, r) => {
          perRecord[r].push(...candidates);
          perOutcomes[r].push(...outcomes);
          foundBy[r].push(...candidates.map((): FoundBy => 'repair'));
        });
      }
      if (split > 0) {
        const failing = part.flatMap((_, r) => (perOutcomes[r].some((o) => o.kind === 'ok') ? [] : [r]));
        const joined = await splitPrograms(
          failing.map((r) => part[r].sequence),
          (wanted) => writePieces(wanted, pieces),
          { prior: config.task.prior, settings: { ...splitSearch, rounds: split } },
        );
        const tries = failing.flatMap((r, j) => (joined[j] ? [{ r, candidate: candidateOf(joined[j], config.task.prior) }] : []));
        // The joined program counts only if the sandbox says it reproduces the whole sequence.
        const got = await evaluateCandidates(deps.pool, tries.map(({ r, candidate }) => jobFor(candidate, part[r].sequence, config.run.seed)));
        tries.forEach(({ r, candidate }, j) => {
          perRecord[r].push(candidate);
          perOutcomes[r].push(got[j]);
          foundBy[r].push('split');
        });
      }
      part.forEach((record, r) => {
        const candidates = perRecord[r];
        const tried = perOutcomes[r].map((o, j) => ({ correct: o.kind === 'ok', bits: candidates[j].bits }));
        levels.forEach((level, l) => {
          const within = tried.flatMap((_, j) => (level.includes(j, foundBy[r][j]) ? [j] : []));
          const kept = within[bestOfK(within.map((j) => tried[j]))];
          const outcome = perOutcomes[r][kept];
          level.samples.push({
            sequence: record.sequence,
            output: outcome.output ?? null,
            correct: outcome.kind === 'ok',
            bits: candidates[kept].bits,
            program: candidates[kept].text,
          });
          if (l < levels.length - 1) return;
          rows.push({
            program: candidates[kept].program ? candidates[kept].text : null,
            outcome: candidates[kept].program ? outcome.kind : 'incomplete',
            bits: candidates[kept].bits,
            foundBy: foundBy[r][kept],
          });
        });
      });
      options.onProgress?.(Math.min(start + chunk, selected.length), selected.length);
    }
    const searches = levels.map(({ search, samples }) => ({ search, ...ktMetrics(samples), byLength: ktMetricsByLength(samples) }));
    const { search: _widest, ...widest } = searches[searches.length - 1];
    return { ...widest, rows, searches };
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
        vocab: { name: 'kolmogorov', size: vocabSize },
        extra: { baseline: algorithm.baseline, wallMs: performance.now() - startedAt },
      },
      tensors,
    );
  }

  async function loadCheckpoint(bytes: Uint8Array): Promise<void> {
    // Everything is validated before the live model is touched.
    const { meta, tensors } = await decodeCheckpoint(bytes);
    const problem = compatibleWith(meta, config);
    if (problem) throw new CheckpointError(problem);
    if (meta.vocab && meta.vocab.size !== vocabSize) {
      throw new CheckpointError(`checkpoint vocabulary has ${meta.vocab.size} tokens, this model has ${vocabSize}`);
    }
    const weights = tensors.filter((t) => t.group === 'weights');
    const optimizer = tensors.filter((t) => t.group === 'optimizer');
    policy.setWeights(weights.map(({ name, shape, data }) => ({ name, shape, data: data as Float32Array })));
    if (optimizer.length) algorithm.setOptimizerWeights(optimizer.map(({ name, shape, data }) => ({ name, shape, data: data as Float32Array })));
    globalStep = meta.step;
    rng = new Rng(meta.rngState);
    if (meta.dataCursor) {
      epoch = meta.dataCursor.epoch;
      cursor = meta.dataCursor.cursor;
      order = permutation(data.train.length, config.run.seed + epoch);
    }
    const baseline = (meta.extra as { baseline?: number } | undefined)?.baseline;
    if (typeof baseline === 'number' && Number.isFinite(baseline)) algorithm.setBaseline(baseline);
  }

  return {
    config,
    get globalStep() {
      return globalStep;
    },
    policy,
    step,
    evaluate,
    saveCheckpoint,
    loadCheckpoint,
    dispose() {
      algorithm.dispose();
      policy.dispose();
      reference?.dispose();
    },
  };
}
