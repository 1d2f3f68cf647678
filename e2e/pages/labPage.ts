/**
 * Page object of the lab: e2e tests drive the page through these methods and read its state
 * through the small `window.__lab` bridge, not through brittle selectors.
 */
import { expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { checkpointStep } from '../../src/core/checkpoint';

export const tinyRun = 'layers=1&d-model=16&heads=2&batch-size=4&max-program-tokens=40&max-sequence-length=32&context=96&workers=1';
/** A tiny sum_digits run: a two-step warm start, then RL with two generator workers. */
export const tinyDigitRun = 'task=sum_digits&layers=1&d-model=16&heads=2&context=40&batch-size=8&num-steps=500&num-generators=2&warm-start-steps=2&warm-start-examples=16&eval-samples=10';

export class LabPage {
  constructor(readonly page: Page) {}

  /** Opens the page with `hash` as its configuration (and `search`, such as `?save-hold-ms=4000`). */
  async open(hash = tinyRun, search = ''): Promise<void> {
    await this.page.goto(`/${search}#${hash}`);
    await expect(this.page.getByTestId('backend')).not.toContainText('…', { timeout: 60_000 });
    // The digit tasks generate their questions: no file loads for them.
    if (!/task=(sum|reverse)_digits/.test(hash)) await expect(this.page.getByTestId('dataset-summary-train')).toContainText('records loaded', { timeout: 60_000 });
    await expect(this.page.getByTestId('status-message')).toContainText('ready to train', { timeout: 60_000 });
  }

  /** Opens the page without a config in the link: it then tries the default pretrained checkpoint. */
  async openDefault(): Promise<void> {
    await this.page.goto('/');
    await expect(this.page.getByTestId('backend')).not.toContainText('…', { timeout: 60_000 });
    await expect(this.page.getByTestId('checkpoint-note')).not.toBeEmpty({ timeout: 60_000 });
  }

  async pretrain(steps: number, evalEvery: number): Promise<void> {
    await this.page.getByTestId('pretrain-steps').fill(String(steps));
    await this.page.getByTestId('pretrain-eval-every').fill(String(evalEvery));
    await this.button('Pretrain').click();
  }

  /** Downloads the run's checkpoint; its file is named after the step it holds, which is checked. */
  async downloadCheckpoint(): Promise<Uint8Array> {
    const [download] = await Promise.all([this.page.waitForEvent('download'), this.button('Download checkpoint').click()]);
    const bytes = new Uint8Array(readFileSync((await download.path())!));
    expect(download.suggestedFilename()).toBe(`program-rl-lab-step${checkpointStep(bytes)}.prl`);
    return bytes;
  }

  state<T>(pick: string): Promise<T> {
    return this.page.evaluate((path) => {
      const state = (window as any).__lab.state();
      // The store keeps some slices in Maps (series by metric name): a key reads through them.
      return path.split('.').reduce((value: any, key: string) => (value instanceof Map ? value.get(key) : value?.[key]), state);
    }, pick);
  }

  /** Starts collecting the main thread's long tasks (over 50 ms); `longTasks` reads them. */
  async watchLongTasks(): Promise<void> {
    await this.page.evaluate(() => {
      (window as any).__longTasks = [];
      new PerformanceObserver((list) => (window as any).__longTasks.push(...list.getEntries().map((e) => Math.round(e.duration)))).observe({ type: 'longtask', buffered: false });
    });
  }

  longTasks(): Promise<number[]> {
    return this.page.evaluate(() => (window as any).__longTasks);
  }

  async points(metric = 'avg_reward'): Promise<number> {
    return (await this.state<unknown[] | undefined>(`series.${metric}`))?.length ?? 0;
  }

  /** Presses Step until the run is at `step`, from `from`, waiting for each step to land. */
  async stepTo(step: number, from = 0): Promise<void> {
    for (let i = from + 1; i <= step; i++) {
      await this.button('Step').click();
      await expect(this.page.getByTestId('step')).toHaveText(`step ${i}`, { timeout: 60_000 });
    }
  }

  button(name: string) {
    return this.page.getByRole('button', { name, exact: true });
  }

  /** A chart's figure by its title. */
  chart(title: string) {
    return this.page.getByTestId(`chart-${title}`);
  }

  async setSmoothing(weight: number): Promise<void> {
    await this.page.getByTestId('smoothing').fill(String(weight));
  }

  /** Drops a file on the page: on its left half (the training set) or its right half (the held-out set). */
  async dropFile(name: string, content: string | Buffer, role: 'train' | 'heldout' = 'train'): Promise<void> {
    const data = typeof content === 'string' ? Buffer.from(content) : content;
    const transfer = await this.page.evaluateHandle(
      ({ name, bytes }) => {
        const dt = new DataTransfer();
        dt.items.add(new File([new Uint8Array(bytes)], name));
        return dt;
      },
      { name, bytes: [...data] },
    );
    const width = this.page.viewportSize()?.width ?? 1280;
    await this.page.dispatchEvent('body', 'drop', { dataTransfer: transfer, clientX: role === 'heldout' ? width - 20 : 20, clientY: 200 });
  }

  async waitForPoints(atLeast: number, metric = 'avg_reward'): Promise<void> {
    await expect.poll(() => this.points(metric), { timeout: 90_000 }).toBeGreaterThanOrEqual(atLeast);
  }

  /** Runs Evaluate held-out (the search picked beside it) and returns the new table row's headline figure (accuracy, solved share). */
  async evaluate(): Promise<number> {
    const before = (await this.state<unknown[]>('evaluations')).length;
    await this.button('Evaluate held-out').click();
    await expect.poll(async () => (await this.state<unknown[]>('evaluations')).length, { timeout: 90_000 }).toBe(before + 1);
    return this.state<number>(`evaluations.${before}.score`);
  }

  /** Sets a config field in the form (it takes the value when it loses focus). */
  async setField(flag: string, value: string): Promise<void> {
    const input = this.page.getByTestId(`field-${flag}`);
    await input.fill(value);
    await input.blur();
  }
}
