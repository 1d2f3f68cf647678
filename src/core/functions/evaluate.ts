/**
 * Per-problem evaluation of the functions task, as the DQN seed's evaluate.py reports it and
 * as program-synthesis benchmarks score it: per problem the greedy program and k - 1 samples;
 * the chosen program is the first of them (greedy first) that passes every shown test, else the
 * greedy one; a problem is solved when the chosen program passes every shown and hidden test.
 * Hidden tests never choose. pass@1 is the greedy program alone; the success rate is the share
 * of the k programs that pass every test (the seed's "success rate over N episodes").
 */
import type { FunctionsConfig } from './config';
import { sampleBatch } from '../model/sampler';
import type { TransformerPolicy } from '../model/transformer';
import { Rng } from '../rng';
import type { SandboxPool } from '../sandbox/pool';
import type { FunctionProblem } from './problems';
import { encodeProblemPrompt, functionsTask, judgeShownApart, promptBudget } from './task';

export interface FunctionEvaluateOptions {
  /** Programs per problem: the greedy one and k - 1 samples. */
  k?: number;
  temperature?: number;
  limit?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface ProblemResult {
  function_name: string;
  docstring: string;
  solved: boolean;
  /** The greedy program passes every test. */
  pass_at_1: boolean;
  /** The chosen program's tests: shown passed / total, hidden passed / total. */
  shown_passed: number;
  shown_total: number;
  hidden_passed: number;
  hidden_total: number;
  /** Share of the k programs that pass every test. */
  success_rate: number;
  /** The chosen program ('' when none was complete). */
  program: string;
  outcome: string;
}

export interface FunctionEvaluation {
  n: number;
  k: number;
  /** The sampling temperature of the k - 1 programs beside the greedy one. */
  temperature: number;
  /** Share of problems solved by the chosen program. */
  solved: number;
  pass_at_1: number;
  /** Mean success rate over the k programs. */
  success_rate: number;
  per_problem: ProblemResult[];
}

export async function evaluateFunctions(
  setup: { policy: TransformerPolicy; config: FunctionsConfig; pool: SandboxPool },
  problems: readonly FunctionProblem[],
  options: FunctionEvaluateOptions = {},
): Promise<FunctionEvaluation> {
  const { policy, config, pool } = setup;
  const task = functionsTask(config);
  const selected = problems.slice(0, options.limit ?? problems.length);
  const k = Math.max(1, options.k ?? 1);
  const temperature = options.temperature ?? 1;
  const chunk = Math.max(1, Math.floor(64 / k));
  const rng = new Rng(config.run.seed ^ 0x5eed);
  const rows: ProblemResult[] = [];
  for (let start = 0; start < selected.length; start += chunk) {
    const part = selected.slice(start, start + chunk);
    const prompts = part.flatMap((problem) => Array(k).fill(encodeProblemPrompt(problem, config.functions.promptTests, promptBudget(config))) as number[][]);
    const samples = await sampleBatch(policy, task.grammar, prompts, {
      maxTokens: config.model.maxProgramTokens,
      temperature,
      rng,
      greedy: prompts.map((_, i) => i % k === 0),
    });
    const repeated = part.flatMap((problem) => Array(k).fill(problem) as FunctionProblem[]);
    const judged = await judgeShownApart(repeated, samples, { pool, seed: config.run.seed });
    part.forEach((problem, r) => {
      const mine = judged.slice(r * k, (r + 1) * k);
      const shown = problem.tests.length;
      const passesShown = (j: number) => mine[j].passed.slice(0, shown).every(Boolean);
      const passesAll = (j: number) => mine[j].passed.every(Boolean);
      const chosen = Math.max(0, mine.findIndex((_, j) => mine[j].program !== null && passesShown(j)));
      const passed = mine[chosen].passed;
      rows.push({
        function_name: problem.functionName,
        docstring: problem.docstring,
        solved: passesAll(chosen),
        pass_at_1: passesAll(0),
        shown_passed: passed.slice(0, shown).filter(Boolean).length,
        shown_total: shown,
        hidden_passed: passed.slice(shown).filter(Boolean).length,
        hidden_total: passed.length - shown,
        success_rate: mine.filter((_, j) => passesAll(j)).length / k,
        program: mine[chosen].program?.text ?? '',
        outcome: mine[chosen].outcome.kind,
      });
    });
    options.onProgress?.(Math.min(start + chunk, selected.length), selected.length);
  }
  const share = (f: (row: ProblemResult) => number) => (rows.length ? rows.reduce((sum, row) => sum + f(row), 0) / rows.length : 0);
  return {
    n: rows.length,
    k,
    temperature,
    solved: share((row) => Number(row.solved)),
    pass_at_1: share((row) => Number(row.pass_at_1)),
    success_rate: share((row) => row.success_rate),
    per_problem: rows,
  };
}
