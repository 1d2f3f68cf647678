/**
 * Search that uses the shown tests: up to k programs per problem, drawn in rounds across the
 * problems, each run on the problem's shown tests only. Programs are drawn without replacement
 * (`distinct`, the default: stochastic beam search, in two stages, below) or as independent
 * samples (the first one greedy). A problem stops drawing at k, or earlier: with distinct draws,
 * after the first stage when one of its programs passes every shown test, else once `enough`
 * programs of the second stage do; with independent samples, once `enough` draws do (a program
 * drawn again counts again). Among the passing
 * ones the choice follows a stated rule:
 * - `first`: the first drawn (what best-of-k did);
 * - `shortest`: the fewest tokens;
 * - `cluster` (AlphaCode's): the passing programs are run on extra inputs made from the shown
 *   ones (small changes to their numbers and lists); the largest group that agrees on every
 *   extra output wins, and its shortest program is chosen;
 * - `likely`: the most probable under the policy itself, at temperature 1 whatever the sampling
 *   temperature (each passing program rescored in one forward pass; the default). Distinct draws need it: there,
 *   where the shown tests are weak, the many distinct variants that pass them by luck
 *   (`slice(0, 6)` for `slice(0, 4)`) outnumber, and with their probabilities summed outweigh,
 *   the program the docstring asks for; with `cluster`, 107 (summed: 112) of 121 generated
 *   validation problems against 116 with `likely` (docs/functions.md).
 * The chosen program is then scored on every test, shown and hidden. Also reported: solved@k for
 * each power of two up to k (the first rule truncated at that many samples: whether the first
 * program to pass the shown tests within k samples passes them all), and, for a problem that
 * nothing solves, a shown test that looks wrong: several different programs agree on all the
 * other shown tests and all give the same other output for it.
 */
import * as tf from '@tensorflow/tfjs-core';
import type { Grammar } from '../grammar';
import type { SampledSequence } from '../model/sampler';
import { sampleBatch } from '../model/sampler';
import { sampleDistinct } from '../model/stochasticBeam';
import { buildSequenceBatch, disposeBatch, programLogProbSums } from '../model/training';
import type { TransformerPolicy } from '../model/transformer';
import { Rng } from '../rng';
import type { SandboxOutcome } from '../sandbox/outcome';
import type { SandboxPool } from '../sandbox/pool';
import type { FunctionsConfig } from './config';
import { decodeResults, testJob } from './harness';
import type { Value } from './language';
import type { FunctionProblem, TestCase } from './problems';
import { encodeProblemPrompt, functionsTask, judgeSamples, judgeShownApart, promptBudget } from './task';

export type Selection = 'first' | 'shortest' | 'cluster' | 'likely';

/**
 * How a problem's programs are drawn: `independent` samples (the first one greedy; a confident
 * policy draws the same program again and again: with the shipped policy, 256 draws held 5 to 60
 * distinct programs for most unsolved handwritten_dev problems), or `distinct` ones, sampled
 * without replacement by stochastic beam search (model/stochasticBeam.ts), in the order drawn.
 * k = 256 cluster with the shipped policy: handwritten_dev 30 of 59 independent, 32 distinct;
 * dev.jsonl 19 and 20 of 20 (docs/functions.md).
 */
export type Sampling = 'independent' | 'distinct';

/**
 * The search's sampling temperature unless one is given. A little above 1 widens what 256 samples
 * cover: on handwritten_dev.jsonl with the shipped policy, k = 256 cluster solved 28 of 59 at 1.0
 * and 30 at 1.3, 1.6 and 2.0 (dev.jsonl 19 of 20 at each); drawn distinct, 31 at 1.0 and 32 at
 * 1.3 (dev.jsonl 19 and 20); docs/functions.md.
 */
export const SEARCH_TEMPERATURE = 1.3;

export interface SearchOptions {
  /** Most programs drawn per problem. */
  k: number;
  selection: Selection;
  /** Drawn programs passing the shown tests (a repeat counts again) after which a problem stops drawing (1 for `first`). */
  enough?: number;
  /** Programs drawn per problem in one round. */
  batch?: number;
  /** Sampling temperature (of every independent sample after the first, greedy one); SEARCH_TEMPERATURE when not given. */
  temperature?: number;
  /** Distinct programs (the default) or independent samples. */
  sampling?: Sampling;
  limit?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface ProblemSearch {
  function_name: string;
  solved: boolean;
  /** Programs drawn for it, and distinct ones that passed every shown test. */
  drawn: number;
  /** Distinct complete programs among those drawn. */
  distinct: number;
  passing: number;
  /** The sample index of the first program to pass the shown tests, and whether it passes every test; null when none did. */
  first_pass_at: number | null;
  first_solves: boolean;
  program: string;
  tokens?: number[];
  /** The chosen program's log-probability under the policy at temperature 1 (not the sampling temperature). */
  log_prob?: number;
  /** A shown test that looks wrong, with why (only for a problem nothing solves). */
  suspect_test?: { index: number; reason: string };
  /** The chosen program's passed shown and hidden tests (absent when nothing passed the shown tests), of how many. */
  shown_passed?: number;
  hidden_passed?: number;
  shown_total: number;
  hidden_total: number;
}

export interface SearchResult {
  n: number;
  k: number;
  selection: Selection;
  sampling: Sampling;
  /** The sampling temperature (of every independent sample after the first, greedy one; results at two temperatures differ). */
  temperature: number;
  solved: number;
  /** solved@k for k = 1, 2, 4, ... up to the budget: the first passing program within k samples solves the problem. */
  solved_at: { k: number; solved: number }[];
  mean_drawn: number;
  per_problem: ProblemSearch[];
}

export interface Candidate {
  tokens: number[];
  text: string;
  index: number;
  /** Per shown test: passed, and the value returned (null when it threw or returned no value). */
  passed: boolean[];
  outputs: (Value | null)[];
  /** Log-probability of the whole program under the policy: at the sampling temperature when drawn, at temperature 1 once rescored. */
  logProb?: number;
}

/** Extra inputs for clustering: each shown test's arguments with one number nudged or one list item changed (none for a function of no arguments). */
export function extraInputs(tests: readonly TestCase[], count: number, rng: Rng): TestCase[] {
  if (!tests.some((test) => test.args.length > 0)) return [];
  const nudge = (value: Value): Value => {
    if (typeof value === 'number') return value + (rng.chance(0.5) ? 1 : -1) * rng.int(1, 3);
    if (typeof value === 'boolean') return !value;
    const list = [...(value as Value[])];
    if (list.length === 0) return [rng.int(-5, 9)];
    const i = rng.int(0, list.length - 1);
    list[i] = nudge(list[i]);
    if (rng.chance(0.3)) list.push(typeof list[0] === 'boolean' ? rng.chance(0.5) : rng.int(-5, 9));
    return list;
  };
  return Array.from({ length: count }, (_, j) => {
    const base = tests[j % tests.length];
    const args = [...base.args];
    const at = rng.int(0, args.length - 1);
    args[at] = nudge(args[at]);
    return { args, expected: base.expected };
  });
}

/** The values a program returned per test (null where it threw or returned none), from its sandbox outcome. */
function valuesOf(outcome: SandboxOutcome, tests: number): (Value | null)[] {
  const results = outcome.kind === 'ok' && outcome.output ? decodeResults(outcome.output, tests) : null;
  return Array.from({ length: tests }, (_, t) => (results?.[t]?.kind === 'value' ? (results[t] as { value: Value }).value : null));
}

/** Runs each program on `tests` and returns its outputs (null per test that threw or gave no value). */
async function outputsOn(programs: readonly string[], problem: FunctionProblem, tests: readonly TestCase[], pool: SandboxPool, seed: number): Promise<(Value | null)[][]> {
  if (programs.length === 0) return [];
  const outcomes = await pool.evaluateBatch(programs.map((text) => testJob(text, problem.functionName, tests, seed)));
  return outcomes.map((outcome) => valuesOf(outcome, tests.length));
}

/** The chosen candidate among those passing the shown tests, by the rule. */
export async function choose(passing: readonly Candidate[], problem: FunctionProblem, selection: Selection, pool: SandboxPool, seed: number): Promise<Candidate> {
  if (selection === 'first' || passing.length === 1) return passing[0];
  const shortest = (group: readonly Candidate[]) => group.reduce((best, c) => (c.tokens.length < best.tokens.length ? c : best));
  if (selection === 'shortest') return shortest(passing);
  if (selection === 'likely') return passing.reduce((best, c) => ((c.logProb ?? -Infinity) > (best.logProb ?? -Infinity) ? c : best));
  const extra = extraInputs(problem.tests, 8, new Rng(seed ^ 0xc105));
  // No other inputs to tell them apart (a function of no arguments): one group.
  if (extra.length === 0) return shortest(passing);
  const outputs = await outputsOn(passing.map((c) => c.text), problem, extra, pool, seed);
  const groups = new Map<string, Candidate[]>();
  passing.forEach((candidate, i) => {
    const key = JSON.stringify(outputs[i]);
    groups.set(key, [...(groups.get(key) ?? []), candidate]);
  });
  // The largest group; ties go to the group whose first member was drawn first.
  const largest = [...groups.values()].reduce((best, group) => (group.length > best.length || (group.length === best.length && group[0].index < best[0].index) ? group : best));
  return shortest(largest);
}

/** Rows of the teacher-forced pass that rescores passing programs. */
const RESCORE_ROWS = 64;

/**
 * Each program's log-probability under the policy at temperature 1, by one teacher-forced pass
 * (grammar-masked, as sampled). Draws carry their log-probabilities at the sampling temperature,
 * which rank programs differently: a flatter distribution favours long programs less.
 */
export async function policyLogProbs<S>(policy: TransformerPolicy, grammar: Grammar<S>, prompt: readonly number[], programs: readonly (readonly number[])[]): Promise<number[]> {
  const out: number[] = [];
  for (let at = 0; at < programs.length; at += RESCORE_ROWS) {
    const batch = buildSequenceBatch(programs.slice(at, at + RESCORE_ROWS).map((tokens) => ({ prompt, tokens })), grammar, policy.config.context);
    let sums: tf.Tensor | null = null;
    try {
      sums = tf.tidy(() => programLogProbSums(policy, batch, 1));
      out.push(...(await sums.data()));
    } finally {
      sums?.dispose();
      disposeBatch(batch);
    }
  }
  return out;
}

/**
 * A shown test that looks wrong: among the programs that pass every other shown test, at least
 * SUSPECT_AGREEING, and at least half of them, return one same other value for it. A hint, not a
 * verdict (a policy that misreads a problem one way agrees too), and never for a function that
 * returns true or false (half of all programs agree on either value there, and on the dev files
 * every such agreement was a misreading) or has fewer than three shown tests. Measured with the k = 256 search on the three dev files,
 * each problem's first shown test changed (docs/functions.md, "Naming a wrong shown test"): of 59
 * wrong tests in problems the search solves unchanged, the old rule (five programs and a quarter
 * of all drawn) named 1, this one 39; it names a right test in 5 of 120 unsolved problems (the
 * old rule in 2).
 */
export function suspectTest(candidates: readonly Candidate[], problem: FunctionProblem): ProblemSearch['suspect_test'] {
  // With one other shown test, passing it says little: "return 2" passes `f(1, 2, false) = 2`.
  if (problem.signature.ret === 'bool' || problem.tests.length < SUSPECT_MIN_TESTS) return undefined;
  for (let t = 0; t < problem.tests.length; t++) {
    const near = candidates.filter((c) => c.passed.every((ok, u) => u === t || ok));
    const byOutput = new Map<string, number>();
    for (const c of near) {
      if (c.passed[t] || c.outputs[t] === null) continue;
      const key = JSON.stringify(c.outputs[t]);
      byOutput.set(key, (byOutput.get(key) ?? 0) + 1);
    }
    for (const [output, count] of byOutput) {
      if (count >= SUSPECT_AGREEING && count * 2 >= near.length) return { index: t, reason: `${count} of the ${near.length} different programs that pass every other shown test return ${output} here, where the test expects ${JSON.stringify(problem.tests[t].expected)}` };
    }
  }
  return undefined;
}

/** Different programs that must agree on another value before a shown test is called suspect. */
const SUSPECT_AGREEING = 4;
/** Shown tests a problem needs before one is called suspect: the others must say what the function does. */
const SUSPECT_MIN_TESTS = 3;

export async function searchFunctions(setup: { policy: TransformerPolicy; config: FunctionsConfig; pool: SandboxPool }, problems: readonly FunctionProblem[], options: SearchOptions): Promise<SearchResult> {
  const { policy, config, pool } = setup;
  const task = functionsTask(config);
  const selected = problems.slice(0, options.limit ?? problems.length);
  const k = Math.max(1, options.k);
  const enough = options.selection === 'first' ? 1 : Math.max(1, options.enough ?? 8);
  const batch = Math.max(1, Math.min(options.batch ?? 32, k));
  const temperature = options.temperature ?? SEARCH_TEMPERATURE;
  const sampling = options.sampling ?? 'distinct';
  const rng = new Rng(config.run.seed ^ 0x5ea4c);
  const prompts = selected.map((problem) => encodeProblemPrompt(problem, config.functions.promptTests, promptBudget(config)));
  // votes: how often each distinct program was drawn; a program drawn again counts again toward
  // `enough`, or a confident policy that keeps writing one passing program would never stop.
  const state = selected.map(() => ({ drawn: 0, seen: new Set<string>(), votes: new Map<string, number>(), passingKeys: new Set<string>(), candidates: [] as Candidate[], passing: [] as Candidate[] }));
  const passingDraws = (p: number) => [...state[p].passingKeys].reduce((sum, key) => sum + (state[p].votes.get(key) ?? 0), 0);
  // Rounds across the problems, at most this many programs sampled at once (distinct draws: or k,
  // when k is larger, one problem's beams).
  const rows = Math.max(batch, 256);
  // Distinct sampling draws in two stages, each without replacement: the first `batch`
  // programs, then, only for a problem none of those solved, k (less the programs already
  // drawn); each round takes the next `batch` of a problem's queue. A problem that has a
  // passing program when a stage runs out stops there, so easy problems cost one small stage.
  const queues: SampledSequence[][] = selected.map(() => []);
  const stages = selected.map(() => 0);
  const stageSize = (stage: number) => (stage === 0 ? batch : k);
  const queued = (p: number) => state[p].drawn < queues[p].length;
  const left = (p: number) => {
    if (state[p].drawn >= k) return false;
    if (sampling === 'independent' || queued(p)) return true;
    return stages[p] === 0 || (stages[p] === 1 && state[p].passing.length === 0 && k > batch);
  };
  const open = () => selected.flatMap((_, p) => (left(p) && passingDraws(p) < enough ? [p] : []));
  // A report after every sampling call and every part, not only every round: Cancel (the page's
  // onProgress throws) then acts within one call, not after a round of 256 programs per problem.
  const report = () => options.onProgress?.(selected.length - open().length, selected.length);
  const draw = async (part: readonly number[]): Promise<{ p: number; index: number; sample: SampledSequence }[]> => {
    const maxTokens = config.model.maxProgramTokens;
    if (sampling === 'independent') {
      const draws = part.flatMap((p) => Array.from({ length: Math.min(batch, k - state[p].drawn) }, (_, j) => ({ p, index: state[p].drawn + j })));
      const samples = await sampleBatch(policy, task.grammar, draws.map(({ p }) => prompts[p]), { maxTokens, temperature, rng, greedy: draws.map(({ index }) => index === 0) });
      return draws.map((d, j) => ({ ...d, sample: samples[j] }));
    }
    for (const stage of [0, 1]) {
      const due = part.filter((p) => !queued(p) && stages[p] === stage);
      const size = stageSize(stage);
      const perCall = Math.max(1, Math.floor(rows / size));
      for (let at = 0; at < due.length; at += perCall) {
        const group = due.slice(at, at + perCall);
        const drawn = await sampleDistinct(policy, task.grammar, group.map((p) => prompts[p]), { k: size, maxTokens, temperature, rng });
        group.forEach((p, j) => {
          const had = new Set(queues[p].map((sample) => sample.tokens.join(',')));
          queues[p].push(...drawn[j].filter((sample) => !had.has(sample.tokens.join(','))).slice(0, k - queues[p].length));
          stages[p] = stage + 1;
        });
        report();
      }
    }
    return part.flatMap((p) => queues[p].slice(state[p].drawn, state[p].drawn + batch).map((sample, j) => ({ p, index: state[p].drawn + j, sample })));
  };
  for (let round = open(); round.length > 0; round = open()) {
    for (let at = 0; at < round.length; at += Math.max(1, Math.floor(rows / batch))) {
      const part = round.slice(at, at + Math.max(1, Math.floor(rows / batch)));
      const draws = await draw(part);
      for (const p of part) state[p].drawn += draws.filter((d) => d.p === p).length;
      // Each distinct complete program once, on the shown tests.
      const fresh = draws.filter(({ p, sample }) => {
        const key = sample.tokens.join(',');
        if (sample.complete) state[p].votes.set(key, (state[p].votes.get(key) ?? 0) + 1);
        if (!sample.complete || state[p].seen.has(key)) return false;
        state[p].seen.add(key);
        return true;
      });
      const judged = await judgeSamples(fresh.map(({ p }) => selected[p]), fresh.map(({ sample }) => sample), (problem) => problem.tests, { pool, seed: config.run.seed });
      fresh.forEach(({ p, index, sample }, j) => {
        if (!judged[j].program) return;
        const logProb = sample.logProbs.reduce((sum, lp) => sum + lp, 0);
        const candidate = { tokens: sample.tokens, text: judged[j].program!.text, index, passed: judged[j].passed, outputs: valuesOf(judged[j].outcome, selected[p].tests.length), logProb };
        state[p].candidates.push(candidate);
        if (candidate.passed.every(Boolean)) {
          state[p].passing.push(candidate);
          state[p].passingKeys.add(sample.tokens.join(','));
        }
      });
      report();
    }
  }
  const perProblem: ProblemSearch[] = [];
  for (const [p, problem] of selected.entries()) {
    const { passing, candidates, drawn, seen } = state[p];
    if (passing.length > 0) {
      const rescored = await policyLogProbs(policy, task.grammar, prompts[p], passing.map((c) => c.tokens));
      passing.forEach((c, i) => (c.logProb = rescored[i]));
    }
    const firstPassing = passing.length ? passing.reduce((a, b) => (b.index < a.index ? b : a)) : null;
    const chosen = passing.length ? await choose([...passing].sort((a, b) => a.index - b.index), problem, options.selection, pool, config.run.seed) : null;
    /** Which of every test (the shown ones, then the hidden ones) a program passes. */
    const judgeAll = async (candidate: Candidate | null) => {
      if (!candidate) return null;
      const [j] = await judgeShownApart([problem], [{ tokens: candidate.tokens, logProbs: [], lineEnds: [], complete: true } as unknown as SampledSequence], { pool, seed: config.run.seed });
      return j.passed;
    };
    const chosenPassed = await judgeAll(chosen);
    const solved = chosenPassed?.every(Boolean) ?? false;
    const firstSolves = chosen === firstPassing ? solved : ((await judgeAll(firstPassing))?.every(Boolean) ?? false);
    const shownCount = problem.tests.length;
    perProblem.push({
      function_name: problem.functionName,
      solved,
      drawn,
      distinct: seen.size,
      passing: passing.length,
      first_pass_at: firstPassing?.index ?? null,
      first_solves: firstSolves,
      program: chosen?.text ?? '',
      ...(chosen ? { tokens: chosen.tokens, log_prob: chosen.logProb } : {}),
      ...(chosenPassed ? { shown_passed: chosenPassed.slice(0, shownCount).filter(Boolean).length, hidden_passed: chosenPassed.slice(shownCount).filter(Boolean).length } : {}),
      shown_total: shownCount,
      hidden_total: problem.hiddenTests.length,
      ...(solved ? {} : { suspect_test: suspectTest(candidates, problem) }),
    });
  }
  const n = perProblem.length;
  const share = (f: (row: ProblemSearch) => boolean) => (n ? perProblem.filter(f).length / n : 0);
  const ks = Array.from({ length: Math.floor(Math.log2(k)) + 1 }, (_, i) => 2 ** i);
  if (ks.at(-1) !== k) ks.push(k);
  return {
    n,
    k,
    selection: options.selection,
    sampling,
    temperature,
    solved: share((row) => row.solved),
    solved_at: ks.map((at) => ({ k: at, solved: share((row) => row.first_pass_at !== null && row.first_pass_at < at && row.first_solves) })),
    mean_drawn: n ? perProblem.reduce((sum, row) => sum + row.drawn, 0) / n : 0,
    per_problem: perProblem,
  };
}
