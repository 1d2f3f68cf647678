/**
 * The Kolmogorov task (docs/kolmogorov-spec.md) as the one training loop sees it (task.ts): an item is a
 * sequence, its prompt the sequence's values, a program the DSL lines the grammar allows; the
 * sandbox runs each program with the DSL prelude and the reward is
 * rewardConstant - lengthPenalty * bits when the output equals the sequence, 0 otherwise (or,
 * with prefixCredit, partial credit for the prefix a wrong output gets right). Bits come from
 * the prior (docs/kolmogorov-spec.md), not from characters.
 *
 * Also here, because both training (repair demonstrations) and evaluation (evaluate.ts) use
 * them: turning sampled tokens into sandbox jobs, and the repair search run in the sandbox.
 */
import type { KolmogorovConfig } from './config';
import { parseKolmogorovRecord, type KolmogorovRecord } from '../data/records';
import { grammarProblem } from '../grammar';
import type { Episode } from '../algorithms/reinforce';
import type { SampledSequence } from '../model/sampler';
import type { PolicyConfig } from '../model/transformer';
import { numberInputs } from '../model/numberInputs';
import { Rng } from '../rng';
import type { SandboxPool } from '../sandbox/pool';
import type { OutcomeKind, SandboxJob, SandboxOutcome } from '../sandbox/outcome';
import type { Scored, Task, TaskContext } from '../task';
import { KolmogorovGrammar, SEP, VALUE0, encodePrompt, programToTokens, tokensToProgram, vocabSize } from './grammar';
import { ktMetrics, prefixShare, type ScoredSample } from './metrics';
import { kolmogorovPrelude } from './prelude';
import { programBits } from './prior';
import { parseProgram, printProgram, type Program } from './program';
import { closeness, oneEditAway, repairSearch, type Annotated } from './repair';
import { sequenceKey } from './pairs';
import { trainingPieces } from './split';

export { kolmogorovPrelude };

type Prior = KolmogorovConfig['task']['prior'];

/** A sampled token sequence turned into a sandbox job, or the reason it cannot run. */
export interface Candidate {
  program: Program | null;
  text: string;
  bits: number;
  lines: number;
}

export function toCandidate(sample: SampledSequence, prior: Prior): Candidate {
  if (!sample.complete) return { program: null, text: '', bits: 0, lines: 0 };
  return candidateOf(tokensToProgram(sample.tokens), prior);
}

export function candidateOf(program: Program, prior: Prior): Candidate {
  return { program, text: printProgram(program), bits: programBits(program, prior), lines: program.lines.length };
}

/** The well-formed programs one edit away from `program` not `seen` before (kolmogorov/repair.ts). */
function editsOf(program: Annotated, seen: Set<string>, prior: Prior): { program: Annotated; candidate: Candidate }[] {
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
export function closestSamples(samples: readonly SampledSequence[], outcomes: readonly SandboxOutcome[], target: readonly number[], beam: number): Annotated[] {
  const tried = samples.map((sample, j) => ({
    program: { tokens: sample.tokens, alternatives: sample.alternatives ?? [] },
    output: sample.complete ? outcomes[j].output : null,
  }));
  return closest(tried, target, beam);
}

export function jobFor(candidate: Candidate, expected: readonly number[], seed: number): SandboxJob | null {
  return candidate.program ? { source: candidate.text, expected, seed, prelude: 'kolmogorov' } : null;
}

/** Runs the jobs that exist; a sample that never completed counts as invalid output. */
export async function evaluateCandidates(pool: SandboxPool, jobs: (SandboxJob | null)[]): Promise<SandboxOutcome[]> {
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
  algorithm: Pick<KolmogorovConfig['algorithm'], 'rewardConstant' | 'lengthPenalty' | 'prefixCredit'>,
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

/** The policy of the Kolmogorov task for a config: its vocabulary, and value tokens as numbers. */
export function kolmogorovPolicyConfig(config: KolmogorovConfig): PolicyConfig {
  return { vocabSize, ...numberInputs(config.model, { first: VALUE0, count: 256, promptEnd: SEP }) };
}

/**
 * The training records RL samples from: those within `task.maxTrainLength` values (0: all),
 * and `task.trainPieces` pieces of each longer one (`trainingPieces`), none of them a held-out
 * sequence (`heldout`, by sequenceKey: a piece of a training sequence can be one, a run of one
 * value or a short range).
 */
export function trainingRecords(config: KolmogorovConfig, train: KolmogorovRecord[], heldout: ReadonlySet<string> = new Set()): KolmogorovRecord[] {
  const records = cutRecords(config, train);
  return heldout.size ? records.filter((record) => !heldout.has(sequenceKey(record.sequence))) : records;
}

function cutRecords(config: KolmogorovConfig, train: KolmogorovRecord[]): KolmogorovRecord[] {
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

/** Where a repair search runs: the sandbox pool, the bit prior and the guest's seed. */
export interface SearchContext {
  pool: SandboxPool;
  prior: Prior;
  seed: number;
}

/**
 * Repair search (kolmogorov/repair.ts) for a batch of records at once: each round tries every
 * program one edit away from the ones kept, in the sandbox; a record stops at its first
 * correct program, else keeps the `beam` wrong ones closest to its sequence for the next round.
 */
export async function climb(
  context: SearchContext,
  seeds: Annotated[][],
  targets: readonly (readonly number[])[],
  seen: Set<string>[],
  { rounds, beam }: { rounds: number; beam: number },
): Promise<{ candidates: Candidate[]; outcomes: SandboxOutcome[]; tokens: number[][] }[]> {
  const found = targets.map(() => ({ candidates: [] as Candidate[], outcomes: [] as SandboxOutcome[], tokens: [] as number[][] }));
  let frontier = seeds;
  for (let round = 0; round < rounds && frontier.some((f) => f.length > 0); round++) {
    const tries = frontier.map((programs, r) => programs.flatMap((program) => editsOf(program, seen[r], context.prior)));
    const outcomes = await evaluateCandidates(
      context.pool,
      tries.flatMap((edits, r) => edits.map(({ candidate }) => jobFor(candidate, targets[r], context.seed))),
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

/** A sampled program of the Kolmogorov task as the sandbox judged it. */
export interface KolmogorovScored extends Scored {
  candidate: Candidate;
  sandbox: SandboxOutcome;
}

const mean = (values: readonly number[]) => (values.length ? values.reduce((a, b) => a + b, 0) / values.length : 0);
const meanOrNaN = (values: readonly number[]) => (values.length ? mean(values) : NaN);

/** The Kolmogorov task for a run's config: what the one loop (loop.ts) trains on. */
export function kolmogorovTask(config: KolmogorovConfig, heldout: readonly KolmogorovRecord[] = []): Task<KolmogorovRecord, KolmogorovScored> {
  const grammar = new KolmogorovGrammar();
  const { prior } = config.task;
  const heldoutKeys = new Set(heldout.map((record) => sequenceKey(record.sequence)));

  return {
    vocab: { name: 'kolmogorov', size: vocabSize },
    grammar,
    grammarSpec: { task: 'kolmogorov' },
    policyConfig: () => kolmogorovPolicyConfig(config),
    trainingItems: (train) => trainingRecords(config, [...train], heldoutKeys),
    prompt: (record) => encodePrompt(record.sequence, config.task.maxSequenceLength),

    async score(records, samples, context) {
      const candidates = samples.map((sample) => toCandidate(sample, prior));
      const outcomes = await evaluateCandidates(context.pool, candidates.map((candidate, i) => jobFor(candidate, records[i].sequence, context.seed)));
      return outcomes.map((outcome, i) => ({
        text: candidates[i].text,
        outcome: outcome.kind, // a program cut off by the token budget is output_invalid, as the sandbox would say
        reward: kolmogorovReward(config.algorithm, outcome, candidates[i].bits, records[i].sequence),
        correct: outcome.kind === 'ok',
        cost: candidates[i].bits,
        candidate: candidates[i],
        sandbox: outcome,
      }));
    },

    // KT metrics count each sequence once: a group's samples share one, and gzip of a sequence
    // repeated groupSize times would flatter the failures. The group's shortest correct sample
    // stands for it (what best-of-k evaluation keeps); accuracy stays the share of samples.
    metrics(records, scored, groupSize) {
      const kept: ScoredSample[] = [];
      for (let start = 0; start < scored.length; start += groupSize) {
        const group = scored.slice(start, start + groupSize);
        const i = start + bestOfK(group.map((s) => ({ correct: s.correct, bits: s.candidate.bits })));
        kept.push({ sequence: records[i].sequence, output: scored[i].sandbox.output ?? null, correct: scored[i].correct, bits: scored[i].candidate.bits, program: scored[i].text });
      }
      const batch = ktMetrics(kept);
      const written = scored.filter((s) => s.candidate.program);
      return {
        compression_rate: batch.compressionRate,
        gzip_rate: batch.gzipRate,
        // A mean over no program is no value (NaN: not drawn), not 0 bits, the best a chart of bits can show.
        program_bits: meanOrNaN(scored.filter((s) => s.correct).map((s) => s.candidate.bits)),
        all_program_bits: meanOrNaN(written.map((s) => s.candidate.bits)),
        program_lines: meanOrNaN(written.map((s) => s.candidate.lines)),
      };
    },

    sampleRecord: (record, scored) => ({ target: record.sequence, output: scored.sandbox.output, bits: scored.candidate.bits }),

    pairFromText(pair) {
      const values = pair.prompt.split(',').map((part) => part.trim());
      if (values.some((v) => !/^\d+$/.test(v))) throw new Error(`"prompt" must be the sequence as comma-separated integers, got "${pair.prompt.slice(0, 40)}"`);
      const prompt = encodePrompt(parseKolmogorovRecord({ sequence: values.map(Number) }).sequence, config.task.maxSequenceLength);
      const program = (key: 'chosen' | 'rejected'): number[] => {
        let tokens: number[];
        try {
          tokens = programToTokens(parseProgram(pair[key]));
        } catch (error) {
          throw new Error(`"${key}": ${(error as Error).message}`);
        }
        if (tokens.length > config.model.maxProgramTokens) throw new Error(`"${key}" takes ${tokens.length} tokens, more than model.maxProgramTokens (${config.model.maxProgramTokens})`);
        const problem = grammarProblem(grammar, prompt, tokens);
        if (problem) throw new Error(`"${key}": ${problem}`);
        return tokens;
      };
      const chosen = program('chosen');
      const rejected = program('rejected');
      // Written differently, the same tokens: as a pair of one text, it teaches nothing.
      if (chosen.length === rejected.length && chosen.every((token, i) => token === rejected[i])) throw new Error('"chosen" and "rejected" are the same program');
      return { prompt, chosen, rejected };
    },

    sampleAlternatives: () => config.algorithm.repairDemos,

    /**
     * RL with repair demonstrations (algorithm.repairDemos): for each group whose samples all
     * fail, the repair search runs from its closest samples, and the shortest correct program it
     * finds joins the group as one more episode with its own reward. The group-mean baseline then
     * gives it a positive advantage where the group had none to learn from. It is off-policy (no
     * importance weight): a demonstration found by search around the policy's own programs.
     */
    async demonstrations(records, prompts, samples, scored, groupSize, context: TaskContext): Promise<Episode[]> {
      if (config.algorithm.repairDemos <= 0) return [];
      const outcomes = scored.map((s) => s.sandbox);
      const groups = Array.from({ length: samples.length / groupSize }, (_, g) => g);
      const failing = groups.filter((g) => !outcomes.slice(g * groupSize, (g + 1) * groupSize).some((o) => o.kind === 'ok'));
      const targets = failing.map((g) => records[g * groupSize].sequence);
      const seeds = failing.map((g, r) =>
        closestSamples(samples.slice(g * groupSize, (g + 1) * groupSize), outcomes.slice(g * groupSize, (g + 1) * groupSize), targets[r], repairSearch.beam),
      );
      const search = { pool: context.pool, prior, seed: config.run.seed };
      const found = await climb(search, seeds, targets, failing.map(() => new Set<string>()), repairSearch);
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
    },
  };
}
