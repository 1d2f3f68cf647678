import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CHART_INTERVAL_MS, MAX_POINTS, grownSeries, handleEvents, initialState, metricsToCsv, metricsToJsonl, smooth, useLab } from './store';

beforeEach(() => {
  vi.useFakeTimers();
  useLab.setState(initialState());
});
afterEach(() => vi.useRealTimers());

const sample = (itemIndex: number, outcome: 'ok' | 'wrong', bits: number) => ({
  step: 1, itemIndex, target: [1], program: `p${bits}`, outcome, reward: outcome === 'ok' ? 1 : 0, bits,
});

describe('lab store', () => {
  it('routes worker events into its slices', () => {
    handleEvents([
      { type: 'phase', phase: 'training', message: 'training' },
      { type: 'step', step: 3, stepsPerSecond: 2.5 },
      { type: 'error', message: 'step 3: update skipped' },
      { type: 'samples', samples: [sample(4, 'ok', 30), sample(4, 'ok', 20), sample(5, 'wrong', 10)] },
    ]);
    const state = useLab.getState();
    expect(state.phase).toBe('training');
    expect(state.step).toBe(3);
    expect(state.errors).toEqual(['step 3: update skipped']);
    expect(state.best).toEqual({ 4: { itemIndex: 4, program: 'p20', bits: 20, step: 1 } });
  });

  it('keeps the best-program map as is when no sample beats it (no copy per batch)', () => {
    handleEvents([{ type: 'samples', samples: [sample(4, 'ok', 20)] }]);
    const best = useLab.getState().best;
    handleEvents([{ type: 'samples', samples: [sample(4, 'ok', 25), sample(5, 'wrong', 1)] }]);
    expect(useLab.getState().best).toBe(best);
    handleEvents([{ type: 'samples', samples: [sample(4, 'ok', 15)] }]);
    expect(useLab.getState().best).not.toBe(best);
    expect(useLab.getState().best[4].bits).toBe(15);
  });

  it('commits metrics at most once per chart interval, dropping non-finite values', () => {
    handleEvents([{ type: 'metrics', events: [{ step: 1, name: 'avg_reward', value: 0.5, wallMs: 10 }] }]);
    handleEvents([{ type: 'metrics', events: [{ step: 2, name: 'avg_reward', value: Number.NaN, wallMs: 20 }, { step: 2, name: 'entropy', value: 2, wallMs: 20 }] }]);
    expect(useLab.getState().series.size).toBe(0);
    vi.advanceTimersByTime(CHART_INTERVAL_MS);
    const { series, metricsVersion } = useLab.getState();
    expect(series.get('avg_reward')).toEqual([{ step: 1, wallMs: 10, value: 0.5 }]);
    expect(series.get('entropy')).toHaveLength(1);
    expect(metricsVersion).toBe(1);
  });

  it('keeps series bounded', () => {
    const events = Array.from({ length: MAX_POINTS + 500 }, (_, i) => ({ step: i, name: 'loss', value: i, wallMs: i }));
    handleEvents([{ type: 'metrics', events }]);
    vi.advanceTimersByTime(CHART_INTERVAL_MS);
    const points = useLab.getState().series.get('loss')!;
    expect(points.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(points.at(-1)!.step).toBe(MAX_POINTS + 499);
  });

  it('smooths like TensorBoard (debiased EMA) and exports CSV and JSONL', () => {
    const points = [1, 1, 1].map((value, step) => ({ step, wallMs: step, value }));
    expect(smooth(points, 0.9).map((p) => p.value)).toEqual([1, 1, 1].map(() => expect.closeTo(1, 10)));
    const jumps = smooth([0, 10].map((value, step) => ({ step, wallMs: 0, value })), 0.5).map((p) => p.value);
    expect(jumps[0]).toBeCloseTo(0, 10);
    expect(jumps[1]).toBeCloseTo((0.5 * 0.5 * 0 + 0.5 * 10) / 0.75, 10);
    const series = new Map([['avg_reward', [{ step: 1, wallMs: 5, value: 0.25 }]]]);
    expect(metricsToCsv(series)).toBe('run,run_id,step,wall_ms,name,value\nlive,live,1,5,avg_reward,0.25\n');
    // Compared runs go into the same file, one column says whose row it is.
    const other = new Map([['avg_reward', [{ step: 2, value: 0.5, wallMs: 9 }]]]);
    expect(metricsToCsv(series, [{ id: 'b', name: 'grpo, seed 2', series: other }])).toBe('run,run_id,step,wall_ms,name,value\nlive,live,1,5,avg_reward,0.25\n"grpo, seed 2",b,2,9,avg_reward,0.5\n');
    // Two saved runs of one name stay apart by their ids.
    const twins = metricsToCsv(new Map(), [{ id: 'r1', name: 'same', series: other }, { id: 'r2', name: 'same', series: other }]);
    expect(twins.split('\n').slice(1, 3)).toEqual(['same,r1,2,9,avg_reward,0.5', 'same,r2,2,9,avg_reward,0.5']);
    expect(JSON.parse(metricsToJsonl(series))).toEqual({ step: 1, name: 'avg_reward', value: 0.25, wallMs: 5 });
  });
});

describe('metric names that are members of every object (issue 29)', () => {
  it('a series named __proto__, constructor or toString is a series like any other: appended, compared, rolled back, exported', () => {
    const names = ['__proto__', 'constructor', 'toString', 'avg_reward'];
    const events = names.map((name, i) => ({ step: 1, name, value: i, wallMs: 1 }));
    const series = grownSeries(new Map(), events);
    expect([...series.keys()]).toEqual(names);
    expect(series.get('__proto__')).toEqual([{ step: 1, wallMs: 1, value: 0 }]);
    expect(grownSeries(series, events).get('constructor')).toHaveLength(2);
    handleEvents([{ type: 'metrics', events }]);
    vi.advanceTimersByTime(CHART_INTERVAL_MS);
    expect(useLab.getState().series.get('__proto__')).toHaveLength(1);
    handleEvents([{ type: 'rollback', step: 0 }]);
    expect(useLab.getState().series.get('toString')).toEqual([]);
    expect(metricsToJsonl(series).trim().split('\n').map((line) => JSON.parse(line).name)).toEqual(names);
  });
});

describe('points kept per metric', () => {
  it('a stored run of many points (a resumed or compared run) is thinned to at most MAX_POINTS at once, its last point kept', () => {
    const events = Array.from({ length: 10_000 }, (_, i) => ({ step: i + 1, name: 'avg_reward', value: i, wallMs: i }));
    const points = grownSeries(new Map(), events).get('avg_reward')!;
    expect(points.length).toBeLessThanOrEqual(MAX_POINTS);
    expect(points.length).toBeGreaterThan(MAX_POINTS / 2);
    expect(points.at(-1)!.step).toBe(10_000);
    expect(points[0].step).toBe(1);
  });
});

describe('evaluation rows', () => {
  it('keep their figures, and the last three rows their items (the latest is listed; the others stand in after a rollback)', () => {
    useLab.setState(initialState());
    const row = (step: number) => ({ label: `greedy @ step ${step}`, step, task: 'kolmogorov', search: 'greedy', k: 1, n: 2, score: 0.5, metrics: { accuracy: 0.5 }, items: [] as never[] });
    for (const step of [10, 20, 30, 40, 50]) handleEvents([{ type: 'evaluation', row: row(step) }]);
    const rows = useLab.getState().evaluations;
    expect(rows.map((r) => [r.step, r.score, r.items !== undefined])).toEqual([[10, 0.5, false], [20, 0.5, false], [30, 0.5, true], [40, 0.5, true], [50, 0.5, true]]);
    handleEvents([{ type: 'rollback', step: 45 }]);
    expect(useLab.getState().evaluations.filter((r) => r.items !== undefined).at(-1)?.step).toBe(40);
  });
});

describe('steps per second', () => {
  it('are shown while training and cleared when training ends', () => {
    useLab.setState(initialState());
    handleEvents([{ type: 'phase', phase: 'training', message: 'training' }, { type: 'step', step: 3, stepsPerSecond: 2.5 }]);
    expect(useLab.getState().stepsPerSecond).toBe(2.5);
    handleEvents([{ type: 'phase', phase: 'stopped', message: 'stopped at step 3' }]);
    expect(useLab.getState().stepsPerSecond).toBe(0);
  });
});
