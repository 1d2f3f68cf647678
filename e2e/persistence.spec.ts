import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { decodeCheckpoint } from '../src/core/checkpoint';
import { LabPage, tinyRun } from './pages/labPage';

/** A checkpoint's tensors by name (weights and optimizer state). */
async function tensorsOf(bytes: Uint8Array): Promise<Map<string, number[]>> {
  const { tensors } = await decodeCheckpoint(bytes);
  return new Map(tensors.map((t) => [t.name, [...t.data]]));
}

test('a reload mid-run offers the run back; resuming brings its step, charts and weights, and training goes on', async ({ page }) => {
  test.setTimeout(180_000);
  const lab = new LabPage(page);
  await lab.open(tinyRun);
  await page.getByTestId('runs').locator('summary').click();
  await page.getByTestId('autosave').check(); // remembered across the reload
  await lab.button('Train').click();
  await expect.poll(() => lab.state<number>('step'), { timeout: 90_000 }).toBeGreaterThanOrEqual(12);
  await lab.button('Pause').click();
  await expect(page.getByTestId('phase')).toHaveText('paused');
  // Pausing saved the run: its step and its series as they are now.
  await expect(page.getByTestId('runs').locator('summary')).toContainText('Saved runs (1)');
  await page.getByTestId('runs').locator('summary').click(); // closed again
  const step = await lab.state<number>('step');
  const points = await lab.points('avg_reward');
  // Resume, train on, then "crash" (reload) while training: the run was saved at a multiple of 10 steps at most.
  await lab.button('Resume').click();
  await expect.poll(() => lab.state<number>('step'), { timeout: 90_000 }).toBeGreaterThanOrEqual(step + 10);
  const before = await lab.state<number>('step');
  await page.reload();
  const banner = page.getByTestId('interrupted-run');
  await expect(banner).toContainText('was interrupted at step', { timeout: 60_000 });
  const savedStep = Number(/at step (\d+)/.exec(await banner.innerText())![1]);
  // An autosave came after the pause (one every 10 steps), and none after the reload.
  expect(savedStep).toBeGreaterThan(step);
  expect(savedStep).toBeLessThanOrEqual(before + 1);
  await banner.getByRole('button', { name: 'Resume it' }).click();
  await expect(page.getByTestId('step')).toHaveText(`step ${savedStep}`, { timeout: 30_000 });
  await expect(banner).toHaveCount(0);
  // The charts came back with every step up to the save, once each.
  await expect.poll(() => lab.points('avg_reward')).toBe(savedStep);
  expect(savedStep).toBeGreaterThan(points);
  // Weights and optimizer state are the saved ones, bit for bit: the page's checkpoint now against the stored run's.
  const resumed = await tensorsOf(await lab.downloadCheckpoint());
  await page.getByTestId('runs').locator('summary').click();
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByTestId('run-list').getByRole('button', { name: 'Download' }).click()]);
  const run = JSON.parse(readFileSync((await file.path())!, 'utf8')) as { run: { step: number }; metrics: unknown[]; checkpoint: string };
  expect(run.run.step).toBe(savedStep);
  const stored = await tensorsOf(new Uint8Array(Buffer.from(run.checkpoint, 'base64')));
  expect([...resumed.keys()].sort()).toEqual([...stored.keys()].sort());
  for (const [name, data] of stored) expect(resumed.get(name), name).toEqual(data);
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText(`step ${savedStep + 1}`, { timeout: 30_000 });
});

test('a second tab cannot resume the run another tab holds', async ({ page, context }) => {
  test.setTimeout(180_000);
  const lab = new LabPage(page);
  await lab.open(tinyRun);
  await page.getByTestId('runs').locator('summary').click();
  await page.getByTestId('autosave').check();
  await lab.button('Train').click();
  await expect.poll(() => lab.state<number>('step'), { timeout: 90_000 }).toBeGreaterThanOrEqual(3);
  await lab.button('Pause').click();
  await expect(page.getByTestId('runs').locator('summary')).toContainText('Saved runs (1)', { timeout: 30_000 });
  const other = await context.newPage();
  const second = new LabPage(other);
  await second.open(tinyRun);
  await other.getByTestId('runs').locator('summary').click();
  await other.getByTestId('run-list').getByRole('button', { name: 'Open' }).click();
  await expect(other.getByTestId('errors')).toContainText('open in another tab');
  // A tab that resumed a run holds it too: the first tab, reloaded, resumes; the second is refused again.
  await page.reload();
  await page.getByTestId('interrupted-run').getByRole('button', { name: 'Resume it' }).click();
  await expect(page.getByTestId('interrupted-run')).toHaveCount(0, { timeout: 30_000 });
  await other.getByTestId('run-list').getByRole('button', { name: 'Open' }).click();
  await expect(other.getByTestId('errors').locator('p')).toHaveCount(2);
});
