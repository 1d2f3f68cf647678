/**
 * `npm run bench -- --only=page`: how fast the page trains, measured inside headless Chromium on
 * the built page, beside the CLI's figures from the same run.
 *
 * 1. `vite build`, then `vite preview` on a free port (the cross-origin isolation headers of
 *    vite.config.ts included), and Debian's /usr/bin/chromium through Playwright.
 * 2. For each backend (wasm; wasm with `?threads=2`, products split with a helper worker; webgpu,
 *    requested with the page's `?backend=webgpu`, which tries it even when it is a software
 *    adapter such as SwiftShader): the page opened on the reference
 *    run (the default config: d_model 128, 4 heads, 2 layers, batch 32, the kolmogorov task,
 *    fresh weights), Train pressed, and the RL steps' own metrics read through the page's
 *    read-only test bridge (`window.__lab.state().series`, src/ui/main.tsx) after `warmup` steps:
 *    sampling tokens/s (`tokens_per_s`: program tokens sampled per second of sampling) and update
 *    tokens/s (the same program tokens per second of the policy update, `update_ms`: what the
 *    update learns from), each the median over the measured steps.
 * 3. The same run in this process (core/loop.ts on the same config, Node's sandbox pool), with
 *    the same figures, just before the page's; the CLI's reference benchmarks (policyFigures) last,
 *    for context. Each run's figures carry the load over that run.
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
import { kolmogorovTask } from '../src/core/kolmogorov/task';
import { createTrainingLoop } from '../src/core/loop';
import { taskPreludes } from '../src/core/runner';
import { loadKolmogorovFile } from '../src/cli/data';
import { sandboxLimits } from '../src/cli/report';
import { createNodeSandboxPool } from '../src/cli/sandboxHost';
import { LoadMonitor, type Load } from './load';

const root = fileURLToPath(new URL('..', import.meta.url));
const viteBin = fileURLToPath(new URL('../node_modules/vite/bin/vite.js', import.meta.url));

/** Debian's Chromium and the flags the e2e tests use (playwright.config.ts), WebGPU allowed. */
const chromiumArgs = ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run', '--enable-unsafe-webgpu'];

/** The run both sides train: the default config (the reference policy) with an explicit link, so the page starts from fresh weights as the CLI does. */
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

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const summary = (values: number[]) => ({ median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length });

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

/** Trains the reference run in the page on `backend` and returns the measured steps' figures, or why the backend did not run. */
async function pageRun(page: Page, base: string, backend: 'wasm' | 'webgpu', query: string, warmup: number, steps: number, timeoutMs: number): Promise<{ figures: StepFigures; notes: string[] } | { skipped: string }> {
  await page.goto(`${base}/?${query}#${runHash}`);
  await page.waitForFunction(() => {
    const lab = (window as unknown as { __lab?: { state(): LabState } }).__lab;
    return lab ? /ready to train/.test(lab.state().message) : false;
  }, undefined, { timeout: 120_000 });
  const ready = await labState(page);
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

/** The same run in this process: core/loop.ts on the same config, Node's sandbox pool. */
async function cliRun(warmup: number, steps: number): Promise<StepFigures> {
  const config = configFromSearchParams(runHash);
  const train = await loadKolmogorovFile(config.run.dataPath);
  const pool = createNodeSandboxPool({ size: config.sandbox.workers, limits: sandboxLimits(config), preludes: taskPreludes() });
  const loop = await createTrainingLoop(config, kolmogorovTask(config), train, { pool });
  try {
    const metrics = [];
    for (let i = 0; i < warmup + steps; i++) {
      const result = await loop.step();
      if (i >= warmup) metrics.push(result.metrics as { tokens_per_s: number; sample_ms: number; update_ms: number; step_ms: number });
    }
    return stepFigures(metrics);
  } finally {
    loop.dispose();
    await pool.close();
  }
}

export async function pageFigures({ quick, report, cliFigures }: Options): Promise<void> {
  const warmup = 3;
  const steps = quick ? 5 : 10;
  const runName = `default config #${runHash} (reference policy, kolmogorov RL)`;
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
    // wasm as the page runs it; wasm with products split by a helper worker (?threads=2); webgpu
    // last (a software adapter here: minutes a step).
    const variants = [
      { label: 'wasm', backend: 'wasm', query: 'backend=wasm' },
      { label: 'wasm_threads_2', backend: 'wasm', query: 'backend=wasm&threads=2' },
      { label: 'webgpu', backend: 'webgpu', query: 'backend=webgpu' },
    ] as const;
    for (const { label, backend, query } of variants) {
      const [warm, measured, budget] = backend === 'wasm' ? [warmup, steps, 300_000] : [1, steps, quick ? 300_000 : 600_000];
      monitor = new LoadMonitor();
      const run = await pageRun(page, base, backend, query, warm, measured, budget);
      const where = { browser: `chromium ${version}`, cross_origin_isolated: isolated, backend, page_query: `?${query}`, run: runName, warmup_steps: warm };
      if ('skipped' in run) report({ name: `page/${label}/skipped`, unit: '', median: NaN, min: NaN, max: NaN, runs: 0, ...where, reason: run.skipped, load: monitor.read() });
      else reportRun(`page/${label}`, run.figures, monitor.read(), where, run.notes);
    }
    await context.close();
  } finally {
    await browser.close();
    preview.kill();
  }
  for (const label of ['page/wasm', 'page/wasm_threads_2', 'page/webgpu']) {
    const figures = results[label];
    if (!figures) continue;
    const update = median(figures.update) / median(cli.update), sampling = median(figures.sampling) / median(cli.sampling);
    report({ name: `${label}/vs_cli_rl_run`, unit: 'ratio', median: update, min: NaN, max: NaN, runs: 1, update_tokens_per_s: update, sample_tokens_per_s: sampling });
  }
  // The CLI's reference benchmarks, for context.
  await cliFigures();
}
