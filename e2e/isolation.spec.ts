import { test, expect } from '@playwright/test';
import { LabPage } from './pages/labPage';

// Cross-origin isolation (COOP same-origin + COEP require-corp, vite.config.ts and the README's
// deployment note) is what gives the page SharedArrayBuffer, and with it threads.
test('the page is cross-origin isolated: its server sends COOP and COEP, and SharedArrayBuffer exists', async ({ page }) => {
  const response = await page.goto('/');
  expect(response?.headers()['cross-origin-opener-policy']).toBe('same-origin');
  expect(response?.headers()['cross-origin-embedder-policy']).toBe('require-corp');
  expect(await page.evaluate(() => crossOriginIsolated)).toBe(true);
  expect(await page.evaluate(() => typeof SharedArrayBuffer)).toBe('function');
});

test('on wasm the status says which multiply-add the kernels run, and ?fma=0 turns the fused one off', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  const backend = await lab.state<{ backend: string; notes?: string[] }>('backend');
  test.skip(backend.backend !== 'wasm', `the page runs ${backend.backend}, not wasm`);
  // Chromium has relaxed SIMD (since 114): the kernels' fused multiply-add build runs.
  expect(backend.notes?.join('\n')).toContain("kernels' multiply-add: fused multiply-add (relaxed SIMD");
  await lab.open(undefined, '?fma=0');
  const off = await lab.state<{ notes?: string[] }>('backend');
  expect(off.notes?.join('\n')).toContain("kernels' multiply-add: plain SIMD multiply and add (fused multiply-add turned off)");
});

test('on wasm the status says how many threads an update uses, and ?shards=0 keeps one', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  const backend = await lab.state<{ backend: string; notes?: string[] }>('backend');
  test.skip(backend.backend !== 'wasm', `the page runs ${backend.backend}, not wasm`);
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  const workers = Math.min(3, cores - 1);
  expect(backend.notes?.join('\n')).toContain(workers > 0 ? `updates on ${workers + 1} threads: ${workers} gradient worker` : 'updates on one thread');
  // Said on the status line itself, not only in its tooltip.
  await expect(page.getByTestId('update-threads')).toHaveText(`, updates on ${workers + 1} thread${workers > 0 ? 's' : ''}`);
  // A value the page cannot use is said, with what it does instead.
  await lab.open(undefined, '?shards=abc');
  const bad = await lab.state<{ notes?: string[] }>('backend');
  expect(bad.notes?.join('\n')).toContain(`?shards=abc is not a whole number, so ${workers} gradient worker`);
  await lab.open(undefined, '?shards=0');
  const one = await lab.state<{ notes?: string[] }>('backend');
  expect(one.notes?.join('\n')).toContain('updates on one thread (no gradient workers: one core, or ?shards=0)');
  await expect(page.getByTestId('update-threads')).toHaveText(', updates on 1 thread');
  await lab.button('Train').click();
  await lab.waitForPoints(2);
  await lab.button('Pause').click();
  const threads = await lab.state<{ value: number }[]>('series.update_threads');
  expect(threads.length).toBeGreaterThan(0);
  expect(threads.every((point) => point.value === 1)).toBe(true);
});

test('?kernel_threads=2 starts the product helper worker on wasm (shared memory, so only on an isolated page)', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open(undefined, '?backend=wasm&kernel_threads=2');
  const backend = await lab.state<{ backend: string; notes?: string[] }>('backend');
  test.skip(backend.backend !== 'wasm', `the page runs ${backend.backend}, not wasm`);
  expect(backend.notes?.join('\n')).toContain('matMul threads: two (a helper worker');
  // A run trains with it (the tiny run's products are below the split size; the helper waits).
  await lab.button('Train').click();
  await lab.waitForPoints(2);
  await lab.button('Pause').click();
});

test('with ?kernel_threads=2 the reference policy trains with split products, and the main thread stays free (no task over 50 ms)', async ({ page }) => {
  test.setTimeout(180_000);
  const lab = new LabPage(page);
  // The default model (the kolmogorov task's, d_model 64, context 256, batch 32): its update's large products are over the 8M multiply-adds a split needs.
  await lab.open('seed=1', '?backend=wasm&kernel_threads=2');
  const backend = await lab.state<{ backend: string; notes?: string[] }>('backend');
  test.skip(backend.backend !== 'wasm', `the page runs ${backend.backend}, not wasm`);
  expect(backend.notes?.join('\n')).toContain('matMul threads: two (a helper worker');
  await lab.button('Train').click();
  await lab.waitForPoints(2);
  // From here (the charts are drawn) the main thread is watched over three more steps.
  await lab.watchLongTasks();
  await lab.waitForPoints(5);
  await lab.button('Pause').click();
  const longTasks = await lab.longTasks();
  expect(Math.max(0, ...longTasks), `long tasks: ${longTasks.join(', ')}`).toBeLessThan(50);
  const rewards = await lab.state<{ value: number }[]>('series.avg_reward');
  expect(rewards.every((point) => Number.isFinite(point.value))).toBe(true);
});
