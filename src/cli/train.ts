/**
 * `npm run train -- [flags]`: REINFORCE on the Kolmogorov task, headless. Flags are the
 * config fields (see --help) plus the seed's options under the same names: model config
 * (--layers --d-model --heads --context), --data-path, --eval-data-path, --output-dir,
 * --num-epochs, --batch-size, --learning-rate, --reward-constant, --length-penalty,
 * --checkpoint-freq, --eval-freq, --seed, --backend.
 *
 * Writes to the output dir: config.json, metrics.jsonl (one `{step, name, value, wallMs}`
 * event per line), checkpoint-<step>.prl every --checkpoint-freq steps and latest.prl
 * (written to a temporary name, then renamed, so a crash mid-save keeps the previous one),
 * eval_results.json after the final evaluation. Ctrl-C saves a checkpoint before leaving.
 */
import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRunner, preludes, trainingRecords, type Runner } from '../core/runner';
import type { KtMetrics, StepResult } from '../core/runnerTypes';
import { parseArgs, runMain, usage, type ExtraFlag } from './args';
import { loadKolmogorovFile, readCheckpointFile } from './data';
import { createNodeSandboxPool } from './sandboxHost';
import { initTensorflow } from './tfBackend';
import { formatMetricsTable, sandboxLimits } from './report';

const extras: ExtraFlag[] = [
  { name: 'help', doc: 'show this help', boolean: true },
  { name: 'resume', doc: 'checkpoint file to resume from (weights, optimizer, step, RNG, data cursor)' },
  { name: 'init-from', doc: 'checkpoint whose weights start the policy (warm start; also the KL reference)' },
  { name: 'eval-k', doc: 'programs sampled per held-out sequence at evaluation (best-of-k)', defaultValue: '1' },
  { name: 'quiet', doc: 'print only the summary', boolean: true },
];

function writeAtomic(path: string, bytes: Uint8Array): void {
  writeFileSync(`${path}.tmp`, bytes);
  renameSync(`${path}.tmp`, path);
}

function formatStep(result: StepResult, total: number, secondsPerStep: number): string {
  const m = result.metrics;
  const eta = Math.max(0, (total - result.step) * secondsPerStep);
  const etaText = eta > 90 ? `${(eta / 60).toFixed(1)}m` : `${eta.toFixed(0)}s`;
  return [
    `step ${result.step}/${total}`,
    `reward ${m.avg_reward.toFixed(3)}`,
    `acc ${m.accuracy.toFixed(3)}`,
    `comp ${m.compression_rate.toFixed(3)}`,
    `loss ${m.policy_loss.toFixed(4)}`,
    `H ${m.entropy.toFixed(3)}`,
    `bits ${m.program_bits.toFixed(1)}`,
    `tok/s ${m.tokens_per_s.toFixed(0)}`,
    `evals/s ${m.evals_per_s.toFixed(0)}`,
    `${secondsPerStep.toFixed(2)} s/step`,
    `ETA ${etaText}`,
    result.skipped ? `SKIPPED: ${result.reason}` : '',
  ].join('  ');
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // The digit tasks have their own recipe and command (src/cli/digits.ts).
  const task = argv.flatMap((arg, i) => (arg === '--task' ? [argv[i + 1]] : arg.startsWith('--task=') ? [arg.slice(7)] : []))[0];
  if (task === 'sum_digits' || task === 'reverse_digits') return (await import('./digits')).digitsMain(argv);
  if (argv.includes('--help') || argv.includes('-h')) {
    console.log(usage('train', 'REINFORCE on the Kolmogorov task: write the shortest program that reproduces each sequence.', extras));
    return;
  }
  const { config, extra } = parseArgs(argv, extras);
  const quiet = Boolean(extra.quiet);
  const evalK = Number(extra['eval-k']);
  if (!Number.isInteger(evalK) || evalK < 1) throw new Error(`--eval-k: expected a positive integer, got "${extra['eval-k']}"`);
  if (config.task.name !== 'kolmogorov') throw new Error(`--task ${config.task.name}: use \`npm run digits\` for the digit tasks`);
  if (config.run.backend === 'webgpu' || config.run.backend === 'webgl') {
    throw new Error(`--backend ${config.run.backend} exists only in the browser; in Node use wasm or cpu`);
  }

  const backend = await initTensorflow(config.run.backend === 'auto' ? 'auto' : config.run.backend);
  console.error(`tfjs backend: ${backend.backend} (${backend.detail})`);
  const train = await loadKolmogorovFile(config.run.dataPath);
  const heldout = await loadKolmogorovFile(config.run.evalDataPath);

  const outputDir = config.run.outputDir;
  mkdirSync(outputDir, { recursive: true });
  writeFileSync(join(outputDir, 'config.json'), JSON.stringify(config, null, 2) + '\n');
  const metricsPath = join(outputDir, 'metrics.jsonl');

  const pool = createNodeSandboxPool({ size: config.sandbox.workers, limits: sandboxLimits(config), preludes });
  let runner: Runner | undefined;
  let interrupted = false;
  const onSignal = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error('\ninterrupt: finishing the current step and saving a checkpoint (Ctrl-C again to quit at once)');
  };
  process.on('SIGINT', onSignal);

  try {
    const initFrom = typeof extra['init-from'] === 'string' ? readCheckpointFile(extra['init-from'], 'init-from') : undefined;
    runner = await createRunner(config, { train, heldout }, { pool, initFrom, onLog: (text) => console.error(text) });
    if (initFrom) console.error(`policy initialised from ${extra['init-from']}`);
    if (config.task.maxTrainLength) {
      const short = train.filter((record) => record.sequence.length <= config.task.maxTrainLength).length;
      const pieces = trainingRecords(config, train).length - short;
      console.error(
        `RL trains on the ${short} of ${train.length} training sequences with at most ${config.task.maxTrainLength} values` +
          (config.task.trainPieces ? ` and ${pieces} pieces of the longer ones (${config.task.trainPieces} each at most)` : ''),
      );
    }
    if (typeof extra.resume === 'string') {
      await runner.loadCheckpoint(readCheckpointFile(extra.resume, 'resume'));
      console.error(`resumed from ${extra.resume} at step ${runner.globalStep}`);
    } else {
      writeFileSync(metricsPath, '');
    }

    const groups = Math.max(1, Math.round(config.algorithm.batchSize / config.algorithm.groupSize));
    const epochSteps = Math.ceil(train.length / groups);
    const total = config.run.maxSteps > 0 ? config.run.maxSteps : config.run.numEpochs * epochSteps;
    const started = performance.now();
    const startStep = runner.globalStep;

    const saveCheckpoint = async (reason: string) => {
      const bytes = await runner!.saveCheckpoint();
      writeAtomic(join(outputDir, `checkpoint-${runner!.globalStep}.prl`), bytes);
      writeAtomic(join(outputDir, 'latest.prl'), bytes);
      if (!quiet) console.error(`checkpoint (${reason}): ${join(outputDir, `checkpoint-${runner!.globalStep}.prl`)} (${(bytes.length / 1024).toFixed(0)} KiB)`);
    };
    const evaluate = async (): Promise<KtMetrics> => {
      const result = await runner!.evaluate(heldout, { limit: config.run.evalSamples, k: evalK });
      const { rows: _rows, searches: _searches, byLength: _byLength, ...metrics } = result;
      const wallMs = performance.now() - started;
      const events = [
        ['eval_accuracy', metrics.accuracy],
        ['eval_compression_rate', metrics.compressionRate],
        ['eval_precision', metrics.precision],
      ].map(([name, value]) => JSON.stringify({ step: runner!.globalStep, name, value, wallMs }));
      appendFileSync(metricsPath, events.join('\n') + '\n');
      return metrics;
    };

    while (runner.globalStep < total && !interrupted) {
      const result = await runner.step();
      const wallMs = performance.now() - started;
      appendFileSync(
        metricsPath,
        Object.entries(result.metrics).map(([name, value]) => JSON.stringify({ step: result.step, name, value, wallMs })).join('\n') + '\n',
      );
      const secondsPerStep = wallMs / 1000 / (runner.globalStep - startStep);
      if (!quiet) console.error(formatStep(result, total, secondsPerStep));
      if (config.run.checkpointFreq > 0 && runner.globalStep % config.run.checkpointFreq === 0) await saveCheckpoint('periodic');
      if (config.run.evalFreq > 0 && runner.globalStep % config.run.evalFreq === 0) {
        const metrics = await evaluate();
        console.error(`eval @${runner.globalStep}: accuracy ${metrics.accuracy.toFixed(3)}  compression ${metrics.compressionRate.toFixed(3)}`);
      }
    }
    await saveCheckpoint(interrupted ? 'interrupted' : 'final');
    const steps = runner.globalStep - startStep;
    const seconds = (performance.now() - started) / 1000;
    console.error(`trained ${steps} steps in ${seconds.toFixed(1)} s (${(steps / seconds).toFixed(3)} steps/s)`);

    if (!interrupted) {
      console.error(`evaluating on ${Math.min(config.run.evalSamples, heldout.length)} held-out sequences (k=${evalK})...`);
      const metrics = await evaluate();
      writeFileSync(join(outputDir, 'eval_results.json'), JSON.stringify({ step: runner.globalStep, k: evalK, ...metrics }, null, 2) + '\n');
      console.log(formatMetricsTable([{ label: `policy step ${runner.globalStep}`, metrics }], metrics));
    }
  } finally {
    process.off('SIGINT', onSignal);
    runner?.dispose();
    await pool.close();
  }
}

runMain(main);
