import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { decodeCheckpoint } from '../src/core/checkpoint';
import { LabPage, tinyDigitRun } from './pages/labPage';

test.describe.configure({ mode: 'serial' });

test('the page loads, shows its backend and why faster ones were skipped, and the shipped data', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  const backend = await lab.state<{ backend: string; skipped: string[]; notes?: string[] }>('backend');
  expect(['webgpu', 'webgl', 'wasm', 'cpu']).toContain(backend.backend);
  // On wasm, attention's batched products run on our SIMD kernel (core/model/wasmBatchMatMul.ts).
  if (backend.backend === 'wasm') expect(backend.notes?.join('\n')).toContain('matMul: SIMD kernel');
  await expect(page.getByTestId('backend')).toContainText(backend.backend);
  await expect(page.getByTestId('dataset-summary-heldout')).toContainText('500 records loaded');
  await expect(page.getByTestId('preview')).toBeVisible();
});

test('dropping a valid JSONL loads it; a malformed one lists its bad lines', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.dropFile('mine.jsonl', '{"sequence":[1,2,3,4]}\n{"sequence":[5,5,5,5,5]}\n');
  await expect(page.getByTestId('dataset-summary-train')).toContainText('mine.jsonl: 2 records loaded');
  await lab.dropFile('bad.jsonl', readFileSync('datasets/sample-bad.jsonl'));
  await expect(page.getByTestId('dataset-summary-train')).toContainText('2 records loaded, 5 rejected lines');
  const rows = page.getByTestId('bad-lines').locator('tbody tr');
  await expect(rows).toHaveCount(5);
  await expect(rows.first()).toContainText('2');
  await expect(rows.first()).toContainText('invalid JSON');
});

test('Train adds chart points, Pause stops them, Resume continues; no long main-thread task', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.watchLongTasks();
  await lab.button('Train').click();
  await lab.waitForPoints(2);
  const first = await lab.points();
  await lab.waitForPoints(first + 2);
  await lab.button('Pause').click();
  await expect(page.getByTestId('phase')).toHaveText('paused');
  // Pause lets the step in flight finish; its metrics reach the charts within ~1.3 s (worker batch + chart interval).
  await page.waitForTimeout(1500);
  const paused = await lab.points();
  await page.waitForTimeout(3000);
  expect(await lab.points()).toBe(paused);
  await lab.button('Resume').click();
  await lab.waitForPoints(paused + 2);
  await lab.button('Pause').click();
  const longTasks = await lab.longTasks();
  // The target: no main-thread task over 50 ms while training. Measured on 2 cores shared
  // with the trainer and sandbox workers (and other jobs, load average ~10): recharts' LineChart
  // redraws made 50-300 ms tasks; charts drawn with recharts' primitives made none (Charts.tsx).
  console.log(`long tasks during training (ms): ${longTasks.join(', ') || 'none'}`);
  expect(Math.max(0, ...longTasks), `long tasks: ${longTasks.join(', ')}`).toBeLessThan(50);
  await page.screenshot({ path: 'test-results/e2e/training-page.png', fullPage: true });
  await page.getByTestId('charts').screenshot({ path: 'test-results/e2e/training-charts.png' });
  console.log(`steps/s in the page: ${await page.getByTestId('steps-per-second').textContent()}`);
});

test('Download checkpoint yields a file the engine validates; loading it back resumes from its step', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.button('Step').click();
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 2');
  const [download] = await Promise.all([page.waitForEvent('download'), lab.button('Download checkpoint').click()]);
  const path = await download.path();
  const bytes = new Uint8Array(readFileSync(path!));
  const { meta } = await decodeCheckpoint(bytes);
  expect(meta.step).toBe(2);

  await page.reload();
  await lab.open();
  await page.getByTestId('checkpoint-input').setInputFiles({ name: 'saved.prl', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  await expect(page.getByTestId('status-message')).toContainText('step 2');
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 3');

  await page.getByTestId('checkpoint-input').setInputFiles({ name: 'broken.prl', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes.subarray(0, 100)) });
  await expect(page.getByTestId('errors')).toContainText('broken.prl cannot be loaded');
  // The picker does not go on naming a file that was refused; the same file, fixed, can be picked again.
  await expect(page.getByTestId('checkpoint-input')).toHaveValue('');
  await page.getByTestId('checkpoint-input').setInputFiles({ name: 'broken.prl', mimeType: 'application/octet-stream', buffer: Buffer.from(bytes) });
  await expect(page.getByTestId('status-message')).toContainText('loaded broken.prl, step 2');

  // Downloaded while training: the file is named after the step it holds, not the one on screen (which lags).
  await lab.button('Train').click();
  await expect(page.getByTestId('step')).not.toHaveText('step 2', { timeout: 60_000 });
  for (let i = 0; i < 3; i++) await lab.downloadCheckpoint();
  await lab.button('Stop').click();
});

test('charts: smoothing, wall-time axis, gzip and LZMA reference lines; metrics export as CSV and JSONL', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.stepTo(3);
  await lab.waitForPoints(3, 'entropy');
  const entropy = lab.chart('entropy');
  await expect(entropy).toHaveAttribute('data-points', '3');
  const line = entropy.locator('path.series');
  const raw = await lab.setSmoothing(0).then(() => line.getAttribute('d'));
  await lab.setSmoothing(0.9);
  await expect.poll(() => line.getAttribute('d')).not.toBe(raw);
  await expect(entropy.locator('.x-axis .recharts-cartesian-axis-tick-value').last()).not.toContainText('s');
  await page.getByTestId('x-axis').selectOption('wallMs');
  await expect(entropy.locator('.x-axis .recharts-cartesian-axis-tick-value').last()).toContainText('s');
  const compression = lab.chart('compression rate (lower is better)');
  await expect(compression.locator('.reference')).toHaveCount(2);
  await expect(compression).toContainText('gzip');
  await expect(compression).toContainText('LZMA');
  await expect(page.getByTestId('dataset-reference-train')).toContainText('LZMA');

  const [csv] = await Promise.all([page.waitForEvent('download'), lab.button('Export CSV').click()]);
  const text = readFileSync((await csv.path())!, 'utf8');
  expect(text.split('\n')[0]).toBe('run,run_id,step,wall_ms,name,value');
  expect(text).toContain('\nlive,live,1,');
  expect(text).toContain(',avg_reward,');
  const [jsonl] = await Promise.all([page.waitForEvent('download'), lab.button('Export JSONL').click()]);
  const first = JSON.parse(readFileSync((await jsonl.path())!, 'utf8').split('\n')[0]);
  expect(first).toMatchObject({ step: 1 });
});

test('Pretrain runs to its end with pretrain_loss and held-out points; Train then continues with RL from step 0', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.pretrain(30, 10);
  await expect(page.getByTestId('status-message')).toContainText('pretraining done after 30 steps', { timeout: 90_000 });
  await lab.waitForPoints(30, 'pretrain_loss');
  expect(await lab.points('pretrain_token_accuracy')).toBe(30);
  await lab.waitForPoints(3, 'heldout_accuracy');
  expect(await lab.points('heldout_loss')).toBe(3);
  await expect(lab.chart('pretrain loss')).toBeVisible();
  await expect(lab.chart('held-out accuracy (pretrain)')).toBeVisible();
  await expect(page.getByTestId('step')).toHaveText('step 0');
  // Every update split with a gradient worker per further core (at most 3), as the CLI's pretrain --threads.
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const threads = await lab.state<{ value: number }[]>('series.pretrain_threads');
  expect(threads.map((point) => point.value)).toEqual(Array(30).fill(Math.min(4, Math.max(1, cores))));

  await lab.button('Train').click();
  await lab.waitForPoints(2);
  await lab.button('Stop').click();
  const steps = await lab.state<{ step: number }[]>('series.avg_reward');
  expect(steps[0].step).toBe(1); // RL starts at step 0 from the pretrained weights
  // RL's updates (reinforce, no KL term) split with the same gradient workers.
  const updateThreads = await lab.state<{ value: number }[]>('series.update_threads');
  expect(updateThreads.length).toBeGreaterThan(0);
  expect(updateThreads.every((point) => point.value === Math.min(4, Math.max(1, cores)))).toBe(true);
  await page.waitForTimeout(1200); // every chart has had its turn to redraw
  await page.getByTestId('charts').screenshot({ path: 'test-results/e2e/pretrain-charts.png' });
});

test('Pause and Resume act on pretraining; Stop ends it early and keeps its weights for RL', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  // Far more steps than the test waits for: Pause cannot race the run's end (a faster engine did).
  await lab.pretrain(100_000, 25);
  await expect(page.getByTestId('phase')).toHaveText('pretraining');
  await lab.waitForPoints(2, 'pretrain_loss');
  await lab.button('Pause').click();
  await expect(page.getByTestId('phase')).toHaveText('paused');
  // The step in flight (maybe with a held-out evaluation) finishes, then its points land.
  await expect(page.getByTestId('status-message')).toContainText('pretraining paused at step', { timeout: 60_000 });
  await page.waitForTimeout(1500);
  const paused = await lab.points('pretrain_loss');
  await page.waitForTimeout(2000);
  expect(await lab.points('pretrain_loss')).toBe(paused);
  await lab.button('Resume').click();
  await expect(page.getByTestId('phase')).toHaveText('pretraining');
  await lab.waitForPoints(paused + 5, 'pretrain_loss');
  await lab.button('Stop').click();
  await expect(page.getByTestId('status-message')).toContainText(/pretraining stopped after \d+ steps/, { timeout: 60_000 });
  await expect(page.getByTestId('step')).toHaveText('step 0');
  await lab.button('Train').click();
  await lab.waitForPoints(1);
  await lab.button('Stop').click();
  expect((await lab.state<{ step: number }[]>('series.avg_reward'))[0].step).toBe(1);
});

test('the default pretrained checkpoint: the shipped one loads; missing means a fresh start said in the status; a served one loads with its own config; a bad one is refused', async ({ page }) => {
  const lab = new LabPage(page);
  // The shipped public/pretrained.prl (the recipe's warm start, d_model 64) loads as a warm start.
  await lab.openDefault();
  await expect(page.getByTestId('checkpoint-note')).toContainText('loaded pretrained checkpoint, step 0');
  expect(await lab.state<number>('config.model.dModel')).toBe(64);
  await lab.button('Step').click(); // one RL step of the shipped policy, as a newcomer's Train starts
  await expect(page.getByTestId('step')).toHaveText('step 1', { timeout: 60_000 });
  // Greedy, then greedy + repair on the same 50 held-out sequences: repair keeps every greedy solve.
  await lab.button('Evaluate held-out').click();
  await expect(page.getByTestId('evaluations')).toContainText('greedy @ step 1', { timeout: 60_000 });
  // Each figure's head says what it is on hover (a precision above 1 is no bug).
  await expect(page.getByTestId('evaluations-kolmogorov').locator('th', { hasText: 'precision' })).toHaveAttribute('title', /gzip of the programs found over gzip of the sequences/);
  await page.getByTestId('eval-search').selectOption('greedy + repair');
  await lab.button('Evaluate held-out').click();
  await expect(page.getByTestId('evaluations')).toContainText('greedy + repair @ step 1', { timeout: 120_000 });
  const accuracy = async (label: string) => Number(await page.getByTestId('evaluations').locator('tr', { hasText: label }).locator('td').nth(2).textContent());
  expect(await accuracy('greedy + repair @ step 1')).toBeGreaterThanOrEqual(await accuracy('greedy @ step 1'));
  expect(await accuracy('greedy @ step 1')).toBeGreaterThan(0);
  // Split search writes sequences greedy misses piece by piece: on these 50 it solves more.
  await page.getByTestId('eval-search').selectOption('greedy + split');
  await lab.button('Evaluate held-out').click();
  await expect(page.getByTestId('evaluations')).toContainText('greedy + split @ step 1', { timeout: 120_000 });
  expect(await accuracy('greedy + split @ step 1')).toBeGreaterThan(await accuracy('greedy @ step 1'));

  // Missing: vite preview answers a file it does not have with the page itself.
  await page.goto('about:blank');
  await page.route('**/pretrained.prl', (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>lab</title>' }));
  await lab.openDefault();
  await expect(page.getByTestId('checkpoint-note')).toContainText('no pretrained checkpoint at /pretrained.prl');
  await expect(page.getByTestId('checkpoint-note')).toContainText('starting fresh');
  await expect(page.getByTestId('status-message')).toContainText('ready to train');

  // A tiny checkpoint made by the page itself (tiny config, one step), served as public/pretrained.prl would be.
  await page.goto('about:blank'); // '/' to '/#config' alone would not reload the page
  await lab.open();
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 1');
  const bytes = await lab.downloadCheckpoint();
  await page.goto('about:blank');
  await page.unroute('**/pretrained.prl');
  await page.route('**/pretrained.prl', (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: Buffer.from(bytes) }));
  await lab.openDefault();
  await expect(page.getByTestId('checkpoint-note')).toContainText('loaded pretrained checkpoint, step 1');
  await expect(page.getByTestId('status-message')).toContainText('loaded pretrained checkpoint, step 1; Train starts RL at step 0 from its weights');
  // A warm start (as train --init-from): the run starts at step 0 with the checkpoint's own config.
  await expect(page.getByTestId('step')).toHaveText('step 0');
  expect(await lab.state<number>('config.model.dModel')).toBe(16);
  await expect(page.getByTestId('field-d-model')).toHaveValue('16');
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 1');

  // A damaged file: refused with the reason, and the page starts fresh.
  await page.goto('about:blank');
  await page.unroute('**/pretrained.prl');
  await page.route('**/pretrained.prl', (route) => route.fulfill({ status: 200, contentType: 'application/octet-stream', body: Buffer.from(bytes.subarray(0, 200)) }));
  await lab.openDefault();
  await expect(page.getByTestId('checkpoint-note')).toContainText('was refused');
  await expect(page.getByTestId('errors')).toContainText('/pretrained.prl cannot be loaded');
  await expect(page.getByTestId('status-message')).toContainText('ready to train');

  // A shipped data file the server does not give is named with why; the rest of the lab starts and trains.
  await page.goto('about:blank');
  await page.unroute('**/pretrained.prl');
  await page.route(/\/heldout-[^/]*\.jsonl$/, (route) => route.abort('failed'));
  await lab.open();
  await expect(page.getByTestId('errors')).toContainText('the shipped held-out file heldout.jsonl');
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 1');
});

test('a digit task (sum_digits) trains from the link with generator workers; accuracy and format-compliance charts get points', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open(tinyDigitRun);
  await expect(page.getByTestId('generated-data')).toContainText('questions are generated');
  await lab.button('Train').click();
  await lab.waitForPoints(2, 'accuracy');
  await lab.waitForPoints(2, 'format_compliance');
  await expect.poll(async () => Number(await lab.chart('accuracy').getAttribute('data-points')), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  await expect.poll(async () => Number(await lab.chart('format compliance').getAttribute('data-points')), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  // Both generators (nested Web Workers) sampled with synced weights.
  expect(await lab.points('generator_1_version')).toBeGreaterThan(0);
  await expect(lab.chart('compression rate (lower is better)')).toHaveCount(0);
  // Generated questions never come again: no table of the best program per item.
  await expect(page.getByTestId('samples').getByRole('heading', { name: /Best program per/ })).toHaveCount(0);
  await lab.button('Pause').click();
  await expect(page.getByTestId('phase')).toHaveText('paused');
  await lab.button('Evaluate held-out').click();
  await expect(page.getByTestId('evaluations-sum_digits')).toContainText('greedy @ step');
});
