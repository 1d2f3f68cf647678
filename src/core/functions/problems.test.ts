/** Problems in the seed's format: how test inputs become argument lists, types, and per-problem errors. */
import { describe, expect, it } from 'vitest';
import { describeProblemError, parseFunctionProblem, parseProblemsText, problemToJson, starterParameters } from './problems';

const base = { function_name: 'f', docstring: 'Do it.', starter_code: '' };

describe('parseFunctionProblem', () => {
  it('reads an array input as the argument list and anything else as the single argument', () => {
    const add = parseFunctionProblem({ ...base, test_cases: [[[2, 3], 5], [[0, 0], 0]] });
    expect(add.tests[0]).toEqual({ args: [2, 3], expected: 5 });
    expect(add.signature).toEqual({ params: ['int', 'int'], ret: 'int' });
    const fib = parseFunctionProblem({ ...base, test_cases: [[10, 55]] });
    expect(fib.tests[0]).toEqual({ args: [10], expected: 55 });
    const sum = parseFunctionProblem({ ...base, test_cases: [[[[1, 2, 3]], 6], [[[]], 0]] });
    expect(sum.tests[0]).toEqual({ args: [[1, 2, 3]], expected: 6 });
    expect(sum.signature).toEqual({ params: ['list'], ret: 'int' });
    const even = parseFunctionProblem({ ...base, test_cases: [[4, true], [3, false]], hidden_test_cases: [[0, true]] });
    expect(even.signature.ret).toBe('bool');
    expect(even.hiddenTests).toEqual([{ args: [0], expected: true }]);
  });

  it('takes argument names from "parameters" or the starter code', () => {
    expect(starterParameters('def add_numbers(a, b):\n    pass')).toEqual(['a', 'b']);
    expect(starterParameters('function f(xs: number[], k = 2) {}')).toEqual(['xs', 'k']);
    expect(parseFunctionProblem({ ...base, starter_code: 'def f(numbers):', test_cases: [[[[1]], 1]] }).parameters).toEqual(['numbers']);
    expect(parseFunctionProblem({ ...base, parameters: ['x', 'y'], test_cases: [[[1, 2], 3]] }).parameters).toEqual(['x', 'y']);
    expect(() => parseFunctionProblem({ ...base, parameters: ['x'], test_cases: [[[1, 2], 3]] })).toThrow(/names 1 arguments, the tests pass 2/);
  });

  it('says what is wrong and where', () => {
    expect(() => parseFunctionProblem({ docstring: 'x', test_cases: [[1, 1]] })).toThrow(/missing field "function_name"/);
    expect(() => parseFunctionProblem({ ...base, test_cases: [] })).toThrow(/"test_cases" is empty/);
    expect(() => parseFunctionProblem({ ...base, test_cases: [[1.5, 1]] })).toThrow(/"test_cases"\[0\] argument 1: 1.5 is not an integer/);
    expect(() => parseFunctionProblem({ ...base, test_cases: [['a', 1]] })).toThrow(/got string/);
    expect(() => parseFunctionProblem({ ...base, test_cases: [[[1, 2], 3], [5, 5]] })).toThrow(/"test_cases"\[1\] has 1 arguments, "test_cases"\[0\] has 2/);
    // A hidden test is named as one, by its own place.
    expect(() => parseFunctionProblem({ ...base, test_cases: [[[1, 2], 3]], hidden_test_cases: [[5, 5]] })).toThrow(/"hidden_test_cases"\[0\] has 1 arguments, "test_cases"\[0\] has 2/);
    expect(() => parseFunctionProblem({ ...base, test_cases: [[1, 2], [2, true]] })).toThrow(/the output has different types/);
    expect(() => parseFunctionProblem({ ...base, test_cases: [[[[1, true]], 1]] })).toThrow(/mixes integers and booleans/);
    expect(() => parseFunctionProblem({ ...base, function_name: 'a b', test_cases: [[1, 1]] })).toThrow(/not an identifier/);
    expect(() => parseFunctionProblem({ ...base, function_name: 'return', test_cases: [[1, 1]] })).toThrow('"function_name" "return" is a JavaScript reserved word');
    // A name that would replace what the printed program or the harness calls: no program could pass.
    for (const name of ['Math', 'Array', 'output', '__runTests', '__tests']) {
      expect(() => parseFunctionProblem({ ...base, function_name: name, test_cases: [[1, 1]] }), name).toThrow(`"function_name" "${name}" is a name the printed programs or the test harness use themselves`);
    }
    expect(() => parseFunctionProblem([1])).toThrow(/got an array/);
    // The prompt's signature comes from the shown tests: hidden ones never add to it.
    const emptyShown = { ...base, test_cases: [[[[1, 2]], []]], hidden_test_cases: [[[[1, 2]], [true]]] };
    expect(() => parseFunctionProblem(emptyShown)).toThrow('the output is a list of booleans in the hidden tests, which the shown tests do not say (they give only empty lists): show a test where it is not empty');
    expect(parseFunctionProblem({ ...emptyShown, hidden_test_cases: [[[[1, 2]], [3]]] }).signature.ret).toBe('list');
  });

  it('ignores __proto__ and unknown keys', () => {
    const problem = parseFunctionProblem(JSON.parse('{"function_name":"f","docstring":"d","test_cases":[[1,1]],"__proto__":{"polluted":1},"extra":2}'));
    expect((problem as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('parseProblemsText', () => {
  it('reads a JSON array (the seed) and JSONL, reporting bad problems by position and keeping the rest', () => {
    const good = { ...base, test_cases: [[1, 2]] };
    const array = parseProblemsText(JSON.stringify([good, { ...base }, good]));
    expect(array.problems).toHaveLength(2);
    expect(array.errors).toEqual([{ index: 2, where: 'item', reason: 'missing field "test_cases"', name: base.function_name }]);
    expect(describeProblemError(array.errors[0])).toBe(`item 2 (${base.function_name}): missing field "test_cases"`);
    const jsonl = parseProblemsText(`\uFEFF${JSON.stringify(good)}\r\n\n{not json\n${JSON.stringify(good)}`);
    expect(jsonl.problems).toHaveLength(2);
    expect(jsonl.errors.map((e) => [e.index, e.where, e.name])).toEqual([[3, 'line', undefined]]); // no name to give
    // Each problem read keeps its place in the file, so a later refusal (a prompt the policy cannot hold) can name it.
    expect(array.places).toEqual([{ where: 'item', index: 1 }, { where: 'item', index: 3 }]);
    expect(jsonl.places).toEqual([{ where: 'line', index: 1 }, { where: 'line', index: 4 }]);
    expect(() => parseProblemsText('[1, 2')).toThrow(/not valid JSON/);
  });

  it('reads what a user\'s disk holds: a broken first line, a problem over several lines, bytes that were not UTF-8, escapes in names', () => {
    const good = JSON.stringify({ ...base, test_cases: [[1, 2]] });
    // A JSONL file whose first line is broken (and starts with "["): the other lines still load.
    const broken = parseProblemsText(`[garbage\n${good}\n${good}\n`);
    expect(broken.problems).toHaveLength(2);
    expect(broken.errors.map((e) => [e.index, e.where])).toEqual([[1, 'line']]);
    expect(broken.errors[0].reason).toMatch(/^not valid JSON/);
    // A JSON array with a syntax error says where.
    expect(() => parseProblemsText(`[\n  ${good},\n  {"function_name": "g",,}\n]`)).toThrow(/not valid JSON at line 3, column \d+/);
    // A trailing comma, whose error V8 gives no position: where the array ends too soon.
    expect(() => parseProblemsText(`[\n  ${good},\n  ${good},\n]`)).toThrow(/^not valid JSON at line 4, column 1: Unexpected token '\]' \(a comma before the end of a list or object\)$/);
    // An array missing a comma has whole objects on some lines (its last item, the one before the gap): refused whole, not read in part.
    expect(() => parseProblemsText(`[\n  ${good},\n  ${good}\n  ${good},\n  ${good}\n]`)).toThrow(/not valid JSON/);
    expect(() => parseProblemsText('{"a": 1}'.replace('}', ''))).toThrow(/one problem object per line/);
    // One pretty-printed problem is read as one problem.
    expect(parseProblemsText(JSON.stringify({ ...base, test_cases: [[1, 2]] }, null, 2)).problems).toHaveLength(1);
    // Invalid UTF-8 (decoded as U+FFFD) rejects its problem, not the file.
    const bad = parseProblemsText(`${good}\n${good.replace('Do it.', 'Do \uFFFD it.')}\n`);
    expect([bad.problems.length, bad.errors[0]?.index, bad.errors[0]?.reason]).toEqual([1, 2, 'invalid UTF-8 bytes (or a U+FFFD character)']);
    // Terminal escapes in a name or a reason are shown, not sent to the terminal.
    const escaped = parseProblemsText(`${JSON.stringify({ function_name: 'f\u001b[31m', docstring: 'd', test_cases: [] })}\ngarbage \u001b[35mX\n`);
    expect(escaped.errors.every((e) => !`${e.name ?? ''}${e.reason}`.includes('\u001b'))).toBe(true);
    expect(escaped.errors.map((e) => e.name ?? e.reason).join(' ')).toContain('\\u001b');
  });

  it('writes a problem back in the seed format that reads the same', () => {
    const problem = parseFunctionProblem({ ...base, test_cases: [[[[1, 2]], 3], [[[5]], 5]], hidden_test_cases: [[[[0]], 0]] });
    expect(parseFunctionProblem(problemToJson(problem))).toEqual(problem);
    const scalar = parseFunctionProblem({ ...base, test_cases: [[7, 8]] });
    expect(problemToJson(scalar).test_cases).toEqual([[7, 8]]);
  });
});
