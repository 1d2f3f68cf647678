/**
 * The sentences the generator adds around a docstring (issue 34) are true of every test of the
 * problem, shown and hidden: an input promised non-empty never is, an example is one of the
 * tests, "keep the original order" only where the output is the input with elements left out.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { elaborate, elaborationSentences, vary } from './familyKit';
import { generateProblems } from './generator';

describe('sentences added around a generated docstring', () => {
  it('promise only what every test keeps', () => {
    const sig = { params: ['list' as const], ret: 'list' as const };
    const filtered = [{ args: [[3, -1, 2]], expected: [3, 2] }, { args: [[5]], expected: [5] }];
    for (let seed = 0; seed < 20; seed++) {
      const some = elaborationSentences(new Rng(seed), sig, filtered, []);
      expect(some.some((s) => /not empty|at least one element/.test(s))).toBe(true);
      expect(some).toContain('Keep the original order.');
      expect(some).not.toContain('All numbers are non-negative.');
      const empty = elaborationSentences(new Rng(seed), sig, filtered, [{ args: [[]], expected: [] }]);
      expect(empty).toContain('The list may be empty.');
      expect(empty.some((s) => /not empty|at least/.test(s))).toBe(false);
    }
    const sorted = elaborationSentences(new Rng(1), sig, [{ args: [[3, 1, 2]], expected: [1, 2, 3] }], []);
    expect(sorted).not.toContain('Keep the original order.');
    // The promises read the hidden tests too; the example quotes a shown one (the docstring is in the prompt).
    const named = elaborationSentences(new Rng(1), { params: ['list', 'int'], ret: 'int' }, [{ args: [[4, 0], 2], expected: 4 }], [{ args: [[1, 1, 7], 1], expected: 1 }], ['xs', 'k']);
    expect(named).toEqual(expect.arrayContaining(['xs has at least two elements.', 'All numbers in xs are non-negative.', 'k is at least 1.', 'Return an integer.']));
    expect(named.find((s) => s.startsWith('For example'))).toBe('For example, ([4, 0], 2) gives 4.');
    expect(elaborationSentences(new Rng(1), sig, [], [])).toEqual([]);
  });

  it('add one or two of them after the docstring, or one short one before it, to a share of docstrings', () => {
    const rng = new Rng(3);
    const sentences = ['A.', 'B.', 'For example, 3 gives 4.'];
    const made = Array.from({ length: 400 }, () => elaborate(rng, 'Return the sum', sentences));
    const changed = made.filter((doc) => doc !== 'Return the sum');
    expect(changed.length / made.length).toBeGreaterThan(0.3);
    expect(changed.length / made.length).toBeLessThan(0.5);
    for (const doc of changed) expect(doc).toMatch(/^([AB]\. Return the sum\.|Return the sum\.( ([AB]\.|For example, 3 gives 4\.)){1,2})$/);
    expect(changed.some((doc) => doc.startsWith('Return'))).toBe(true);
    expect(changed.some((doc) => !doc.startsWith('Return'))).toBe(true);
  });

  it('give generated problems docstrings of more than one sentence as often as people write them', () => {
    const problems = generateProblems(600, 11).map((made) => made.problem);
    const multi = problems.filter((p) => (p.docstring.match(/[.?!](\s|$)/g) ?? []).length > 1).length / problems.length;
    expect(multi).toBeGreaterThan(0.25); // 39% of handwritten_dev.jsonl's docstrings; 2% before
    let examples = 0;
    for (const problem of problems) {
      const example = problem.docstring.match(/For example, \(?(.*?)\)? gives (.*?)\.(\s|$)/);
      if (!example) continue;
      examples += 1;
      const tests = problem.tests.map((t) => `${t.args.map((a) => JSON.stringify(a).replace(/,/g, ', ')).join(', ')} gives ${JSON.stringify(t.expected).replace(/,/g, ', ')}`);
      expect(tests).toContain(`${example[1]} gives ${example[2]}`);
    }
    expect(examples).toBeGreaterThan(10);
  });
});

describe('a docstring said a little differently', () => {
  it('opens with "Given a list of integers" only when the first argument is a list', () => {
    const rng = new Rng(3);
    const said = (listFirst: boolean) => Array.from({ length: 400 }, () => vary(rng, 'Return true if n is a prime number.', listFirst));
    expect(said(true).some((doc) => doc.startsWith('Given a list of integers'))).toBe(true);
    expect(said(false).filter((doc) => doc.startsWith('Given a list of integers'))).toEqual([]);
    for (const { problem } of generateProblems(400, 5)) {
      if (problem.docstring.startsWith('Given a list of integers')) expect(problem.signature.params[0], problem.docstring).toBe('list');
    }
  });
});
