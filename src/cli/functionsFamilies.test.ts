/**
 * The generator's wider families (positionFamilies.ts, conditionFamilies.ts, formulaFamilies.ts): each kind the
 * issue names is drawn, every generated program passes its own generated tests in the real
 * sandbox (the interpreter that computed them agrees with JavaScript), its parameters' names
 * match its signature, and a problem equal to an excluded one is never generated.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../core/config';
import { defaultGeneratorOptions, generateProblem, generateProblems, problemKey, type GeneratedProblem } from '../core/functions/generator';
import { testJob, testsPassed } from '../core/functions/harness';
import { parameterNames, printFunction } from '../core/functions/program';
import { allTests } from '../core/functions/task';
import { Rng } from '../core/rng';
import { taskPreludes } from '../core/runner';
import { functionsProtectedProblems, loadProblemsReport } from './data';
import { sandboxLimits } from './report';
import { createNodeSandboxPool } from './sandboxHost';

const pool = createNodeSandboxPool({ size: 1, limits: sandboxLimits(defaultConfig()), preludes: taskPreludes() });
afterAll(() => pool.close());

const wider = { ...defaultGeneratorOptions, randomShare: 0, widerShare: 1 };

function draw(count: number, seed: number): GeneratedProblem[] {
  const rng = new Rng(seed);
  const out: GeneratedProblem[] = [];
  for (let tries = 0; out.length < count && tries < count * 5; tries++) {
    const made = generateProblem(rng, wider);
    if (made) out.push(made);
  }
  return out;
}

describe('the wider generator families', () => {
  const made = draw(1500, 41);

  it('draws every kind the issue names: edits by position, relative indexing and counting, conditional transforms', () => {
    // The rarest families come about twice in a thousand draws: a wide sample (generation alone is cheap), not the sandboxed one.
    const names = new Set(draw(8000, 41).map(({ problem }) => problem.functionName));
    const kinds = {
      'first or last k': ['take_first', 'take_last', 'drop_first', 'drop_last'],
      slices: ['slice', 'slice_inclusive'],
      'insert or remove at an index': ['insert_at', 'remove_at', 'replace_at'],
      rotations: ['rotate_left', 'rotate_right', 'rotate_to_smallest'],
      'repeat an element or the list': ['repeat_list', 'repeat_each', 'repeat_first', 'mirror'],
      prepending: ['prepend', 'surround'],
      'k-th': ['kth_element', 'kth_from_end', 'kth_largest'],
      'indexing relative to other elements': ['indices_where', 'index_of_largest', 'before_value', 'after_value', 'index_map'],
      'counting relative to other elements': ['count_relative', 'count_vs_index', 'count_rises'],
      'conditional transforms': ['map_where', 'map_branches', 'replace_where', 'replace_value', 'clamp', 'list_if'],
      'two lists': ['add_lists', 'common', 'larger_sum'],
      prefixes: ['running_sum', 'take_while', 'never_negative'],
      'shapes of the list': ['neighbours_both', 'ends_both', 'largest_sorted_gap', 'even_then_odd_positions', 'one_is_sum_of_rest'],
      'stated by a formula': ['formula_map', 'formula_map_index', 'formula_filter', 'formula_count', 'formula_any', 'formula_all', 'formula_sum', 'formula_extreme', 'formula_int'],
    };
    for (const [kind, families] of Object.entries(kinds)) for (const family of families) expect(names, `${kind}: ${family}`).toContain(family);
    expect(names.size).toBeGreaterThan(100);
  });

  it('every generated program passes its own generated tests in the sandbox, within the token budget', async () => {
    const jobs = made.map(({ problem, program }) =>
      testJob(printFunction(program, problem.signature, problem.functionName, parameterNames(problem.signature.params.length, problem.parameters)).text, problem.functionName, allTests(problem), 1));
    const outcomes = await pool.evaluateBatch(jobs);
    const failing = outcomes.flatMap((outcome, i) => (testsPassed(outcome, allTests(made[i].problem)).every(Boolean) ? [] : [`${made[i].problem.functionName}: ${made[i].problem.docstring}`]));
    expect(failing).toEqual([]);
    for (const { problem, program } of made) {
      expect(program.length).toBeLessThanOrEqual(defaultGeneratorOptions.maxProgramTokens);
      expect(problem.parameters ?? [], problem.functionName).toHaveLength(problem.signature.params.length);
      // Informative tests: not every output the same.
      expect(new Set(allTests(problem).map((test) => JSON.stringify(test.expected))).size).toBeGreaterThan(1);
    }
  }, 120_000);

  it('never generates a problem equal to an excluded one (the held-out exclusion)', () => {
    const plain = generateProblems(200, 7);
    const excluded = new Set(plain.filter((_, i) => i % 3 === 0).map(({ problem }) => problemKey(problem)));
    const again = generateProblems(200, 7, defaultGeneratorOptions, excluded);
    expect(again).toHaveLength(200);
    expect(again.filter(({ problem }) => excluded.has(problemKey(problem)))).toEqual([]);
  });

  it('the shipped training file holds no held-out or dev problem, and is what its documented command makes', () => {
    const shipped = loadProblemsReport('datasets/functions/train.jsonl', { quiet: true }).problems;
    const protectedKeys = new Set(functionsProtectedProblems().map(problemKey));
    expect(protectedKeys.size).toBeGreaterThan(250);
    expect(shipped.filter((problem) => protectedKeys.has(problemKey(problem))).map((problem) => problem.functionName)).toEqual([]);
    // datasets/README.md: npm run generate -- --task functions --count 4000 --seed 1 --exclude datasets/functions/heldout.jsonl
    const made = generateProblems(4000, 1, defaultGeneratorOptions, protectedKeys);
    expect(made.map(({ problem }) => problemKey(problem))).toEqual(shipped.map(problemKey));
  }, 60_000);
});
