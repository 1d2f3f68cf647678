/**
 * Wider generator families, part one: edits by position (the first or last k, slices, insert,
 * remove or replace at an index, rotations, repeating an element or the list, prepending) and
 * indexing and counting relative to other elements (indices as a list via `RANGE`, neighbours,
 * the k-th largest, what comes before or after a value), over one list or two.
 *
 * Each family is written for the lab from how people describe such functions; numbers come as
 * constants or as integer parameters the docstring names, and phrasings vary in words, order,
 * ordinals and numbers said as words.
 */
import type { Rng } from '../rng';
import { intName, ordinal, randomList, say, subst, type Spec } from './familyKit';
import { indexIn, intArg, listFamily, type Context } from './familyArgs';

const LAST = (list: string) => ['AT', list, 'SUB', 'LEN', list, 1];
const SUM = (list: (string | number)[]) => ['REDUCE', ...list, 0, 'ADD', 'ACC', 'X'];
/** The indices 0 .. n - 2 of a list's neighbouring pairs (none for an empty list). */
const PAIRS = ['RANGE', 'MAX2', 0, 'SUB', 'LEN', 'P0', 1];

type Family = (rng: Rng, c: Context) => Spec;

const edits: Family[] = [
  // The last k, and all but the last k.
  (rng, c) => {
    const { el, list } = c.ph;
    const k = intArg(rng, rng.int(1, 4), intName(rng, 'count'), (r) => r.int(0, 6));
    return listFamily(c, 'take_last', 'list', [k], ([K]) => ['RETURN', 'DROP', 'P0', 'MAX2', 0, 'SUB', 'LEN', 'P0', ...K], ([t]) => [
      `Return the last ${t} ${el} of ${list}.`, `Keep only the final ${t} ${el}.`, `Take the last ${t} ${el}.`, `Return the last ${t} ${el}, or all of ${list} if it is shorter.`, `Get the ${t} ${el} at the end of ${list}.`, `The last ${t} ${el} of ${list}, in order.`,
    ]);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const k = intArg(rng, rng.int(1, 4), intName(rng, 'count'), (r) => r.int(0, 6));
    return listFamily(c, 'drop_last', 'list', [k], ([K]) => ['RETURN', 'SLICE', 'P0', 0, 'MAX2', 0, 'SUB', 'LEN', 'P0', ...K], ([t]) => [
      `Remove the last ${t} ${el}.`, `Drop the final ${t} ${el} of ${list}.`, `Return all but the last ${t} ${el}.`, `Return ${list} without its last ${t} ${el}.`, `Cut the last ${t} ${el} off ${list}.`,
    ]);
  },
  // The first k, and all but the first k, with the parameter or new phrasings.
  (rng, c) => {
    const { el, list } = c.ph;
    const k = intArg(rng, rng.int(1, 5), intName(rng, 'count'), (r) => r.int(0, 6), 0.6);
    return listFamily(c, 'take_first', 'list', [k], ([K]) => ['RETURN', 'SLICE', 'P0', 0, ...K], ([t]) => [
      `Return the first ${t} ${el} of ${list}.`, `Keep the first ${t} ${el}.`, `Take ${t} ${el} from the start of ${list}.`, `Return the prefix of length ${t}.`, `The first ${t} ${el} (fewer if ${list} is shorter).`, `Return ${list} cut to its first ${t} ${el}.`,
    ]);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const k = intArg(rng, rng.int(1, 5), intName(rng, 'count'), (r) => r.int(0, 6), 0.6);
    return listFamily(c, 'drop_first', 'list', [k], ([K]) => ['RETURN', 'DROP', 'P0', ...K], ([t]) => [
      `Drop the first ${t} ${el}.`, `Remove the first ${t} ${el} of ${list}.`, `Skip ${t} ${el} and return the rest.`, `Return everything after the first ${t} ${el}.`, `Return ${list} without its first ${t} ${el}.`, `Drop ${t} ${el} from the front of ${list}.`,
    ]);
  },
  // Slices between two indices, exclusive or inclusive.
  (rng, c) => {
    const { el, list } = c.ph;
    const a = rng.int(0, 3);
    const inclusive = rng.chance(0.4);
    const from = intArg(rng, a, rng.pick(['i', 'start', 'lo', 's']), (r, xs) => r.int(0, Math.max(0, xs.length - 1)));
    const to = intArg(rng, a + rng.int(1, 3), from.kind === 'param' ? rng.pick(['j', 'end', 'hi', 'b']) : rng.pick(['j', 'end']), (r, xs) => r.int(0, xs.length + 1), from.kind === 'param' ? 0.8 : 0.3);
    return listFamily(c, inclusive ? 'slice_inclusive' : 'slice', 'list', [from, to], ([A, B]) => ['RETURN', 'SLICE', 'P0', ...A, ...(inclusive ? ['ADD', ...B, 1] : B)], ([s, e]) => inclusive
      ? [`Return the ${el} from index ${s} to index ${e}, both included.`, `Return ${list} from position ${s} through position ${e} (inclusive).`, `Return the sublist between indices ${s} and ${e} inclusive.`]
      : [`Return the ${el} from index ${s} up to but not including index ${e}.`, `Return the slice of ${list} from position ${s} to position ${e} (exclusive).`, `Return the sublist starting at index ${s} and ending before index ${e}.`, `Return ${list}[${s}:${e}].`]);
  },
  // The k-th element (ordinal, from 1), the element at an index, the k-th from the end.
  (rng, c) => {
    const { one, list } = c.ph;
    const n = rng.int(1, 5);
    if (rng.chance(0.5)) {
      const ord = ordinal(rng, n);
      return listFamily(c, 'kth_element', 'int', [], () => ['RETURN', 'AT', 'P0', n - 1], () => [
        `Return the ${ord} element of ${list}.`, `Get the ${ord} ${one}.`, `What is the ${ord} ${one} in ${list}?`, `Return the ${one} in ${ord} position.`,
      ], n);
    }
    const k = { kind: 'param' as const, name: intName(rng, 'index'), text: '', draw: (r: Rng, xs: number[]) => r.int(1, Math.max(1, xs.length)) };
    k.text = k.name;
    return rng.chance(0.5)
      ? listFamily(c, 'kth_element', 'int', [k], ([K]) => ['RETURN', 'AT', 'P0', 'SUB', ...K, 1], ([t]) => [`Return the ${t}-th element of ${list}, counting from 1.`, `Return the ${one} at position ${t}, where the first ${one} is at position 1.`, `Return the ${t}th ${one} (1-based).`], 1)
      : listFamily(c, 'element_at_index', 'int', [{ ...k, draw: (r: Rng, xs: number[]) => r.int(0, Math.max(0, xs.length - 1)) }], ([K]) => ['RETURN', 'AT', 'P0', ...K], ([t]) => [`Return the element at index ${t} of ${list}.`, `Return ${list}[${t}].`, `Return the ${one} at position ${t} (counting from zero).`, `Get the ${t}-th ${one}, with indices starting at 0.`], 1);
  },
  (rng, c) => {
    const { one, list } = c.ph;
    const n = rng.int(1, 3);
    const ord = ordinal(rng, n);
    const phr = n === 1 ? [`Return the last ${one} of ${list}.`, `Get the final ${one}.`] : n === 2 ? [`Return the second to last ${one}.`, `Return the second-to-last ${one} of ${list}.`, `Return the ${one} just before the last one.`] : [];
    return listFamily(c, 'kth_from_end', 'int', [], () => ['RETURN', 'AT', 'P0', 'SUB', 'LEN', 'P0', n], () => [...phr, `Return the ${ord} ${one} from the end of ${list}.`, `Return the ${ord} last ${one}.`, `Counting from the end, return the ${ord} ${one}.`], n);
  },
  // Insert, remove or replace at an index.
  (rng, c) => {
    const { el, one, list } = c.ph;
    const i = intArg(rng, rng.int(0, 3), intName(rng, 'index'), (r, xs) => indexIn(r, xs, 1), 0.6);
    const v = intArg(rng, rng.int(0, 9), i.kind === 'param' ? rng.pick(['v', 'x', 'value']) : intName(rng, 'value'), (r) => r.int(-5, 20), 0.6);
    return listFamily(c, 'insert_at', 'list', [i, v], ([I, V]) => ['RETURN', 'CONCAT', 'APPEND', 'SLICE', 'P0', 0, ...I, ...V, 'DROP', 'P0', ...I], ([it, vt]) => [
      `Insert ${vt} at index ${it} of ${list}.`, `Return ${list} with ${vt} inserted at position ${it}.`, `Put ${vt} at index ${it}, moving the later ${el} one place to the right.`, `Add ${vt} into ${list} so that it ends up at index ${it}.`,
      ...(i.kind === 'const' ? [`Insert ${vt} before the ${ordinal(rng, i.value + 1)} ${one}.`] : []),
    ], i.kind === 'const' ? i.value : 0);
  },
  (rng, c) => {
    const { one, list } = c.ph;
    const i = intArg(rng, rng.int(0, 3), intName(rng, 'index'), (r, xs) => indexIn(r, xs), 0.6);
    return listFamily(c, 'remove_at', 'list', [i], ([I]) => ['RETURN', 'CONCAT', 'SLICE', 'P0', 0, ...I, 'DROP', 'P0', 'ADD', ...I, 1], ([it]) => [
      `Remove the element at index ${it}.`, `Delete the ${one} at position ${it} of ${list}.`, `Return ${list} without the element at index ${it}.`,
      ...(i.kind === 'const' ? [`Remove the ${ordinal(rng, i.value + 1)} ${one}.`, `Drop the ${ordinal(rng, i.value + 1)} ${one} of ${list}.`] : [`Return ${list} with ${list}[${it}] removed.`]),
    ], i.kind === 'const' ? i.value + 1 : 1);
  },
  (rng, c) => {
    const { one, list } = c.ph;
    const i = intArg(rng, rng.int(0, 3), intName(rng, 'index'), (r, xs) => indexIn(r, xs), 0.5);
    const v = intArg(rng, rng.int(0, 9), i.kind === 'param' ? rng.pick(['v', 'x', 'value']) : intName(rng, 'value'), (r) => r.int(-5, 20), 0.5);
    return listFamily(c, 'replace_at', 'list', [i, v], ([I, V]) => ['RETURN', 'CONCAT', 'APPEND', 'SLICE', 'P0', 0, ...I, ...V, 'DROP', 'P0', 'ADD', ...I, 1], ([it, vt]) => [
      `Replace the element at index ${it} with ${vt}.`, `Set position ${it} of ${list} to ${vt}.`, `Return ${list} with the ${one} at index ${it} changed to ${vt}.`,
      ...(i.kind === 'const' ? [`Replace the ${ordinal(rng, i.value + 1)} ${one} by ${vt}.`] : []),
    ], i.kind === 'const' ? i.value + 1 : 1);
  },
  // Rotations.
  (rng, c) => {
    const { el, list } = c.ph;
    const n = rng.int(1, 3);
    const k = intArg(rng, n, intName(rng, 'count'), (r, xs) => r.int(0, xs.length), 0.4);
    const ones = n === 1 && k.kind === 'const' ? [`Rotate ${list} one step to the left: the first element goes to the end.`, `Move the first element to the back.`, `Shift every element one place to the left, the first one wrapping around to the end.`] : [];
    return listFamily(c, 'rotate_left', 'list', [k], ([K]) => ['RETURN', 'CONCAT', 'DROP', 'P0', ...K, 'SLICE', 'P0', 0, ...K], ([t]) => [
      ...ones, `Rotate ${list} left by ${t}.`, `Rotate ${list} to the left by ${t} positions.`, `Move the first ${t} ${el} to the end, keeping their order.`,
    ], k.kind === 'const' ? n : 0);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const n = rng.int(1, 3);
    const k = intArg(rng, n, intName(rng, 'count'), (r, xs) => r.int(0, xs.length), 0.4);
    const cut = ['SUB', 'LEN', 'P0'];
    const ones = n === 1 && k.kind === 'const' ? [`Rotate ${list} one step to the right: the last element comes first.`, `Move the last element to the front.`, `Shift every element one place to the right, the last one wrapping around to the start.`] : [];
    return listFamily(c, 'rotate_right', 'list', [k], ([K]) => ['RETURN', 'CONCAT', 'DROP', 'P0', ...cut, ...K, 'SLICE', 'P0', 0, ...cut, ...K], ([t]) => [
      ...ones, `Rotate ${list} right by ${t}.`, `Rotate ${list} to the right by ${t} places.`, `Move the last ${t} ${el} to the front, keeping their order.`,
    ], k.kind === 'const' ? n : 0);
  },
  (rng, c) => {
    const { list } = c.ph;
    const [ext, word] = rng.pick([['MINL', 'smallest'], ['MAXL', 'largest']] as const);
    return listFamily(c, `rotate_to_${word}`, 'list', [], () => ['LET_INT', 'INDEXOF', 'P0', ext, 'P0', 'RETURN', 'CONCAT', 'DROP', 'P0', 'V0', 'SLICE', 'P0', 0, 'V0'], () => [
      `Rotate ${list} so that it starts at its ${word} element.`, `Rotate the list until the ${word} value is first; the elements before it move to the end.`, `Return ${list} rotated to begin with its ${word} number (its first occurrence).`,
    ], 1);
  },
  // Repeating the list, mirroring it, repeating one element.
  (rng, c) => {
    const { list } = c.ph;
    const times = rng.pick([2, 2, 3]);
    const body = times === 2 ? ['RETURN', 'CONCAT', 'P0', 'P0'] : ['RETURN', 'CONCAT', 'CONCAT', 'P0', 'P0', 'P0'];
    const t = times === 2 ? rng.pick(['twice', 'two times']) : rng.pick(['three times', 'three times over']);
    return listFamily(c, 'repeat_list', 'list', [], () => body, () => [
      `Return ${list} repeated ${t}.`, `Repeat the whole list ${t}.`, ...(times === 2 ? [`Return ${list} followed by a copy of itself.`, `Concatenate ${list} with itself.`, `Join two copies of ${list}.`] : [`Concatenate three copies of ${list}.`]),
    ]);
  },
  (rng, c) => {
    const { list } = c.ph;
    return rng.chance(0.6)
      ? listFamily(c, 'mirror', 'list', [], () => ['RETURN', 'CONCAT', 'P0', 'REVERSE', 'P0'], () => [`Return ${list} followed by its reverse.`, `Append the reversed list to ${list}.`, `Mirror the list: [1, 2, 3] becomes [1, 2, 3, 3, 2, 1].`, `Return the list and then the same elements in reverse order.`])
      : listFamily(c, 'mirror_before', 'list', [], () => ['RETURN', 'CONCAT', 'REVERSE', 'P0', 'P0'], () => [`Return the reverse of ${list} followed by ${list}.`, `Put a reversed copy of the list in front of it.`]);
  },
  (rng, c) => {
    const { one, list } = c.ph;
    const v = intArg(rng, rng.int(0, 9), intName(rng, 'value'), (r) => r.int(-5, 20), 0.6);
    const where = rng.int(0, 2);
    const body = (V: (string | number)[]) => (where === 0 ? ['RETURN', 'CONCAT', 'SINGLE', ...V, 'P0'] : where === 1 ? ['RETURN', 'APPEND', 'P0', ...V] : ['RETURN', 'CONCAT', 'SINGLE', ...V, 'APPEND', 'P0', ...V]);
    const docs = (t: string) => where === 0
      ? [`Put ${t} at the front of ${list}.`, `Prepend ${t} to ${list}.`, `Insert ${t} at the start of the list.`, `Return ${list} with ${t} added before the first ${one}.`, `Add ${t} to the beginning of ${list}.`]
      : where === 1 ? [`Append ${t} to ${list}.`, `Add ${t} at the end of ${list}.`, `Return ${list} with ${t} added after the last ${one}.`]
        : [`Put ${t} both at the start and at the end of ${list}.`, `Surround ${list} with ${t} on both sides.`, `Add ${t} to the front and to the back of the list.`];
    return listFamily(c, ['prepend', 'append', 'surround'][where], 'list', [v], ([V]) => body(V), ([t]) => docs(t));
  },
  (rng, c) => {
    const { one, list } = c.ph;
    const options = [
      { name: 'append_first', body: ['RETURN', 'APPEND', 'P0', 'AT', 'P0', 0], docs: [`Append a copy of the first ${one} to the end of ${list}.`, `Repeat the first element at the end.`] },
      { name: 'prepend_last', body: ['RETURN', 'CONCAT', 'SINGLE', ...LAST('P0'), 'P0'], docs: [`Put a copy of the last ${one} at the front.`, `Prepend the last element to ${list}.`] },
      { name: 'repeat_last', body: ['RETURN', 'APPEND', 'APPEND', 'P0', ...LAST('P0'), ...LAST('P0')], docs: [`Append two more copies of the last ${one}.`, `Repeat the last element twice more at the end of ${list}.`] },
      { name: 'repeat_first', body: ['RETURN', 'CONCAT', 'SINGLE', 'AT', 'P0', 0, 'P0'], docs: [`Duplicate the first ${one}.`, `Repeat the first element: [4, 5] becomes [4, 4, 5].`, `Return ${list} with its first ${one} doubled up at the start.`] },
      { name: 'append_max', body: ['RETURN', 'APPEND', 'P0', 'MAXL', 'P0'], docs: [`Append the largest ${one} to the end of ${list}.`, `Add a copy of the maximum at the end.`] },
    ];
    const o = rng.pick(options);
    return listFamily(c, o.name, 'list', [], () => o.body, () => o.docs, 1);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const times = intArg(rng, rng.pick([2, 2, 3]), intName(rng, 'count'), (r) => r.int(0, 3), 0.3);
    const body = (K: (string | number)[]) => (times.kind === 'const' && times.value === 2 ? ['LET_LIST', 'EMPTY', 'FOR_OF', 'P0', 'SET0', 'APPEND', 'APPEND', 'V0', 'X', 'X', 'END', 'RETURN', 'V0'] : ['LET_LIST', 'EMPTY', 'FOR_OF', 'P0', 'FOR', 0, ...K, 'SET0', 'APPEND', 'V0', 'X', 'END', 'END', 'RETURN', 'V0']);
    return listFamily(c, 'repeat_each', 'list', [times], ([K]) => body(K), ([t]) => [
      `Repeat every ${one} ${t === 'two' || t === '2' ? 'twice' : `${t} times`}.`, `Return each ${one} of ${list} repeated ${t} times, in order.`, ...(t === '2' || t === 'two' ? [`Duplicate each ${one} in place: [1, 2] becomes [1, 1, 2, 2].`, `Return the ${el} with every one written twice.`] : []),
    ]);
  },
  // Swapping the ends, the middle, the halves, every other element.
  (rng, c) => {
    const { one, list } = c.ph;
    return listFamily(c, 'swap_ends', 'list', [], () => ['RETURN', 'CONCAT', 'CONCAT', 'SINGLE', ...LAST('P0'), 'SLICE', 'P0', 1, 'SUB', 'LEN', 'P0', 1, 'SINGLE', 'AT', 'P0', 0], () => [
      `Swap the first and last elements of ${list}.`, `Exchange the first ${one} with the last one.`, `Return ${list} with its first and last elements swapped.`,
    ], 2);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const half = ['DIV', 'LEN', 'P0', 2];
    const o = rng.pick([
      { name: 'middle', ret: 'int' as const, body: ['RETURN', 'AT', 'P0', ...half], docs: [`Return the middle ${one} of ${list} (for an even length, the later of the two middle ones).`, `Return the element at index len / 2, rounded down.`] },
      { name: 'remove_middle', ret: 'list' as const, body: ['RETURN', 'CONCAT', 'SLICE', 'P0', 0, ...half, 'DROP', 'P0', 'ADD', ...half, 1], docs: [`Remove the middle ${one} (the one at index len / 2, rounded down).`, `Return ${list} without its middle element.`] },
      { name: 'first_half', ret: 'list' as const, body: ['RETURN', 'SLICE', 'P0', 0, ...half], docs: [`Return the first half of ${list}; for an odd length the middle ${one} is not included.`, `Return the first len / 2 ${el} (rounded down).`] },
      { name: 'second_half', ret: 'list' as const, body: ['RETURN', 'DROP', 'P0', ...half], docs: [`Return the second half of ${list}, including the middle ${one} when the length is odd.`, `Drop the first half of the list (len / 2 ${el}, rounded down).`] },
      { name: 'swap_halves', ret: 'list' as const, body: ['RETURN', 'CONCAT', 'DROP', 'P0', ...half, 'SLICE', 'P0', 0, ...half], docs: [`Swap the two halves of ${list}: the second half (from index len / 2) comes first.`] },
    ]);
    return listFamily(c, o.name, o.ret, [], () => o.body, () => o.docs, 1);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const parity = rng.int(0, 1);
    return listFamily(c, parity ? 'odd_positions' : 'even_positions', 'list', [], () => ['RETURN', 'MAP', 'FILTER', 'RANGE', 'LEN', 'P0', 'EQ', 'MOD', 'X', 2, parity, 'AT', 'P0', 'X'], () => parity
      ? [`Return the ${el} at odd indices (1, 3, 5, ...).`, `Return every other ${el.slice(0, -1)}, starting with the second.`, `Keep the ${el} at odd positions, counting from 0.`]
      : [`Return the ${el} at even indices (0, 2, 4, ...).`, `Return every other ${el.slice(0, -1)}, starting with the first.`, `Keep the ${el} at even positions of ${list}.`]);
  },
];

const relative: Family[] = [
  (rng, c) => {
    const { one, list } = c.ph;
    const [ext, word] = rng.pick([['MAXL', 'largest'], ['MINL', 'smallest'], ['MAXL', 'maximum'], ['MINL', 'minimum']] as const);
    return listFamily(c, `index_of_${word}`, 'int', [], () => ['RETURN', 'INDEXOF', 'P0', ext, 'P0'], () => [
      `Return the index of the ${word} ${one} (the first one if it appears more than once).`, `Where is the ${word} value? Return its position, counting from 0.`, `Return the position of the first occurrence of the ${word} ${one} in ${list}.`,
    ], 1);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const refs = [
      { body: ['AT', 'P0', 0], says: ['the first element', `the first ${one}`] },
      { body: LAST('P0'), says: ['the last element', `the last ${one}`] },
      { body: ['LEN', 'P0'], says: ['the length of the list', `the number of ${el}`] },
      { body: ['DIV', ...SUM(['P0']), 'LEN', 'P0'], says: ['the mean (rounded down)', 'the average, rounded down'] },
    ];
    const ref = rng.pick(refs);
    const [cmp, word] = rng.pick([['GT', 'greater than'], ['LT', 'less than'], ['EQ', 'equal to'], ['GT', 'larger than'], ['LT', 'smaller than'], ['GE', 'at least']] as const);
    const rs = rng.pick(ref.says);
    return rng.chance(0.5)
      ? listFamily(c, 'count_relative', 'int', [], () => ['RETURN', 'LEN', 'FILTER', 'P0', cmp, 'X', ...ref.body], () => [`Count the ${el} ${word} ${rs}.`, `How many ${el} of ${list} are ${word} ${rs}?`, `Return the number of ${el} that are ${word} ${rs}.`], 1)
      : listFamily(c, 'filter_relative', 'list', [], () => ['RETURN', 'FILTER', 'P0', cmp, 'X', ...ref.body], () => [`Keep the ${el} ${word} ${rs}.`, `Return the ${el} of ${list} that are ${word} ${rs}, in order.`, `Remove every ${one} that is not ${word} ${rs}.`], 1);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const pred = subst(c.p.body, 'X', ['AT', 'P0', 'X']);
    const says = c.adj ? [`Return the indices of the ${c.adj} ${el}.`, `Return the positions of the ${c.adj} ${el} in ${list}, in increasing order.`] : [];
    return listFamily(c, 'indices_where', 'list', [], () => ['RETURN', 'FILTER', 'RANGE', 'LEN', 'P0', ...pred], () => [...says, `Return the indices of the ${el} that are ${c.pr}.`, `Return every index i where ${list}[i] is ${c.pr}.`, `List the positions (from 0) of the ${el} that are ${c.pr}.`]);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const [cmp, word] = rng.pick([['EQ', 'equal to'], ['GT', 'greater than'], ['LT', 'less than']] as const);
    const mode = rng.int(0, 2);
    const body = mode === 0 ? ['RETURN', 'LEN', 'FILTER', 'RANGE', 'LEN', 'P0', cmp, 'AT', 'P0', 'X', 'X'] : mode === 1 ? ['RETURN', 'MAPB', 'RANGE', 'LEN', 'P0', cmp, 'AT', 'P0', 'X', 'X'] : ['RETURN', 'FILTER', 'RANGE', 'LEN', 'P0', cmp, 'AT', 'P0', 'X', 'X'];
    const docs = mode === 0 ? [`Count the ${el} that are ${word} their own index.`, `How many ${el} are ${word} their position (counting from 0)?`, `Return the number of indices i with ${list}[i] ${word} i.`]
      : mode === 1 ? [`For each ${one}, return whether it is ${word} its index.`, `Return a list of true or false: is each ${one} ${word} its position (from 0)?`]
        : [`Return the indices i where ${list}[i] is ${word} i.`, `Return the positions whose ${one} is ${word} the position itself.`];
    return listFamily(c, ['count_vs_index', 'flags_vs_index', 'indices_vs_index'][mode], mode === 0 ? 'int' : mode === 1 ? 'blist' : 'list', [], () => body, () => docs);
  },
  (rng, c) => {
    const { one, list } = c.ph;
    const o = rng.pick([
      { op: 'ADD', docs: [`Add its index to each ${one}.`, `Return a list where each ${one} is increased by its position (from 0).`, `Return ${list}[i] + i for every index i.`] },
      { op: 'MUL', docs: [`Multiply each ${one} by its index.`, `Return each ${one} times its position, counting from 0.`] },
      { op: 'SUB', docs: [`Subtract its index from each ${one}.`, `Return ${list}[i] - i for every index i.`] },
      { op: 'MIN2', docs: [`Replace each ${one} by the smaller of the ${one} and its index.`, `Return the minimum of each element and its position.`] },
      { op: 'MAX2', docs: [`Replace each ${one} by the larger of it and its index.`] },
    ]);
    return listFamily(c, 'index_map', 'list', [], () => ['RETURN', 'MAP', 'RANGE', 'LEN', 'P0', o.op, 'AT', 'P0', 'X', 'X'], () => o.docs);
  },
  // Neighbours: differences, sums, counts of rises, sortedness, totals.
  (rng, c) => {
    const { el, one, list } = c.ph;
    const next = ['AT', 'P0', 'ADD', 'X', 1];
    const here = ['AT', 'P0', 'X'];
    const o = rng.pick([
      { name: 'differences', ret: 'list' as const, body: ['RETURN', 'MAP', ...PAIRS, 'SUB', ...next, ...here], docs: [`Return the differences between consecutive ${el}: each ${one} minus the one before it.`, `Return a list of ${list}[i + 1] - ${list}[i] for each pair of neighbours.`] },
      { name: 'pair_sums', ret: 'list' as const, body: ['RETURN', 'MAP', ...PAIRS, 'ADD', ...here, ...next], docs: [`Return the sums of neighbouring ${el}.`, `Add each ${one} to the next one; the result is one shorter than ${list}.`] },
      { name: 'count_rises', ret: 'int' as const, body: ['RETURN', 'LEN', 'FILTER', ...PAIRS, 'GT', ...next, ...here], docs: [`Count how many times an ${one} is larger than the one before it.`, `How many ${el} are greater than their previous ${one}?`] },
      { name: 'count_falls', ret: 'int' as const, body: ['RETURN', 'LEN', 'FILTER', ...PAIRS, 'LT', ...next, ...here], docs: [`Count how many times an ${one} is smaller than the one before it.`] },
      { name: 'count_equal_neighbours', ret: 'int' as const, body: ['RETURN', 'LEN', 'FILTER', ...PAIRS, 'EQ', ...next, ...here], docs: [`Count the pairs of neighbouring ${el} that are equal.`, `How many times is an ${one} the same as the next one?`] },
      { name: 'is_sorted', ret: 'bool' as const, body: ['RETURN', 'EQ', 'LEN', 'FILTER', ...PAIRS, 'GT', ...here, ...next, 0], docs: [`Return true if ${list} is sorted in ascending order.`, `Check whether every ${one} is at least the one before it.`, `Is the list in non-decreasing order?`] },
      { name: 'has_equal_neighbours', ret: 'bool' as const, body: ['RETURN', 'GT', 'LEN', 'FILTER', ...PAIRS, 'EQ', ...here, ...next, 0], docs: [`Return true if two neighbouring ${el} are equal.`, `Does ${list} have the same value twice in a row?`] },
      { name: 'total_variation', ret: 'int' as const, body: ['RETURN', 'REDUCE', ...PAIRS, 0, 'ADD', 'ACC', 'ABS', 'SUB', ...next, ...here], docs: [`Add up the absolute differences between neighbouring ${el}.`, `Return the sum of |${list}[i + 1] - ${list}[i]| over the list.`] },
      { name: 'adjacent_products', ret: 'int' as const, body: ['RETURN', 'REDUCE', ...PAIRS, 0, 'ADD', 'ACC', 'MUL', ...here, ...next], docs: [`Return the sum of the products of neighbouring ${el}.`, `Add up ${list}[i] * ${list}[i + 1] over every pair of neighbours.`] },
    ]);
    return listFamily(c, o.name, o.ret, [], () => o.body, () => o.docs);
  },
  // The k-th largest or smallest, sums of the largest or smallest few.
  (rng, c) => {
    const { el, list } = c.ph;
    const n = rng.int(1, 3);
    const ord = ordinal(rng, n);
    const o = rng.pick([
      { name: 'kth_smallest', body: ['RETURN', 'AT', 'SORT', 'P0', n - 1], docs: [`Return the ${ord} smallest element of ${list}.`, `Sort ${list} and return its ${ord} element.`] },
      { name: 'kth_largest', body: ['RETURN', 'AT', 'REVERSE', 'SORT', 'P0', n - 1], docs: [`Return the ${ord} largest element.`, `Return the ${ord} biggest value in ${list} (repeated values count separately).`] },
      { name: 'sum_largest', body: ['RETURN', 'REDUCE', 'SLICE', 'REVERSE', 'SORT', 'P0', 0, n + 1, 0, 'ADD', 'ACC', 'X'], docs: [`Return the sum of the ${say(n + 1)} largest ${el}.`, `Add up the ${say(n + 1)} biggest values of ${list}.`] },
      { name: 'sum_smallest', body: ['RETURN', 'REDUCE', 'SLICE', 'SORT', 'P0', 0, n + 1, 0, 'ADD', 'ACC', 'X'], docs: [`Return the sum of the ${say(n + 1)} smallest ${el}.`] },
    ]);
    return listFamily(c, o.name, 'int', [], () => o.body, () => o.docs, n + 1);
  },
  // Before or after a value; first and last together; majorities.
  (rng, c) => {
    const { el, list } = c.ph;
    const v = intArg(rng, rng.int(0, 5), intName(rng, 'value'), (r, xs) => (xs.length && r.chance(0.7) ? r.pick(xs) : r.int(0, 5)), 0.4);
    const o = rng.int(0, 2);
    return o === 0
      ? listFamily(c, 'before_value', 'list', [v], ([V]) => ['RETURN', 'SLICE', 'P0', 0, 'COND', 'INCLUDES', 'P0', ...V, 'INDEXOF', 'P0', ...V, 'LEN', 'P0'], ([t]) => [`Return the ${el} before the first ${t}; if there is no ${t}, return the whole list.`, `Return everything in ${list} that comes before the first occurrence of ${t} (all of it when ${t} does not appear).`])
      : o === 1 ? listFamily(c, 'after_value', 'list', [v], ([V]) => ['RETURN', 'DROP', 'P0', 'ADD', 'INDEXOF', 'P0', ...V, 1], ([t]) => [`Return the ${el} after the first ${t}; if there is no ${t}, return the whole list.`, `Return the part of ${list} that follows the first occurrence of ${t}, or all of ${list} when ${t} is absent.`])
        : listFamily(c, 'sum_before_value', 'int', [v], ([V]) => ['RETURN', ...SUM(['SLICE', 'P0', 0, 'COND', 'INCLUDES', 'P0', ...V, 'INDEXOF', 'P0', ...V, 'LEN', 'P0'])], ([t]) => [`Sum the ${el} that come before the first ${t}; if there is no ${t}, sum the whole list.`]);
  },
  (rng, c) => {
    const { one, list } = c.ph;
    const first = ['AT', 'P0', 0];
    const o = rng.pick([
      { name: 'sum_ends', ret: 'int' as const, body: ['RETURN', 'ADD', ...first, ...LAST('P0')], docs: [`Return the sum of the first and last elements.`, `Add the first element of ${list} to its last element.`] },
      { name: 'ends_equal', ret: 'bool' as const, body: ['RETURN', 'EQ', ...first, ...LAST('P0')], docs: [`Return true if the first and last elements are equal.`, `Does ${list} start and end with the same value?`] },
      { name: 'last_minus_first', ret: 'int' as const, body: ['RETURN', 'SUB', ...LAST('P0'), ...first], docs: [`Return the last ${one} minus the first one.`] },
      { name: 'first_is_max', ret: 'bool' as const, body: ['RETURN', 'EQ', ...first, 'MAXL', 'P0'], docs: [`Return true if the first ${one} is the largest.`, `Is the first element of ${list} a maximum?`] },
    ]);
    return listFamily(c, o.name, o.ret, [], () => o.body, () => o.docs, 1);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const half = rng.chance(0.7);
    const body = half ? ['RETURN', 'GT', 'MUL', 2, 'LEN', 'FILTER', 'P0', ...c.p.body, 'LEN', 'P0'] : ['RETURN', 'GE', 'MUL', 2, 'LEN', 'FILTER', 'P0', ...c.p.body, 'LEN', 'P0'];
    return listFamily(c, half ? 'majority' : 'at_least_half', 'bool', [], () => body, () => half
      ? [`Return true if more than half of the ${el} are ${c.pr}.`, `Are most of the ${el} of ${list} ${c.pr}?`, `Check whether the ${el} that are ${c.pr} are a strict majority.`]
      : [`Return true if at least half of the ${el} are ${c.pr}.`]);
  },
  // Two lists.
  (rng, c) => {
    const ys = c.ph.xs === 'xs' ? 'ys' : rng.pick(['ys', 'other', 'zs']);
    const xs = c.ph.xs;
    const at = (p: string) => ['AT', p, 'X'];
    const both = ['RANGE', 'MIN2', 'LEN', 'P0', 'LEN', 'P1'];
    const o = rng.pick([
      { name: 'add_lists', ret: 'list' as const, body: ['RETURN', 'MAP', ...both, 'ADD', ...at('P0'), ...at('P1')], docs: [`Add ${xs} and ${ys} element by element.`, `Return the element-wise sum of the two lists.`] },
      { name: 'max_lists', ret: 'list' as const, body: ['RETURN', 'MAP', ...both, 'MAX2', ...at('P0'), ...at('P1')], docs: [`Return the element-wise maximum of ${xs} and ${ys}.`, `At each position, keep the larger of the two values.`] },
      { name: 'count_same', ret: 'int' as const, body: ['RETURN', 'LEN', 'FILTER', ...both, 'EQ', ...at('P0'), ...at('P1')], docs: [`Count the positions where ${xs} and ${ys} have the same value.`, `How many indices i have ${xs}[i] equal to ${ys}[i]?`] },
      { name: 'indices_bigger', ret: 'list' as const, body: ['RETURN', 'FILTER', ...both, 'GT', ...at('P0'), ...at('P1')], docs: [`Return the indices i where ${xs}[i] is greater than ${ys}[i].`, `Return the positions at which the first list has the larger value.`] },
      { name: 'dot', ret: 'int' as const, body: ['RETURN', 'REDUCE', ...both, 0, 'ADD', 'ACC', 'MUL', ...at('P0'), ...at('P1')], docs: [`Return the dot product of ${xs} and ${ys}.`, `Multiply the lists element by element and add up the products.`] },
      { name: 'join_lists', ret: 'list' as const, body: ['RETURN', 'CONCAT', 'P0', 'P1'], docs: [`Return ${xs} followed by ${ys}.`, `Concatenate the two lists.`] },
      { name: 'join_reversed', ret: 'list' as const, body: ['RETURN', 'CONCAT', 'P1', 'P0'], docs: [`Return ${ys} followed by ${xs}.`] },
      { name: 'common', ret: 'list' as const, body: ['RETURN', 'FILTER', 'P0', 'INCLUDES', 'P1', 'X'], docs: [`Return the ${c.ph.el} of ${xs} that also appear in ${ys}.`, `Keep the values of the first list that the second list contains.`] },
      { name: 'not_in', ret: 'list' as const, body: ['RETURN', 'FILTER', 'P0', 'NOT', 'INCLUDES', 'P1', 'X'], docs: [`Return the ${c.ph.el} of ${xs} that do not appear in ${ys}.`, `Remove from ${xs} every value that is in ${ys}.`] },
      { name: 'larger_sum', ret: 'list' as const, body: ['RETURN', 'LCOND', 'GT', ...SUM(['P1']), ...SUM(['P0']), 'P1', 'P0'], docs: [`Return whichever list has the larger sum; ${xs} when the sums are equal.`, `Return the list with the bigger total (the first one on a tie).`] },
      { name: 'alternate', ret: 'list' as const, body: ['RETURN', 'MAP', ...both, 'COND', 'EQ', 'MOD', 'X', 2, 0, ...at('P0'), ...at('P1')], docs: [`Build a list taking ${xs}[i] at even i and ${ys}[i] at odd i.`, `Alternate between the two lists: even positions from the first, odd positions from the second.`] },
    ]);
    return {
      name: o.name, sig: { params: ['list', 'list'], ret: o.ret }, body: o.body, docs: o.docs, params: [xs, ys],
      inputs: (r: Rng) => {
        const a = randomList(r);
        return [a, r.chance(0.7) ? randomList(r).concat(Array.from({ length: 8 }, () => r.int(-5, 12))).slice(0, a.length) : randomList(r)];
      },
    };
  },
];

/** The indices 1 .. n - 2: the elements that have a neighbour on each side. */
const INNER = ['MAP', 'RANGE', 'MAX2', 0, 'SUB', 'LEN', 'P0', 2, 'ADD', 'X', 1];
/** The neighbouring pairs' indices of another list. */
const pairsOf = (list: string) => ['RANGE', 'MAX2', 0, 'SUB', 'LEN', list, 1];

/**
 * Shapes of a list that people ask about with words the other families do not use (issue 34,
 * fifth round): neighbours both matching, the two ends, peaks and valleys, records, the rest
 * against the first element, gaps of the sorted values, even positions then odd ones, an
 * element equal to the sum of the others.
 */
const shapes: Family[] = [
  (rng, c) => {
    const { el, one, list } = c.ph;
    const here = subst(c.p.body, 'X', ['AT', 'P0', 'X']);
    const next = subst(c.p.body, 'X', ['AT', 'P0', 'ADD', 'X', 1]);
    const both = ['FILTER', ...PAIRS, 'AND', ...here, ...next];
    const who = c.adj ? `two ${c.adj} ${el}` : `two ${el} that are ${c.pr}`;
    return rng.chance(0.6)
      ? listFamily(c, 'neighbours_both', 'bool', [], () => ['RETURN', 'GT', 'LEN', ...both, 0], () => [
        `Are there two neighbouring ${el} that are both ${c.pr}?`, `Does ${list} have ${who} next to each other?`, `Return true if some ${one} and the next one are both ${c.pr}.`, `Check whether ${who} are adjacent somewhere in ${list}.`,
      ])
      : listFamily(c, 'count_neighbours_both', 'int', [], () => ['RETURN', 'LEN', ...both], () => [
        `How many pairs of neighbouring ${el} are both ${c.pr}?`, `Count the places where an ${one} and the one after it are both ${c.pr}.`, `Count the adjacent pairs of ${el} in which both are ${c.pr}.`,
      ]);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const first = subst(c.p.body, 'X', ['AT', 'P0', 0]);
    const last = subst(c.p.body, 'X', LAST('P0'));
    const op = rng.pick(['AND', 'OR'] as const);
    const docs = op === 'AND'
      ? [`Are both the first and the last ${one} ${c.pr}?`, `Return true if the first ${one} and the last ${one} of ${list} are both ${c.pr}.`, `Do both ends of ${list} hold ${c.adj ? `an ${c.adj} ${one}` : `an ${one} that is ${c.pr}`}?`, `Check that ${list} starts and ends with ${c.adj ? `an ${c.adj} ${one}` : `${el} that are ${c.pr}`}.`]
      : [`Is the first or the last ${one} ${c.pr}?`, `Return true if at least one end of ${list} is ${c.pr}.`, `Does ${list} start or end with ${c.adj ? `an ${c.adj} ${one}` : `an ${one} that is ${c.pr}`}?`];
    return listFamily(c, op === 'AND' ? 'ends_both' : 'ends_either', 'bool', [], () => ['RETURN', op, ...first, ...last], () => docs, 1);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const [cmp, word, noun] = rng.pick([['GT', 'larger', 'local maxima'], ['LT', 'smaller', 'local minima'], ['GT', 'bigger', 'peaks'], ['LT', 'lower', 'valleys']] as const);
    const inner = ['FILTER', ...INNER, 'AND', cmp, 'AT', 'P0', 'X', 'AT', 'P0', 'SUB', 'X', 1, cmp, 'AT', 'P0', 'X', 'AT', 'P0', 'ADD', 'X', 1];
    const mode = rng.int(0, 2);
    const said = [`strictly ${word} than both of their neighbours`, `${word} than the ${one} before and the ${one} after them`, `${word} than the ${el} on either side`];
    const that = rng.pick(said);
    const docs = mode === 0
      ? [`Keep the ${el} that are ${that}.`, `Return the ${noun} of ${list}: the ${el} ${that}. The first and last ${el} never count.`, `Return every ${one} ${that}, in order.`]
      : mode === 1 ? [`Count the ${el} that are ${that}.`, `How many ${noun} does ${list} have? An ${one} counts when it is ${that}.`]
        : [`Return the indices of the ${el} that are ${that}.`, `Return the positions of the ${noun} of ${list}.`];
    const body = mode === 0 ? ['RETURN', 'MAP', ...inner, 'AT', 'P0', 'X'] : mode === 1 ? ['RETURN', 'LEN', ...inner] : ['RETURN', ...inner];
    return listFamily(c, ['keep_peaks', 'count_peaks', 'peak_indices'][mode] + (cmp === 'LT' ? '_low' : ''), mode === 1 ? 'int' : 'list', [], () => body, () => docs);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const [cmp, word] = rng.pick([['GT', 'larger'], ['GT', 'greater'], ['LT', 'smaller']] as const);
    const extreme = cmp === 'GT' ? 'MAXL' : 'MINL';
    const records = ['FILTER', 'RANGE', 'LEN', 'P0', 'OR', 'EQ', 'X', 0, cmp, 'AT', 'P0', 'X', extreme, 'SLICE', 'P0', 0, 'X'];
    const that = rng.pick([`strictly ${word} than every ${one} before it`, `${word} than all the ${el} before it`, `a new record (${word} than everything earlier)`]);
    const mode = rng.int(0, 2);
    const docs = mode === 0
      ? [`Return the indices of the ${el} that are ${that}. Index 0 always counts.`, `Return each position whose ${one} is ${that}.`]
      : mode === 1 ? [`Keep the ${el} that are ${that}; the first ${one} always counts.`, `Return the running records of ${list}: each ${one} ${that}.`]
        : [`Count the ${el} that are ${that}.`, `How many times does ${list} set a new record, counting the first ${one}?`];
    const body = mode === 0 ? ['RETURN', ...records] : mode === 1 ? ['RETURN', 'MAP', ...records, 'AT', 'P0', 'X'] : ['RETURN', 'LEN', ...records];
    return listFamily(c, ['record_indices', 'records', 'count_records'][mode] + (cmp === 'LT' ? '_low' : ''), mode === 2 ? 'int' : 'list', [], () => body, () => docs);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const firstEl = ['AT', 'P0', 0];
    const o = rng.pick([
      { name: 'all_multiples_of_first', body: ['EQ', 'LEN', 'FILTER', 'P0', 'NE', 'MOD', 'X', ...firstEl, 0, 0], docs: [`Is every ${one} a multiple of the first ${one}?`, `Return true if the first ${one} divides every ${one} of ${list}.`, `Check that all the ${el} are divisible by the first one.`] },
      { name: 'first_is_smallest', body: ['EQ', 'LEN', 'FILTER', 'P0', 'LT', 'X', ...firstEl, 0], docs: [`Is the first ${one} the smallest?`, `Return true if no ${one} is smaller than the first one.`, `Check that every ${one} is at least the first ${one}.`] },
      { name: 'first_is_largest', body: ['EQ', 'LEN', 'FILTER', 'P0', 'GT', 'X', ...firstEl, 0], docs: [`Is the first ${one} the largest?`, `Return true if no ${one} of ${list} is bigger than the first.`] },
      { name: 'last_is_largest', body: ['EQ', 'LEN', 'FILTER', 'P0', 'GT', 'X', ...LAST('P0'), 0], docs: [`Is the last ${one} the largest?`, `Return true if nothing in ${list} is bigger than its last ${one}.`] },
      { name: 'first_repeats', body: ['GT', 'LEN', 'FILTER', 'DROP', 'P0', 1, 'EQ', 'X', ...firstEl, 0], docs: [`Does the first ${one} appear again later in ${list}?`, `Return true if the first value occurs more than once.`] },
    ]);
    return listFamily(c, o.name, 'bool', [], () => ['RETURN', ...o.body], () => o.docs, 1);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const gaps = ['MAP', ...pairsOf('V0'), 'SUB', 'AT', 'V0', 'ADD', 'X', 1, 'AT', 'V0', 'X'];
    const largest = rng.chance(0.5);
    const docs = largest
      ? [`After sorting ${list}, what is the largest difference between two consecutive values?`, `Return the biggest gap between neighbouring values of the sorted list.`, `Sort the ${el}; return the largest step from one to the next.`]
      : [`Return the smallest difference between any two ${el} of ${list}.`, `What is the smallest gap between two values of ${list} once it is sorted?`, `How close are the two closest ${el}?`];
    return listFamily(c, largest ? 'largest_sorted_gap' : 'smallest_gap', 'int', [], () => ['LET_LIST', 'SORT', 'P0', 'RETURN', largest ? 'MAXL' : 'MINL', ...gaps], () => docs, 2);
  },
  (rng, c) => {
    const { el, list } = c.ph;
    const at = (parity: number) => ['MAP', 'FILTER', 'RANGE', 'LEN', 'P0', 'EQ', 'MOD', 'X', 2, parity, 'AT', 'P0', 'X'];
    const evenFirst = rng.chance(0.6);
    const [a, b] = evenFirst ? ['even', 'odd'] : ['odd', 'even'];
    const [ia, ib] = evenFirst ? ['0, 2, 4, ...', '1, 3, 5, ...'] : ['1, 3, 5, ...', '0, 2, 4, ...'];
    return listFamily(c, evenFirst ? 'even_then_odd_positions' : 'odd_then_even_positions', 'list', [], () => ['RETURN', 'CONCAT', ...at(evenFirst ? 0 : 1), ...at(evenFirst ? 1 : 0)], () => [
      `Return the ${el} at ${a} indices (${ia}) followed by the ${el} at ${b} indices (${ib}).`, `Put the ${el} at ${a} positions first, then those at ${b} positions, each in order.`, `Reorder ${list}: first every ${el.replace(/s$/, '')} with an ${a} index, then every one with an ${b} index.`,
    ]);
  },
  (rng, c) => {
    const { el, one, list } = c.ph;
    const total = ['REDUCE', 'P0', 0, 'ADD', 'ACC', 'Y'];
    return rng.chance(0.6)
      ? listFamily(c, 'one_is_sum_of_rest', 'bool', [], () => ['RETURN', 'GT', 'LEN', 'FILTER', 'P0', 'EQ', 'MUL', 2, 'X', ...total, 0], () => [
        `Is there an ${one} equal to the sum of all the other ${el}?`, `Return true if some ${one} of ${list} is the total of the rest.`, `Does one ${one} equal the sum of the others?`,
      ])
      : listFamily(c, 'half_of_total', 'list', [], () => ['RETURN', 'FILTER', 'P0', 'EQ', 'MUL', 2, 'X', ...total], () => [
        `Return the ${el} that equal the sum of all the other ${el}.`, `Keep each ${one} that is as large as the rest of ${list} put together.`,
      ]);
  },
];

/** One of the position, relative-index and shape families. */
export function positionFamily(rng: Rng, c: Context): Spec {
  const u = rng.next();
  return rng.pick(u < 0.45 ? edits : u < 0.82 ? relative : shapes)(rng, c);
}

