/**
 * What the functions generator's families share (generator.ts, moreFamilies.ts): the shape of a
 * family (its signature, program, docstrings, inputs and argument names), the predicates, maps
 * and aggregates families are built from with their phrasings, numbers said as digits or words,
 * and the random inputs tests are drawn from.
 */
import type { Rng } from '../rng';
import type { Signature } from './grammar';
import type { Value, ValueType } from './language';
import type { TestCase } from './problems';

export interface Spec {
  name: string;
  sig: Signature;
  /** The program, as token names (tokens()). */
  body: (string | number)[];
  docs: string[];
  /** Draws one argument list; the generator keeps the inputs on which the program is defined. */
  inputs?: (rng: Rng) => Value[];
  /** Argument names the docstrings use ("Insert v at index i of xs"); else a, b, c, d. */
  params?: string[];
}

/** A predicate on x with its phrasings: after "numbers that are", and as an adjective ("the even numbers") when it has one. */
export interface Predicate {
  body: (string | number)[];
  says: string[];
  adjective?: string[];
}

export const numberWords = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
/** A number as the docstring says it: digits, or (up to ten) a word, a third of the time. */
let sayRng: Rng | null = null;
/** The generator's random source for `say` (set per drawn problem). */
export const setSayRng = (rng: Rng) => {
  sayRng = rng;
};
export const say = (n: number): string => (sayRng && n >= 0 && n <= 10 && sayRng.chance(1 / 3) ? numberWords[n] : String(n));

export function predicates(rng: Rng): Predicate {
  const k = rng.int(1, 9);
  const d = rng.int(2, 5);
  const options: Predicate[] = [
    { body: ['EQ', 'MOD', 'X', 2, 0], says: ['even', 'divisible by 2'], adjective: ['even'] },
    { body: ['NE', 'MOD', 'X', 2, 0], says: ['odd', 'not divisible by 2'], adjective: ['odd'] },
    { body: ['GT', 'X', 0], says: ['positive', 'greater than 0', 'above zero'], adjective: ['positive'] },
    { body: ['LT', 'X', 0], says: ['negative', 'less than 0', 'below zero'], adjective: ['negative'] },
    { body: ['GE', 'X', 0], says: ['non-negative', 'at least 0', 'at least zero'], adjective: ['non-negative'] },
    { body: ['LE', 'X', 0], says: ['at most 0', 'not positive'] },
    { body: ['GT', 'X', k], says: [`greater than ${say(k)}`, `larger than ${say(k)}`, `above ${say(k)}`, `bigger than ${say(k)}`] },
    { body: ['LT', 'X', k], says: [`less than ${say(k)}`, `smaller than ${say(k)}`, `below ${say(k)}`] },
    { body: ['GE', 'X', k], says: [`at least ${say(k)}`, `greater than or equal to ${say(k)}`] },
    { body: ['LE', 'X', k], says: [`at most ${say(k)}`, `less than or equal to ${say(k)}`] },
    { body: ['EQ', 'X', k], says: [`equal to ${say(k)}`] },
    { body: ['NE', 'X', k], says: [`not equal to ${say(k)}`, `different from ${say(k)}`] },
    { body: ['EQ', 'MOD', 'X', d, 0], says: [`divisible by ${say(d)}`, `a multiple of ${say(d)}`] },
    { body: ['NE', 'MOD', 'X', d, 0], says: [`not divisible by ${say(d)}`] },
    { body: ['NE', 'X', 0], says: ['nonzero', 'not zero'], adjective: ['nonzero', 'non-zero'] },
  ];
  return rng.pick(options);
}

/** A map of x with its phrasings: what each element becomes, and as an order ("Add 3 to each element."). */
export interface Mapping {
  body: (string | number)[];
  says: string[];
  orders: string[];
}

export function mappings(rng: Rng): Mapping {
  const k = rng.int(1, 9);
  const options: Mapping[] = [
    { body: ['ADD', 'X', k], says: [`each element plus ${say(k)}`, `every number increased by ${say(k)}`, `${say(k)} added to each element`], orders: [`Add ${say(k)} to each element.`, `Increase every number by ${say(k)}.`, `Add ${say(k)} to every element of the list.`] },
    { body: ['ADD', 'X', 1], says: ['each element plus one', 'every number incremented'], orders: ['Add one to each element.', 'Increment every element.'] },
    { body: ['SUB', 'X', k], says: [`each element minus ${say(k)}`, `every number decreased by ${say(k)}`], orders: [`Subtract ${say(k)} from each element.`, `Decrease every number by ${say(k)}.`] },
    { body: ['SUB', 'X', 1], says: ['each element minus one'], orders: ['Subtract one from each element.', 'Decrement every element.'] },
    { body: ['MUL', 'X', k], says: [`each element multiplied by ${say(k)}`, `every number times ${say(k)}`], orders: [`Multiply each element by ${say(k)}.`, `Multiply every number by ${say(k)}.`] },
    { body: ['MUL', 'X', 2], says: ['each element doubled', 'every number times 2', 'twice each element'], orders: ['Double each element.', 'Double every number.', 'Multiply every element by two.'] },
    { body: ['MUL', 'X', 3], says: ['each element tripled', 'three times each element'], orders: ['Triple each element.', 'Multiply each number by three.'] },
    { body: ['MUL', 'X', 'X'], says: ['the square of each element', 'each element squared', 'the squares of the numbers'], orders: ['Square each element.', 'Square every number.'] },
    { body: ['MUL', 'MUL', 'X', 'X', 'X'], says: ['the cube of each element', 'each element cubed'], orders: ['Cube each element.'] },
    { body: ['ABS', 'X'], says: ['the absolute value of each element'], orders: ['Take the absolute value of each element.'] },
    { body: ['NEG', 'X'], says: ['each element negated', 'the negative of each number'], orders: ['Negate each element.', 'Flip the sign of every number.'] },
    { body: ['MOD', 'X', Math.max(2, k)], says: [`each element modulo ${Math.max(2, k)}`, `the remainder of each element divided by ${say(Math.max(2, k))}`], orders: [`Replace each element by its remainder modulo ${Math.max(2, k)}.`] },
    { body: ['DIV', 'X', 2], says: ['each element halved (rounded down)', 'half of each element rounded down'], orders: ['Halve each element, rounding down.', 'Divide every number by two, rounded down.'] },
  ];
  return rng.pick(options);
}

/** An integer computed from the list, with its noun phrase ("the sum of the elements"); `nonEmpty` when it needs one element. */
export interface Aggregate {
  body: (string | number)[];
  says: string[];
  nonEmpty?: boolean;
}

export function aggregates(rng: Rng): Aggregate {
  return rng.pick<Aggregate>([
    { body: ['REDUCE', 'P0', 0, 'ADD', 'ACC', 'X'], says: ['the sum of the elements', 'the total of the list', 'the sum of the numbers'] },
    { body: ['MAXL', 'P0'], says: ['the largest element', 'the maximum', 'the greatest number'], nonEmpty: true },
    { body: ['MINL', 'P0'], says: ['the smallest element', 'the minimum', 'the least number'], nonEmpty: true },
    { body: ['LEN', 'P0'], says: ['the length of the list', 'the number of elements'] },
    { body: ['AT', 'P0', 0], says: ['the first element'], nonEmpty: true },
    { body: ['AT', 'P0', 'SUB', 'LEN', 'P0', 1], says: ['the last element'], nonEmpty: true },
  ]);
}

export const L: Signature = { params: ['list'], ret: 'int' };
export const sig = (params: ValueType[], ret: ValueType): Signature => ({ params, ret });
export const fill = (template: string, parts: Record<string, string>) => template.replace(/\{(\w+)\}/g, (_, key: string) => parts[key]);

/**
 * Integers from one of three ranges per draw of a test set's value: small non-negative ones (the
 * kind people write in examples: 1, 2, 3), mixed-sign small ones, and wide ones. Problems written
 * by people and problems generated then look alike, whatever range a person picked.
 */
export type Range = readonly [number, number];
const ranges: readonly Range[] = [[0, 10], [-5, 12], [-20, 40]];
export const pickRange = (rng: Rng): Range => ranges[rng.pick([0, 0, 1, 1, 1, 2])];
export const within = (rng: Rng, [lo, hi]: Range) => rng.int(lo, hi);

export function randomList(rng: Rng, min = 0): number[] {
  const length = rng.int(min, 8);
  const range = pickRange(rng);
  return Array.from({ length }, () => within(rng, range));
}
export const nonEmpty = (rng: Rng): Value[] => [randomList(rng, 1)];
export const oneInt = (rng: Rng): Value[] => [within(rng, pickRange(rng))];
export const oneNat = (rng: Rng): Value[] => [rng.int(0, 30)];
export const smallNat = (rng: Rng): Value[] => [rng.int(0, 10)];
export const ints = (count: number) => (rng: Rng): Value[] => {
  const range = pickRange(rng);
  return Array.from({ length: count }, () => within(rng, range));
};
export const twoInts = ints(2);
export const threeInts = ints(3);

export function defaultInputs(signature: Signature): (rng: Rng) => Value[] {
  return (rng) => signature.params.map((type) => (type === 'int' ? rng.int(-10, 20) : type === 'bool' ? rng.chance(0.5) : randomList(rng)));
}

/** The ordinal of n (1 -> "first"), as a word or, a quarter of the time, as digits ("3rd"). */
export function ordinal(rng: Rng, n: number): string {
  const ordinalWords = ['zeroth', 'first', 'second', 'third', 'fourth', 'fifth', 'sixth', 'seventh', 'eighth', 'ninth', 'tenth'];
  if (n >= 1 && n <= 10 && !rng.chance(0.25)) return ordinalWords[n];
  const tail = n % 100 >= 11 && n % 100 <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${tail}`;
}

/** Each token `from` of a body replaced by the tokens `to` (a predicate on x applied to another expression). */
export const subst = (body: readonly (string | number)[], from: string, to: readonly (string | number)[]): (string | number)[] =>
  body.flatMap((part) => (part === from ? [...to] : [part]));

/** What a drawn family phrases itself with: a name for the list (a parameter's, or "the list"), and a noun for its elements. */
export interface Phrasing {
  /** The list parameter's name. */
  xs: string;
  /** How the docstring names the list: its parameter name or "the list" / "the array". */
  list: string;
  /** "elements", "items", "numbers", "values" or "entries". */
  el: string;
  /** The same in the singular. */
  one: string;
}

const listNames = ['xs', 'xs', 'xs', 'nums', 'lst', 'arr', 'seq', 'data'];
export function phrasing(rng: Rng): Phrasing {
  const xs = rng.pick(listNames);
  const plural = rng.pick(['elements', 'elements', 'items', 'numbers', 'values', 'entries']);
  return {
    xs,
    list: rng.pick([xs, xs, 'the list', 'the list', 'the array', 'the input']),
    el: plural,
    one: plural === 'entries' ? 'entry' : plural.slice(0, -1),
  };
}

/** A name for an integer parameter of a given role. */
export const intName = (rng: Rng, role: 'index' | 'value' | 'count'): string =>
  rng.pick(role === 'index' ? ['i', 'i', 'k', 'n', 'idx', 'pos', 'index'] : role === 'count' ? ['k', 'k', 'n', 'm', 'count'] : ['v', 'x', 'k', 'n', 'value', 'target', 'val']);

/** Words a docstring may say one way or another, each group interchangeable. */
const interchangeable: readonly (readonly string[])[] = [
  ['elements', 'numbers', 'values', 'items', 'entries', 'integers'],
  ['largest', 'biggest', 'greatest', 'highest', 'maximum'],
  ['smallest', 'lowest', 'minimum'],
];
const tails = [' if there is none', ' if the list has none', ' when there is no such element', ' if no element matches', ' if there are none'];

/**
 * The same docstring said a little differently, as people do (half the time): interchangeable
 * words swapped, "if there is none" in other words, an opening "Given a list of integers, ",
 * or a small word dropped. A policy that learns the generator's phrasings word for word reads
 * a person's docstring poorly (measured on handwritten_dev: the family was there, the words not).
 */
export function vary(rng: Rng, doc: string, listFirst = true): string {
  if (!rng.chance(0.5)) return doc;
  let out = doc;
  for (const group of interchangeable) {
    out = out.replace(new RegExp(`\\b(${group.join('|')})\\b`, 'g'), (word) => (rng.chance(0.4) ? rng.pick(group) : word));
  }
  if (rng.chance(0.3) && /^Return (?!true|whether)/.test(out)) out = out.replace(/^Return/, rng.pick(['Give', 'Compute', 'Find', 'Output']));
  out = out.replace(/ if there is none/g, () => rng.pick(tails));
  // Said only of a function whose first argument is a list ("Given a list of integers, return true if n is prime" was not).
  if (rng.chance(0.15) && /^(Return|Count|Keep|Find) /.test(out) && listFirst) out = `Given a list of integers, ${out.charAt(0).toLowerCase()}${out.slice(1)}`;
  if (rng.chance(0.2)) {
    const small = [...out.matchAll(/\b(the|a|an|all|only|that) /g)];
    if (small.length) {
      const cut = rng.pick(small);
      out = out.slice(0, cut.index) + out.slice(cut.index + cut[0].length);
    }
  }
  return out;
}

/** A value as a person writes it in a docstring: `[3, 1, 2]`, `-4`, `true`. */
const spoken = (value: Value): string => (Array.isArray(value) ? `[${value.map(spoken).join(', ')}]` : String(value));

/** Whether `sub` is `whole` with some elements left out, the rest in their order. */
function inOrderWithin(sub: readonly Value[], whole: readonly Value[]): boolean {
  let at = 0;
  for (const value of whole) if (at < sub.length && value === sub[at]) at += 1;
  return at === sub.length;
}

/**
 * The sentences people add around what a function does (issue 34: 39% of handwritten_dev's
 * docstrings have more than one sentence, against 2% of the generator's): what the inputs are
 * promised to be, what comes back, an example. Each is true of every test of the problem, shown
 * and hidden, so a sentence never contradicts the tests; a policy that has seen them learns to
 * read past them, or to use them. `params` names the arguments as the docstring does; without
 * names, the list is "the list".
 */
export function elaborationSentences(rng: Rng, sig: Signature, shown: readonly TestCase[], hidden: readonly TestCase[], params?: readonly string[]): string[] {
  const cases = [...shown, ...hidden];
  if (!cases.length) return [];
  const out: string[] = [];
  sig.params.forEach((type, p) => {
    const name = params?.[p];
    const values = cases.map((c) => c.args[p]);
    if (type === 'list') {
      const lists = values as number[][];
      const subject = name ?? 'The list';
      const shortest = Math.min(...lists.map((list) => list.length));
      if (shortest >= 2) out.push(`${subject} has at least two elements.`);
      else if (shortest >= 1) out.push(rng.pick([`${subject} is not empty.`, `${subject} has at least one element.`, `You may assume ${name ?? 'the list'} is not empty.`]));
      else out.push(`${subject} may be empty.`);
      if (lists.every((list) => list.every((x) => x >= 0))) out.push(name ? `All numbers in ${name} are non-negative.` : 'All numbers are non-negative.');
    } else if (type === 'int' && name) {
      const least = Math.min(...(values as number[]));
      if (least >= 1) out.push(`${name} is at least 1.`);
      else if (least >= 0) out.push(`${name} is non-negative.`);
    }
  });
  if (sig.ret === 'list') {
    out.push('Return a new list; the input is not changed.');
    const first = sig.params.indexOf('list');
    if (first >= 0 && cases.every((c) => inOrderWithin(c.expected as number[], c.args[first] as number[])) && cases.some((c) => (c.expected as number[]).length > 0)) out.push('Keep the original order.');
  } else if (sig.ret === 'int') out.push('Return an integer.');
  else if (sig.ret === 'bool') out.push('Return true or false.');
  // The example is one of the shown tests: the docstring is in the prompt, where hidden tests never are.
  const small = shown.filter((c) => c.args.every((a) => !Array.isArray(a) || a.length <= 5) && (!Array.isArray(c.expected) || c.expected.length <= 5));
  if (small.length) {
    const c = rng.pick(small);
    const args = c.args.map(spoken).join(', ');
    out.push(`For example, ${sig.params.length === 1 ? args : `(${args})`} gives ${spoken(c.expected)}.`);
  }
  return out;
}

/**
 * A docstring with one or two of `sentences` added, as people write them (issue 34): most often
 * after it, sometimes one short sentence before it (never an example, nor two: the prompt keeps
 * a docstring's first 32 tokens, and the function's own words must stay in them). `chance` is
 * the share of docstrings that get any.
 */
export function elaborate(rng: Rng, doc: string, sentences: readonly string[], chance = 0.4): string {
  if (!sentences.length || !rng.chance(chance)) return doc;
  const pool = [...sentences];
  const picked: string[] = [];
  for (let n = rng.chance(0.35) ? 2 : 1; n > 0 && pool.length; n--) picked.push(pool.splice(rng.int(0, pool.length - 1), 1)[0]);
  const body = /[.?!]$/.test(doc) ? doc : `${doc}.`;
  const before = picked.length === 1 && !picked[0].startsWith('For example') && rng.chance(0.2);
  return before ? `${picked[0]} ${body}` : `${body} ${picked.join(' ')}`;
}
