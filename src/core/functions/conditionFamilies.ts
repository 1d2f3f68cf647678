/**
 * Wider generator families, part two: conditional transforms (change the elements that match a
 * predicate, two branches, replace a value, clamp, an aggregate of the matching ones or a
 * default, a list or an integer chosen by a condition), elements against an aggregate of the
 * list, running totals and prefixes (loops), and integer functions with a condition or a loop.
 * Written for the lab; see positionFamilies.ts for the rest.
 */
import type { Rng } from '../rng';
import { intName, oneInt, say, subst, twoInts, type Spec } from './familyKit';
import { cap, intArg, listFamily, type Context } from './familyArgs';

type Tokens = (string | number)[];
type Family = (rng: Rng, c: Context) => Spec;

/** What is done to a matching element: its program on X, and the order that says it of an object ("double it"). */
interface Action {
  body: Tokens;
  order: (object: string) => string;
}

function actions(rng: Rng, k: number): Action[] {
  const t = say(k);
  return [
    { body: ['MUL', 'X', 2], order: (o) => rng.pick([`double ${o}`, `multiply ${o} by two`]) },
    { body: ['NEG', 'X'], order: (o) => rng.pick([`negate ${o}`, `flip the sign of ${o}`]) },
    { body: ['MUL', 'X', 'X'], order: (o) => `square ${o}` },
    { body: ['ADD', 'X', k], order: (o) => rng.pick([`add ${t} to ${o}`, `increase ${o} by ${t}`]) },
    { body: ['SUB', 'X', k], order: (o) => rng.pick([`subtract ${t} from ${o}`, `decrease ${o} by ${t}`]) },
    { body: [0], order: (o) => rng.pick([`replace ${o} by 0`, `set ${o} to zero`]) },
    { body: ['ABS', 'X'], order: (o) => `take the absolute value of ${o}` },
    { body: ['DIV', 'X', 2], order: (o) => `halve ${o}, rounding down` },
    { body: ['MUL', 'X', k], order: (o) => `multiply ${o} by ${t}` },
    { body: ['ADD', 'X', 1], order: (o) => rng.pick([`add one to ${o}`, `increment ${o}`]) },
    { body: ['SUB', 'X', 1], order: (o) => rng.pick([`subtract one from ${o}`, `decrement ${o}`]) },
    { body: ['MUL', 'ABS', 'X', 2], order: (o) => `replace ${o} by twice its absolute value` },
  ];
}

const SUM = (list: Tokens): Tokens => ['REDUCE', ...list, 0, 'ADD', 'ACC', 'X'];

const conditional: Family[] = [
  // Change only the matching elements.
  (rng, c) => {
    const { el, one, list } = c.ph;
    const a = rng.pick(actions(rng, c.k));
    const who = c.adj ? `the ${c.adj} ${el}` : `the ${el} that are ${c.pr}`;
    return listFamily(c, 'map_where', 'list', [], () => ['RETURN', 'MAP', 'P0', 'COND', ...c.p.body, ...a.body, 'X'], () => [
      `${cap(a.order(who))} and leave the others unchanged.`, `For each ${one}: if it is ${c.pr}, ${a.order('it')}; otherwise keep it.`,
      `${cap(a.order(`every ${one} that is ${c.pr}`))}; the other ${el} stay the same.`, `If an ${one} is ${c.pr}, ${a.order('it')}. Other ${el} do not change.`,
      `Return ${list} with ${who} changed: ${a.order('each of them')}.`,
    ]);
  },
  (rng, c) => {
    const { el, one } = c.ph;
    const [a, b] = rng.shuffle(actions(rng, c.k)).slice(0, 2);
    const who = c.adj ? `the ${c.adj} ${el}` : `the ${el} that are ${c.pr}`;
    return listFamily(c, 'map_branches', 'list', [], () => ['RETURN', 'MAP', 'P0', 'COND', ...c.p.body, ...a.body, ...b.body], () => [
      `${cap(a.order(who))} and ${b.order('the others')}.`, `For each ${one}: ${a.order('it')} if it is ${c.pr}, otherwise ${b.order('it')}.`, `If an ${one} is ${c.pr}, ${a.order('it')}; else ${b.order('it')}.`,
    ]);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    if (rng.chance(0.5)) {
      const from = rng.int(0, 5);
      const to = intArg(rng, rng.int(-3, 9), intName(rng, 'value'), (r) => r.int(-5, 15), 0.4);
      return listFamily(c, 'replace_value', 'list', [to], ([V]) => ['RETURN', 'MAP', 'P0', 'COND', 'EQ', 'X', from, ...V, 'X'], ([t]) => [
        `Replace every ${say(from)} in ${list} with ${t}.`, `Return ${list} with each occurrence of ${say(from)} changed to ${t}.`, `Change all the ${say(from)}s to ${t}.`,
      ]);
    }
    const v = intArg(rng, rng.int(-3, 9), intName(rng, 'value'), (r) => r.int(-5, 15), 0.6);
    const who = c.adj ? `${c.adj} ${one}` : `${one} that is ${c.pr}`;
    return listFamily(c, 'replace_where', 'list', [v], ([V]) => ['RETURN', 'MAP', 'P0', 'COND', ...c.p.body, ...V, 'X'], ([t]) => [
      `Replace every ${who} by ${t}.`, `Return ${list} with each ${who} replaced by ${t}; the other ${el} stay.`, `Set every ${who} to ${t}.`,
    ]);
  },
  (rng, c) => {
    const { one, list } = c.ph;
    const lo = rng.int(-3, 3);
    const hi = lo + rng.int(2, 8);
    const o = rng.int(0, 2);
    const body = o === 0 ? ['MIN2', 'MAX2', 'X', lo, hi] : o === 1 ? ['MIN2', 'X', hi] : ['MAX2', 'X', lo];
    const docs = o === 0 ? [`Clamp every ${one} to the range ${say(lo)} to ${say(hi)}.`, `Limit each ${one} to be at least ${say(lo)} and at most ${say(hi)}.`, `Return ${list} with values below ${say(lo)} raised to ${say(lo)} and values above ${say(hi)} lowered to ${say(hi)}.`]
      : o === 1 ? [`Cap every ${one} at ${say(hi)}.`, `Replace each ${one} greater than ${say(hi)} by ${say(hi)}.`, `Return the smaller of each ${one} and ${say(hi)}.`]
        : [`Raise every ${one} below ${say(lo)} up to ${say(lo)}.`, `Replace each ${one} less than ${say(lo)} by ${say(lo)}.`, `Return the larger of each ${one} and ${say(lo)}.`];
    return listFamily(c, 'clamp', 'list', [], () => ['RETURN', 'MAP', 'P0', ...body], () => docs);
  },
  // An aggregate of the matching elements, or a default when none match.
  (rng, c) => {
    const { el, one, list } = c.ph;
    const d = rng.pick([0, 0, -1]);
    const who = c.adj ? `${c.adj} ${one}` : `${one} that is ${c.pr}`;
    // "... or 0 if the list has no even number", "Return 0 if there are no odd numbers.": the condition said again, as people do.
    const noneOf = c.adj ? `${c.adj} ${el}` : `${el} that are ${c.pr}`;
    const o = rng.pick([
      { name: 'max_where', agg: ['MAXL', 'V0'], docs: [`Return the largest ${who}, or ${say(d)} if there is none.`, `What is the biggest ${who} in ${list}? Return ${say(d)} when no ${one} is ${c.pr}.`, `Return the largest ${who} in ${list}, or ${say(d)} if ${list} has no ${who}.`, `What is the largest ${who} in ${list}? Return ${say(d)} if there are no ${noneOf}.`] },
      { name: 'min_where', agg: ['MINL', 'V0'], docs: [`Return the smallest ${who}, or ${say(d)} if there is none.`, `Find the least ${who}; return ${say(d)} if the list has none.`, `Return the smallest ${who} in ${list}, or ${say(d)} if ${list} has no ${who}.`, `What is the smallest ${who} in ${list}? Return ${say(d)} if there are no ${noneOf}.`] },
      { name: 'first_where', agg: ['AT', 'V0', 0], docs: [`Return the first ${who}; return ${say(d)} if no ${one} is ${c.pr}.`, `Find the first ${one} of ${list} that is ${c.pr} (${say(d)} when there is none).`] },
      { name: 'last_where', agg: ['AT', 'V0', 'SUB', 'LEN', 'V0', 1], docs: [`Return the last ${who}, or ${say(d)} if there is none.`] },
      { name: 'mean_where', agg: ['DIV', ...SUM(['V0']), 'LEN', 'V0'], docs: [`Return the average of the ${el} that are ${c.pr}, rounded down, or ${say(d)} if there are none.`] },
    ]);
    return listFamily(c, o.name, 'int', [], () => ['LET_LIST', 'FILTER', 'P0', ...c.p.body, 'RETURN', 'COND', 'EQ', 'LEN', 'V0', 0, d, ...o.agg], () => o.docs);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const who = c.adj ? `the ${c.adj} ${el}` : `the ${el} that are ${c.pr}`;
    if (rng.chance(0.5)) {
      return listFamily(c, 'signed_sum', 'int', [], () => ['RETURN', 'REDUCE', 'P0', 0, 'COND', ...subst(c.p.body, 'X', ['X']), 'ADD', 'ACC', 'X', 'SUB', 'ACC', 'X'], () => [
        `Return the sum of ${who} minus the sum of the other ${el}.`, `Add up ${who} and subtract the rest.`, `Add each ${one} that is ${c.pr} and subtract each ${one} that is not.`,
      ]);
    }
    const a = rng.int(1, 5);
    const b = rng.pick([0, -1, 1]);
    return listFamily(c, 'score', 'int', [], () => ['RETURN', 'REDUCE', 'P0', 0, 'ADD', 'ACC', 'COND', ...c.p.body, a, b], () => [
      `Score each ${one}: ${say(a)} points if it is ${c.pr}, otherwise ${say(b)}; return the total score of ${list}.`, `Count ${say(a)} for every ${one} that is ${c.pr} and ${say(b)} for every other ${one}, and return the sum.`,
    ]);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const q = rng.pick([{ body: ['EQ', 'MOD', 'X', 2, 0], says: 'even' }, { body: ['GT', 'X', 0], says: 'positive' }, { body: ['NE', 'MOD', 'X', 2, 0], says: 'odd' }, { body: ['LT', 'X', 0], says: 'negative' }]);
    const and = rng.chance(0.5);
    const body = [and ? 'AND' : 'OR', ...c.p.body, ...q.body];
    const which = `${c.pr} ${and ? 'and' : 'or'} ${q.says}`;
    return rng.chance(0.5)
      ? listFamily(c, and ? 'count_both' : 'count_either', 'int', [], () => ['RETURN', 'LEN', 'FILTER', 'P0', ...body], () => [`Count the ${el} that are ${which}.`, `How many ${el} of ${list} are ${which}?`])
      : listFamily(c, and ? 'filter_both' : 'filter_either', 'list', [], () => ['RETURN', 'FILTER', 'P0', ...body], () => [`Keep the ${el} that are ${which}.`, `Return the ${el} of ${list} that are ${which}, in order.`]);
  },
  // A whole list chosen by a condition.
  (rng, c) => {
    const { one, list } = c.ph;
    const conds = [
      { body: ['GT', 'AT', 'P0', 0, 'AT', 'P0', 'SUB', 'LEN', 'P0', 1], says: `the first ${one} is larger than the last`, nonEmpty: true },
      { body: ['GT', ...SUM(['P0']), 0], says: `the sum of ${list} is positive`, nonEmpty: false },
      { body: ['INCLUDES', 'P0', c.k], says: `${list} contains ${say(c.k)}`, nonEmpty: false },
      { body: ['EQ', 'MOD', 'LEN', 'P0', 2, 0], says: `the length of ${list} is even`, nonEmpty: false },
    ];
    const cond = rng.pick(conds);
    const [a, b] = rng.shuffle([
      { body: ['REVERSE', 'P0'], says: 'the list reversed' }, { body: ['SORT', 'P0'], says: 'the list sorted' }, { body: ['P0'], says: 'the list unchanged' }, { body: ['EMPTY'], says: 'an empty list' }, { body: ['APPEND', 'P0', 0], says: `the list with a 0 appended` },
    ]).slice(0, 2);
    return listFamily(c, 'list_if', 'list', [], () => ['RETURN', 'LCOND', ...cond.body, ...a.body, ...b.body], () => [
      `If ${cond.says}, return ${a.says}; otherwise return ${b.says}.`, `Return ${a.says} when ${cond.says}, and ${b.says} when not.`, `${cap(a.says)} if ${cond.says}, else ${b.says}.`,
    ], cond.nonEmpty ? 1 : 0);
  },
  // Each element against an aggregate of the list.
  (rng, c) => {
    const { one, list } = c.ph;
    const o = rng.pick([
      { name: 'minus_min', ret: 'list' as const, body: ['MAP', 'P0', 'SUB', 'X', 'MINL', 'P0'], docs: [`Subtract the smallest ${one} from every ${one}.`, `Return how much each ${one} exceeds the minimum of ${list}.`] },
      { name: 'below_max', ret: 'list' as const, body: ['MAP', 'P0', 'SUB', 'MAXL', 'P0', 'X'], docs: [`Replace each ${one} by how much smaller it is than the largest ${one}.`, `Return the maximum minus each ${one}.`] },
      { name: 'times_length', ret: 'list' as const, body: ['MAP', 'P0', 'MUL', 'X', 'LEN', 'P0'], docs: [`Multiply every ${one} by the length of ${list}.`, `Return each ${one} times the number of elements.`] },
      { name: 'minus_first', ret: 'list' as const, body: ['MAP', 'P0', 'SUB', 'X', 'AT', 'P0', 0], docs: [`Subtract the first ${one} from every ${one}.`, `Return each ${one} minus the first one.`] },
      { name: 'is_max_flags', ret: 'blist' as const, body: ['MAPB', 'P0', 'EQ', 'X', 'MAXL', 'P0'], docs: [`For each ${one}, return whether it equals the maximum.`, `Return true at the positions of the largest value and false elsewhere.`] },
      { name: 'above_mean', ret: 'list' as const, body: ['FILTER', 'P0', 'GT', 'MUL', 'X', 'LEN', 'P0', ...SUM(['P0'])], docs: [`Keep the ${one}s greater than the average of ${list}.`.replace(`${one}s`, 'elements'), `Return the elements that are above the mean.`] },
    ]);
    return listFamily(c, o.name, o.ret, [], () => ['RETURN', ...o.body], () => o.docs, 1);
  },
  // Running totals and prefixes.
  (rng, c) => {
    const { el, one, list } = c.ph;
    const o = rng.pick([
      { name: 'running_sum', body: ['LET_INT', 0, 'LET_LIST', 'EMPTY', 'FOR_OF', 'P0', 'SET0', 'ADD', 'V0', 'X', 'SET1', 'APPEND', 'V1', 'V0', 'END', 'RETURN', 'V1'], ret: 'list' as const, min: 0, docs: [`Return the running totals of ${list}.`, `Return the prefix sums: the i-th result is the sum of the first i + 1 ${el}.`, `Replace each ${one} by the sum of it and all ${el} before it.`] },
      { name: 'running_max', body: ['LET_INT', 'AT', 'P0', 0, 'LET_LIST', 'EMPTY', 'FOR_OF', 'P0', 'SET0', 'MAX2', 'V0', 'X', 'SET1', 'APPEND', 'V1', 'V0', 'END', 'RETURN', 'V1'], ret: 'list' as const, min: 1, docs: [`Return the running maximum of ${list}.`, `Replace each ${one} by the largest ${one} seen so far.`] },
      { name: 'running_min', body: ['LET_INT', 'AT', 'P0', 0, 'LET_LIST', 'EMPTY', 'FOR_OF', 'P0', 'SET0', 'MIN2', 'V0', 'X', 'SET1', 'APPEND', 'V1', 'V0', 'END', 'RETURN', 'V1'], ret: 'list' as const, min: 1, docs: [`Return the running minimum: each ${one} replaced by the smallest value up to it.`] },
      { name: 'never_negative', body: ['LET_INT', 0, 'FOR_OF', 'P0', 'SET0', 'ADD', 'V0', 'X', 'IF', 'LT', 'V0', 0, 'RETURN', 'FALSE', 'END', 'RETURN', 'TRUE'], ret: 'bool' as const, min: 0, docs: [`Starting from 0, add the ${el} one by one. Return true if the total never drops below zero.`, `Is every prefix sum of ${list} at least 0?`] },
      { name: 'zero_prefixes', body: ['LET_INT', 0, 'LET_INT', 0, 'FOR_OF', 'P0', 'SET0', 'ADD', 'V0', 'X', 'IF', 'EQ', 'V0', 0, 'SET1', 'ADD', 'V1', 1, 'END', 'END', 'RETURN', 'V1'], ret: 'int' as const, min: 0, docs: [`Count the non-empty prefixes of ${list} that add up to zero.`, `How many times does the running total come back to 0?`] },
      { name: 'record_count', body: ['LET_INT', 'AT', 'P0', 0, 'LET_INT', 1, 'FOR_OF', 'P0', 'IF', 'GT', 'X', 'V0', 'SET1', 'ADD', 'V1', 1, 'SET0', 'X', 'END', 'END', 'RETURN', 'V1'], ret: 'int' as const, min: 1, docs: [`Count the ${el} that are larger than every ${one} before them (the first always counts).`] },
    ]);
    return listFamily(c, o.name, o.ret, [], () => o.body, () => o.docs, o.min);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const who = c.adj ? `${c.adj} ${el}` : `${el} that are ${c.pr}`;
    const not = ['NOT', ...c.p.body];
    const o = rng.pick([
      { name: 'take_while', ret: 'list' as const, body: ['LET_LIST', 'EMPTY', 'FOR_OF', 'P0', 'IF', ...not, 'RETURN', 'V0', 'SET0', 'APPEND', 'V0', 'X', 'END', 'RETURN', 'V0'], docs: [`Return the ${who} at the start of ${list}, stopping at the first one that is not.`, `Take ${el} from the front while they are ${c.pr}.`] },
      { name: 'drop_while', ret: 'list' as const, body: ['LET_INT', 0, 'FOR_OF', 'P0', 'IF', ...not, 'RETURN', 'DROP', 'P0', 'V0', 'SET0', 'ADD', 'V0', 1, 'END', 'RETURN', 'EMPTY'], docs: [`Remove the ${who} at the start of ${list}, stopping at the first ${el.slice(0, -1)} that is not.`, `Drop ${el} from the front while they are ${c.pr}.`] },
      { name: 'count_leading', ret: 'int' as const, body: ['LET_INT', 0, 'FOR_OF', 'P0', 'IF', ...not, 'RETURN', 'V0', 'SET0', 'ADD', 'V0', 1, 'END', 'RETURN', 'V0'], docs: [`Count the ${who} at the start of ${list}, before the first one that is not.`, `How many ${el} in a row from the start are ${c.pr}?`] },
    ]);
    return listFamily(c, o.name, o.ret, [], () => o.body, () => o.docs);
  },
];

/** Arithmetic of several steps on each element, comparisons with a parameter, and repeated values. */
const compound: Family[] = [
  (rng, c) => {
    const { el, one, list } = c.ph;
    const who = c.adj ? `the ${c.adj} ${el}` : `the ${el} that are ${c.pr}`;
    return listFamily(c, 'remove_where', 'list', [], () => ['RETURN', 'FILTER', 'P0', 'NOT', ...c.p.body], () => [
      `Remove ${who}.`, `Drop every ${one} that is ${c.pr}.`, `Return ${list} without ${who}.`, `Delete ${who} from ${list}; keep the rest in order.`,
    ]);
  },
  (rng, c) => {
    const { one, list } = c.ph;
    const a = rng.int(2, 5);
    const b = rng.int(1, 9);
    const m = rng.pick([2, 3, 4, 5, 10, 10]);
    const o: { body: (string | number)[]; says: string[]; orders?: string[] } = rng.pick([
      { body: ['ADD', 'MUL', 'X', a, b], says: [`${a} * x + ${b}`, `${say(a)} times the ${one} plus ${say(b)}`] },
      { body: ['SUB', 'MUL', 'X', a, b], says: [`${a} * x - ${b}`, `${say(a)} times the ${one} minus ${say(b)}`] },
      { body: ['MUL', 'ADD', 'X', b, a], says: [`(x + ${b}) * ${a}`, `the ${one} plus ${say(b)}, times ${say(a)}`] },
      { body: ['SUB', 'MUL', 'X', 'X', 'X'], says: ['x * x - x', `the square of the ${one} minus the ${one}`] },
      { body: ['ADD', 'MUL', 'X', 'X', 'X'], says: ['x * x + x', `the square of the ${one} plus the ${one}`] },
      { body: ['ADD', 'MUL', 'X', 'X', b], says: [`x * x + ${b}`, `the square plus ${say(b)}`] },
      { body: ['MUL', 'X', 'ABS', 'X'], says: ['x * |x|', `the square of the ${one} with its sign kept`], orders: [`Square each ${one} but keep its sign.`, `Square every ${one}; negative ${c.ph.el} stay negative.`] },
      { body: ['ABS', 'SUB', 'X', b], says: [`|x - ${b}|`, `the distance of the ${one} from ${say(b)}`] },
      { body: ['MOD', 'ABS', 'X', 10], says: ['the last digit of x', `the last digit of the ${one} (of its absolute value)`] },
      { body: ['SUB', 'X', 'MOD', 'X', 2], says: ['x rounded down to an even number (for x >= 0)', `the ${one} minus its remainder by 2`] },
      {
        body: ['MIN2', 'MOD', 'ABS', 'X', m, 'SUB', m, 'MOD', 'ABS', 'X', m],
        says: [`the distance from x to the nearest multiple of ${say(m)}`, `how far the ${one} is from the closest multiple of ${say(m)}`],
        orders: [`For each ${one}, how far is it from the nearest multiple of ${say(m)}?`, `Replace each ${one} by its distance to the closest multiple of ${say(m)}.`],
      },
    ]);
    const what = rng.pick(o.says);
    return listFamily(c, 'map_formula', 'list', [], () => ['RETURN', 'MAP', 'P0', ...o.body], () => [
      `Map every x to ${what}.`, `Replace each ${one} x of ${list} by ${what}.`, `Return a list of ${what} for each ${one}.`, `For each ${one}, compute ${what}.`, ...(o.orders ?? []),
    ]);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const k = intName(rng, 'value');
    const [cmp, word] = rng.pick([['GT', 'greater than'], ['LT', 'less than'], ['GE', 'at least'], ['LE', 'at most'], ['EQ', 'equal to'], ['NE', 'different from']] as const);
    const absolute = rng.chance(0.3);
    const x = absolute ? ['ABS', 'X'] : ['X'];
    const which = absolute ? `whose absolute value is ${word} ${k}` : `${word} ${k}`;
    const o = rng.pick([
      { name: 'filter_vs_k', ret: 'list' as const, body: ['FILTER', 'P0', cmp, ...x, 'P1'], docs: [`Return the ${el} of ${list} ${which}.`, `Keep only the ${el} ${which}.`, `Remove the ${el} that are not ${which}.`] },
      { name: 'count_vs_k', ret: 'int' as const, body: ['LEN', 'FILTER', 'P0', cmp, ...x, 'P1'], docs: [`Count the ${el} ${which}.`, `How many ${el} of ${list} are ${which}?`] },
      { name: 'any_vs_k', ret: 'bool' as const, body: ['GT', 'LEN', 'FILTER', 'P0', cmp, ...x, 'P1', 0], docs: [`Return true if some ${one} is ${which}.`, `Is there an ${one} ${which}?`] },
      { name: 'all_vs_k', ret: 'bool' as const, body: ['EQ', 'LEN', 'FILTER', 'P0', cmp, ...x, 'P1', 'LEN', 'P0'], docs: [`Return true if every ${one} is ${which}.`, `Are all the ${el} ${which}?`] },
      { name: 'remove_vs_k', ret: 'list' as const, body: ['FILTER', 'P0', 'NOT', cmp, ...x, 'P1'], docs: [`Remove the ${el} ${which}.`, `Drop every ${one} ${which}.`, `Return ${list} without the ${el} ${which}.`] },
      { name: 'divisible_by_k', ret: 'list' as const, body: ['FILTER', 'P0', 'EQ', 'MOD', 'X', 'P1', 0], docs: [`Return the ${el} divisible by ${k}.`, `Keep the multiples of ${k}.`] },
    ]);
    return { ...listFamily(c, o.name, o.ret, [{ kind: 'param', name: k, text: k, draw: (r) => (o.name === 'divisible_by_k' ? r.int(2, 5) : r.int(-3, 9)) }], () => ['RETURN', ...o.body], () => o.docs) };
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const first = ['EQ', 'INDEXOF', 'P0', 'AT', 'P0', 'X', 'X'];
    const o = rng.pick([
      { name: 'dedupe', ret: 'list' as const, body: ['MAP', 'FILTER', 'RANGE', 'LEN', 'P0', ...first, 'AT', 'P0', 'X'], docs: [`Remove repeated values, keeping the first occurrence of each.`, `Return the distinct ${el} of ${list} in order of first appearance.`, `Drop every ${one} that already appeared earlier.`] },
      { name: 'count_distinct', ret: 'int' as const, body: ['LEN', 'FILTER', 'RANGE', 'LEN', 'P0', ...first], docs: [`Count the distinct values in ${list}.`, `How many different numbers does ${list} contain?`] },
      { name: 'all_distinct', ret: 'bool' as const, body: ['EQ', 'LEN', 'FILTER', 'RANGE', 'LEN', 'P0', ...first, 'LEN', 'P0'], docs: [`Return true if no value appears twice in ${list}.`, `Are all the ${el} different?`] },
      { name: 'repeated_values', ret: 'list' as const, body: ['FILTER', 'P0', 'NE', 'INDEXOF', 'P0', 'X', 'SUB', 'SUB', 'LEN', 'P0', 1, 'INDEXOF', 'REVERSE', 'P0', 'X'], docs: [`Keep the ${el} that appear more than once.`, `Return the ${el} of ${list} whose value occurs at least twice.`] },
      { name: 'count_of_first', ret: 'int' as const, body: ['LEN', 'FILTER', 'P0', 'EQ', 'X', 'AT', 'P0', 0], docs: [`Count how many times the first ${one} appears in ${list}.`] },
    ]);
    return listFamily(c, o.name, o.ret, [], () => ['RETURN', ...o.body], () => o.docs, o.name === 'count_of_first' ? 1 : 0);
  },
];

/** Integer functions with a condition, a rounding or a loop. */
const integers: Family[] = [
  (rng, c) => {
    const n = rng.pick(['n', 'x', 'k', 'num']);
    const p = subst(c.p.body, 'X', ['P0']);
    const [a, b] = rng.shuffle(actions(rng, c.k)).slice(0, 2);
    const sub = (body: Tokens) => subst(body, 'X', ['P0']);
    return { name: 'int_branches', sig: { params: ['int'], ret: 'int' }, body: ['RETURN', 'COND', ...p, ...sub(a.body), ...sub(b.body)], params: [n], inputs: oneInt, docs: [
      `If ${n} is ${c.pr}, ${a.order('it')}; otherwise ${b.order('it')}. Return the result.`, `Return ${n} changed as follows: when it is ${c.pr}, ${a.order('it')}, else ${b.order('it')}.`,
    ] };
  },
  (rng) => {
    const [n, k] = rng.chance(0.5) ? ['n', 'k'] : ['x', 'm'];
    const o = rng.pick([
      { name: 'round_down_multiple', body: ['RETURN', 'MUL', 'DIV', 'P0', 'P1', 'P1'], docs: [`Round ${n} down to a multiple of ${k}.`, `Return the largest multiple of ${k} that is at most ${n}.`] },
      { name: 'round_up_multiple', body: ['RETURN', 'MUL', 'DIV', 'ADD', 'P0', 'SUB', 'P1', 1, 'P1', 'P1'], docs: [`Return the smallest multiple of ${k} that is greater than or equal to ${n}.`, `Round ${n} up to a multiple of ${k}.`] },
      { name: 'closer_to_zero', body: ['RETURN', 'COND', 'EQ', 'ABS', 'P0', 'ABS', 'P1', 'MAX2', 'P0', 'P1', 'COND', 'LT', 'ABS', 'P0', 'ABS', 'P1', 'P0', 'P1'], docs: [`Return whichever of ${n} and ${k} is closer to zero; the larger one on a tie.`] },
      { name: 'clamp_int', body: ['RETURN', 'MIN2', 'MAX2', 'P0', 0, 'P1'], docs: [`Clamp ${n} to the range 0 to ${k}.`, `Return ${n}, but at least 0 and at most ${k}.`] },
    ]);
    return { name: o.name, sig: { params: ['int', 'int'], ret: 'int' }, body: o.body, docs: o.docs, params: [n, k], inputs: (r: Rng) => [twoInts(r)[0] as number, r.int(1, 9)] };
  },
  (rng) => {
    const n = rng.pick(['n', 'x', 'num']);
    const o = rng.pick([
      { name: 'digit_sum', body: ['LET_INT', 0, 'LET_INT', 'ABS', 'P0', 'FOR', 0, 10, 'SET0', 'ADD', 'V0', 'MOD', 'V1', 10, 'SET1', 'DIV', 'V1', 10, 'END', 'RETURN', 'V0'], docs: [`Return the sum of the digits of ${n} (ignoring its sign).`, `Add up the decimal digits of ${n}.`] },
      { name: 'digit_count', body: ['LET_INT', 0, 'LET_INT', 'ABS', 'P0', 'FOR', 0, 10, 'IF', 'GT', 'V1', 0, 'SET0', 'ADD', 'V0', 1, 'END', 'SET1', 'DIV', 'V1', 10, 'END', 'RETURN', 'MAX2', 'V0', 1], docs: [`Return how many digits ${n} has.`, `Count the decimal digits of ${n} (0 has one digit).`] },
      { name: 'smallest_factor', body: ['FOR', 2, 'P0', 'IF', 'EQ', 'MOD', 'P0', 'I', 0, 'RETURN', 'I', 'END', 'RETURN', 'P0'], docs: [`Return the smallest prime factor of ${n}, for ${n} at least 2.`, `Return the smallest number greater than 1 that divides ${n}.`] },
      { name: 'count_divisors', body: ['RETURN', 'LEN', 'FILTER', 'DROP', 'RANGE', 'ADD', 'P0', 1, 1, 'EQ', 'MOD', 'P0', 'X', 0], docs: [`Count the positive divisors of ${n}.`, `How many numbers from 1 to ${n} divide ${n}?`] },
      { name: 'gcd', body: ['LET_INT', 1, 'FOR', 1, 'ADD', 'MIN2', 'P0', 'P1', 1, 'IF', 'AND', 'EQ', 'MOD', 'P0', 'I', 0, 'EQ', 'MOD', 'P1', 'I', 0, 'SET0', 'I', 'END', 'END', 'RETURN', 'V0'], docs: [`Return the greatest common divisor of ${n} and m.`, `Return the largest number that divides both ${n} and m.`] },
      { name: 'is_square', body: ['RETURN', 'COND', 'INCLUDES', 'MAP', 'RANGE', 'ADD', 'P0', 1, 'MUL', 'X', 'X', 'P0', 1, 0], docs: [`Return 1 if ${n} is a perfect square and 0 otherwise.`] },
      { name: 'sign', body: ['RETURN', 'COND', 'GT', 'P0', 0, 1, 'COND', 'LT', 'P0', 0, -1, 0], docs: [`Return 1 if ${n} is positive, -1 if it is negative and 0 if it is zero.`, `Return the sign of ${n}.`] },
    ]);
    const wide = o.name.startsWith('digit');
    if (o.name === 'gcd') return { name: o.name, sig: { params: ['int', 'int'], ret: 'int' }, body: o.body, docs: o.docs, params: [n, 'm'], inputs: (r: Rng) => [r.int(1, 60), r.int(1, 60)] };
    return { name: o.name, sig: { params: ['int'], ret: 'int' }, body: o.body, docs: o.docs, params: [n], inputs: (r: Rng) => [wide ? r.int(-500, 5000) : o.name === 'sign' ? r.int(-20, 20) : o.name === 'is_square' ? r.int(0, 60) : r.int(2, 60)] };
  },
];

/** One of the conditional, aggregate-relative, prefix and integer families. */
export function conditionFamily(rng: Rng, c: Context): Spec {
  const u = rng.next();
  return rng.pick(u < 0.6 ? conditional : u < 0.85 ? compound : integers)(rng, c);
}

