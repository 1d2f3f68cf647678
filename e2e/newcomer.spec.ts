/**
 * The lab as a newcomer meets it: a first-run guide, only the chosen task's settings (the few
 * that matter first), charts that explain themselves and read out a point under the pointer,
 * long work with a progress bar and a cancel, Space to pause, and no console error along the
 * way. A screenshot of each main state is saved to test-results/e2e/.
 */
import { test, expect, type Page } from '@playwright/test';
import { LabPage } from './pages/labPage';

test.describe.configure({ mode: 'serial' });

/** Console errors and page errors, collected from the moment the page opens. */
function problemsOf(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (message) => void (message.type() === 'error' && problems.push(`console: ${message.text()} (${message.location().url})`)));
  page.on('pageerror', (error) => void problems.push(`page: ${error.message}`));
  return problems;
}

const shot = (page: Page, name: string) => page.screenshot({ path: `test-results/e2e/state-${name}.png`, fullPage: true });

test('the first-run guide shows on a fresh profile, says what the task is, and stays away once dismissed', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  const guide = page.getByTestId('guide');
  await expect(guide).toBeVisible();
  await expect(guide).toContainText('shortest program');
  await expect(guide).toContainText('Train');
  await shot(page, 'first-run');
  await guide.getByRole('button', { name: 'Got it' }).click();
  await expect(guide).toHaveCount(0);
  await page.reload();
  await lab.open();
  await expect(page.getByTestId('guide')).toHaveCount(0);
});

test('the form shows the few fields that matter first, the rest under Advanced, and only those of the chosen task', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  const essential = page.getByTestId('config-essential');
  await expect(essential.getByTestId('field-learning-rate')).toBeVisible();
  await expect(page.getByTestId('field-length-penalty')).toBeHidden(); // under Advanced, closed
  await page.getByTestId('config-advanced').locator('summary').click();
  await expect(page.getByTestId('field-length-penalty')).toBeVisible();
  await expect(page.getByTestId('field-length-penalty').locator('xpath=..')).toHaveAttribute('title', /Reward lost per bit/);
  await expect(page.getByTestId('field-num-generators')).toHaveCount(0);
  await expect(page.getByTestId('field-reward-type')).toHaveCount(0);
  await page.getByTestId('field-task').selectOption('sum_digits');
  await expect(page.getByTestId('field-num-generators')).toBeVisible();
  await expect(page.getByTestId('field-length-penalty')).toHaveCount(0);
  await expect(page.getByTestId('field-max-sequence-length')).toHaveCount(0);
  await page.getByTestId('field-task').selectOption('functions');
  await expect(page.getByTestId('field-reward-type')).toBeVisible();
  await expect(page.getByTestId('field-num-generators')).toHaveCount(0);
});

test('load, train and evaluate with no console error; Space pauses and resumes; a chart reads out the point under the pointer', async ({ page }) => {
  const problems = problemsOf(page);
  const lab = new LabPage(page);
  await lab.open();
  await page.getByTestId('guide').getByRole('button', { name: 'Got it' }).click();
  await lab.button('Train').click();
  await lab.waitForPoints(3);
  await page.locator('body').press(' ');
  await expect(page.getByTestId('phase')).toHaveText('paused');
  await page.locator('body').press(' ');
  await expect(page.getByTestId('phase')).toHaveText('training');
  await lab.waitForPoints((await lab.points()) + 2);
  await page.locator('body').press(' ');
  await expect(page.getByTestId('phase')).toHaveText('paused');
  await page.waitForTimeout(1500); // the last points reach the charts

  const chart = lab.chart('average reward');
  await expect(chart.locator('.chart-caption')).toContainText('Mean reward');
  const plot = chart.locator('.plot');
  const box = (await plot.boundingBox())!;
  await page.mouse.move(box.x + box.width - 40, box.y + box.height / 2);
  await expect(chart.getByTestId('chart-tooltip')).toContainText(/step \d+: /);
  await shot(page, 'training');
  // From the keyboard: focus reads the last point, an arrow the one before it.
  await page.mouse.move(0, 0);
  await plot.focus();
  await expect(plot).toHaveAttribute('aria-label', /^average reward: \d+ points( \(\d+ drawn\))?; last .* at step \d+/);
  const stepOf = async () => Number(/step (\d+):/.exec(await chart.getByTestId('chart-tooltip').innerText())![1]);
  const last = await stepOf();
  await plot.press('ArrowLeft');
  await expect.poll(stepOf).toBeLessThan(last);
  // End reads the line's last point, whichever that is now (a paused run's last figures may still reach the chart).
  await plot.press('End');
  const lastNow = async () => Number(/at step (\d+)/.exec((await plot.getAttribute('aria-label')) ?? '')?.[1]);
  await expect.poll(async () => (await stepOf()) === (await lastNow())).toBe(true);

  await lab.evaluate();
  await expect(page.getByTestId('per-item')).toBeVisible();
  await shot(page, 'evaluated');
  expect(problems).toEqual([]);
});

test('a long evaluation shows its progress and Cancel ends it, leaving the run as it was', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.openDefault(); // the shipped policy: best-of-8 + repair + split on 50 sequences takes a while
  await page.getByTestId('eval-search').selectOption('best-of-8 + repair + split');
  await lab.button('Evaluate held-out').click();
  await expect(page.getByTestId('phase')).toHaveText('evaluating');
  const progress = page.getByTestId('progress');
  await expect(progress.locator('progress')).toBeVisible();
  await expect(page.getByTestId('progress-count')).toHaveText(/^ \d+ of 50$/); // how far, in items
  await shot(page, 'evaluating');
  await progress.getByRole('button', { name: 'Cancel' }).click();
  await expect(page.getByTestId('phase')).toHaveText('idle', { timeout: 30_000 });
  await expect(page.getByTestId('status-message')).toHaveText('evaluation cancelled');
  await expect(page.getByTestId('errors')).toHaveCount(0);
  expect(await lab.state<unknown[]>('evaluations')).toEqual([]);
  await lab.button('Step').click(); // the run is usable
  await expect(page.getByTestId('step')).toHaveText('step 1');
});

test('the functions and sum_digits tasks, as a newcomer opens them from a link', async ({ page }) => {
  const problems = problemsOf(page);
  const lab = new LabPage(page);
  await page.goto('/#task=functions');
  await expect(page.getByTestId('weights')).toContainText('weights: shipped functions policy, step 0', { timeout: 60_000 });
  await expect(page.getByTestId('guide')).toContainText('JavaScript function');
  await shot(page, 'functions');
  await page.goto('/#task=sum_digits');
  await page.reload();
  await expect(page.getByTestId('status-message')).toContainText('ready to train', { timeout: 60_000 });
  await expect(page.getByTestId('guide')).toContainText('sum of the digits');
  await shot(page, 'sum-digits');
  // Picked in the form from a task that reads files: its files stay loaded, and say whose they are.
  await page.goto('/#task=functions');
  await page.reload();
  await expect(page.getByTestId('dataset-summary-train')).toContainText('functions/train.jsonl', { timeout: 60_000 });
  page.on('dialog', (dialog) => void dialog.accept());
  await page.getByTestId('field-task').selectOption('sum_digits');
  await page.getByRole('button', { name: 'Apply (new run)' }).click();
  await expect(page.getByTestId('generated-data')).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId('dataset-summary-train')).toContainText('train (a functions file, not read by sum_digits): ');
  // The digit recipe's settings, as a fresh #task=sum_digits has them, not the functions task's the fields showed before.
  expect([await lab.state<number>('config.model.context'), await lab.state<number>('config.algorithm.batchSize')]).toEqual([40, 128]);
  expect(page.url()).not.toContain('context=192');
  expect(problems).toEqual([]);
});

test('the page fits a narrow window: one column, nothing wider than the screen', async ({ page }) => {
  const lab = new LabPage(page);
  await page.setViewportSize({ width: 360, height: 800 });
  await lab.open();
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 1');
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
  await page.screenshot({ path: 'test-results/e2e/narrow-window.png', fullPage: true });
});

test('a link with an invalid value says so and starts as no link does, from the shipped policy', async ({ page }) => {
  await page.goto('/#d-model=abc');
  await expect(page.getByTestId('errors')).toContainText("the link's configuration is invalid", { timeout: 60_000 });
  await expect(page.getByTestId('checkpoint-note')).toContainText('loaded pretrained checkpoint', { timeout: 60_000 });
  expect(new URL(page.url()).hash).toBe(''); // a reload does not say it again
  // Fields that disagree, or a field given twice, are invalid links too: the page still gets its run.
  for (const link of ['/#heads=3', '/#learning-rate=0.001&learning-rate=0.01']) {
    await page.goto('about:blank');
    await page.goto(link);
    await expect(page.getByTestId('errors')).toContainText("the link's configuration is invalid", { timeout: 60_000 });
    await expect(page.getByTestId('checkpoint-note')).toContainText('loaded pretrained checkpoint', { timeout: 60_000 });
  }
});

test('the configuration applies what its fields show: Enter in a field applies the typed value, and a bad field stays a problem until fixed', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  // Each field is named by its flag alone, as a script or a screen reader finds it.
  await expect(page.getByRole('combobox', { name: 'task', exact: true })).toHaveCount(1);
  await expect(page.getByRole('textbox', { name: 'learning-rate', exact: true })).toHaveCount(1);
  // Enter before the field loses focus: the typed value is the one applied.
  await page.getByTestId('config-advanced').locator('summary').click();
  await page.getByTestId('field-learning-rate').fill('0.0003');
  await page.getByTestId('field-learning-rate').press('Enter');
  await expect.poll(() => page.url()).toContain('learning-rate=0.0003');
  expect(await page.getByTestId('field-learning-rate').inputValue()).toBe('0.0003');
  // The form stays as it was: focus in the field, Advanced still open (it was made again, and both were lost).
  expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('field-learning-rate');
  await expect(page.getByTestId('config-advanced')).toHaveAttribute('open', '');
  // Typed, then Apply pressed with the mouse (held as a person holds it): the field is saved as the
  // button takes focus, and the note that then appears must not move Apply from under the pointer.
  await page.getByTestId('field-learning-rate').fill('0.0007');
  const apply = lab.button('Apply (new run)');
  await apply.scrollIntoViewIfNeeded();
  const box = (await apply.boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.waitForTimeout(80);
  await page.mouse.up();
  await expect.poll(() => page.url()).toContain('learning-rate=0.0007');
  await expect(page.getByTestId('config-pending')).toHaveCount(0);
  const atSevenTenThousandths = await lab.downloadCheckpoint();
  // A bad value holds Apply back, also after another field is changed.
  await lab.setField('learning-rate', 'abc');
  await expect(page.getByTestId('config-panel').getByRole('alert')).toBeVisible();
  await lab.setField('seed', '2');
  await expect(page.getByTestId('config-panel').getByRole('alert')).toBeVisible();
  await expect(lab.button('Apply (new run)')).toBeDisabled();
  // Enter on the fixed field applies it, though Apply was disabled while the field was bad.
  await page.getByTestId('field-learning-rate').fill('0.0002');
  await page.getByTestId('field-learning-rate').press('Enter');
  await expect.poll(() => page.url()).toContain('learning-rate=0.0002');
  await expect(page.getByTestId('config-panel').getByRole('alert')).toHaveCount(0);
  // A config from outside (a checkpoint loaded) is what every field shows, the one being typed in too.
  await page.getByTestId('field-learning-rate').fill('0.9');
  await page.getByTestId('checkpoint-input').setInputFiles({ name: 'lr7.prl', mimeType: 'application/octet-stream', buffer: Buffer.from(atSevenTenThousandths) });
  await expect(page.getByTestId('status-message')).toContainText('loaded lr7.prl');
  await expect(page.getByTestId('field-learning-rate')).toHaveValue('0.0007');
});

test('Saved runs scroll inside their panel: the page is no wider than a 1280-pixel window', async ({ page }) => {
  const lab = new LabPage(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await lab.open();
  await lab.button('Train').click();
  await expect(page.getByTestId('step')).not.toHaveText('step 0', { timeout: 60_000 });
  await lab.button('Stop').click(); // a stopped run is saved
  await page.getByTestId('runs').locator('summary').first().click();
  await expect(page.getByTestId('run-list')).toBeVisible({ timeout: 30_000 });
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  expect(overflow).toBeLessThanOrEqual(0);
});
