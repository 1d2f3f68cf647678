import { describe, expect, it } from 'vitest';
import { defaultConfig, parseConfig } from '../config';
import { digitRecipeDefaults, withDigitRecipe } from './experiment';

describe('digit recipe defaults', () => {
  it('fill the fields not named on the command line, per task, and leave named ones alone', () => {
    const base = defaultConfig();
    const config = parseConfig({ ...base, task: { ...base.task, name: 'sum_digits' }, model: { ...base.model, dModel: 32 } });
    const applied = withDigitRecipe(config, new Set(['d-model']));
    expect(applied.model.dModel).toBe(32);
    expect(applied.model.context).toBe(Number(digitRecipeDefaults.sum_digits.context));
    expect(applied.digits.warmStartSteps).toBe(Number(digitRecipeDefaults.sum_digits['warm-start-steps']));
    expect(withDigitRecipe(base, new Set())).toEqual(base); // the Kolmogorov task is untouched
  });
});
