/**
 * `npm run bench -- --only=page`: how fast the page trains, measured inside headless Chromium on
 * the built page, beside the CLI's figures from the same run.
 *
 * 1. `vite build`, then `vite preview` on a free port (the cross-origin isolation headers of
 *    vite.config.ts included), and Debian's /usr/bin/chromium through Playwright.
 * 2. For each backend (wasm, its updates split with a gradient worker per further core; wasm with
 *    `?shards=0`, one thread; wasm with `?kernel_threads=2`, products split with a helper worker; webgpu,
 *    requested with the page's `?backend=webgpu`, which tries it even when it is a software
 *    adapter such as SwiftShader): the page opened on the reference
 *    run (the default config: the kolmogorov task's model, d_model 64, 4 heads, 2 layers, batch 32,
 *    fresh weights), Train pressed, and the RL steps' own metrics read through the page's
 *    read-only test bridge (`window.__lab.state().series`, src/ui/main.tsx) after `warmup` steps:
 *    sampling tokens/s (`tokens_per_s`: program tokens sampled per second of sampling) and update
 *    tokens/s (the same program tokens per second of the policy update, `update_ms`: what the
 *    update learns from), each the median over the measured steps.
 * 3. The same run in this process (core/loop.ts on the same config, Node's sandbox pool), with
 *    the same figures, just before the page's; the CLI's reference benchmarks (policyFigures) last,
 *    for context. Each run's figures carry the load over that run.
 * 4. The warm start (Pretrain: supervised updates, where the page splits each batch with a gradient
 *    worker per further core, src/worker/service/shards.ts): the CLI's data-parallel trainer on the
 *    same batches on 2 and 1 threads, then the page with its workers and with `?shards=0`; tokens/s
 *    are the batch's prompt and program tokens per second of the update (`pretrain_tokens_per_s`),
 *    and `vs_cli_best` is the page's figure over the CLI's on 2 threads.
 * The load figures (bench/load.ts) count Chromium and vite preview, child processes of this one,
 * as this run's own.
 * WebGPU here is SwiftShader, a software fallback adapter the page itself skips: a reference RL
 * step takes minutes on it, so it gets one warm-up step and whatever steps fit in its time budget.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { chromium, type Page } from '@playwright/test';
import { configFromSearchParams } from '../src/core/config';
import { KolmogorovGrammar } from '../src/core/kolmogorov/grammar';
import { kolmogorovPolicyConfig, kolmogorovTask } from '../src/core/kolmogorov/task';
import { createTrainingLoop } from '../src/core/loop';
import { taskPreludes } from '../src/core/runner';
import { loadKolmogorovFile } from '../src/cli/data';
import { sandboxLimits } from '../src/cli/report';
import { createNodeSandboxPool } from '../src/cli/sandboxHost';
import { createNodeGradientShards } from '../src/cli/gradientHost';
import { SupervisedTrainer } from '../src/core/algorithms/supervised';
import { TransformerPolicy } from '../src/core/model/transformer';
import { taskDefinition } from '../src/core/registry';
import { LoadMonitor, type Load } from './load';
import { median, summary } from './stats';

const root = fileURLToPath(new URL('..', import.meta.url));
const viteBin = fileURLToPath(new URL('../node_modules/vite/bin/vite.js', import.meta.url));

/** Debian's Chromium and the flags the e2e tests use (playwright.config.ts), WebGPU allowed. */
const chromiumArgs = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run', '--enable-unsafe-webgpu'];

/** The run both sides train: the default config (the kolmogorov task's model) with an explicit link, so the page starts from fresh weights as the CLI does. */
const runHash = 'seed=1';

interface Options {
  quick: boolean;
  report: (figure: { name: string; unit: string; median: number; min: number; max: number; runs: number; [extra: string]: unknown }) => void;
  /** The CLI's reference policy figures (bench/run.ts's policyFigures), run last, for context. */
  cliFigures: () => Promise<void>;
}

interface StepFigures {
  sampling: number[];
  update: number[];
  stepMs: number[];
}

/** Per-step figures from an RL step's metrics: sampling tokens/s, update tokens/s (the same tokens per second of update), step ms. */
function stepFigures(metrics: { tokens_per_s: number; sample_ms: number; update_ms: number; step_ms: number }[]): StepFigures {
  return {
    sampling: metrics.map((m) => m.tokens_per_s),
    update: metrics.map((m) => (m.tokens_per_s * m.sample_ms) / m.update_ms),
    stepMs: metrics.map((m) => m.step_ms),
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs vite with `args` to its end; rejects with its output when it fails. */
export function runVite(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [viteBin, ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`vite ${args.join(' ')} exited with ${code}:\n${output.slice(-2000)}`))));
  });
}

/** Starts `vite preview` on `port` and resolves once it answers. */
async function startPreview(port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [viteBin, 'preview', '--host', '127.0.0.1', '--port', String(port), '--strictPort'], { cwd: root, stdio: 'ignore' });
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`vite preview exited with ${child.exitCode}`);
    try {
      if ((await fetch(`http://127.0.0.1:${port}/`)).ok) return child;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  child.kill();
  throw new Error('vite preview did not answer within 60 s');
}

type LabState = {
  message: string;
  phase: string;
  backend: { backend: string; skipped: string[]; notes?: string[] } | null;
  series: Record<string, { step: number; value: number }[]>;
};

const labState = (page: Page) => page.evaluate(() => {
  const state = (window as unknown as { __lab: { state(): LabState } }).__lab.state();
  // The store keeps series in a Map by metric name (a Map does not cross evaluate): an object here.
  const series = state.series as unknown as Map<string, { step: number; value: number }[]> | LabState['series'];
  return { message: state.message, phase: state.phase, backend: state.backend, series: series instanceof Map ? Object.fromEntries(series) : series } as LabState;
});

/** Opens the page on the reference run with `query` and waits until it is ready to train; its state then. */
async function openReady(page: Page, base: string, query: string): Promise<LabState> {
  await page.goto(`${base}/?${query}#${runHash}`);
  await page.waitForFunction(() => {
    const lab = (window as unknown as { __lab?: { state(): LabState } }).__lab;
    return lab ? /ready to train/.test(lab.state().message) : false;
  }, undefined, { timeout: 120_000 });
  return labState(page);
}

/** Trains the reference run in the page on `backend` and returns the measured steps' figures, or why the backend did not run. */
async function pageRun(page: Page, base: string, backend: 'wasm' | 'webgpu', query: string, warmup: number, steps: number, timeoutMs: number): Promise<{ figures: StepFigures; notes: string[] } | { skipped: string }> {
  const ready = await openReady(page, base, query);
  if (ready.backend?.backend !== backend) {
    return { skipped: `the page runs ${ready.backend?.backend} (${[...(ready.backend?.skipped ?? []), ...(ready.backend?.notes ?? [])].join('; ')})` };
  }
  const notes = ready.backend.notes ?? [];
  await page.getByRole('button', { name: 'Train', exact: true }).click();
  const started = Date.now();
  for (;;) {
    const points = (await labState(page)).series.step_ms?.length ?? 0;
    if (points >= warmup + steps) break;
    if (Date.now() - started > timeoutMs) {
      if (points > warmup) break; // slow (a software GPU): measure what there is
      // A run that failed (a lost device, an out-of-memory) has no Pause to press: its message says why.
      const pause = page.getByRole('button', { name: 'Pause', exact: true });
      if (await pause.isEnabled()) await pause.click();
      const state = await labState(page);
      const first = state.series.step_ms?.[0]?.value;
      return { skipped: `${backend}: ${points} step${points === 1 ? '' : 's'} in ${Math.round(timeoutMs / 1000)} s (the first ${first === undefined ? 'unfinished' : `${Math.round(first / 1000)} s`}), too few to measure; the page's phase: ${state.phase}, its status: ${state.message}` };
    }
    await page.waitForTimeout(500);
  }
  await page.getByRole('button', { name: 'Pause', exact: true }).click();
  const { series } = await labState(page);
  const value = (name: string, step: number) => series[name]?.find((p) => p.step === step)?.value ?? NaN;
  const measured = (series.step_ms ?? []).map((p) => p.step).filter((step) => step > warmup).slice(0, steps);
  const metrics = measured.map((step) => ({ tokens_per_s: value('tokens_per_s', step), sample_ms: value('sample_ms', step), update_ms: value('update_ms', step), step_ms: value('step_ms', step) }));
  return { figures: stepFigures(metrics), notes };
}

/** The same run in this process: core/loop.ts on the same config, Node's sandbox pool; with `threads` > 1 its updates split with Node gradient workers (`npm run train -- --threads`). */
async function cliRun(warmup: number, steps: number, threads = 1): Promise<StepFigures> {
  const config = configFromSearchParams(runHash);
  const train = await loadKolmogorovFile(config.run.dataPath);
  const pool = createNodeSandboxPool({ size: config.sandbox.workers, limits: sandboxLimits(config), preludes: taskPreludes() });
  const shards = threads > 1 ? await createNodeGradientShards(threads - 1, kolmogorovPolicyConfig(config), 'wasm', { task: 'kolmogorov' }) : null;
  const loop = await createTrainingLoop(config, kolmogorovTask(config), train, { pool, gradientShards: shards?.shards });
  try {
    const metrics = [];
    for (let i = 0; i < warmup + steps; i++) {
      const result = await loop.step();
      const figures = result.metrics as { tokens_per_s: number; sample_ms: number; update_ms: number; step_ms: number; update_threads?: number };
      if ((figures.update_threads ?? 1) !== threads) throw new Error(`the CLI's RL update ran on ${figures.update_threads} thread(s), not ${threads}: a gradient worker failed`);
      if (i >= warmup) metrics.push(figures);
    }
    return stepFigures(metrics);
  } finally {
    loop.dispose();
    await Promise.all([pool.close(), shards?.close()]);
  }
}

/**
 * The warm start in the page (Pretrain on the reference run, wasm, the page's gradient workers
 * unless `query` says `shards=0`): each update's `pretrain_tokens_per_s` (prompt and program
 * tokens per second of the update) and `pretrain_threads`, after `warmup` updates.
 */
async function pagePretrain(page: Page, base: string, query: string, warmup: number, steps: number, timeoutMs: number): Promise<{ tokensPerS: number[]; threads: number; notes: string[] } | { skipped: string }> {
  const ready = await openReady(page, base, query);
  if (ready.backend?.backend !== 'wasm') return { skipped: `the page runs ${ready.backend?.backend}` };
  const total = warmup + steps;
  await page.getByTestId('pretrain-steps').fill(String(total));
  await page.getByTestId('pretrain-eval-every').fill(String(total));
  await page.getByRole('button', { name: 'Pretrain', exact: true }).click();
  const started = Date.now();
  for (;;) {
    const points = (await labState(page)).series.pretrain_tokens_per_s?.length ?? 0;
    if (points >= total) break;
    if (Date.now() - started > timeoutMs) return { skipped: `${points} of ${total} pretrain steps in ${Math.round(timeoutMs / 1000)} s; status: ${(await labState(page)).message}` };
    await page.waitForTimeout(500);
  }
  const { series } = await labState(page);
  const measured = (series.pretrain_tokens_per_s ?? []).filter((p) => p.step > warmup).map((p) => p.value);
  const threads = series.pretrain_threads?.at(-1)?.value ?? NaN;
  return { tokensPerS: measured, threads, notes: ready.backend.notes ?? [] };
}

/**
 * The same warm start in this process: the page's batches (the task's warmStart, same config and
 * seed, the shipped held-out file excluded as the page does), SupervisedTrainer on `threads`
 * threads (Node gradient workers beside this one: the CLI's `pretrain --threads`).
 */
async function cliPretrain(threads: number, warmup: number, steps: number): Promise<number[]> {
  const config = configFromSearchParams(runHash);
  const heldout = await loadKolmogorovFile(config.run.evalDataPath);
  const warm = taskDefinition('kolmogorov').warmStart!;
  const batch = warm.batches(config, heldout);
  const policyConfig = kolmogorovPolicyConfig(config);
  const host = threads > 1 ? await createNodeGradientShards(threads - 1, policyConfig, 'wasm', { task: 'kolmogorov' }) : null;
  const policy = new TransformerPolicy(policyConfig, config.run.seed);
  const trainer = new SupervisedTrainer(policy, new KolmogorovGrammar(), { learningRate: warm.learningRate(config), gradClip: config.algorithm.gradClip }, host?.shards);
  try {
    const rates: number[] = [];
    for (let i = 0; i < warmup + steps; i++) {
      const pairs = batch(config.algorithm.batchSize);
      const tokens = pairs.reduce((sum, pair) => sum + pair.prompt.length + pair.tokens.length, 0);
      const started = performance.now();
      const result = await trainer.step(pairs);
      if (result.threads !== threads) throw new Error(`the CLI's warm start ran on ${result.threads} thread(s), not ${threads}: a gradient worker failed`);
      if (i >= warmup) rates.push((tokens * 1000) / (performance.now() - started));
    }
    return rates;
  } finally {
    trainer.dispose();
    policy.dispose();
    await host?.close();
  }
}

export async function pageFigures({ quick, report, cliFigures }: Options): Promise<void> {
  const warmup = 3;
  const steps = quick ? 5 : 10;
  const { model, algorithm } = configFromSearchParams(runHash);
  const runName = `default config #${runHash} (kolmogorov, d_model ${model.dModel} x ${model.layers} layers, batch ${algorithm.batchSize})`;
  const results: Record<string, StepFigures> = {};
  /** Reports a run's two figures, each with the load over the whole run. */
  const reportRun = (label: string, figures: StepFigures, load: Load, where: Record<string, unknown>, notes?: string[]) => {
    results[label] = figures;
    report({ name: `${label}/sample_tokens_per_s`, unit: 'tokens/s', ...summary(figures.sampling), ...where, ...(notes ? { notes } : {}), load });
    report({ name: `${label}/update_tokens_per_s`, unit: 'tokens/s', ...summary(figures.update), ...where, step_ms: median(figures.stepMs), load });
  };
  await runVite(['build']);
  // The CLI's run first, then the page's right after it (the machine's load drifts).
  let monitor = new LoadMonitor();
  const cli = await cliRun(warmup, steps);
  reportRun('cli/rl_run', cli, monitor.read(), { backend: 'wasm (Node)', run: runName, warmup_steps: warmup });
  monitor = new LoadMonitor();
  const cliTwo = await cliRun(warmup, steps, 2);
  reportRun('cli/rl_run_2_threads', cliTwo, monitor.read(), { backend: 'wasm (Node)', threads: 2, run: runName, warmup_steps: warmup });
  // The warm start (supervised updates): the CLI's data-parallel trainer on the page's batches,
  // on 2 threads and on 1, before the browser starts (nothing else runs meanwhile).
  const pretrainSteps = quick ? 10 : 20;
  const cliPretrainRates: Record<number, number[]> = {};
  for (const threads of [2, 1]) {
    monitor = new LoadMonitor();
    cliPretrainRates[threads] = await cliPretrain(threads, warmup, pretrainSteps);
    report({ name: `cli/pretrain_${threads}_threads/tokens_per_s`, unit: 'tokens/s', ...summary(cliPretrainRates[threads]), backend: 'wasm (Node)', threads, run: `${runName}, Pretrain`, warmup_steps: warmup, load: monitor.read() });
  }
  const port = await freePort();
  const preview = await startPreview(port);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: chromiumArgs, headless: true });
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const base = `http://127.0.0.1:${port}`;
    await page.goto(`${base}/`);
    const isolated = await page.evaluate(() => crossOriginIsolated);
    const version = browser.version();
    // wasm as the page runs it (updates split with its gradient workers); on one thread
    // (?shards=0); with products split by a helper worker (?kernel_threads=2); webgpu last.
    const variants = [
      { label: 'wasm', backend: 'wasm', query: 'backend=wasm' },
      { label: 'wasm_shards_0', backend: 'wasm', query: 'backend=wasm&shards=0' },
      { label: 'wasm_threads_2', backend: 'wasm', query: 'backend=wasm&kernel_threads=2' },
    ] as const;
    const rlRun = async ({ label, backend, query }: { label: string; backend: 'wasm' | 'webgpu'; query: string }) => {
      const [warm, measured, budget] = backend === 'wasm' ? [warmup, steps, 300_000] : [1, steps, quick ? 300_000 : 600_000];
      monitor = new LoadMonitor();
      const run = await pageRun(page, base, backend, query, warm, measured, budget);
      const where = { browser: `chromium ${version}`, cross_origin_isolated: isolated, backend, page_query: `?${query}`, run: runName, warmup_steps: warm };
      if ('skipped' in run) report({ name: `page/${label}/skipped`, unit: '', median: NaN, min: NaN, max: NaN, runs: 0, ...where, reason: run.skipped, load: monitor.read() });
      else reportRun(`page/${label}`, run.figures, monitor.read(), where, run.notes);
    };
    for (const variant of variants) await rlRun(variant);
    for (const { label, query } of [{ label: 'wasm', query: 'backend=wasm' }, { label: 'wasm_shards_0', query: 'backend=wasm&shards=0' }]) {
      monitor = new LoadMonitor();
      const run = await pagePretrain(page, base, query, warmup, pretrainSteps, 600_000);
      const where = { browser: `chromium ${version}`, cross_origin_isolated: isolated, page_query: `?${query}`, run: `${runName}, Pretrain`, warmup_steps: warmup };
      if ('skipped' in run) {
        report({ name: `page/pretrain_${label}/skipped`, unit: '', median: NaN, min: NaN, max: NaN, runs: 0, ...where, reason: run.skipped, load: monitor.read() });
        continue;
      }
      report({ name: `page/pretrain_${label}/tokens_per_s`, unit: 'tokens/s', ...summary(run.tokensPerS), ...where, threads: run.threads, notes: run.notes, load: monitor.read() });
      // Against the CLI's best on the same work: its data-parallel trainer on two threads.
      const best = median(cliPretrainRates[2]);
      report({ name: `page/pretrain_${label}/vs_cli_best`, unit: 'ratio', median: median(run.tokensPerS) / best, min: NaN, max: NaN, runs: 1, page_threads: run.threads, cli: 'pretrain, data parallel on 2 threads', cli_tokens_per_s: best });
    }
    // WebGPU last: a software adapter here takes minutes a step, and its last step may still run when the figures are read.
    await rlRun({ label: 'webgpu', backend: 'webgpu', query: 'backend=webgpu' });
    await context.close();
  } finally {
    await browser.close();
    preview.kill();
  }
  // Against the CLI's same run, and against its best: the same run with its updates on 2 threads.
  const best = median(cliTwo.update) > median(cli.update) ? cliTwo : cli;
  for (const label of ['page/wasm', 'page/wasm_shards_0', 'page/wasm_threads_2', 'page/webgpu']) {
    const figures = results[label];
    if (!figures) continue;
    const update = median(figures.update) / median(cli.update), sampling = median(figures.sampling) / median(cli.sampling);
    report({ name: `${label}/vs_cli_rl_run`, unit: 'ratio', median: update, min: NaN, max: NaN, runs: 1, update_tokens_per_s: update, sample_tokens_per_s: sampling });
    const vsBest = median(figures.update) / median(best.update);
    report({ name: `${label}/vs_cli_best_rl_run`, unit: 'ratio', median: vsBest, min: NaN, max: NaN, runs: 1, cli: best === cliTwo ? 'updates on 2 threads' : 'one thread', cli_update_tokens_per_s: median(best.update) });
  }
  // The CLI's reference benchmarks, for context.
  await cliFigures();
}
