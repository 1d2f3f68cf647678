/**
 * Wider generator families, part three: functions stated by a formula, as people often state
 * them ("Replace each x by 10 - x.", "Keep the x with 2*x + 1 > k.", "Return a*b - a."). The
 * formula is a random integer expression (a few of + - * //, min, max and abs over the variables
 * and small constants), its program and its text made from the same tree, so any formula of that
 * size comes with a docstring that says it; docstringTokens reads the operators as words. Maps,
 * filters, counts, any/all, sums and extremes over a list (of the element, of the element and its
 * index, or with an integer parameter), and integer functions of one to three arguments.
 * Written for the lab.
 */
import type { Rng } from '../rng';
import { randomList, sig, type Spec } from './familyKit';
import type { Value } from './language';

type Tokens = (string | number)[];

/** An expression: its tokens (prefix order, variables still by name), its text, and how tightly its text binds. */
interface Expr {
  body: Tokens;
  text: string;
  /** 3: a leaf or a call, 2: a product, 1: a sum. */
  level: number;
  vars: Set<string>;
  /** Written as no person would: an operation on constants alone, x - x, max(x, x), 1 * x. */
  odd: boolean;
}

const leaf = (body: Tokens, text: string, vars: string[] = []): Expr => ({ body, text, level: 3, vars: new Set(vars), odd: false });
const wrap = (e: Expr, level: number) => (e.level < level ? `(${e.text})` : e.text);

/** The operation `op` on a and b (b unused by abs and //, whose divisor is `c`). */
function apply(op: string, a: Expr, b: Expr, c: number, tight: boolean): Expr {
  const vars = new Set([...a.vars, ...(op === 'abs' || op === '//' ? [] : b.vars)]);
  const constantOnly = vars.size === 0;
  const same = a.text === b.text;
  const unit = (e: Expr) => e.text === '1';
  const made = (body: Tokens, text: string, level: number, odd: boolean): Expr => ({ body, text, level, vars, odd: a.odd || b.odd || constantOnly || odd });
  switch (op) {
    case '+': return made(['ADD', ...a.body, ...b.body], `${wrap(a, 1)} + ${wrap(b, 1)}`, 1, false);
    case '-': return made(['SUB', ...a.body, ...b.body], `${wrap(a, 1)} - ${wrap(b, 2)}`, 1, same);
    case '*': return made(['MUL', ...a.body, ...b.body], `${wrap(a, 2)}${tight ? '*' : ' * '}${wrap(b, 3)}`, 2, unit(a) || unit(b));
    case '//': return made(['DIV', ...a.body, c], `${wrap(a, 3)} // ${c}`, 2, a.level === 3 && a.body.length > 1);
    case 'min': return made(['MIN2', ...a.body, ...b.body], `min(${a.text}, ${b.text})`, 3, same || a.vars.size + b.vars.size === 0);
    case 'max': return made(['MAX2', ...a.body, ...b.body], `max(${a.text}, ${b.text})`, 3, same || a.vars.size + b.vars.size === 0);
    // abs of a lone variable is said by other families in words ("its absolute value").
    default: return made(['ABS', ...a.body], `abs(${a.text})`, 3, a.body.length === 1);
  }
}

/** A random expression over `vars` (each its tokens and its name in the text) with at most `ops` operators. */
function expression(rng: Rng, vars: readonly { tokens: Tokens; name: string }[], ops: number): Expr {
  if (ops <= 0 || rng.chance(0.2)) {
    if (rng.chance(0.7)) {
      const v = rng.pick(vars);
      return leaf(v.tokens, v.name, [v.name]);
    }
    const c = rng.int(1, 10);
    return leaf([c], String(c));
  }
  const left = rng.int(0, ops - 1);
  const a = expression(rng, vars, left);
  const b = expression(rng, vars, ops - 1 - left);
  const op = rng.pick(['+', '+', '-', '-', '*', '*', '//', 'min', 'max', 'abs']);
  return apply(op, a, b, rng.int(2, 5), rng.chance(0.5));
}

/** An expression that uses every one of `needed`, has an operator and reads as a person would write it, or null after a few tries. */
function formula(rng: Rng, vars: readonly { tokens: Tokens; name: string }[], needed: readonly string[], maxOps = 3): Expr | null {
  for (let tries = 0; tries < 30; tries++) {
    const e = expression(rng, vars, rng.int(1, maxOps));
    if (!e.odd && e.body.length > 1 && e.body.length <= 14 && needed.every((name) => e.vars.has(name))) return e;
  }
  return null;
}

const comparisons = [['GT', '>'], ['LT', '<'], ['GE', '>='], ['LE', '<='], ['EQ', '=='], ['NE', '!=']] as const;
const listNames = ['xs', 'nums', 'values', 'arr', 'lst', 'numbers'];

/** A family from a formula, or null when no formula fitted (the generator draws again). */
export function formulaFamily(rng: Rng): Spec | null {
  const xs = rng.pick(listNames);
  const one = rng.pick(['element', 'number', 'value', 'item']);
  const anOne = `${/^[aeiou]/.test(one) ? 'an' : 'a'} ${one}`;
  const withParam = rng.chance(0.3);
  const k = rng.pick(['k', 'n', 'c', 't']);
  const shape = rng.pick(['map', 'map', 'map_index', 'filter', 'count', 'any', 'all', 'sum', 'extreme', 'int1', 'int2', 'int3'] as const);
  if (shape === 'int1' || shape === 'int2' || shape === 'int3') {
    // Not a, which reads as the article (and which vary() may drop as one).
    const names = shape === 'int1' ? [rng.pick(['n', 'x', 'm'])] : shape === 'int2' ? rng.pick([['x', 'y'], ['m', 'n'], ['p', 'q']]) : ['x', 'y', 'z'];
    const e = formula(rng, names.map((name, i) => ({ tokens: [`P${i}`], name })), names, 3);
    if (!e) return null;
    const args = names.length === 1 ? names[0] : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
    return {
      name: 'formula_int', sig: sig(names.map(() => 'int'), 'int'), body: ['RETURN', ...e.body], params: names,
      docs: [`Return ${e.text}.`, `Compute ${e.text}.`, `Given ${args}, return ${e.text}.`, `Return the value of ${e.text}.`, `What is ${e.text}?`],
      inputs: (r) => names.map(() => r.int(-10, 20)),
    };
  }
  // The element is x: a word the reader knows (v and e would read as <unk>); the index is i, which it does not.
  const x = 'x';
  const vars = [{ tokens: ['X'], name: x }, ...(withParam ? [{ tokens: ['P1'], name: k }] : [])];
  const params = [xs, ...(withParam ? [k] : [])];
  const signature = (ret: 'list' | 'int' | 'bool') => sig(withParam ? ['list', 'int'] : ['list'], ret);
  const inputs = (min: number) => (r: Rng): Value[] => [randomList(r, min), ...(withParam ? [r.int(-3, 9)] : [])];
  const [cmp, sign] = rng.pick(comparisons);
  // The parameter is used: in the formula, or (a condition) as the bound it is compared with.
  const compared = shape === 'filter' || shape === 'count' || shape === 'any' || shape === 'all';
  const needed = [x, ...(shape === 'map_index' ? ['i'] : []), ...(withParam && !(compared && rng.chance(0.5)) ? [k] : [])];
  const e = formula(rng, shape === 'map_index' ? [...vars, { tokens: ['I'], name: 'i' }] : vars, needed);
  if (!e) return null;
  const bound = withParam && !e.vars.has(k) ? k : String(rng.int(0, 10));
  const cond = `${e.text} ${sign} ${bound}`;
  const condBody: Tokens = [cmp, ...e.body, ...(bound === k ? ['P1'] : [Number(bound)])];
  const each = `each ${one} ${x} of ${xs}`;
  switch (shape) {
    case 'map':
      return { name: 'formula_map', sig: signature('list'), body: ['RETURN', 'MAP', 'P0', ...e.body], params, inputs: inputs(0), docs: [
        `Replace ${each} by ${e.text}.`, `Map every ${x} in ${xs} to ${e.text}.`, `Return a list where each ${one} ${x} becomes ${e.text}.`,
        `For each ${x} in ${xs}, compute ${e.text}.`, `Apply ${x} -> ${e.text} to every ${one} of ${xs} and return the results.`,
      ] };
    case 'map_index': {
      // MAP over the indices: the element is AT P0 X, the index is X.
      const body = e.body.flatMap((t) => (t === 'X' ? ['AT', 'P0', 'X'] : t === 'I' ? ['X'] : [t]));
      return { name: 'formula_map_index', sig: signature('list'), body: ['RETURN', 'MAP', 'RANGE', 'LEN', 'P0', ...body], params, inputs: inputs(0), docs: [
        `Replace the ${one} ${x} at index i of ${xs} by ${e.text}.`, `For each position i with ${one} ${x}, return ${e.text}.`, `Map each ${x} to ${e.text}, where i is the index of ${x} (from 0).`,
      ] };
    }
    case 'filter':
      return { name: 'formula_filter', sig: signature('list'), body: ['RETURN', 'FILTER', 'P0', ...condBody], params, inputs: inputs(0), docs: [
        `Keep the ${one}s ${x} of ${xs} with ${cond}.`, `Return the ${one}s ${x} for which ${cond}, in order.`, `Remove every ${x} from ${xs} unless ${cond}.`,
      ] };
    case 'count':
      return { name: 'formula_count', sig: signature('int'), body: ['RETURN', 'LEN', 'FILTER', 'P0', ...condBody], params, inputs: inputs(0), docs: [
        `Count the ${one}s ${x} with ${cond}.`, `How many ${x} in ${xs} satisfy ${cond}?`, `Return the number of ${one}s ${x} for which ${cond}.`,
      ] };
    case 'any':
      return { name: 'formula_any', sig: signature('bool'), body: ['RETURN', 'GT', 'LEN', 'FILTER', 'P0', ...condBody, 0], params, inputs: inputs(0), docs: [
        `Is there ${anOne} ${x} in ${xs} with ${cond}?`, `Return true if some ${x} satisfies ${cond}.`,
      ] };
    case 'all':
      return { name: 'formula_all', sig: signature('bool'), body: ['RETURN', 'EQ', 'LEN', 'FILTER', 'P0', ...condBody, 'LEN', 'P0'], params, inputs: inputs(0), docs: [
        `Does every ${one} ${x} of ${xs} satisfy ${cond}?`, `Return true if ${cond} for all ${x} in ${xs}.`,
      ] };
    case 'sum':
      return { name: 'formula_sum', sig: signature('int'), body: ['RETURN', 'REDUCE', 'P0', 0, 'ADD', 'ACC', ...e.body], params, inputs: inputs(0), docs: [
        `Return the sum of ${e.text} over all ${x} in ${xs}.`, `Add up ${e.text} for every ${one} ${x}.`, `Compute the total of ${e.text} for ${x} in ${xs}.`,
      ] };
    case 'extreme': {
      const [fn, word] = rng.pick([['MAXL', 'largest'], ['MINL', 'smallest']] as const);
      return { name: 'formula_extreme', sig: signature('int'), body: ['RETURN', fn, 'MAP', 'P0', ...e.body], params, inputs: inputs(1), docs: [
        `Return the ${word} value of ${e.text} for ${x} in ${xs}.`, `Find the ${word} ${e.text} over the ${one}s ${x} of ${xs}.`,
      ] };
    }
  }
}
