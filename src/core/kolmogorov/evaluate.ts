/**
 * Evaluation of the Kolmogorov task with its searches (docs/kolmogorov-spec.md's protocol): per
 * sequence the greedy program and k - 1 samples (best-of-k keeps the shortest correct one),
 * then, for sequences still unsolved, repair around the closest programs (repair.ts) and split
 * search (split.ts). Each narrower search is scored from the same programs, so one evaluation
 * gives greedy, best-of-k, + repair and + split figures at once. Sandbox work of one chunk
 * overlaps nothing else; chunks are sized so that k programs per sequence make ~64 rows.
 */
import { SearchStopped } from '../task';
import type { KolmogorovConfig } from './config';
import type { KolmogorovRecord } from '../data/records';
import { sampleBatch } from '../model/sampler';
import type { TransformerPolicy } from '../model/transformer';
import { Rng } from '../rng';
import type { KtMetrics } from '../runnerTypes';
import type { SandboxPool } from '../sandbox/pool';
import type { OutcomeKind } from '../sandbox/outcome';
import { KolmogorovGrammar, encodePrompt } from './grammar';
import { ktMetrics, ktMetricsByLength, type LengthBucketMetrics, type ScoredSample } from './metrics';
import { repairSearch } from './repair';
import { splitPrograms, splitSearch, type WrittenPiece } from './split';
import { bestOfK, candidateOf, climb, closestSamples, evaluateCandidates, jobFor, toCandidate, type Candidate } from './task';

/** What an evaluation runs with: the policy, the run's config and the sandbox pool. */
export interface EvaluationSetup {
  policy: TransformerPolicy;
  config: KolmogorovConfig;
  pool: SandboxPool;
  /** Asked before each round of pieces: true ends the search (SearchStopped). */
  shouldStop?: () => boolean;
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
  /**
   * Split search's literal bridges (`SplitSettings.bridge`): a cover holding one counts only at
   * most this many bits per raw bit. 0 = no bridges; not given: `splitSearch.bridgeAbove`.
   */
  bridgeAbove?: number;
  /** Called after each chunk with the number of records done. */
  onProgress?: (done: number, total: number) => void;
}

/** Which search found the kept program: the k samples, repair around them, split search, or split search with a literal bridge. */
/** How a row's program was found: the greedy program (the first), another sample, repair, split, or split with literal bridges. */
export type FoundBy = 'greedy' | 'sample' | 'repair' | 'split' | 'bridge';

export interface EvaluationResult extends KtMetrics {
  byLength: LengthBucketMetrics[];
  /**
   * The same programs scored as each narrower search would have kept them, narrowest first:
   * greedy (the first program), best-of-k, + repair, + split, as far as the options go. The
   * last is this result itself.
   */
  searches: (KtMetrics & { search: string; byLength: LengthBucketMetrics[] })[];
  /** One row per record: the kept program and its outcome. */
  rows: { program: string | null; outcome: OutcomeKind | 'incomplete'; bits: number; foundBy: FoundBy; output: number[] | null }[];
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
async function writePieces({ policy, config, pool, shouldStop }: EvaluationSetup, pieces: readonly (readonly number[])[], cache: PieceCache): Promise<WrittenPiece[]> {
  if (shouldStop?.()) throw new SearchStopped();
  const grammar = new KolmogorovGrammar();
  const keys = pieces.map((piece) => piece.join(','));
  const fresh = [...new Map(keys.flatMap((key, j) => (cache.has(key) ? [] : [[key, pieces[j]] as const]))).entries()];
  const thisCall = new Map<string, WrittenPiece>();
  for (let at = 0; at < fresh.length; at += PIECE_BATCH) {
    const batch = fresh.slice(at, at + PIECE_BATCH);
    const samples = await sampleBatch(policy, grammar, batch.map(([, piece]) => encodePrompt(piece, config.task.maxSequenceLength)), {
      maxTokens: config.model.maxProgramTokens,
      temperature: 1,
      greedy: true,
    });
    const candidates = samples.map((sample) => toCandidate(sample, config.task.prior));
    const jobs = candidates.map((candidate, j) => jobFor(candidate, batch[j][1], config.run.seed));
    const outcomes = await evaluateCandidates(pool, jobs);
    // A run the machine's load cut short (a timeout, a sandbox that died) says nothing of the
    // program: it runs once more, and if cut short again it is not kept, so a later search that
    // asks for the same piece runs it anew rather than find it lost for the whole evaluation.
    const cutShort = (j: number) => outcomes[j].kind === 'timeout' || outcomes[j].kind === 'infra_error';
    const again = outcomes.flatMap((_, j) => (cutShort(j) ? [j] : []));
    if (again.length) (await evaluateCandidates(pool, again.map((j) => jobs[j]))).forEach((outcome, i) => (outcomes[again[i]] = outcome));
    outcomes.forEach((outcome, j) => {
      const written = outcome.kind === 'ok' ? { program: candidates[j].program!, bits: candidates[j].bits } : null;
      (cutShort(j) ? thisCall : cache).set(batch[j][0], written);
    });
  }
  return keys.map((key) => (cache.has(key) ? cache.get(key)! : (thisCall.get(key) ?? null)));
}

export async function evaluateKolmogorov(setup: EvaluationSetup, records: readonly KolmogorovRecord[], options: EvaluateOptions = {}): Promise<EvaluationResult> {
  const { policy, config, pool } = setup;
  const grammar = new KolmogorovGrammar();
  const search = { pool, prior: config.task.prior, seed: config.run.seed };
  const promptOf = (record: KolmogorovRecord) => encodePrompt(record.sequence, config.task.maxSequenceLength);
  const selected = records.slice(0, options.limit ?? records.length);
  const k = Math.max(1, options.k ?? 1);
  const chunk = Math.max(1, Math.floor(64 / k));
  const repair = Math.max(0, options.repair ?? 0);
  const repairRounds = Math.max(1, options.repairRounds ?? 1);
  const repairBeam = Math.max(1, options.repairBeam ?? repairSearch.beam);
  const split = Math.max(0, options.split ?? 0);
  const bridgeAbove = options.bridgeAbove ?? splitSearch.bridgeAbove;
  if (!(bridgeAbove >= 0)) throw new Error(`bridgeAbove: expected bits per raw bit, at least 0 (0: no bridges), got ${bridgeAbove}`);
  const splitSettings = { ...splitSearch, rounds: split, bridgeAbove, ...(bridgeAbove > 0 ? {} : { bridge: [] }) };
  const evalRng = new Rng(config.run.seed ^ 0x5eed);
  const pieces: PieceCache = new Map();
  const rows: EvaluationResult['rows'] = [];
  // Each narrower search scored from the same programs: the first (greedy), the k samples, then
  // repair's, then split's, then split's with literal bridges; the last level is the whole search
  // and gives the rows.
  let name = k > 1 ? `best-of-${k}` : 'greedy';
  const levels: { search: string; includes: (j: number, found: FoundBy) => boolean; samples: ScoredSample[] }[] = [];
  if (k > 1) levels.push({ search: 'greedy', includes: (j) => j === 0, samples: [] });
  levels.push({ search: name, includes: (_, found) => found === 'greedy' || found === 'sample', samples: [] });
  if (repair > 0) levels.push({ search: (name += ' + repair'), includes: (_, found) => found === 'greedy' || found === 'sample' || found === 'repair', samples: [] });
  if (split > 0) levels.push({ search: (name += ' + split'), includes: (_, found) => found !== 'bridge', samples: [] });
  if (split > 0 && splitSettings.bridge.length > 0) levels.push({ search: (name += ' + bridges'), includes: () => true, samples: [] });
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
      pool,
      perRecord.flatMap((candidates, r) => candidates.map((candidate) => jobFor(candidate, part[r].sequence, config.run.seed))),
    );
    const perOutcomes = part.map((_, r) => outcomes.slice(r * k, (r + 1) * k));
    const foundBy: FoundBy[][] = part.map(() => Array.from({ length: k }, (_, j): FoundBy => (j === 0 ? 'greedy' : 'sample')));
    if (repair > 0) {
      // Start from the k samples whose outputs come closest to the sequence.
      const seeds = part.map((record, r) =>
        perOutcomes[r].some((o) => o.kind === 'ok') ? [] : closestSamples(samples.slice(r * k, (r + 1) * k), perOutcomes[r], record.sequence, repairBeam),
      );
      const targets = part.map((record) => record.sequence);
      const seen = perRecord.map((candidates) => new Set(candidates.map((c) => c.text)));
      const found = await climb(search, seeds, targets, seen, { rounds: repairRounds, beam: repairBeam });
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
        (wanted) => writePieces(setup, wanted, pieces),
        { prior: config.task.prior, settings: splitSettings },
      );
      const tries = failing.flatMap((r, j) => {
        const found = joined[j];
        return found ? [{ r, candidate: candidateOf(found.program, config.task.prior), bridged: found.bridged }] : [];
      });
      // The joined program counts only if the sandbox says it reproduces the whole sequence.
      const got = await evaluateCandidates(pool, tries.map(({ r, candidate }) => jobFor(candidate, part[r].sequence, config.run.seed)));
      tries.forEach(({ r, candidate, bridged }, j) => {
        perRecord[r].push(candidate);
        perOutcomes[r].push(got[j]);
        foundBy[r].push(bridged ? 'bridge' : 'split');
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
          output: outcome.output ?? null,
        });
      });
    });
    options.onProgress?.(Math.min(start + chunk, selected.length), selected.length);
  }
  const searches = levels.map(({ search, samples }) => ({ search, ...ktMetrics(samples), byLength: ktMetricsByLength(samples) }));
  const { search: _widest, ...widest } = searches[searches.length - 1];
  return { ...widest, rows, searches };
}

