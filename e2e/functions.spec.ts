import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { LabPage } from './pages/labPage';

/** A tiny functions run from the link: the task's shipped problems load instead of the sequences. */
const tinyFunctionsRun = 'task=functions&layers=1&d-model=16&heads=2&batch-size=4&context=160&max-program-tokens=24&workers=1';

test('the functions task: its problems load from the link, Train steps with reward-component charts, Evaluate lists each problem with its code', async ({ page }) => {
  const lab = new LabPage(page);
  await page.goto(`/#${tinyFunctionsRun}`);
  await expect(page.getByTestId('dataset-summary-train')).toContainText('functions/train.jsonl: 4000 problems loaded', { timeout: 60_000 });
  await expect(page.getByTestId('dataset-summary-heldout')).toContainText('functions/heldout.jsonl: 40 problems loaded');
  await expect(page.getByTestId('status-message')).toContainText('ready to train', { timeout: 60_000 });
  await expect(page.getByTestId('preview')).toBeVisible();
  await lab.button('Train').click();
  await lab.waitForPoints(2, 'tests_passed');
  await lab.button('Pause').click();
  await expect(page.getByTestId('phase')).toHaveText('paused');
  await expect(lab.chart('reward: correctness')).toBeVisible();
  await expect(page.getByTestId('sample-table')).toContainText('tests');
  await lab.button('Evaluate held-out').click();
  const rows = page.getByTestId('per-item').locator('tbody tr');
  await expect(rows).toHaveCount(40, { timeout: 90_000 });
  await expect(rows.first()).toContainText('sum_of_evens');
  await expect(page.getByTestId('evaluations-functions')).toContainText('greedy @ step');
  // The search that uses the shown tests, in the page's worker: distinct programs drawn by stochastic beam search.
  await page.getByTestId('eval-search').selectOption('search-64, likely');
  await lab.button('Evaluate held-out').click();
  await expect(page.getByTestId('evaluations-functions')).toContainText('search-64, likely @ step', { timeout: 120_000 });
  await expect(rows).toHaveCount(40);
  // Each table stays inside its panel (a wide one scrolls in its own box), at the desktop width and a phone's.
  for (const width of [1280, 400]) {
    await page.setViewportSize({ width, height: 900 });
    for (const id of ['evaluations', 'samples']) {
      const spill = await page.getByTestId(id).evaluate((panel) => panel.scrollWidth - panel.clientWidth);
      expect(spill, `${id} at ${width} px`).toBeLessThanOrEqual(1);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
  }
  await page.setViewportSize({ width: 1280, height: 900 });
  await page.screenshot({ path: 'test-results/e2e/functions-page.png', fullPage: true });
});

test('dropping the seed\'s problems file switches to the functions task; a bad problem is listed with where it is', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.dropFile('training_problems.json', readFileSync('datasets/functions/training_problems.json'));
  await expect(page.getByTestId('dataset-summary-train')).toContainText('training_problems.json: 8 problems loaded', { timeout: 60_000 });
  await expect.poll(() => lab.state<string>('config.task.name')).toBe('functions');
  await expect.poll(() => page.url()).toContain('task=functions'); // the link, and so a reload, keeps the task
  const bad = JSON.stringify([{ function_name: 'ok', docstring: 'd', test_cases: [[1, 2]] }, { function_name: 'broken', docstring: 'd', test_cases: [[1.5, 1]] }]);
  await lab.dropFile('mine.json', bad);
  await expect(page.getByTestId('dataset-summary-train')).toContainText('mine.json: 1 problem loaded, 1 rejected');
  await expect(page.getByTestId('bad-lines')).toContainText('item 2: "test_cases"[0] argument 1: 1.5 is not an integer');
});
