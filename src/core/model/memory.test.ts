import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../config';
import { kolmogorovPolicyConfig } from '../kolmogorov/task';
import { checkUpdateFits, largestBatch } from './memory';

describe('update memory estimate', () => {
  const config = defaultConfig();
  const policy = kolmogorovPolicyConfig(config);
  it('lets the default policy update a batch of 128 (measured to fit) and refuses 192 (measured to abort), saying what fits', () => {
    expect(() => checkUpdateFits(policy, config.model.maxProgramTokens, 128)).not.toThrow();
    expect(() => checkUpdateFits(policy, config.model.maxProgramTokens, 192)).toThrow(/a batch of 192 needs about .* GiB .* use --batch-size 1[23]\d or less/);
    expect(largestBatch(policy, config.model.maxProgramTokens)).toBeGreaterThanOrEqual(128);
  });

  it('a smaller context fits a larger batch', () => {
    const small = { ...policy, context: 128 };
    expect(largestBatch(small, 48)).toBeGreaterThan(largestBatch(policy, 96));
  });
});
