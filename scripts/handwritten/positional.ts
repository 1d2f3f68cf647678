/** Positional edits: take, drop, slice, insert, remove, rotate, swap, repeat, prepend and append. */
import { EMPTY, SINGLE, listAndMember, nonEmptyList, oneList, type Rng, type Spec } from './types';

const withIndex = (r: Rng, extra = 0) => { const xs = r.list(1, 9); return [xs, r.int(0, xs.length - 1 + extra)]; };
/** A list that holds a 0 or two more often than not. */
const withZeros = (r: Rng) => { const xs = r.list(0, 8, -4, 9); for (let z = r.int(0, 2); z > 0; z--) xs.splice(r.int(0, xs.length), 0, 0); return [xs]; };
const oddLength = (r: Rng) => { const n = 2 * r.int(0, 4) + 1; return [r.list(n, n)]; };

export const positional: Spec[] = [
  // ---- held-out ----
  {
    name: 'first_k', kind: 'positional', split: 'heldout', params: ['xs', 'k'],
    doc: 'Return the first k elements of xs (all of xs if it has fewer than k elements).',
    ref: `function first_k(xs, k) { return xs.slice(0, k); }`,
    draw: (r) => { const xs = r.list(); return [xs, r.bool(0.2) ? r.int(xs.length, xs.length + 3) : r.int(0, xs.length)]; }, edges: [[[], 2], [[4, 5], 0], [[1, 2, 3], 5]],
  },
  {
    name: 'drop_first_n', kind: 'positional', split: 'heldout', params: ['xs', 'n'],
    doc: 'Drop the first n elements and return what remains (an empty list if n is at least the length).',
    ref: `function drop_first_n(xs, n) { return xs.slice(n); }`,
    draw: (r) => { const xs = r.list(); return [xs, r.bool(0.2) ? r.int(xs.length, xs.length + 3) : r.int(0, xs.length)]; }, edges: [[[], 1], [[7, 8], 0], [[7, 8], 3]],
  },
  {
    name: 'last_three', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Give the last three elements of the list, or the whole list if it is shorter than that.',
    ref: `function last_three(xs) { return xs.slice(Math.max(0, xs.length - 3)); }`,
    draw: oneList, edges: [EMPTY, [[1, 2]]],
  },
  {
    name: 'rotate_left', kind: 'positional', split: 'heldout', params: ['xs', 'k'],
    doc: 'Rotate the list to the left by k positions: the first k elements move to the end. k can be larger than the length, in which case the rotation wraps around.',
    ref: `function rotate_left(xs, k) { if (xs.length === 0) return []; const s = k % xs.length; return xs.slice(s).concat(xs.slice(0, s)); }`,
    draw: (r) => [r.list(), r.int(0, 12)], edges: [[[], 3], [[1, 2, 3], 0], [[1, 2, 3], 4]],
  },
  {
    name: 'swap_first_last', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Swap the first and the last element of the list. Lists with fewer than two elements are returned unchanged.',
    ref: `function swap_first_last(xs) { const ys = [...xs]; if (ys.length > 1) { const t = ys[0]; ys[0] = ys[ys.length - 1]; ys[ys.length - 1] = t; } return ys; }`,
    draw: oneList, edges: [EMPTY, SINGLE(4), [[1, 2]]],
  },
  {
    name: 'insert_at', kind: 'positional', split: 'heldout', params: ['xs', 'i', 'v'],
    doc: 'Insert v into xs at index i, shifting later elements to the right. i is between 0 and the length of xs, inclusive.',
    ref: `function insert_at(xs, i, v) { return [...xs.slice(0, i), v, ...xs.slice(i)]; }`,
    draw: (r) => { const xs = r.list(); return [xs, r.int(0, xs.length), r.int(-10, 20)]; },
    edges: [[[], 0, 5], [[1, 2], 2, 9]],
  },
  {
    name: 'remove_at', kind: 'positional', split: 'heldout', params: ['xs', 'i'],
    doc: 'Remove the element at position i (a valid index) and return the shorter list.',
    ref: `function remove_at(xs, i) { return xs.filter((_, j) => j !== i); }`,
    draw: (r) => withIndex(r), edges: [[[6], 0], [[1, 2, 3], 2]],
  },
  {
    name: 'append_value', kind: 'positional', split: 'heldout', params: ['xs', 'v'],
    doc: 'Add v to the end of the list.',
    ref: `function append_value(xs, v) { return [...xs, v]; }`,
    draw: (r) => [r.list(), r.int(-10, 20)], edges: [[[], 0]],
  },
  {
    name: 'prepend_twice', kind: 'positional', split: 'heldout', params: ['xs', 'v'],
    doc: 'Put v at the front of the list two times.',
    ref: `function prepend_twice(xs, v) { return [v, v, ...xs]; }`,
    draw: (r) => [r.list(), r.int(-10, 20)], edges: [[[], 3]],
  },
  {
    name: 'repeat_list_twice', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Return the list followed by a second copy of itself.',
    ref: `function repeat_list_twice(xs) { return [...xs, ...xs]; }`,
    draw: oneList, edges: [EMPTY, SINGLE(1)],
  },
  {
    name: 'reverse_list', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Reverse the order of the elements.',
    ref: `function reverse_list(xs) { return [...xs].reverse(); }`,
    draw: oneList, edges: [EMPTY, SINGLE(-6)],
  },
  {
    name: 'middle_slice', kind: 'positional', split: 'heldout', params: ['xs', 'start', 'stop'],
    doc: 'Return the elements from index start up to, but not including, index stop. You can assume 0 <= start <= stop <= len(xs).',
    ref: `function middle_slice(xs, start, stop) { return xs.slice(start, stop); }`,
    draw: (r) => { const xs = r.list(); const a = r.int(0, xs.length); return [xs, a, r.int(a, xs.length)]; },
    edges: [[[], 0, 0], [[5, 6, 7], 1, 1], [[5, 6, 7], 0, 3]],
  },
  {
    name: 'drop_last_two', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Remove the last two elements. If the list has fewer than two elements, the result is empty.',
    ref: `function drop_last_two(xs) { return xs.slice(0, Math.max(0, xs.length - 2)); }`,
    draw: oneList, edges: [EMPTY, SINGLE(3), [[1, 2, 3]]],
  },
  {
    name: 'second_element', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'What is the second element of the list? The list has at least two elements.',
    ref: `function second_element(xs) { return xs[1]; }`,
    draw: (r) => [r.list(2, 9)], edges: [[[4, -4]]],
  },
  {
    name: 'kth_from_end', kind: 'positional', split: 'heldout', params: ['xs', 'k'],
    doc: 'Return the k-th element counting from the end, where k = 1 means the last element. k is between 1 and the length of xs.',
    ref: `function kth_from_end(xs, k) { return xs[xs.length - k]; }`,
    draw: (r) => { const xs = r.list(1, 9); return [xs, r.int(1, xs.length)]; },
    edges: [[[8], 1], [[1, 2, 3], 3]],
  },
  {
    name: 'repeat_first_element', kind: 'positional', split: 'heldout', params: ['xs', 'n'],
    doc: 'Make a list containing the first element of xs repeated n times. xs is never empty.',
    ref: `function repeat_first_element(xs, n) { return Array(n).fill(xs[0]); }`,
    draw: (r) => [r.list(1, 6), r.int(0, 7)], edges: [[[5], 0], [[-2, 9], 3]],
  },
  {
    name: 'last_to_front', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Move the last element of the list to the front.',
    ref: `function last_to_front(xs) { return xs.length ? [xs[xs.length - 1], ...xs.slice(0, -1)] : []; }`,
    draw: oneList, edges: [EMPTY, SINGLE(2)],
  },
  {
    name: 'replace_at', kind: 'positional', split: 'heldout', params: ['xs', 'i', 'v'],
    doc: 'Set the element at index i to v and return the list. i is always a valid index.',
    ref: `function replace_at(xs, i, v) { return xs.map((x, j) => (j === i ? v : x)); }`,
    draw: (r) => [...withIndex(r), r.int(-10, 20)], edges: [[[0], 0, 1]],
  },
  {
    name: 'duplicate_each', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Write each element twice in a row: [1, 2] becomes [1, 1, 2, 2].',
    ref: `function duplicate_each(xs) { return xs.flatMap((x) => [x, x]); }`,
    draw: oneList, edges: [EMPTY, [[1, 2]]],
  },
  {
    name: 'swap_halves', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Swap the first half of the list with the second half. When the length is odd, the middle element stays in the middle.',
    ref: `function swap_halves(xs) { const n = xs.length, h = Math.floor(n / 2); return [...xs.slice(n - h), ...xs.slice(h, n - h), ...xs.slice(0, h)]; }`,
    draw: oneList, edges: [EMPTY, SINGLE(1), [[1, 2, 3]], [[1, 2, 3, 4]]],
  },
  {
    name: 'first_and_last', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Return a list of two items: the first and the last element of xs. A one-element list gives that element twice.',
    ref: `function first_and_last(xs) { return [xs[0], xs[xs.length - 1]]; }`,
    draw: nonEmptyList, edges: [SINGLE(7)],
  },
  {
    name: 'drop_every_third', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Remove every third element (the third, the sixth, and so on) from the list.',
    ref: `function drop_every_third(xs) { return xs.filter((_, i) => (i + 1) % 3 !== 0); }`,
    draw: oneList, edges: [EMPTY, [[1, 2, 3]]],
  },
  {
    name: 'pad_to_length', kind: 'positional', split: 'heldout', params: ['xs', 'n', 'fill'],
    doc: 'Append copies of fill to the end of xs until it has at least n elements. Lists that are already long enough are returned as they are.',
    ref: `function pad_to_length(xs, n, fill) { const ys = [...xs]; while (ys.length < n) ys.push(fill); return ys; }`,
    draw: (r) => { const xs = r.list(0, 7); return [xs, Math.max(0, xs.length + r.int(-2, 4)), r.int(-5, 9)]; }, edges: [[[], 0, 1], [[], 3, 0], [[1, 2, 3, 4], 2, 9]],
  },
  {
    name: 'take_while_positive', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Return the longest beginning of the list in which every number is positive; stop at the first number that is zero or negative.',
    ref: `function take_while_positive(xs) { const out = []; for (const x of xs) { if (x <= 0) break; out.push(x); } return out; }`,
    draw: (r) => [r.list(3, 9, -6, 15)], edges: [EMPTY, [[0, 5]], [[4, 2]]],
  },
  {
    name: 'zero_after_each', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Put a 0 after every element of the list.',
    ref: `function zero_after_each(xs) { return xs.flatMap((x) => [x, 0]); }`,
    draw: oneList, edges: [EMPTY, SINGLE(0)],
  },
  {
    name: 'remove_first_occurrence', kind: 'positional', split: 'heldout', params: ['xs', 'v'],
    doc: 'Remove only the first occurrence of v from xs. If v does not occur, return xs unchanged.',
    ref: `function remove_first_occurrence(xs, v) { const i = xs.indexOf(v); return i < 0 ? [...xs] : [...xs.slice(0, i), ...xs.slice(i + 1)]; }`,
    draw: listAndMember, edges: [[[], 4], [[2, 1, 2], 2]],
  },
  {
    name: 'third_or_minus_one', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Returns the third element of the list, or -1 when the list has fewer than three elements.',
    ref: `function third_or_minus_one(xs) { return xs.length >= 3 ? xs[2] : -1; }`,
    draw: oneList, edges: [EMPTY, [[5, 6]], [[5, 6, 7]]],
  },
  {
    name: 'move_max_to_front', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Move the largest element (its first occurrence, if it appears more than once) to the front of the list, keeping the other elements in their order.',
    ref: `function move_max_to_front(xs) { if (!xs.length) return []; const i = xs.indexOf(Math.max(...xs)); return [xs[i], ...xs.slice(0, i), ...xs.slice(i + 1)]; }`,
    draw: (r) => [r.list(0, 9, -5, 9)], edges: [EMPTY, [[3, 1, 3]]],
  },
  {
    name: 'swap_neighbour_pairs', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'Swap each pair of neighbours: the elements at positions 0 and 1 trade places, then 2 and 3, and so on. A final unpaired element stays where it is.',
    ref: `function swap_neighbour_pairs(xs) { const ys = [...xs]; for (let i = 0; i + 1 < ys.length; i += 2) { const t = ys[i]; ys[i] = ys[i + 1]; ys[i + 1] = t; } return ys; }`,
    draw: oneList, edges: [EMPTY, SINGLE(9), [[1, 2, 3]]],
  },
  {
    name: 'middle_element', kind: 'positional', split: 'heldout', params: ['xs'],
    doc: 'The list has an odd number of elements. Return the one in the middle.',
    ref: `function middle_element(xs) { return xs[(xs.length - 1) / 2]; }`,
    draw: oddLength, edges: [SINGLE(-1)],
  },

  // ---- dev ----
  {
    name: 'remove_middle', kind: 'positional', split: 'dev', params: ['xs'],
    doc: 'Remove the middle element of a list whose length is odd.',
    ref: `function remove_middle(xs) { const m = (xs.length - 1) / 2; return xs.filter((_, i) => i !== m); }`,
    draw: oddLength, edges: [SINGLE(5)],
  },
  {
    name: 'mirror_list', kind: 'positional', split: 'dev', params: ['xs'],
    doc: 'Return the list followed by its reverse, so [1, 2, 3] becomes [1, 2, 3, 3, 2, 1].',
    ref: `function mirror_list(xs) { return [...xs, ...[...xs].reverse()]; }`,
    draw: oneList, edges: [EMPTY, SINGLE(4)],
  },
  {
    name: 'insert_sorted', kind: 'positional', split: 'dev', params: ['xs', 'v'],
    doc: 'xs is sorted in ascending order. Insert v so that the list stays sorted.',
    ref: `function insert_sorted(xs, v) { let i = 0; while (i < xs.length && xs[i] < v) i++; return [...xs.slice(0, i), v, ...xs.slice(i)]; }`,
    draw: (r) => [r.list().sort((a, b) => a - b), r.int(-12, 22)], edges: [[[], 1], [[1, 3], 2], [[1, 3], 5]],
  },
  {
    name: 'drop_leading_negatives', kind: 'positional', split: 'dev', params: ['xs'],
    doc: 'Remove the negative numbers at the start of the list, stopping at the first number that is not negative.',
    ref: `function drop_leading_negatives(xs) { let i = 0; while (i < xs.length && xs[i] < 0) i++; return xs.slice(i); }`,
    draw: (r) => [r.list(0, 9, -9, 9)], edges: [EMPTY, [[-1, -2]], [[-3, 0, -4]]],
  },
  {
    name: 'surround_with', kind: 'positional', split: 'dev', params: ['xs', 'v'],
    doc: 'Put v both at the start and at the end of xs.',
    ref: `function surround_with(xs, v) { return [v, ...xs, v]; }`,
    draw: (r) => [r.list(), r.int(-10, 20)], edges: [[[], 2]],
  },
  {
    name: 'even_then_odd_positions', kind: 'positional', split: 'dev', params: ['xs'],
    doc: 'Return the elements at even indices (0, 2, 4, ...) followed by the elements at odd indices (1, 3, 5, ...).',
    ref: `function even_then_odd_positions(xs) { return [...xs.filter((_, i) => i % 2 === 0), ...xs.filter((_, i) => i % 2 === 1)]; }`,
    draw: oneList, edges: [EMPTY, [[1, 2]]],
  },
  {
    name: 'rotate_to_min', kind: 'positional', split: 'dev', params: ['xs'],
    doc: 'Rotate the list so that it starts at its smallest element (the first one, if the smallest value appears more than once); the elements before it move to the end in their order.',
    ref: `function rotate_to_min(xs) { if (!xs.length) return []; const i = xs.indexOf(Math.min(...xs)); return [...xs.slice(i), ...xs.slice(0, i)]; }`,
    draw: (r) => [r.list(0, 9, -5, 9)], edges: [EMPTY, [[3, 1, 2, 1]]],
  },
  {
    name: 'extend_last_twice', kind: 'positional', split: 'dev', params: ['xs'],
    doc: 'Append two more copies of the last element to the end of a non-empty list.',
    ref: `function extend_last_twice(xs) { const l = xs[xs.length - 1]; return [...xs, l, l]; }`,
    draw: nonEmptyList, edges: [SINGLE(0)],
  },
  {
    name: 'staircase_repeat', kind: 'positional', split: 'dev', params: ['xs'],
    doc: 'Repeat the first element once, the second element twice, the third three times, and so on: [a, b, c] becomes [a, b, b, c, c, c].',
    ref: `function staircase_repeat(xs) { return xs.flatMap((x, i) => Array(i + 1).fill(x)); }`,
    draw: (r) => [r.list(0, 7)], edges: [EMPTY, SINGLE(3)],
  },
  {
    name: 'after_last_zero', kind: 'positional', split: 'dev', params: ['xs'],
    doc: 'Return the part of the list after the last 0. If there is no 0, return the whole list.',
    ref: `function after_last_zero(xs) { return xs.slice(xs.lastIndexOf(0) + 1); }`,
    draw: withZeros, edges: [EMPTY, [[1, 0]], [[0, 2, 0, 3]]],
  },
];
