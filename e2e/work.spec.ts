/**
 * The page never loses the user's work (issue: dataset drop and Apply discarded the warm start):
 * trained weights survive a dataset drop and a new configuration of the same model, a reset is
 * asked first, a bad configuration or a file with nothing in it changes nothing, Pause and Stop
 * act within a second in every phase, and a drop can be a held-out set whose items are listed
 * beside their targets.
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { unzipSync } from 'fflate';
import { decodeCheckpoint } from '../src/core/checkpoint';
import { decodeSafetensors } from '../src/core/safetensors';
import { LabPage, tinyDigitRun, tinyRun } from './pages/labPage';

test.describe.configure({ mode: 'serial' });

/** Every dialog the page opens, answered with `accept`. */
function dialogs(page: Page, accept: boolean): string[] {
  const seen: string[] = [];
  page.on('dialog', (dialog) => {
    seen.push(dialog.message());
    void (accept ? dialog.accept() : dialog.dismiss());
  });
  return seen;
}

test('the shipped weights score the same after a dataset drop and after Apply of a learning rate; a model change asks first', async ({ page }) => {
  const lab = new LabPage(page);
  const asked = dialogs(page, false);
  await lab.openDefault();
  await expect(page.getByTestId('weights')).toContainText('weights: pretrained checkpoint');
  const shipped = await lab.evaluate();
  expect(shipped).toBeGreaterThan(0); // the shipped policy solves some of the first 50 greedily

  const lines = readFileSync('datasets/train.jsonl', 'utf8').split('\n').slice(0, 300).join('\n');
  await lab.dropFile('mine.jsonl', lines);
  await expect(page.getByTestId('dataset-summary-train')).toContainText('mine.jsonl: 300 records loaded');
  await expect(page.getByTestId('status-message')).toContainText('the weights carry over');
  await expect(page.getByTestId('weights')).toContainText('weights: pretrained checkpoint');
  expect(await lab.evaluate()).toBe(shipped);

  await lab.setField('learning-rate', '0.0002');
  await lab.button('Apply (new run)').click();
  await expect(page.getByTestId('status-message')).toContainText('the weights carry over');
  expect(await lab.evaluate()).toBe(shipped);
  expect(asked).toEqual([]);
  expect(page.url()).not.toContain('output-dir'); // CLI-only fields stay out of the link
  expect(page.url()).toContain('learning-rate=0.0002');

  // Another width cannot keep the weights: the page asks, and a "no" leaves the run as it was.
  await lab.setField('d-model', '96');
  await lab.button('Apply (new run)').click();
  await expect.poll(() => asked.length).toBe(1);
  expect(asked[0]).toMatch(/This resets the weights: the model changes \(dModel 64 -> 96\).* by random ones\. Apply anyway\?$/);
  await expect(page.getByTestId('weights')).toContainText('weights: pretrained checkpoint');
  expect(await lab.evaluate()).toBe(shipped);

  // Another task: the question says its shipped policy, not random weights, would take their place.
  await page.getByTestId('field-task').selectOption('functions');
  await lab.button('Apply (new run)').click();
  await expect.poll(() => asked.length).toBe(2);
  expect(asked[1]).toMatch(/task kolmogorov -> functions.* by the shipped functions policy \(a warm start for functions\)\. Apply anyway\?$/);
  await expect(page.getByTestId('weights')).toContainText('weights: pretrained checkpoint');

  // A training file of another task asks too; a "no" keeps the run, its data and its weights.
  await lab.dropFile('training_problems.json', readFileSync('datasets/functions/training_problems.json'));
  await expect.poll(() => asked.length).toBe(3);
  expect(asked[2]).toMatch(/^training_problems\.json holds functions problems, and switching to that task resets the weights: .* by the shipped functions policy .*Switch anyway\?$/);
  await expect(page.getByTestId('dataset-summary-train')).toContainText('mine.jsonl: 300 records loaded');
  expect(await lab.state<string>('config.task.name')).toBe('kolmogorov');
  await expect(page.getByTestId('weights')).toContainText('weights: pretrained checkpoint');
  expect(await lab.evaluate()).toBe(shipped);
});

test('a configuration whose fields disagree is refused before Apply, and the run stays usable', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await expect(page.getByTestId('field-output-dir')).toHaveCount(0); // CLI-only fields are not in the form
  await expect(page.getByTestId('field-num-generators')).toHaveCount(0); // nor another task's
  await lab.setField('heads', '5');
  await expect(page.getByTestId('config-panel').getByRole('alert')).toContainText('model.dModel (16) must be divisible by model.heads (5)');
  await expect(lab.button('Apply (new run)')).toBeDisabled();
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 1');
});

test('a file with no valid record keeps the training set; a drop on the right half is the held-out set, listed item by item', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  const noise = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
  await lab.dropFile('photo.png', noise);
  await expect(page.getByTestId('errors')).toContainText('photo.png holds no valid sequences');
  await expect(page.getByTestId('errors')).toContainText('the training set is unchanged (10000 sequences)');
  await expect(page.getByTestId('dataset-summary-train')).toContainText('train.jsonl: 10000 records loaded');

  await lab.dropFile('mine-heldout.jsonl', '{"sequence":[1,2,3,4,5,6]}\n{"sequence":[7,7,7,7,7]}\n{"sequence":[3,1,4,1,5,9,2,6]}\n', 'heldout');
  await expect(page.getByTestId('dataset-summary-heldout')).toContainText('mine-heldout.jsonl: 3 records loaded');
  await expect(page.getByTestId('dataset-summary-train')).toContainText('train.jsonl: 10000 records loaded');
  await lab.evaluate();
  const rows = page.getByTestId('per-item').locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(1)).toContainText('7, 7, 7, 7, 7');
  // A wrong output is marked value by value against its target (an untrained policy gets them wrong; a row with no output has nothing to mark).
  const wrong = page.getByTestId('per-item').locator('tr.outcome-wrong:not(:has(.hint))');
  if (await wrong.count()) await expect(wrong.first().locator('mark').first()).toBeVisible();
});

/** Clicks Pause or Stop and checks the phase changes within a second and no step follows the one in flight. */
async function actsWithinASecond(lab: LabPage, button: 'Pause' | 'Stop', phase: 'paused' | 'stopped', progress: () => Promise<string>): Promise<void> {
  await lab.button(button).click();
  await expect(lab.page.getByTestId('phase')).toHaveText(phase, { timeout: 1000 });
  await lab.page.waitForTimeout(1500); // the step in flight ends, its events arrive
  const held = await progress();
  await lab.page.waitForTimeout(1500);
  expect(await progress()).toBe(held);
}

const step = (lab: LabPage) => () => lab.page.getByTestId('step').innerText();

test('Pause and Stop act within a second while training and while pretraining', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open(tinyRun);
  await lab.button('Train').click();
  await expect(page.getByTestId('status-message')).toHaveText(/^kolmogorov with reinforce$/); // what trains, not "training" twice
  await lab.waitForPoints(2);
  await actsWithinASecond(lab, 'Pause', 'paused', step(lab));
  // A Step while paused: the status line follows the step counter.
  const paused = Number((await step(lab)()).replace('step ', ''));
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText(`step ${paused + 1}`);
  await expect(page.getByTestId('status-message')).toHaveText(`paused at step ${paused + 1}`);
  await lab.button('Resume').click();
  await lab.waitForPoints((await lab.points()) + 1);
  await actsWithinASecond(lab, 'Stop', 'stopped', step(lab));
  await expect(page.getByTestId('status-message')).toHaveText(`stopped at step ${(await step(lab)()).replace('step ', '')}`);

  const pretrained = () => lab.points('pretrain_loss').then(String);
  await lab.pretrain(100_000, 100_000);
  await lab.waitForPoints(2, 'pretrain_loss');
  await actsWithinASecond(lab, 'Pause', 'paused', pretrained);
  await lab.button('Resume').click();
  await actsWithinASecond(lab, 'Stop', 'stopped', pretrained);
});

test('Pause and Stop act within a second in the default sum_digits warm start (400 steps of batch 128) and in digit RL', async ({ page }) => {
  test.setTimeout(180_000);
  const lab = new LabPage(page);
  await page.goto('/#task=sum_digits');
  await expect(page.getByTestId('status-message')).toContainText('ready to train', { timeout: 60_000 });
  const warm = () => lab.points('pretrain_loss').then(String);
  await lab.button('Train').click();
  await expect(page.getByTestId('progress')).toContainText('warm start', { timeout: 30_000 });
  await actsWithinASecond(lab, 'Pause', 'paused', warm);
  await lab.button('Resume').click();
  await expect(page.getByTestId('progress')).toContainText('warm start');
  await actsWithinASecond(lab, 'Stop', 'stopped', warm);

  await page.goto(`/#${tinyDigitRun}`);
  await page.reload(); // a new hash alone does not load the page again
  await expect(page.getByTestId('status-message')).toContainText('ready to train', { timeout: 60_000 });
  await lab.button('Train').click();
  await lab.waitForPoints(2, 'accuracy');
  await actsWithinASecond(lab, 'Pause', 'paused', step(lab));
  await lab.button('Resume').click();
  await actsWithinASecond(lab, 'Stop', 'stopped', step(lab));
});

test('Load checkpoint and Import JSON are reached and opened from the keyboard', async ({ page }) => {
  const lab = new LabPage(page);
  // Listening before the page opens: Playwright intercepts file choosers only once someone listens.
  let opened = 0;
  page.on('filechooser', (chooser) => {
    opened += 1;
    void chooser.setFiles([]); // closed as a cancel would, so the next one can open
  });
  await lab.open();
  for (const [i, name] of ['Load checkpoint', 'Import JSON'].entries()) {
    await lab.button(name).focus();
    await expect(lab.button(name)).toBeFocused();
    await page.keyboard.press('Enter');
    await expect.poll(() => opened).toBe(i + 1);
  }
});

test('no console error and no page error while the page loads its shipped data and policy', async ({ page }) => {
  const problems: string[] = [];
  page.on('console', (message) => void (message.type() === 'error' && problems.push(`console: ${message.text()} (${message.location().url})`)));
  page.on('pageerror', (error) => void problems.push(`page: ${error.message}`));
  const lab = new LabPage(page);
  await lab.openDefault();
  await expect(page.getByTestId('weights')).toContainText('pretrained checkpoint');
  expect(problems).toEqual([]);
});

test('Export for PyTorch downloads a zip of the exported folder; its safetensors dropped back loads the same weights', async ({ page }) => {
  const lab = new LabPage(page);
  await lab.open();
  await lab.button('Step').click();
  await expect(page.getByTestId('step')).toHaveText('step 1');
  const [download] = await Promise.all([page.waitForEvent('download'), lab.button('Export for PyTorch').click()]);
  expect(download.suggestedFilename()).toBe('program-rl-lab-step1-pytorch.zip');
  const files = unzipSync(new Uint8Array(readFileSync((await download.path())!)));
  expect(Object.keys(files).sort()).toEqual(['config.json', 'model.safetensors', 'modeling_prl.py', 'vocab.json'].map((name) => `program-rl-lab/${name}`));
  const safetensors = files['program-rl-lab/model.safetensors'];
  const exported = decodeSafetensors(safetensors).tensors;
  const weights = (await decodeCheckpoint(await lab.downloadCheckpoint())).tensors.filter((t) => t.group === 'weights');
  expect(exported.map((t) => t.name)).toEqual(weights.map((t) => t.name));
  expect(exported.every((t, i) => t.data.every((v, j) => Object.is(v, weights[i].data[j])))).toBe(true);

  await lab.dropFile('tuned.safetensors', Buffer.from(safetensors));
  await expect(page.getByTestId('status-message')).toContainText('loaded the weights of tuned.safetensors');
  await expect(page.getByTestId('weights')).toContainText('weights: tuned.safetensors (safetensors)');
  const reloaded = (await decodeCheckpoint(await lab.downloadCheckpoint())).tensors.filter((t) => t.group === 'weights');
  expect(reloaded.every((t, i) => t.data.every((v, j) => Object.is(v, weights[i].data[j])))).toBe(true);
});
