/**
 * Families stated by a formula: the formula reads as a person would write it, the docstring's
 * operators reach the policy as words, and every integer parameter is used.
 */
import { describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { formulaFamily } from './formulaFamilies';
import { docstringTokens, tokenText } from './language';
import type { Spec } from './familyKit';

function draw(count: number, seed: number): Spec[] {
  const rng = new Rng(seed);
  const out: Spec[] = [];
  for (let tries = 0; out.length < count && tries < count * 3; tries++) {
    const spec = formulaFamily(rng);
    if (spec) out.push(spec);
  }
  return out;
}

type Node = { op: string | number; args: Node[] };
const arity: Record<string, number> = { ADD: 2, SUB: 2, MUL: 2, DIV: 2, MIN2: 2, MAX2: 2, ABS: 1 };

/** A prefix expression of the formula tokens, from `at`. */
function parse(body: readonly (string | number)[], at = 0): [Node, number] {
  const op = body[at];
  const args: Node[] = [];
  let next = at + 1;
  for (let i = 0; i < (typeof op === 'string' ? arity[op] ?? 0 : 0); i++) {
    const [arg, after] = parse(body, next);
    args.push(arg);
    next = after;
  }
  return [{ op, args }, next];
}
const text = (n: Node): string => (n.args.length ? `${n.op}(${n.args.map(text).join(',')})` : String(n.op));
const hasVariable = (n: Node): boolean => (n.args.length ? n.args.some(hasVariable) : typeof n.op === 'string');

/** What no person writes: an operation on constants alone, x - x, min(x, x), max(x, x), a product with 1. */
function odd(n: Node): string | null {
  if (n.args.length && !hasVariable(n)) return `constants alone: ${text(n)}`;
  if (['SUB', 'MIN2', 'MAX2'].includes(String(n.op)) && text(n.args[0]) === text(n.args[1])) return `the same twice: ${text(n)}`;
  if (n.op === 'MUL' && n.args.some((arg) => arg.op === 1)) return `times one: ${text(n)}`;
  for (const arg of n.args) {
    const found = odd(arg);
    if (found) return found;
  }
  return null;
}

describe('families stated by a formula', () => {
  const specs = draw(600, 5);

  it('draws every shape', () => {
    expect(specs).toHaveLength(600);
    expect(new Set(specs.map((spec) => spec.name))).toEqual(new Set(['formula_map', 'formula_map_index', 'formula_filter', 'formula_count', 'formula_any', 'formula_all', 'formula_sum', 'formula_extreme', 'formula_int']));
  });

  it('writes formulas as a person would: no x - x, max(x, x), 1 * x, or arithmetic on constants alone', () => {
    const checked = specs.filter((spec) => spec.name === 'formula_map' || spec.name === 'formula_int');
    expect(checked.length).toBeGreaterThan(100);
    for (const spec of checked) {
      const start = spec.name === 'formula_map' ? 3 : 1; // RETURN MAP P0 <formula>, RETURN <formula>
      const [formula, end] = parse(spec.body, start);
      expect(end, spec.docs[0]).toBe(spec.body.length);
      expect(odd(formula), spec.docs[0]).toBeNull();
    }
    // The check itself finds what it says.
    expect(odd(parse(['SUB', 'X', 'X'])[0])).toMatch(/same twice/);
    expect(odd(parse(['ADD', 'X', 'MUL', 2, 3])[0])).toMatch(/constants alone/);
  });

  it('says each operator as the word the policy reads, and uses every parameter', () => {
    const said: Record<string, string> = { ' + ': 'plus', ' - ': 'minus', '*': 'times', '//': 'divided' };
    for (const spec of specs) {
      const params = spec.params ?? [];
      for (const doc of spec.docs) {
        const words = docstringTokens(doc, 64, params).map(tokenText);
        for (const [symbol, word] of Object.entries(said)) if (doc.includes(symbol)) expect(words, doc).toContain(word);
      }
      for (let i = spec.name === 'formula_int' ? 0 : 1; i < params.length; i++) expect(spec.body, `${spec.docs[0]}: ${params[i]}`).toContain(`P${i}`);
    }
  });
});
