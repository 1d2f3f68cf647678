/** The functions search benchmark (`npm run bench -- --only=fsearch`). */
import * as tf from '@tensorflow/tfjs';
import { readFileSync } from 'node:fs';
import { openFunctionsCheckpointRunner } from '../src/cli/checkpointRunner';
import { loadProblemsFile } from '../src/cli/data';
import { progressLine } from '../src/cli/report';
import type { Report } from './learning';

/** The functions search at k = 256 over 200 problems (the budget: under 5 minutes on this machine), one timed run. */
export async function functionSearchFigures(checkpoint: string, report: Report): Promise<void> {
  const sources = ['datasets/functions/handwritten_dev.jsonl', 'datasets/functions/dev.jsonl', 'datasets/functions/validation.jsonl'];
  const problems = sources.flatMap((path) => loadProblemsFile(path, { quiet: true })).slice(0, 200);
  const { runner, close } = await openFunctionsCheckpointRunner(new Uint8Array(readFileSync(checkpoint)));
  try {
    const started = performance.now();
    const line = progressLine();
    const result = await runner.search(problems, { k: 256, selection: 'likely', onProgress: (done, total) => line.update(`searched ${done}/${total}`, done, total) });
    const seconds = (performance.now() - started) / 1000;
    line.end();
    report({
      name: 'functions_search_k256_likely/200_problems', unit: 's', median: seconds, min: seconds, max: seconds, runs: 1,
      problems: result.n, solved: result.solved, mean_drawn: result.mean_drawn, sampling: result.sampling, temperature: result.temperature, checkpoint, sources, backend: tf.getBackend(),
    });
  } finally {
    await close();
  }
}
