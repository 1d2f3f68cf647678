/** A chart drawn to markup (no DOM needed): what it shows of a series of few points. */
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Chart } from './Charts';

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
