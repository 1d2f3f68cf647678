import { test, expect } from '@playwright/test';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { decodeCheckpoint } from '../src/core/checkpoint';
import { LabPage } from './pages/labPage';

/** A checkpoint's weights by name (the optimizer state apart). */
async function weightsOf(bytes: Uint8Array): Promise<Map<string, number[]>> {
  const { tensors } = await decodeCheckpoint(bytes);
  return new Map(tensors.filter((t) => t.group === 'weights').map((t) => [t.name, [...t.data]]));
}

test('comparisons from the same start: Apply "from the warm start" after training gives the warm start\'s weights; two compared runs export as one CSV', async ({ page }) => {
  test.setTimeout(180_000);
  const lab = new LabPage(page);
  await lab.openDefault();
  await expect(page.getByTestId('weights')).toContainText('weights: pretrained checkpoint');
  const warm = await weightsOf(await lab.downloadCheckpoint());

  // A first run: a few RL steps from the warm start, then stopped (and so saved).
  await lab.button('Train').click();
  await expect.poll(() => lab.state<number>('step'), { timeout: 90_000 }).toBeGreaterThanOrEqual(3);
  await lab.button('Stop').click();
  await expect(page.getByTestId('status-message')).toContainText('stopped at step', { timeout: 30_000 });
  const trained = await weightsOf(await lab.downloadCheckpoint());
  expect([...trained.entries()].some(([name, data]) => data.some((x, i) => x !== warm.get(name)![i]))).toBe(true);

  // A second run of another algorithm from the same start.
  await page.getByTestId('field-algorithm').selectOption('grpo');
  await page.getByTestId('run-start').selectOption('warm');
  await lab.button('Apply (new run)').click();
  await expect(page.getByTestId('status-message')).toContainText('from the warm start', { timeout: 60_000 });
  await expect(page.getByTestId('step')).toHaveText('step 0');
  const fresh = await weightsOf(await lab.downloadCheckpoint());
  expect([...fresh.keys()]).toEqual([...warm.keys()]);
  for (const [name, data] of warm) expect(fresh.get(name), name).toEqual(data);
  await lab.button('Train').click();
  await expect.poll(() => lab.state<number>('step'), { timeout: 90_000 }).toBeGreaterThanOrEqual(2);
  await lab.button('Stop').click();
  await expect(page.getByTestId('status-message')).toContainText('stopped at step', { timeout: 30_000 });

  // Every step of the new run is on the live charts (the page started them over before its first event).
  const steps = await lab.state<number>('step');
  await expect.poll(() => lab.points('avg_reward'), { timeout: 10_000 }).toBe(steps);
  // Both runs are kept; ticked, they are drawn beside the live one and exported with it in one file.
  await page.getByTestId('runs').locator('summary').click();
  const rows = page.getByTestId('run-list').locator('tbody tr');
  await expect(rows).toHaveCount(2, { timeout: 30_000 });
  for (let i = 0; i < 2; i++) {
    await rows.nth(i).getByRole('checkbox').click();
    await expect(rows.nth(i).getByRole('checkbox')).toBeChecked({ timeout: 30_000 });
  }
  const [file] = await Promise.all([page.waitForEvent('download'), lab.button('Export CSV').click()]);
  const csv = readFileSync((await file.path())!, 'utf8').trim().split('\n');
  expect(csv[0]).toBe('run,run_id,step,wall_ms,name,value');
  const runs = new Set(csv.slice(1).map((line) => line.split(',')[0]));
  expect([...runs]).toContain('live');
  expect([...runs].filter((run) => run !== 'live').length).toBe(2);
  // The list says how each run was made and measured.
  await expect(page.getByTestId('run-list')).toContainText('grpo');
  await expect(page.getByTestId('run-list')).toContainText('reinforce');
  // A downloaded run carries its record: the build it ran on, the backend, the shipped files with their sha256.
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('run-list').getByRole('button', { name: 'Download' }).first().click()]);
  const { run } = JSON.parse(readFileSync((await download.path())!, 'utf8')) as { run: { provenance: { code: { build: string }; backend: string; files: { role: string; name: string; sha256: string }[] } } };
  expect(run.provenance.code.build).toMatch(/^([0-9a-f]{40}(\+dirty)?|unknown)$/);
  expect(run.provenance.backend).not.toBe('');
  const train = run.provenance.files.find((f) => f.role === 'train')!;
  expect(train.name).toContain('train.jsonl');
  expect(train.sha256).toBe(createHash('sha256').update(readFileSync('datasets/train.jsonl')).digest('hex'));
  expect(run.provenance.files.map((f) => f.role)).toContain('warm start');
});
