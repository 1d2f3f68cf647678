/**
 * The search that uses the shown tests: its choice rules and its report of a wrong test on
 * hand-made candidates, its extra inputs, and early stopping with the shipped functions policy.
 */
import { readFileSync } from 'node:fs';
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createNodeSandboxPool } from './sandboxHost';
import { decodeCheckpoint, tensorArrays } from '../core/checkpoint';
import { TransformerPolicy } from '../core/model/transformer';
import { Rng } from '../core/rng';
import { taskPreludes } from '../core/runner';
import type { FunctionsConfig } from '../core/functions/config';
import { parseProblemsText, type FunctionProblem } from '../core/functions/problems';
import { choose, extraInputs, policyLogProbs, SEARCH_TEMPERATURE, searchFunctions, suspectTest, type Candidate, type SearchResult } from '../core/functions/search';
import { encodeProblemPrompt, functionsPolicyConfig, functionsTask, promptBudget } from '../core/functions/task';
import { sampleDistinct } from '../core/model/stochasticBeam';

const pool = createNodeSandboxPool({ size: 1, limits: { deadlineMs: 100, watchdogMs: 1000, memoryBytes: 32 << 20, stackBytes: 128 << 10, maxSourceBytes: 1 << 16, maxOutputLength: 4096 }, preludes: taskPreludes() });
afterAll(() => pool.close());
beforeAll(async () => {
  await tf.setBackend('wasm');
});

const [problem] = parseProblemsText(JSON.stringify({ function_name: 'double_all', docstring: 'Double each number.', test_cases: [[[[1, 2]], [2, 4]], [[[5]], [10]], [[[]], []]], starter_code: 'def double_all(xs):\n    pass' })).problems;
const candidate = (index: number, text: string, tokens: number, passed = [true, true, true], outputs: Candidate['outputs'] = []): Candidate => ({ index, text, tokens: Array(tokens).fill(0), passed, outputs });

describe('the choice among programs that pass the shown tests', () => {
  const doubling = 'function double_all(xs) { return xs.map((x) => x * 2); }';
  const doublingLonger = 'function double_all(xs) { const out = []; for (const x of xs) out.push(x + x); return out; }';
  // Passes the three shown tests, but only by the lengths it was shown.
  const lookup = 'function double_all(xs) { return xs.length === 2 ? [2, 4] : xs.length === 1 ? [10] : []; }';

  it('first takes the first drawn, shortest the fewest tokens', async () => {
    const passing = [candidate(0, lookup, 30), candidate(3, doubling, 12), candidate(5, doublingLonger, 20)];
    expect((await choose(passing, problem, 'first', pool, 1)).index).toBe(0);
    expect((await choose(passing, problem, 'shortest', pool, 1)).index).toBe(3);
  });

  it('likely takes the passing program the policy finds most probable', async () => {
    const passing = [{ ...candidate(0, lookup, 8), logProb: -3.2 }, { ...candidate(3, doublingLonger, 20), logProb: -1.1 }, { ...candidate(5, doubling, 12), logProb: -2.5 }];
    expect((await choose(passing, problem, 'likely', pool, 1)).index).toBe(3);
  });

  it('cluster runs them on extra inputs and takes the largest group that agrees, then its shortest', async () => {
    const passing = [candidate(0, lookup, 8), candidate(3, doublingLonger, 20), candidate(5, doubling, 12)];
    // The two real doublings agree on every extra input; the lookup, alone, loses despite being shortest and first.
    expect((await choose(passing, problem, 'cluster', pool, 1)).index).toBe(5);
  });

  it('cluster on a function of no arguments: no extra inputs to tell programs apart, so one group and its shortest', async () => {
    const [seven] = parseProblemsText(JSON.stringify({ function_name: 'seven', docstring: 'Return seven.', test_cases: [[[], 7], [[], 7]] })).problems;
    expect(extraInputs(seven.tests, 8, new Rng(2))).toEqual([]);
    const passing = [candidate(0, 'function seven() { return 3 + 4; }', 5), candidate(2, 'function seven() { return 7; }', 2)];
    expect((await choose(passing, seven, 'cluster', pool, 1)).index).toBe(2);
  });

  it('extra inputs change the shown ones a little, keeping their types', () => {
    const extra = extraInputs(problem.tests, 8, new Rng(2));
    expect(extra).toHaveLength(8);
    for (const test of extra) expect(Array.isArray(test.args[0]) && (test.args[0] as number[]).every(Number.isInteger)).toBe(true);
    expect(extra.some((test, j) => JSON.stringify(test.args) !== JSON.stringify(problem.tests[j % 3].args))).toBe(true);
  });

  it('a shown test that most programs passing the others agree against is reported with why; never of a true/false function', () => {
    const wrong = { ...problem, tests: [problem.tests[0], { ...problem.tests[1], expected: [11] }, problem.tests[2]] };
    const against = [0, 1, 2, 3].map((i) => candidate(i, `p${i}`, 10, [true, false, true], [[2, 4], [10], []]));
    // Programs that fail another shown test too do not count: most drawn programs are wrong anyway.
    const elsewhere = Array.from({ length: 200 }, (_, i) => candidate(10 + i, `q${i}`, 10, [false, false, true], [[1], [10], []]));
    expect(suspectTest([...against, ...elsewhere], wrong)).toMatchObject({ index: 1, reason: '4 of the 4 different programs that pass every other shown test return [10] here, where the test expects [11]' });
    expect(suspectTest(against.slice(0, 3), wrong)).toBeUndefined(); // three are not enough
    // Nor four of nine that pass the others: the other five disagree with them.
    const scattered = [4, 5, 6, 7, 8].map((i) => candidate(i, `r${i}`, 10, [true, false, true], [[2, 4], [i], []]));
    expect(suspectTest([...against, ...scattered], wrong)).toBeUndefined();
    expect(suspectTest([...against, ...scattered.slice(0, 4)], wrong)).toMatchObject({ index: 1 }); // four of eight: half
    // A function of true or false: half of all programs agree on either value, so no hint.
    const [isEven] = parseProblemsText(JSON.stringify({ function_name: 'is_even', docstring: 'Whether n is even.', test_cases: [[4, true], [3, true], [0, true]], starter_code: '' })).problems;
    expect(suspectTest([0, 1, 2, 3].map((i) => candidate(i, `b${i}`, 10, [true, false, true], [true, false, true])), isEven)).toBeUndefined();
    // Nor with two shown tests: programs that pass the one other test say little ("return 2" passes pick(1, 2, false) = 2).
    const [pick] = parseProblemsText(JSON.stringify({ function_name: 'pick', docstring: 'Return a if c else b.', test_cases: [[[1, 2, true], 1], [[1, 2, false], 2]], starter_code: '' })).problems;
    expect(suspectTest([0, 1, 2, 3].map((i) => candidate(i, `c${i}`, 10, [false, true], [2, 2])), pick)).toBeUndefined();
  });
});

describe('search with the shipped functions policy', () => {
  it('stops drawing for a problem once enough programs pass its shown tests, and reports solved@k', async () => {
    const bytes = new Uint8Array(readFileSync('public/functions.prl'));
    const { meta, tensors } = await decodeCheckpoint(bytes);
    const config = meta.config as unknown as FunctionsConfig;
    const policy = new TransformerPolicy(functionsPolicyConfig(config), 1);
    policy.setWeights(tensorArrays(tensors, 'weights'));
    const seed = parseProblemsText(readFileSync('datasets/functions/training_problems.json', 'utf8')).problems as FunctionProblem[];
    try {
      const result = await searchFunctions({ policy, config, pool }, seed, { k: 64, selection: 'first', sampling: 'independent', batch: 4 });
      // The shipped policy solves the seed problems greedily: one round of 4 each, never 64.
      expect(result.per_problem.every((row) => row.drawn === 4)).toBe(true);
      expect(result.solved).toBe(1);
      expect(result.solved_at.map((at) => at.k)).toEqual([1, 2, 4, 8, 16, 32, 64]);
      expect(result.solved_at[0].solved).toBe(1);
      // Cluster waits for `enough` passing draws; a program the confident policy writes again counts again, so it stops at 64 of 256.
      const clustered = await searchFunctions({ policy, config, pool }, seed.slice(0, 3), { k: 256, selection: 'cluster', sampling: 'independent', enough: 8, batch: 64 });
      for (const row of clustered.per_problem) expect(row.drawn).toBe(64);
      // Distinct sampling: never the same program twice. A solved problem stops after the first
      // stage (batch programs); one nothing can solve (its tests contradict each other) goes on
      // to k distinct programs.
      const impossible = { ...seed[0], tests: [seed[0].tests[0], { ...seed[0].tests[0], expected: 12345 }] };
      const distinct = await searchFunctions({ policy, config, pool }, [seed[0], impossible], { k: 48, selection: 'cluster', sampling: 'distinct', batch: 8 });
      expect(distinct.sampling).toBe('distinct');
      const [easy, hard] = distinct.per_problem;
      expect([easy.solved, easy.drawn, easy.distinct]).toEqual([true, 8, 8]);
      expect([hard.solved, hard.drawn, hard.distinct]).toEqual([false, 48, 48]);
      // The chosen program's tests are counted, shown and hidden, as greedy's rows count them; a problem nothing passes has none.
      expect([easy.shown_passed, easy.hidden_passed]).toEqual([easy.shown_total, easy.hidden_total]);
      expect([hard.shown_passed, hard.shown_total]).toEqual([undefined, 2]);
      // A problem the policy can write, with one shown test wrong: named, with why.
      const sum = parseProblemsText(JSON.stringify({ function_name: 'sum_list', docstring: 'Return the sum of the list.', test_cases: [[[[2, 2]], 40], [[[1, 2, 3]], 6], [[[]], 0], [[[5]], 5], [[[4, 1]], 5]], starter_code: '' })).problems;
      const [wrongSum] = (await searchFunctions({ policy, config, pool }, sum, { k: 64, selection: 'likely', sampling: 'distinct', batch: 16 })).per_problem;
      expect(wrongSum.solved).toBe(false);
      expect(wrongSum.suspect_test).toMatchObject({ index: 0, reason: expect.stringMatching(/^\d+ of the \d+ different programs that pass every other shown test return 4 here, where the test expects 40$/) });
      // `likely` keeps the most probable of the passing programs: never less probable than the first to pass, from the same draws.
      // Weak shown tests (one each), so that many programs pass and the first to pass is not always the most probable.
      const weak = [problem, ...seed.slice(0, 6)].map((p) => ({ ...p, tests: [p.tests.at(-1)!] }));
      const rules: SearchResult[] = [];
      for (const selection of ['first', 'likely'] as const) rules.push(await searchFunctions({ policy, config, pool }, weak, { k: 16, selection, sampling: 'distinct', batch: 16 }));
      rules[1].per_problem.forEach((row, i) => {
        if (row.passing === 0) return;
        expect(row.log_prob).toEqual(expect.any(Number));
        expect(row.log_prob!).toBeGreaterThanOrEqual(rules[0].per_problem[i].log_prob!);
      });
      expect(rules[1].per_problem.some((row, i) => row.passing > 0 && row.log_prob! > rules[0].per_problem[i].log_prob!)).toBe(true);
      // The rescoring is the policy's own probability: at temperature 1 it equals what sampling
      // summed; at the search's 1.3 the sampled sums rank differently, so it is not that.
      const { grammar } = functionsTask(config);
      const prompt = encodeProblemPrompt(weak[1], config.functions.promptTests, promptBudget(config));
      for (const temperature of [1, SEARCH_TEMPERATURE]) {
        const [drawn] = await sampleDistinct(policy, grammar, [prompt], { k: 6, maxTokens: config.model.maxProgramTokens, temperature, rng: new Rng(3) });
        const rescored = await policyLogProbs(policy, grammar, prompt, drawn.map((sample) => sample.tokens));
        const gaps = drawn.map((sample, i) => Math.abs(sample.logProb - rescored[i]));
        if (temperature === 1) expect(Math.max(...gaps)).toBeLessThan(1e-3);
        else expect(Math.max(...gaps)).toBeGreaterThan(0.01);
      }
      // The search reports (and `likely` ranks by) that probability, not the sampled one at 1.3.
      const row = rules[1].per_problem[1];
      expect(row.tokens).toBeDefined();
      expect(row.log_prob!).toBeCloseTo((await policyLogProbs(policy, grammar, prompt, [row.tokens!]))[0], 4);
      // Cancel (the page's progress callback throws) acts at the first report, which comes as soon
      // as the first programs are drawn: before any is run, not after a whole round.
      const judging = vi.spyOn(pool, 'evaluateBatch');
      const cancelled = searchFunctions({ policy, config, pool }, weak, { k: 256, selection: 'likely', onProgress: () => { throw new Error('cancelled'); } });
      await expect(cancelled).rejects.toThrow('cancelled');
      expect(judging).not.toHaveBeenCalled();
      judging.mockRestore();
    } finally {
      policy.dispose();
    }
  }, 120_000);
});
