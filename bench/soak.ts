/** The soak benchmark (`npm run bench -- --only=soak`): tensors and memory over a long run with saves, loads and backend switches. */
import * as tf from '@tensorflow/tfjs';
import { defaultConfig } from '../src/core/config';
import { generateProblems } from '../src/core/functions/generator';
import { functionsTask } from '../src/core/functions/task';
import { createTrainingLoop } from '../src/core/loop';
import { taskPreludes } from '../src/core/runner';
import { sandboxLimits } from '../src/cli/report';
import { createNodeSandboxPool } from '../src/cli/sandboxHost';
import type { Report } from './learning';

/**
 * The leak soak (docs/reliability.md): 1,000 training steps of the one loop (the functions task, a
 * tiny policy, the real sandbox pool) with a checkpoint saved every 20 steps and loaded back every
 * 100, and two backend switches as a lost GPU device makes them (trainerService's recovery): at
 * the half the run is saved, disposed and rebuilt from its checkpoint on the cpu backend, and at
 * three quarters back on the first one. Reports the tensor count after warm-up and at the end
 * (they must be equal), and the resident set before and after.
 */
export async function soakFigures(steps: number, report: Report): Promise<void> {
  const config = defaultConfig();
  config.task.name = 'functions';
  config.model = { ...config.model, layers: 1, dModel: 16, heads: 2, context: 160, maxProgramTokens: 24 };
  config.algorithm = { ...config.algorithm, batchSize: 8 };
  const pool = createNodeSandboxPool({ size: 1, limits: sandboxLimits(config), preludes: taskPreludes() });
  const problems = generateProblems(200, 5).map((made) => made.problem);
  let loop = await createTrainingLoop(config, functionsTask(config), problems, { pool });
  const first = tf.getBackend();
  const switches = new Map([[Math.floor(steps / 2), 'cpu'], [Math.floor((3 * steps) / 4), first]]);
  try {
    const warmup = 10;
    let saves = 0;
    let loads = 0;
    let tensorsAfterWarmup = 0;
    let rssAfterWarmup = 0;
    const started = performance.now();
    for (let step = 1; step <= steps; step++) {
      await loop.step();
      if (step % 20 === 0) {
        const bytes = await loop.saveCheckpoint();
        saves += 1;
        if (step % 100 === 0) {
          await loop.loadCheckpoint(bytes);
          loads += 1;
        }
      }
      const backend = switches.get(step);
      if (backend) {
        const bytes = await loop.saveCheckpoint();
        saves += 1;
        loop.dispose();
        await tf.setBackend(backend);
        loop = await createTrainingLoop(config, functionsTask(config), problems, { pool, initFrom: bytes });
        await loop.loadCheckpoint(bytes);
        loads += 1;
      }
      if (step === warmup) {
        tensorsAfterWarmup = tf.memory().numTensors;
        rssAfterWarmup = process.memoryUsage().rss;
      }
    }
    const seconds = (performance.now() - started) / 1000;
    // One measurement: its min and max are itself.
    const growth = tf.memory().numTensors - tensorsAfterWarmup;
    report({
      name: 'soak_tensor_growth/functions_tiny', unit: 'tensors', median: growth, min: growth, max: growth, runs: 1,
      steps, saves, loads, backend_switches: [...switches.values()].join(' -> '), tensors_after_warmup: tensorsAfterWarmup, tensors_at_end: tf.memory().numTensors,
      rss_mb_after_warmup: Math.round(rssAfterWarmup / 2 ** 20), rss_mb_at_end: Math.round(process.memoryUsage().rss / 2 ** 20), seconds: Math.round(seconds),
    });
  } finally {
    loop.dispose();
    await pool.close();
  }
}
