/**
 * A Kolmogorov run with the task's own evaluation result (every search's metrics, by length, the
 * kept program of each sequence): for the tools and tests that read more than the generic
 * evaluation (runner.ts) gives.
 */
import type { LabConfig } from '../config';
import type { KolmogorovRecord } from '../data/records';
import { createTrainingLoop, type LoopDeps, type TrainingLoop } from '../loop';
import { evaluateKolmogorov, type EvaluateOptions, type EvaluationResult } from './evaluate';
import { withLoop } from '../runner';
import { kolmogorovTask } from './task';

export interface KolmogorovRunner extends TrainingLoop {
  evaluate(records: readonly KolmogorovRecord[], options?: EvaluateOptions): Promise<EvaluationResult>;
}

export async function createKolmogorovRunner(config: LabConfig, data: { train: readonly KolmogorovRecord[]; heldout: readonly KolmogorovRecord[] }, deps: LoopDeps): Promise<KolmogorovRunner> {
  const loop = await createTrainingLoop(config, kolmogorovTask(config, data.heldout), data.train, deps);
  return withLoop<Pick<KolmogorovRunner, 'evaluate'>>(loop, {
    evaluate: (records, options) => evaluateKolmogorov({ policy: loop.policy, config, pool: deps.pool }, records, options),
  });
}
