/**
 * The hand-written function problems (datasets/functions/handwritten_heldout.jsonl,
 * handwritten_dev.jsonl and handwritten_dev2.jsonl, from scripts/handwrittenFunctions.ts): every
 * line loads, each problem has 5 shown and 10 hidden tests, no two files share a problem, and every
 * problem's reference solution, run in its own `vm` context, gives exactly the expected output on
 * all its tests.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { parseProblemsText } from './problems';

interface RawProblem {
  function_name: string;
  docstring: string;
  test_cases: [unknown[], unknown][];
  hidden_test_cases: [unknown[], unknown][];
  starter_code: string;
  parameters: string[];
  reference: string;
  kind: string;
}

const read = (file: string) => readFileSync(fileURLToPath(new URL(`../../../datasets/functions/${file}`, import.meta.url)), 'utf8');
const files = { heldout: read('handwritten_heldout.jsonl'), dev: read('handwritten_dev.jsonl'), dev2: read('handwritten_dev2.jsonl') };
/** The fewest problems each file should hold. */
const MIN_PROBLEMS: Record<keyof typeof files, number> = { heldout: 150, dev: 50, dev2: 100 };
const rawOf = (text: string): RawProblem[] => text.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as RawProblem);

/** -0 is 0 (JSON has one zero); arrays made in another context become ordinary arrays. */
function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return Array.from(value, normalize);
  return value === 0 ? 0 : value;
}

/** Runs the reference on every test in a fresh context; returns the tests it gets wrong. */
function wrongTests(problem: RawProblem): { test: number; expected: unknown; got: unknown }[] {
  const context = vm.createContext({});
  vm.runInContext(problem.reference, context, { timeout: 1000 });
  const wrong: { test: number; expected: unknown; got: unknown }[] = [];
  [...problem.test_cases, ...problem.hidden_test_cases].forEach(([args, expected], test) => {
    context.__args = structuredClone(args);
    let got: unknown;
    try {
      got = normalize(vm.runInContext(`${problem.function_name}(...__args)`, context, { timeout: 1000 }));
    } catch (error) {
      got = `threw ${(error as Error).message}`;
    }
    // Deep equality with Object.is on numbers (so 1 and true, or [1] and [true], differ).
    try {
      expect(got).toStrictEqual(expected);
    } catch {
      wrong.push({ test, expected, got });
    }
  });
  return wrong;
}

describe.each(Object.entries(files))('handwritten_%s.jsonl', (split, text) => {
  const raw = rawOf(text);

  it('parses with zero rejected lines, 5 shown and 10 hidden tests each', () => {
    const { problems, errors } = parseProblemsText(text);
    expect(errors).toEqual([]);
    expect(problems.length).toBe(raw.length);
    expect(problems.length).toBeGreaterThanOrEqual(MIN_PROBLEMS[split as keyof typeof files]);
    for (const problem of problems) {
      expect(problem.tests.length, problem.functionName).toBe(5);
      expect(problem.hiddenTests.length, problem.functionName).toBe(10);
      expect(problem.parameters?.length, problem.functionName).toBe(problem.signature.params.length);
    }
  });

  it('has unique names, distinct test inputs and a reference named like the problem', () => {
    expect(new Set(raw.map((p) => p.function_name)).size).toBe(raw.length);
    for (const p of raw) {
      const inputs = [...p.test_cases, ...p.hidden_test_cases].map(([args]) => JSON.stringify(args));
      expect(new Set(inputs).size, p.function_name).toBe(15);
      expect(p.reference.startsWith(`function ${p.function_name}(${p.parameters.join(', ')}) {`), p.function_name).toBe(true);
      expect(p.starter_code).toBe(`def ${p.function_name}(${p.parameters.join(', ')}):\n    pass`);
      expect(p.kind).toMatch(/^[a-z-]+$/);
    }
  });

  it('every reference gives exactly the expected output on all 15 tests', () => {
    for (const p of raw) expect(wrongTests(p), p.function_name).toEqual([]);
  });
});

describe('the three files', () => {
  const pairs = [['heldout', 'dev'], ['heldout', 'dev2'], ['dev', 'dev2']] as const;

  it.each(pairs)('%s and %s share no function name and no reference', (a, b) => {
    const first = rawOf(files[a]);
    const second = rawOf(files[b]);
    const names = new Set(first.map((p) => p.function_name));
    expect(second.filter((p) => names.has(p.function_name)).map((p) => p.function_name)).toEqual([]);
    const refs = new Set(first.map((p) => p.reference.slice(p.reference.indexOf('{'))));
    expect(second.filter((p) => refs.has(p.reference.slice(p.reference.indexOf('{')))).map((p) => p.function_name)).toEqual([]);
  });

  it('the reference check catches a wrong expected output', () => {
    const problem = rawOf(files.heldout)[0];
    expect(wrongTests(problem)).toEqual([]);
    const broken = structuredClone(problem);
    const [args, expected] = broken.hidden_test_cases[3];
    broken.hidden_test_cases[3] = [args, Array.isArray(expected) ? [...expected, 1] : typeof expected === 'number' ? expected + 1 : !expected];
    expect(wrongTests(broken).map((w) => w.test)).toEqual([8]);
    const shown = structuredClone(problem);
    shown.test_cases[0] = [shown.test_cases[0][0], 12345];
    expect(wrongTests(shown).map((w) => w.test)).toEqual([0]);
  });
});
