import { describe, expect, it } from 'vitest';
import { DRAWN_POINTS, chartView, downsample, niceTicks, spansDecades, tickLabel, xTickLabel } from './chartData';
import { smooth } from './store';

describe('chart data', () => {
  it('downsamples to at most the budget, keeping the ends and every bucket extreme', () => {
    const points = Array.from({ length: 2000 }, (_, i) => ({ x: i, y: Math.sin(i / 50) }));
    points[777].y = 40; // a spike a stride would likely drop
    points[1333].y = -40;
    const kept = downsample(points, 100);
    expect(kept.length).toBeLessThanOrEqual(100);
    expect(kept[0]).toBe(points[0]);
    expect(kept.at(-1)).toBe(points[1999]);
    expect(kept.map((p) => p.y)).toContain(40);
    expect(kept.map((p) => p.y)).toContain(-40);
    expect(kept.every((p, i) => i === 0 || p.x > kept[i - 1].x)).toBe(true);
    expect(downsample(points.slice(0, 50), 100)).toHaveLength(50);
  });

  it('picks round ticks that cover the range', () => {
    expect(niceTicks(0, 37, 4)).toEqual({ domain: [0, 40], ticks: [0, 10, 20, 30, 40] });
    const { domain, ticks } = niceTicks(0.123, 0.876, 4);
    expect(domain[0]).toBeLessThanOrEqual(0.123);
    expect(domain[1]).toBeGreaterThanOrEqual(0.876);
    expect(ticks).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(5, 5).domain[0]).toBeLessThan(5); // a flat series still gets a range
    expect(niceTicks(5, 5).domain[1]).toBeGreaterThan(5);
    expect(niceTicks(Number.NaN, 1)).toEqual({ domain: [0, 1], ticks: [0, 1] });
  });

  it('builds a view by step or wall time, with reference values inside the y domain', () => {
    const points = Array.from({ length: 3000 }, (_, i) => ({ step: i + 1, wallMs: (i + 1) * 500, value: 0.5 + i / 10000 }));
    const byStep = chartView(points, 'step', [0.2, Number.NaN]);
    expect(byStep.data.length).toBeLessThanOrEqual(DRAWN_POINTS);
    expect(byStep.xDomain[0]).toBeLessThanOrEqual(1);
    expect(byStep.xDomain[1]).toBeGreaterThanOrEqual(3000);
    expect(byStep.yDomain[0]).toBeLessThanOrEqual(0.2);
    const byTime = chartView(points, 'wallMs');
    expect(byTime.data.at(-1)!.x).toBe(1500); // seconds
    expect(byTime.yDomain[0]).toBeGreaterThan(0.2);
    expect(chartView([], 'step').data).toEqual([]);
  });

  it('draws compared runs on the same axes: their points thinned alike, the domains covering every line', () => {
    const live = Array.from({ length: 20 }, (_, i) => ({ step: i + 1, wallMs: 0, value: 0.5 }));
    const longer = Array.from({ length: 900 }, (_, i) => ({ step: i + 1, wallMs: 0, value: i === 450 ? -3 : 0.4 }));
    const view = chartView(live, 'step', [], [longer, []]);
    expect(view.data).toHaveLength(20);
    expect(view.overlays).toHaveLength(2);
    expect(view.overlays[0].length).toBeLessThanOrEqual(DRAWN_POINTS);
    expect(view.overlays[0].map((p) => p.y)).toContain(-3); // a spike of the other run survives thinning
    expect(view.overlays[1]).toEqual([]);
    expect(view.xDomain[1]).toBeGreaterThanOrEqual(900);
    expect(view.yDomain[0]).toBeLessThanOrEqual(-3);
    expect(view.yDomain[1]).toBeGreaterThanOrEqual(0.5);
  });

  it('labels ticks short enough for the axis, sign included', () => {
    expect([-0.0025, 0.0035, 150000, 0.5, -1.2, 0, 2.81].map(tickLabel)).toEqual(['-2.5e-3', '3.5e-3', '1.5e5', '0.5', '-1.2', '0', '2.81']);
  });

  it('a positive series spanning two decades or more gets a log axis with ticks at powers of ten; others stay linear', () => {
    expect(spansDecades([5, 0.05])).toBe(true);
    expect(spansDecades([5, 0.06])).toBe(false);
    expect(spansDecades([5, 0, 0.001])).toBe(false); // a zero has no logarithm
    const loss = [3, 1, 0.3, 0.1, 0.02].map((value, step) => ({ step, wallMs: 0, value }));
    const view = chartView(loss, 'step');
    expect(view.log).toBe(true);
    expect(view.yTicks).toEqual([-2, -1, 0, 1]);
    expect(chartView(loss.slice(0, 3), 'step').log).toBe(false);
  });

  it('x ticks fit under their mark: thousands and millions are shortened', () => {
    expect([150, 1500, 1550, 20000, 2_500_000].map(xTickLabel)).toEqual(['150', '1.5k', '1550', '20k', '2.5M']);
  });
});

describe('a share of right answers that is mostly 0, smoothed', () => {
  it('stays on a linear axis: the smoothed tail (1e-9 and less) does not make it a log chart', () => {
    const measured = [0.25, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.25].map((value, i) => ({ step: i + 1, wallMs: i, value }));
    const smoothed = smooth(measured, 0.6);
    expect(Math.min(...smoothed.map((p) => p.value))).toBeLessThan(1e-8);
    expect(chartView(smoothed, 'step').log).toBe(true); // judged on the smoothed values alone
    expect(chartView(smoothed, 'step', [], [], measured).log).toBe(false);
    // A loss that does span decades, measured, is still drawn on a log axis.
    const loss = [10, 3, 1, 0.3, 0.1, 0.03].map((value, i) => ({ step: i + 1, wallMs: i, value }));
    expect(chartView(smooth(loss, 0.6), 'step', [], [], loss).log).toBe(true);
  });
});
