/**
 * Files of another task and older checkpoints (found by an exploratory test of the page): a
 * checkpoint of another task asks first, is refused while training, and switches the lab with
 * that task's data so the run can train; a held-out file of another task asks too; a checkpoint
 * of an earlier step cuts the charts back to it; a skip DQN makes by design is said once.
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { LabPage, tinyDigitRun, tinyRun } from './pages/labPage';

test.describe.configure({ mode: 'serial' });

/** Answers the page's next dialog, and returns its text. */
function answerNext(page: Page, accept: boolean): Promise<string> {
  return new Promise((resolve) => page.once('dialog', (dialog) => void (accept ? dialog.accept() : dialog.dismiss()).then(() => resolve(dialog.message()))));
}

const loadCheckpoint = (page: Page, name: string, bytes: Buffer) => page.getByTestId('checkpoint-input').setInputFiles({ name, mimeType: 'application/octet-stream', buffer: bytes });

test('a checkpoint of another task: refused while training, asked first, then the lab switches with that task\'s data and trains', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  const functionsPolicy = readFileSync('public/functions.prl');

  await lab.button('Train').click();
  await expect.poll(() => lab.state<string>('phase')).toBe('training');
  await loadCheckpoint(page, 'functions.prl', functionsPolicy);
  await expect(page.getByTestId('errors')).toContainText('functions.prl is a checkpoint of the functions task: stop training before loading it');
  await lab.button('Stop').click();
  await expect.poll(() => lab.state<string>('phase')).not.toBe('training');

  const declined = answerNext(page, false);
  await loadCheckpoint(page, 'functions.prl', functionsPolicy);
  expect(await declined).toMatch(/switches the lab from kolmogorov to functions.*Load it\?$/);
  expect(await lab.state<string>('config.task.name')).toBe('kolmogorov');

  const accepted = answerNext(page, true);
  await loadCheckpoint(page, 'functions.prl', functionsPolicy);
  await accepted;
  await expect(page.getByTestId('dataset-summary-train')).toContainText('functions/train.jsonl', { timeout: 60_000 });
  await expect.poll(() => lab.state<string>('config.task.name')).toBe('functions');
  await expect(page.getByTestId('status-message')).toContainText('loaded functions.prl');
  expect(page.url()).toContain('task=functions');
  // The Kolmogorov run's points are not this run's history.
  expect(await lab.points('entropy')).toBe(0);
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 1', { timeout: 60_000 });
  await expect(page.getByTestId('errors')).not.toContainText('the training set is empty');
});

test('a held-out file of another task asks before it switches the task; "no" leaves the held-out set as it was', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  // Trained weights (random ones give way without a question, as a training file's drop does).
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 1');
  const before = await page.getByTestId('dataset-summary-heldout').textContent();
  const declined = answerNext(page, false);
  await lab.dropFile('heldout.jsonl', readFileSync('datasets/functions/heldout.jsonl'), 'heldout');
  expect(await declined).toMatch(/heldout\.jsonl holds functions problems/);
  await expect(page.getByTestId('dataset-summary-heldout')).toHaveText(before!);
  expect(await lab.state<string>('config.task.name')).toBe('kolmogorov');
  await expect(page.getByTestId('status-message')).toHaveText('heldout.jsonl was not used: the lab stays on kolmogorov with its data');
});

test('a checkpoint of an earlier step cuts the charts back to it', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.stepTo(2);
  const atTwo = Buffer.from(await lab.downloadCheckpoint());
  /** From step 4, loads the step-2 file as `name`, checks the points kept, takes one Step, and returns the steps then charted. */
  const loadAtFourThenStep = async (name: string, kept: number) => {
    await lab.waitForPoints(4, 'entropy');
    await loadCheckpoint(page, name, atTwo);
    await expect(page.getByTestId('status-message')).toContainText(`loaded ${name}, step 2`);
    await expect.poll(() => lab.points('entropy')).toBe(kept);
    await lab.button('Step').click();
    await expect(page.getByTestId('step')).toHaveText('step 3');
    await lab.waitForPoints(kept + 1, 'entropy');
    return (await lab.state<{ step: number }[]>('series.entropy')).map((point) => point.step);
  };
  await lab.stepTo(4, 2);
  expect(await loadAtFourThenStep('step2.prl', 2)).toEqual([1, 2, 3]);

  // A checkpoint of another run of the same model (a fresh run since): the charts on screen are not
  // its past, so they start over at its step instead of showing the other run's points as its own.
  await page.getByTestId('run-start').selectOption('fresh');
  await lab.setField('seed', '7');
  await lab.button('Apply (new run)').click();
  await expect(page.getByTestId('step')).toHaveText('step 0');
  await lab.stepTo(4);
  expect(await loadAtFourThenStep('step2-again.prl', 0)).toEqual([3]);
});

test('DQN\'s steps between its training steps are said once, not at every step', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open(`${tinyRun}&algorithm=dqn`);
  await lab.stepTo(6);
  const errors = await lab.state<string[]>('errors');
  expect(errors.filter((line) => line.includes('update skipped')).length).toBeLessThanOrEqual(2);
  expect(errors.every((line) => !line.includes('update skipped') || line.includes('not reported again'))).toBe(true);
  // Apply of another algorithm: the old run's notices go with it.
  expect(errors.length).toBeGreaterThan(0);
  await page.getByTestId('field-algorithm').selectOption('reinforce');
  await lab.button('Apply (new run)').click();
  await expect.poll(() => lab.state<string>('config.algorithm.name')).toBe('reinforce');
  expect(await lab.state<string[]>('errors')).toEqual([]);
});

test('another task and another algorithm applied together: the task\'s shipped policy loads and the algorithm stays the one picked', async ({ page }) => {
  const lab = new LabPage(page);
  page.on('dialog', (dialog) => void dialog.accept());
  await lab.open(tinyDigitRun);
  await page.getByTestId('field-task').selectOption('kolmogorov');
  await page.getByTestId('field-algorithm').selectOption('grpo');
  await lab.button('Apply (new run)').click();
  await expect(page.getByTestId('weights')).toContainText('weights: pretrained checkpoint', { timeout: 60_000 });
  await expect.poll(() => lab.state<string>('config.algorithm.name'), { timeout: 30_000 }).toBe('grpo');
  expect(await lab.state<string>('config.task.name')).toBe('kolmogorov');
  await expect(page.getByTestId('status-message')).toContainText('kolmogorov with grpo');
  // The link says the run made (the shipped policy's model), not the digit run's settings the form held: a reload opens the same run.
  await expect.poll(() => page.url()).toContain('algorithm=grpo');
  expect(await lab.state<number>('config.model.dModel')).not.toBe(16);
  expect(page.url()).not.toMatch(/d-model=16|context=40|layers=1\b/);
});

test('another task picked in the form loads its shipped policy, and the link the page writes loads it again on a reload', async ({ page }) => {
  const lab = new LabPage(page);
  page.on('dialog', (dialog) => void dialog.accept());
  await lab.openDefault();
  await page.getByTestId('field-task').selectOption('functions');
  await lab.button('Apply (new run)').click();
  await expect(page.getByTestId('weights')).toContainText('weights: shipped functions policy, step 0', { timeout: 60_000 });
  // The policy's own settings (its seed among them) are the task's start, not settings of the user's: the link says the task alone.
  await expect.poll(() => new URL(page.url()).hash).toBe('#task=functions');
  const seed = await lab.state<number>('config.run.seed');
  await page.reload();
  await expect(page.getByTestId('weights')).toContainText('weights: shipped functions policy, step 0', { timeout: 60_000 });
  expect(await lab.state<number>('config.run.seed')).toBe(seed);
});
