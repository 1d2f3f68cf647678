/**
 * The functions task end to end with the real sandbox pool: the harness's outcomes on hostile
 * functions (docs/reliability.md), the generator's expected outputs agreeing with the sandbox, the
 * task against the loop's contract, a smoke run of the one loop with every reward type, the
 * curriculum widening its pool, and infra errors kept out of the update.
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig, type LabConfig } from '../core/config';
import { generateProblems } from '../core/functions/generator';
import { HARNESS_SOURCE_LENGTH, testJob, testsPassed } from '../core/functions/harness';
import { parseFunctionProblem, type FunctionProblem } from '../core/functions/problems';
import { parameterNames, printFunction } from '../core/functions/program';
import { allTests, functionsTask, judgeShownApart } from '../core/functions/task';
import { exprToken, SET0, SLOT, stmtToken, valueToken, VAR0 } from '../core/functions/language';
import type { SampledSequence } from '../core/model/sampler';
import { createTrainingLoop } from '../core/loop';
import { createFunctionsRunner } from '../core/functions/runner';
import { taskPreludes } from '../core/runner';
import type { SandboxPool } from '../core/sandbox/pool';
import { sandboxLimits } from './report';
import { createNodeSandboxPool } from './sandboxHost';

const config: LabConfig = defaultConfig();
config.task = { ...config.task, name: 'functions' };
config.model = { ...config.model, layers: 1, dModel: 16, heads: 2, context: 160, maxProgramTokens: 24 };
config.algorithm = { ...config.algorithm, batchSize: 8, learningRate: 0.01 };
const pool = createNodeSandboxPool({ size: 1, limits: sandboxLimits(config), preludes: taskPreludes() });
const problems = generateProblems(24, 11).map((made) => made.problem);

beforeAll(async () => {
  await tf.setBackend('wasm');
});
afterAll(() => pool.close());

const add = parseFunctionProblem({ function_name: 'add', docstring: 'Add.', test_cases: [[[2, 3], 5], [[0, 0], 0]], hidden_test_cases: [[[-1, 1], 0]], starter_code: '' });

async function run(source: string, problem: FunctionProblem = add) {
  const [outcome] = await pool.evaluateBatch([testJob(source, problem.functionName, allTests(problem), 1)]);
  return { outcome, passed: testsPassed(outcome, allTests(problem)) };
}

describe('the functions harness in the sandbox', () => {
  it('passes a right function, fails a wrong one per test, and gives partial credit', async () => {
    expect((await run('function add(a, b) { return a + b; }')).passed).toEqual([true, true, true]);
    expect((await run('function add(a, b) { return a * b; }')).passed).toEqual([false, true, false]);
  });

  it('a throw fails only its own test; a wrong type, a float, a string fail', async () => {
    expect((await run('function add(a, b) { if (a === 0) throw new Error("x"); return a + b; }')).passed).toEqual([true, false, true]);
    expect((await run('function add(a, b) { return String(a + b); }')).passed).toEqual([false, false, false]);
    expect((await run('function add(a, b) { return (a + b) / 2; }')).passed).toEqual([false, true, true]); // 2.5 is no integer
    expect((await run('function add(a, b) { return a + b > 0; }')).passed).toEqual([false, false, false]);
    expect((await run('function add(a, b) { throw null; }')).passed).toEqual([false, false, false]);
  });

  it('an infinite loop times out and the next job runs fine', async () => {
    const looped = await run('function add(a, b) { while (true) {} }');
    expect(looped.outcome.kind).toBe('timeout');
    expect(looped.passed).toEqual([false, false, false]);
    expect((await run('function add(a, b) { return a + b; }')).passed).toEqual([true, true, true]);
  });

  it('a program right on the shown tests but too slow for a hidden one still passes its shown tests when evaluated: hidden tests never decide a shown one', async () => {
    const sumBelow = parseFunctionProblem({ function_name: 'sum_below', docstring: 'Sum of the integers below n.', test_cases: [[0, 0], [1, 0], [4, 6]], hidden_test_cases: [[2, 1], [100000000, 4999999950000000]], starter_code: 'def sum_below(n):' });
    const v = (slot: number) => VAR0 + slot;
    // let v0 = 0; for (let i = 0; i < n; i++) v0 = v0 + i; return v0: right, and a loop of 10^8 steps on the last hidden test.
    const loop = [stmtToken('LET_INT'), valueToken(0), stmtToken('FOR'), valueToken(0), v(SLOT.P0), SET0, exprToken('ADD'), v(SLOT.V0), v(SLOT.I), stmtToken('END'), stmtToken('RETURN'), v(SLOT.V0)];
    const sample = { tokens: loop, logProbs: [], lineEnds: [], complete: true } as unknown as SampledSequence;
    // In one job the time limit fails every test, the shown ones with them.
    const [together] = await pool.evaluateBatch([testJob(printFunction(loop, sumBelow.signature, 'sum_below', parameterNames(1)).text, 'sum_below', allTests(sumBelow), 1)]);
    expect(together.kind).toBe('timeout');
    const [judged] = await judgeShownApart([sumBelow], [sample], { pool, seed: 1 });
    expect(judged.passed).toEqual([true, true, true, false, false]); // the hidden ones stay the whole job's, as training's reward has them
    expect(judged.outcome.kind).toBe('timeout');
  });

  it('hostile results (a getter, a Proxy, a huge list) never pass and never cross the boundary', async () => {
    const getter = await run('function add(a, b) { return { get length() { throw new Error("no"); } }; }');
    expect(getter.passed).toEqual([false, false, false]);
    const proxy = await run('function add(a, b) { return new Proxy([5], { get() { return 5; } }); }');
    expect(proxy.passed.every((p) => !p)).toBe(true);
    const quiet = await run('function add(a, b) { return new Proxy({ valueOf() { return a + b; } }, {}); }');
    expect(quiet.passed).toEqual([false, false, false]);
    const huge = await run('function add(a, b) { return Array(100000).fill(1); }');
    expect(huge.passed).toEqual([false, false, false]);
    // A function cannot fake its results: the comparison happens on the host.
    const forged = await run('function add(a, b) { output = [0, 5, 0, 0, 0, 0]; return 5; }');
    expect(forged.passed).toEqual([true, false, false]);
  });

  it('the harness\'s result channel is out of the program\'s reach: replacing __runTests, output, push or array indices, or skipping the harness, forges nothing (issue 29)', async () => {
    // Under the old harness each of these made the job's output [0, 5, 0, 0, 0, 0]: all three tests passed.
    const forged = '[0, 5, 0, 0, 0, 0]';
    const attempts = {
      assigned: `function add(a, b) { return 1; }\n__runTests = function () { return ${forged}; };`,
      declared: `function add(a, b) { return 1; }\nfunction __runTests() { return ${forged}; }`,
      skipped: `function add(a, b) { return 1; }\noutput = ${forged}; if (0)`,
      outputLocked: `function add(a, b) { return 1; }\nObject.defineProperty(globalThis, 'output', { get() { return ${forged}; }, set() {} });`,
      push: 'var k = 0; function add(a, b) { Array.prototype.push = function (tag, v) { var n = this.length; this[n] = tag; this[n + 1] = k++ === 0 ? 5 : 0; return n + 2; }; return 1; }',
      indices: `function add(a, b) { var f = ${forged}; for (var i = 0; i < 6; i++) (function (i) { Object.defineProperty(Array.prototype, i, { get() { return f[i]; }, set() {}, configurable: true }); })(i); return 1; }`,
    };
    for (const [name, source] of Object.entries(attempts)) {
      expect((await run(source)).passed, name).toEqual([false, false, false]);
    }
    // The program may call the harness itself, but only on the tests' own inputs, set before it ran:
    // what it reports is a function's results, nothing it could not have returned.
    const own = await run('function add(a, b) { return 1; }\n__runTests(function () { return 5; }); __tests(["[0, 0]"]); if (0)');
    expect(own.passed).toEqual([true, false, false]);
  });

  it('a problem of 64 shown and 64 hidden tests on 64-value lists is judged whole (the report is 16,640 numbers, past the default output cap); a too-long result fails its own test alone', async () => {
    const test = (t: number) => {
      const xs = Array.from({ length: 64 }, (_, i) => (i * 7 + t) % 50);
      return [[xs], [...xs].sort((a, b) => a - b)];
    };
    const sorting = parseFunctionProblem({ function_name: 'sort_list', docstring: 'Return the list sorted.', test_cases: Array.from({ length: 64 }, (_, t) => test(t)), hidden_test_cases: Array.from({ length: 64 }, (_, t) => test(t + 64)) });
    expect(config.sandbox.maxOutputLength).toBeLessThan(16_640);
    expect((await run('function sort_list(a) { return [...a].sort((p, q) => p - q); }', sorting)).passed.every(Boolean)).toBe(true);
    const long = await run('function sort_list(a) { return a[0] === 0 ? Array(100).fill(1) : [...a].sort((p, q) => p - q); }', sorting);
    expect(long.passed.filter((passed) => !passed)).toHaveLength(allTests(sorting).filter((t) => (t.args[0] as number[])[0] === 0).length);
  });

  it('the largest problem the loader takes (64 + 64 tests of four 64-value lists of the widest integers) fits the sandbox\'s source cap and is judged whole', async () => {
    const list = (t: number) => Array.from({ length: 64 }, (_, i) => (i + t) % 2 ? -Number.MAX_SAFE_INTEGER : Number.MAX_SAFE_INTEGER - i);
    const test = (t: number) => [[list(t), list(t + 1), list(t + 2), list(t + 3)], list(t + 3)[0]];
    const widest = parseFunctionProblem({ function_name: 'first_of_last', docstring: 'The first value of d.', test_cases: Array.from({ length: 64 }, (_, t) => test(t + 3)), hidden_test_cases: Array.from({ length: 64 }, (_, t) => test(t + 67)), starter_code: 'def first_of_last(a, b, c, d):' });
    const text = 'function first_of_last(a, b, c, d) { return d[0]; }';
    const job = testJob(text, 'first_of_last', allTests(widest), 1);
    expect(job.source.length - text.length).toBeGreaterThan(64 << 10); // past the sandbox's default cap on its own
    expect(job.source.length - text.length).toBeLessThanOrEqual(HARNESS_SOURCE_LENGTH);
    expect((await run(text, widest)).passed).toEqual(allTests(widest).map(() => true));
  });

  it('a function that sorts its argument in place does not spoil the next test', async () => {
    const first = parseFunctionProblem({ function_name: 'first', docstring: 'First.', test_cases: [[[[3, 1, 2]], 3], [[[3, 1, 2]], 3]], starter_code: '' });
    const sorter = 'function first(xs) { const v = xs[0]; xs.sort(); return v; }';
    expect((await run(sorter, first)).passed).toEqual([true, true]);
  });

  it('agrees with the generator: every generated program passes its own tests in the sandbox', async () => {
    const made = generateProblems(150, 23);
    const jobs = made.map(({ problem, program }) =>
      testJob(printFunction(program, problem.signature, problem.functionName, parameterNames(problem.signature.params.length)).text, problem.functionName, allTests(problem), 1));
    const outcomes = await pool.evaluateBatch(jobs);
    const failing = outcomes.map((outcome, i) => testsPassed(outcome, allTests(made[i].problem)).every(Boolean) ? null : made[i].problem.functionName).filter(Boolean);
    expect(failing).toEqual([]);
  });
});

describe('the functions task on the one loop', () => {
  it('scores every sample of an untrained policy: each one prints, runs and is judged', async () => {
    const loop = await createTrainingLoop(config, functionsTask(config), problems, { pool });
    try {
      const result = await loop.step();
      expect(result.samples).toHaveLength(8);
      for (const sample of result.samples) {
        if (sample.program) expect(sample.program.startsWith('function ')).toBe(true);
        expect(['ok', 'timeout', 'oom', 'output_invalid', 'stack_overflow']).toContain(sample.outcome);
        expect(sample.detail).toMatch(/^\d+\/\d+ tests$/);
      }
      expect(result.metrics.outcome_compile_error).toBe(0); // the grammar only writes programs that parse
      for (const key of ['tests_passed', 'reward/correctness', 'policy_loss', 'accuracy']) expect(Number.isFinite(result.metrics[key])).toBe(true);
    } finally {
      loop.dispose();
    }
  });

  it('trains a few steps with each reward type, and evaluates per problem', async () => {
    for (const rewardType of ['test_cases', 'code_quality', 'sparse', 'curriculum'] as const) {
      const runner = await createFunctionsRunner({ ...config, functions: { ...config.functions, rewardType } }, problems, { pool });
      try {
        for (let i = 0; i < 2; i++) expect((await runner.step()).skipped).toBe(false);
        const result = await runner.evaluate(problems.slice(0, 3), { k: 2 });
        expect(result.n).toBe(3);
        expect(result.per_problem.map((row) => row.function_name)).toEqual(problems.slice(0, 3).map((p) => p.functionName));
        expect(result.solved).toBeGreaterThanOrEqual(0);
      } finally {
        runner.dispose();
      }
    }
  });

  it('the curriculum samples the easiest problems first and widens when a step succeeds', async () => {
    // Two problems any function passes (the same output whatever the input) make success certain.
    const trivial = parseFunctionProblem({ function_name: 't', docstring: 'T.', test_cases: [[1, 1], [2, 1]], starter_code: '' });
    const easy = Array.from({ length: 5 }, () => ({ ...trivial, difficulty: 1 }));
    const hard = problems.slice(0, 15).map((p) => ({ ...p, difficulty: 50 }));
    const curriculum: LabConfig = { ...config, functions: { ...config.functions, rewardType: 'curriculum', curriculumStart: 0.25, curriculumWiden: 0 } };
    const loop = await createTrainingLoop(curriculum, functionsTask(curriculum), [...hard, ...easy], { pool });
    try {
      const first = await loop.step();
      expect(first.samples.every((s) => s.label?.startsWith('t:'))).toBe(true); // the 5 easiest form the first pool
      expect(first.metrics.curriculum_pool).toBe(7); // widened by a tenth of 20 after a step at success >= 0
    } finally {
      loop.dispose();
    }
  });

  it('keeps sandbox failures (infra_error) out of the update and counts them apart', async () => {
    const broken: SandboxPool = {
      ...pool,
      evaluateBatch: async (jobs) => jobs.map(() => ({ kind: 'infra_error' as const, message: 'worker died', elapsedMs: 0 })),
    } as SandboxPool;
    const logs: string[] = [];
    const loop = await createTrainingLoop(config, functionsTask(config), problems, { pool: broken, onLog: (line) => logs.push(line) });
    try {
      const result = await loop.step();
      const complete = result.samples.filter((s) => s.program).length;
      expect(result.metrics.outcome_infra_error).toBe(complete);
      if (complete === result.samples.length) expect(result.skipped).toBe(true); // nothing left to learn from
      expect(logs.some((line) => /kept out of the update/.test(line))).toBe(complete > 0);
    } finally {
      loop.dispose();
    }
  });
});
