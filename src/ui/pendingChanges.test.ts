import { describe, expect, it } from 'vitest';
import { configFields, defaultConfig, withField } from '../core/config';
import { pendingChanges } from './pendingChanges';

const field = (flag: string) => configFields().find((f) => f.flag === flag)!;

describe('pendingChanges', () => {
  it('is empty when the form says what the run is', () => {
    expect(pendingChanges(defaultConfig(), defaultConfig())).toEqual([]);
  });

  it('names a picked task or algorithm, with the settings it brings counted', () => {
    const live = defaultConfig();
    expect(pendingChanges(live, withField(live, field('algorithm'), 'grpo'))[0]).toBe('algorithm reinforce -> grpo');
    const functions = pendingChanges(live, withField(live, field('task'), 'functions'));
    expect(functions[0]).toBe('task kolmogorov -> functions');
    expect(functions.at(-1)).toMatch(/^with \d+ more settings of its own$/);
  });

  it('lists changed fields, a few by name and the rest counted', () => {
    const live = defaultConfig();
    let draft = withField(live, field('learning-rate'), '0.0005');
    expect(pendingChanges(live, draft)).toEqual([`learning-rate ${live.algorithm.learningRate} -> 0.0005`]);
    draft = withField(withField(withField(draft, field('seed'), '7'), field('batch-size'), '16'), field('max-steps'), '99');
    expect(pendingChanges(live, draft, 2)).toHaveLength(3);
    expect(pendingChanges(live, draft, 2)[2]).toBe('2 more');
  });
});
