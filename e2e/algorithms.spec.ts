import { test, expect } from '@playwright/test';
import { LabPage } from './pages/labPage';

test('picking DPO in the page brings its defaults, keeps the shipped policy as its reference, and charts TRL\'s figures beside a completions table', async ({ page }) => {
  test.setTimeout(240_000);
  const lab = new LabPage(page);
  await lab.openDefault();
  await expect(page.getByTestId('checkpoint-note')).toContainText('loaded pretrained checkpoint');
  await expect(page.getByTestId('config-pending')).toHaveCount(0);
  await page.getByTestId('field-algorithm').selectOption('dpo');
  // Picked, not applied: the form says so, since Train would still run the live run.
  await expect(page.getByTestId('config-pending')).toContainText('algorithm reinforce -> dpo');
  await page.getByTestId('config-advanced').locator('summary').click();
  // beta 0 would make DPO's loss flat: the form sets TRL's 0.1, and groups of 4 to pair within.
  await expect(page.getByTestId('field-beta')).toHaveValue('0.1');
  await expect(page.getByTestId('field-group-size')).toHaveValue('4');
  await lab.setField('batch-size', '16');
  await lab.button('Apply (new run)').click();
  await expect(page.getByTestId('status-message')).toContainText('weights', { timeout: 30_000 });
  await expect(page.getByTestId('config-pending')).toHaveCount(0);
  await lab.button('Train').click();
  await lab.waitForPoints(2, 'rewards/accuracies');
  await lab.button('Pause').click();
  await expect(page.getByTestId('phase')).toHaveText('paused');
  await expect(lab.chart('rewards/margins (dpo)')).toBeVisible();
  await expect(lab.chart('logps/chosen (dpo)')).toBeVisible();
  await expect(lab.chart('clipped share (grpo)')).toHaveCount(0); // another algorithm's figure is not drawn
  const completions = page.getByTestId('completions');
  await completions.locator('summary').click();
  await expect(completions.locator('thead')).toContainText('advantage');
  const rows = completions.locator('tbody tr');
  await expect(rows).toHaveCount(16);
  // Advantages are rewards minus their group's mean: each group of 4 sums to 0.
  const advantages = await rows.locator('td:last-child').allInnerTexts();
  for (let g = 0; g < 16; g += 4) expect(Math.abs(advantages.slice(g, g + 4).reduce((sum, a) => sum + Number(a), 0))).toBeLessThan(0.01);
});
