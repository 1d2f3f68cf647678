/**
 * The functions grammar: every program it allows prints as JavaScript that parses and runs
 * (checked in the sandbox through the task's harness in src/cli/functionsTask.test.ts), every
 * sample finishes within its token budget, and types and scopes hold.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { FunctionGrammar, signatureOf, type Signature } from './grammar';
import { tokens } from './generator';
import { parseProgram, runProgram } from './interpreter';
import { SET0, STMT0, VALUE0, VAR0, expressions, statements, SLOT } from './language';
import { parameterNames, printFunction, signaturePrompt } from './program';

const sig = (params: Signature['params'], ret: Signature['ret']): Signature => ({ params, ret });

/** A random program the grammar allows, token by token, uniformly among the allowed tokens (or `prefer` when it is allowed, at that chance). */
function randomProgram(rng: Rng, signature: Signature, budget: number, prefer?: { token: number; chance: number }): number[] {
  const grammar = new FunctionGrammar(budget);
  let state = grammar.initial(signaturePrompt(signature));
  const out: number[] = [];
  const mask = new Uint8Array(grammar.vocabSize);
  while (!grammar.isDone(state)) {
    grammar.allowed(state, mask);
    const allowed = [...mask.keys()].filter((t) => mask[t]);
    expect(allowed.length).toBeGreaterThan(0);
    const token = prefer && mask[prefer.token] && rng.chance(prefer.chance) ? prefer.token : rng.pick(allowed);
    out.push(token);
    state = grammar.advance(state, token);
  }
  return out;
}

describe('FunctionGrammar', () => {
  it('reads the signature from the prompt', () => {
    expect(signatureOf(signaturePrompt(sig(['list', 'int'], 'bool')))).toEqual(sig(['list', 'int'], 'bool'));
    expect(() => signatureOf([1, 2, 3])).toThrow(/not a type/);
  });

  it('finishes every random program within its budget, and every one prints as a function that parses', () => {
    const rng = new Rng(5);
    const shapes = [sig(['list'], 'int'), sig(['list'], 'list'), sig(['int', 'int'], 'int'), sig(['int'], 'bool'), sig(['list'], 'blist'), sig([], 'int')];
    for (let i = 0; i < 400; i++) {
      const signature = rng.pick(shapes);
      const budget = rng.int(4, 40);
      const program = randomProgram(rng, signature, budget);
      expect(program.length).toBeLessThanOrEqual(budget);
      const printed = printFunction(program, signature, 'f', parameterNames(signature.params.length));
      // Parses as JavaScript (not run here: a random loop bound may be huge; the sandbox runs them).
      expect(() => new Function(`${printed.text}; return f;`)).not.toThrow();
    }
  });

  it('never leaves a program it cannot finish: a list of booleans inside two nested for-of loops (no element name left for MAPB) is not returned there', () => {
    const grammar = new FunctionGrammar(40);
    const stmt = (name: string) => STMT0 + statements.findIndex((s) => s.name === name);
    let state = grammar.initial(signaturePrompt(sig(['list', 'int', 'int'], 'blist')));
    for (const token of [stmt('FOR_OF'), VAR0 + SLOT.P0, stmt('FOR_OF'), VAR0 + SLOT.P0]) state = grammar.advance(state, token);
    expect(grammar.permits(state, stmt('RETURN'))).toBe(false);
    expect(grammar.permits(state, stmt('LET_INT'))).toBe(true);
    // Random programs that open for-of loops whenever they may, each finished within its budget.
    const rng = new Rng(11);
    for (let i = 0; i < 300; i++) {
      const program = randomProgram(rng, sig(['list', 'int', 'int'], 'blist'), rng.int(8, 40), { token: stmt('FOR_OF'), chance: 0.6 });
      expect(() => new Function(`${printFunction(program, sig(['list', 'int', 'int'], 'blist'), 'f', parameterNames(3)).text}; return f;`)).not.toThrow();
    }
  });

  it('allows only well-typed tokens: a list where a list is wanted, variables only in scope', () => {
    const grammar = new FunctionGrammar(20);
    let state = grammar.initial(signaturePrompt(sig(['list'], 'int')));
    const mask = new Uint8Array(grammar.vocabSize);
    grammar.allowed(state, mask);
    // The body starts with statements only; END cannot end the function body.
    expect(mask[STMT0 + statements.findIndex((s) => s.name === 'RETURN')]).toBe(1);
    expect(mask[STMT0 + statements.findIndex((s) => s.name === 'END')]).toBe(0);
    expect(mask[SET0]).toBe(0); // no local declared yet
    state = grammar.advance(state, tokens('RETURN')[0]);
    grammar.allowed(state, mask);
    expect(mask[VAR0 + SLOT.P0]).toBe(0); // P0 is a list, an int is wanted
    expect(mask[VALUE0]).toBe(1);
    expect(mask[VAR0 + SLOT.X]).toBe(0); // no lambda is open
    state = grammar.advance(state, tokens('LEN')[0]);
    grammar.allowed(state, mask);
    expect(mask[VAR0 + SLOT.P0]).toBe(1);
    expect(mask[VALUE0]).toBe(0);
    // Inside map's lambda, x is in scope.
    state = grammar.advance(state, tokens('MAP')[0]);
    state = grammar.advance(state, tokens('P0')[0]);
    grammar.allowed(state, mask);
    expect(mask[VAR0 + SLOT.X]).toBe(1);
    expect(mask[VAR0 + SLOT.Y]).toBe(0);
  });

  it('leaves room to finish: with two tokens left only a return of a literal fits', () => {
    const grammar = new FunctionGrammar(2);
    const state = grammar.initial(signaturePrompt(sig(['int'], 'int')));
    expect(grammar.candidates(state)).toEqual(tokens('RETURN'));
    const next = grammar.advance(state, tokens('RETURN')[0]);
    expect(grammar.candidates(next).every((t) => t >= VALUE0 || t === VAR0 + SLOT.P0)).toBe(true);
    expect(grammar.candidates(next)).not.toContain(tokens('ADD')[0]);
  });

  it('prints and runs the seeds\' kind of programs (fibonacci, is_prime, a filter in a fold)', () => {
    const fib = tokens('LET_INT', 0, 'LET_INT', 1, 'FOR', 0, 'P0', 'LET_INT', 'ADD', 'V0', 'V1', 'SET0', 'V1', 'SET1', 'V2', 'END', 'RETURN', 'V0');
    const printed = printFunction(fib, sig(['int'], 'int'), 'fibonacci', ['n']);
    expect(printed.text).toBe('function fibonacci(n) {\n  let v0 = 0;\n  let v1 = 1;\n  for (let i = 0; i < n; i++) {\n    let v2 = (v0 + v1);\n    v0 = v1;\n    v1 = v2;\n  }\n  return v0;\n}');
    const f = new Function(`${printed.text}; return fibonacci;`)() as (n: number) => number;
    expect([0, 1, 5, 10].map(f)).toEqual([0, 1, 5, 55]);
    expect([0, 1, 5, 10].map((n) => runProgram(parseProgram(fib, sig(['int'], 'int')), [n]))).toEqual([0, 1, 5, 55]);
    const prime = tokens('IF', 'LT', 'P0', 2, 'RETURN', 'FALSE', 'FOR', 2, 'P0', 'IF', 'EQ', 'MOD', 'P0', 'I', 0, 'RETURN', 'FALSE', 'END', 'RETURN', 'TRUE');
    const isPrime = new Function(`${printFunction(prime, sig(['int'], 'bool'), 'is_prime', ['n']).text}; return is_prime;`)() as (n: number) => boolean;
    expect([1, 2, 3, 4, 17, 15].map(isPrime)).toEqual([false, true, true, false, true, false]);
    const sumEvens = tokens('RETURN', 'REDUCE', 'FILTER', 'P0', 'EQ', 'MOD', 'X', 2, 0, 0, 'ADD', 'ACC', 'X');
    expect(printFunction(sumEvens, sig(['list'], 'int'), 'f', ['xs']).text).toContain('xs.filter((x) => ((x % 2) === 0)).reduce((acc, x) => (acc + x), 0)');
  });

  it('names a nested lambda y, and refuses tokens that break the program', () => {
    const nested = tokens('RETURN', 'LEN', 'FILTER', 'P0', 'INCLUDES', 'MAP', 'P0', 'ADD', 'Y', 'X', 3);
    expect(printFunction(nested, sig(['list'], 'int'), 'f', ['xs']).text).toContain('xs.filter((x) => xs.map((y) => (y + x)).includes(3)).length');
    expect(() => printFunction(tokens('RETURN', 'X'), sig(['int'], 'int'), 'f', ['n'])).toThrow(/not allowed/);
    expect(() => printFunction(tokens('RETURN', 'ADD', 1), sig(['int'], 'int'), 'f', ['n'])).toThrow(/incomplete/);
    expect(expressions.length + statements.length).toBeGreaterThan(40);
  });

  it('keeps parameter names that are plain identifiers and replaces the rest', () => {
    expect(parameterNames(2, ['numbers', 'k'])).toEqual(['numbers', 'k']);
    expect(parameterNames(2, ['x', 'return'])).toEqual(['a', 'b']);
    expect(parameterNames(2, ['n', 'n'])).toEqual(['a', 'b']);
    expect(parameterNames(1)).toEqual(['a']);
  });
});

describe('generated problems', () => {
  it('are problems a file can hold: written in the seed format, they read back the same', async () => {
    const { generateProblems } = await import('./generator');
    const { parseFunctionProblem, problemToJson } = await import('./problems');
    for (const { problem } of generateProblems(400, 99)) expect(parseFunctionProblem(JSON.parse(JSON.stringify(problemToJson(problem))))).toEqual(problem);
  });
});
