/**
 * Best-of-k's choice on fixed programs (the sampler replaced by the programs given): the first
 * program that passes every shown test is chosen, whatever the hidden tests do to it.
 */
import { afterAll, describe, expect, it, vi } from 'vitest';
import { defaultConfig, type LabConfig } from '../core/config';
import { exprToken, SET0, SLOT, stmtToken, valueToken, VAR0 } from '../core/functions/language';
import { parseFunctionProblem } from '../core/functions/problems';
import { taskPreludes } from '../core/runner';
import { sandboxLimits } from './report';
import { createNodeSandboxPool } from './sandboxHost';

const programs: number[][] = [];
vi.mock('../core/model/sampler', async (original) => ({
  ...(await original<typeof import('../core/model/sampler')>()),
  sampleBatch: async (_policy: unknown, _grammar: unknown, prompts: number[][]) => prompts.map((_, i) => ({ tokens: programs[i % programs.length], logProbs: [], lineEnds: [], complete: true })),
}));
const { evaluateFunctions } = await import('../core/functions/evaluate');

const config: LabConfig = defaultConfig('functions');
const pool = createNodeSandboxPool({ size: 1, limits: sandboxLimits(config), preludes: taskPreludes() });
afterAll(() => pool.close());

const v = (slot: number) => VAR0 + slot;
// let v0 = 0; for (let i = 0; i < n; i++) v0 = v0 + i; return v0: right, and 10^8 steps on the hidden test.
const loop = [stmtToken('LET_INT'), valueToken(0), stmtToken('FOR'), valueToken(0), v(SLOT.P0), SET0, exprToken('ADD'), v(SLOT.V0), v(SLOT.I), stmtToken('END'), stmtToken('RETURN'), v(SLOT.V0)];
// return Math.floor((n * (n - 1)) / 2): right, and fast.
const closed = [stmtToken('RETURN'), exprToken('DIV'), exprToken('MUL'), v(SLOT.P0), exprToken('SUB'), v(SLOT.P0), valueToken(1), valueToken(2)];
const sumBelow = parseFunctionProblem({ function_name: 'sum_below', docstring: 'Sum of the integers below n.', test_cases: [[0, 0], [1, 0], [4, 6]], hidden_test_cases: [[100000000, 4999999950000000]], starter_code: 'def sum_below(n):' });

describe('best-of-k chooses by the shown tests alone', () => {
  it('keeps the first program that passes them, though a hidden test times it out, and reports its shown tests as passed', async () => {
    programs.splice(0, programs.length, loop, closed);
    const [row] = (await evaluateFunctions({ policy: {} as never, config, pool }, [sumBelow], { k: 2 })).per_problem;
    expect(row).toMatchObject({ solved: false, shown_passed: 3, shown_total: 3, hidden_passed: 0, outcome: 'timeout' });
    expect(row.program).toContain('for (');
    // The fast program first: chosen, and it solves the problem.
    programs.splice(0, programs.length, closed, loop);
    expect((await evaluateFunctions({ policy: {} as never, config, pool }, [sumBelow], { k: 2 })).per_problem[0]).toMatchObject({ solved: true, shown_passed: 3, hidden_passed: 1 });
  });
});
