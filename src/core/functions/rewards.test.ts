/** Each reward type on hand-computed cases. */
import { describe, expect, it } from 'vitest';
import { codeQualityReward, functionReward, sparseReward, testCaseReward } from './rewards';

const program = { text: 'function f(a) {\n  return a.map((x) => (x + 1));\n}', statements: 1, depth: 3, loops: 0, branches: 0 };
const settings = { allPassBonus: 1, rewardScale: 1 };

describe('function rewards', () => {
  it('sparse: 1 only when every test passes', () => {
    expect(sparseReward({ program, tokens: 6, maxTokens: 40, passed: [true, true] })).toBe(1);
    expect(sparseReward({ program, tokens: 6, maxTokens: 40, passed: [true, false] })).toBe(0);
    expect(sparseReward({ program: null, tokens: 40, maxTokens: 40, passed: [] })).toBe(0);
  });

  it('test_cases: the share passed, plus the bonus when all pass, times the scale', () => {
    expect(testCaseReward({ program, tokens: 6, maxTokens: 40, passed: [true, false, true, false] }, settings)).toBe(0.5);
    expect(testCaseReward({ program, tokens: 6, maxTokens: 40, passed: [true, true] }, settings)).toBe(2);
    expect(testCaseReward({ program, tokens: 6, maxTokens: 40, passed: [true, true] }, { allPassBonus: 0.5, rewardScale: 2 })).toBe(3);
  });

  it('code_quality: the seed\'s weighted sum, worked by hand', () => {
    // correctness 10 * 3/4 = 7.5; quality 2 * (0.5 + 0.3 + 0.2 + 0.2) = 2.4;
    // efficiency 1 * (-0.1 * 6/40 + 0.1 idiomatic map) = 0.085; progress 0.5 * (0.3 + 0.2 + 0.05 * 1) = 0.275
    const parts = codeQualityReward({ program, tokens: 6, maxTokens: 40, passed: [true, true, true, false] });
    expect(parts.correctness).toBeCloseTo(7.5, 10);
    expect(parts.quality).toBeCloseTo(2.4, 10);
    expect(parts.efficiency).toBeCloseTo(0.085, 10);
    expect(parts.progress).toBeCloseTo(0.275, 10);
    expect(parts.total).toBeCloseTo(7.5 + 2.4 + 0.085 + 0.275, 10);
    // All pass: +10 * 1/4 more and the bonus of 20.
    expect(codeQualityReward({ program, tokens: 6, maxTokens: 40, passed: [true, true, true, true] }).correctness).toBe(30);
    // A program cut off by the budget earns only its (negative) length term.
    expect(codeQualityReward({ program: null, tokens: 40, maxTokens: 40, passed: [false] }).total).toBeCloseTo(-0.1, 10);
  });

  it('curriculum rewards as test_cases (its ordering lives in the loop)', () => {
    const input = { program, tokens: 6, maxTokens: 40, passed: [true, false] };
    expect(functionReward('curriculum', input, settings).total).toBe(functionReward('test_cases', input, settings).total);
  });
});
