/** A chart drawn to markup (no DOM needed): what it shows of a series of few points. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { appendMetrics, resetMetrics, useLab } from '../store';
import { Chart, chartSummary, emptyNote } from './Charts';

const series = (n: number) => Array.from({ length: n }, (_, i) => ({ step: 10 * (i + 1), wallMs: 1000 * (i + 1), value: 0.5 + 0.01 * i }));
const draw = (points: ReturnType<typeof series>, others: ReturnType<typeof series>[] = []) =>
  renderToStaticMarkup(<Chart title="held-out accuracy" caption="" points={points} others={others} x="step" />);
const count = (markup: string, pattern: RegExp) => markup.match(pattern)?.length ?? 0;

describe('a chart of few points', () => {
  it('marks a single held-out evaluation, which draws no line', () => {
    const markup = draw(series(1));
    expect(count(markup, /class="[^"]*\bseries\b/g)).toBe(0);
    expect(count(markup, /<circle[^>]*class="marker"/g)).toBe(1);
  });

  it('marks each point of a short series and of a compared run, and none of a long one', () => {
    expect(count(draw(series(5), [series(1)]), /<circle[^>]*class="marker"/g)).toBe(5);
    expect(count(draw(series(5), [series(1)]), /<circle[^>]*class="marker compared"/g)).toBe(1);
    const long = draw(series(200));
    expect(count(long, /class="[^"]*\bseries\b/g)).toBe(1);
    expect(count(long, /class="marker/g)).toBe(0);
  });
});

describe('a chart with nothing to draw', () => {
  const empty = (points: ReturnType<typeof series>, unvalued: boolean, others: ReturnType<typeof series>[] = []) =>
    renderToStaticMarkup(<Chart title="policy loss" caption="" points={points} others={others} x="step" empty={emptyNote(unvalued)} />);

  it('says why: nothing yet, or a figure the updates report without a value (DPO with no pair, expert iteration with an empty store)', () => {
    expect(empty([], false)).toContain('no value yet<');
    expect(empty([], true)).toContain('no value yet: the updates so far had nothing to learn from');
    // Once there is a point, or a compared run's, the plot says nothing over it.
    expect(empty(series(3), true)).not.toContain('no value yet');
    expect(empty([], true, [series(3)])).not.toContain('no value yet');
  });
});

describe('the store', () => {
  it('names a metric reported without a value once, and forgets it with the run', () => {
    appendMetrics([{ step: 1, name: 'policy_loss', value: NaN, wallMs: 1 }, { step: 1, name: 'accuracy', value: 0.5, wallMs: 1 }]);
    const first = useLab.getState().unvalued;
    expect([...first]).toEqual(['policy_loss']);
    appendMetrics([{ step: 2, name: 'policy_loss', value: NaN, wallMs: 2 }]);
    expect(useLab.getState().unvalued).toBe(first); // the same set: charts reading it do not redraw
    useLab.setState({ evaluations: [{ label: 'greedy (after RL) @ step 500', step: 500, task: 'sum_digits', search: 'greedy', k: 1, n: 10, score: 1, metrics: {} }] });
    resetMetrics(); // a new run (Apply): its figures and its held-out rows start over
    expect(useLab.getState().unvalued.size).toBe(0);
    expect(useLab.getState().evaluations).toEqual([]);
  });
});

describe('a chart from the keyboard', () => {
  it('is focusable and says its line in words: points, the last, the range', () => {
    const markup = draw(series(3));
    expect(markup).toContain('tabindex="0"');
    expect(markup).toContain('aria-label="held-out accuracy: 3 points; last 0.52 at step 30; lowest 0.5, highest 0.52. Arrow keys read each point."');
    expect(chartSummary([], 'step')).toBe('no points yet');
  });

  it('says the series as measured: every point and its true range, where the drawn line is smoothed and thinned', () => {
    const measured = Array.from({ length: 300 }, (_, i) => ({ step: i + 1, wallMs: 1000 * (i + 1), value: i === 150 ? 9 : 1 }));
    const drawn = Array.from({ length: 120 }, (_, i) => ({ x: 1 + i * 2.5, y: 1.05 })); // smoothed: the spike flattened
    expect(chartSummary(drawn, 'step', measured)).toBe('300 points (120 drawn); last 1 at step 300; lowest 1, highest 9. Arrow keys read each drawn point.');
  });
});
