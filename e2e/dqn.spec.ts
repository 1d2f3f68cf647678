import { test, expect } from '@playwright/test';
import { LabPage } from './pages/labPage';

/**
 * The share of the first or last steps' programs that were right, from the page's charted accuracy:
 * a third of the steps, at most 25 (one step's 32 programs vary by 0.15, 25 steps' mean by 0.03).
 */
async function meanAccuracy(lab: LabPage, from: 'first' | 'last'): Promise<number> {
  const values = (await lab.state<{ value: number }[]>('series.accuracy')).map((point) => point.value);
  const count = Math.min(25, Math.floor(values.length / 3));
  const part = from === 'first' ? values.slice(0, count) : values.slice(-count);
  return part.reduce((sum, v) => sum + v, 0) / part.length;
}

/** Steps of the run: a step budget, not a time, so that the run (and so its figures) is the same on any machine. */
const STEPS = 150;

test(`dqn from the shipped functions policy, ${STEPS} steps in the page: the solved share does not fall`, async ({ page }) => {
  test.setTimeout(300_000);
  const lab = new LabPage(page);
  await page.goto('/#task=functions');
  await expect(page.getByTestId('checkpoint-note')).toContainText('loaded shipped functions policy', { timeout: 60_000 });
  await expect(page.getByTestId('status-message')).toContainText('Train starts RL at step 0', { timeout: 60_000 });
  await page.getByTestId('field-algorithm').selectOption('dqn');
  await lab.setField('max-steps', String(STEPS));
  await page.getByTestId('run-start').selectOption('warm');
  await lab.button('Apply (new run)').click();
  await expect(page.getByTestId('status-message')).toContainText('from the warm start', { timeout: 60_000 });
  const before = await lab.evaluate();
  expect(before).toBeGreaterThan(0.3); // the shipped policy, greedy on the 40 held-out functions

  await lab.button('Train').click();
  await expect.poll(() => lab.state<number>('step'), { timeout: 240_000 }).toBe(STEPS);
  await expect(page.getByTestId('phase')).not.toHaveText('training', { timeout: 30_000 });
  await expect(lab.chart('losses/td_loss (dqn)')).toBeVisible();
  // The programs it writes while learning stay as right as at the start (a scrambled warm start falls by half)...
  expect(await meanAccuracy(lab, 'last')).toBeGreaterThanOrEqual((await meanAccuracy(lab, 'first')) - 0.1);
  // ...and the held-out functions it solves greedily: at most one of 40 fewer.
  const after = await lab.evaluate();
  console.log(`dqn, ${STEPS} steps: held-out solved ${before} -> ${after}`);
  expect(after).toBeGreaterThanOrEqual(before - 0.025);
});

test('dqn on a digit task: a batch size typed and applied with Enter carries dqn\'s batch fields with it, as in the CLI', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open('task=sum_digits&algorithm=dqn&layers=1&d-model=16&heads=2&context=40&warm-start-steps=2&warm-start-examples=16&eval-samples=10');
  await expect.poll(() => lab.state<number>('config.algorithm.dqnBatchSize')).toBe(128);
  await page.getByTestId('field-batch-size').fill('64');
  await page.getByTestId('field-batch-size').press('Enter');
  await expect.poll(() => lab.state<number>('config.algorithm.batchSize')).toBe(64);
  // One update per step on a batch of its size, from a buffer of as many batches as the recipe's.
  expect(await lab.state<number>('config.algorithm.dqnBatchSize')).toBe(64);
  expect(await lab.state<number>('config.algorithm.trainFrequency')).toBe(64);
  expect(await lab.state<number>('config.algorithm.bufferSize')).toBe(400);
});
