/**
 * A functions run with the task's own evaluation result (per problem, shown and hidden tests):
 * for the tools and tests that read more than the generic evaluation (runner.ts) gives.
 */
import type { LabConfig } from '../config';
import { createTrainingLoop, type LoopDeps, type TrainingLoop } from '../loop';
import { evaluateFunctions, type FunctionEvaluateOptions, type FunctionEvaluation } from './evaluate';
import type { FunctionProblem } from './problems';
import { searchFunctions, type SearchOptions, type SearchResult } from './search';
import { withLoop } from '../runner';
import { functionsTask } from './task';

export interface FunctionsRunner extends TrainingLoop {
  evaluate(problems: readonly FunctionProblem[], options?: FunctionEvaluateOptions): Promise<FunctionEvaluation>;
  /** The search that uses the shown tests (search.ts): up to k programs per problem, early stop, a choice rule. */
  search(problems: readonly FunctionProblem[], options: SearchOptions): Promise<SearchResult>;
}

export async function createFunctionsRunner(config: LabConfig, train: readonly FunctionProblem[], deps: LoopDeps): Promise<FunctionsRunner> {
  if (config.task.name !== 'functions') throw new Error(`createFunctionsRunner: the config's task is ${config.task.name}`);
  const loop = await createTrainingLoop(config, functionsTask(config), train, deps);
  return withLoop<Pick<FunctionsRunner, 'evaluate' | 'search'>>(loop, {
    evaluate: (problems, options) => evaluateFunctions({ policy: loop.policy, config, pool: deps.pool }, problems, options),
    search: (problems, options) => searchFunctions({ policy: loop.policy, config, pool: deps.pool }, problems, options),
  });
}
