/** Maps (the same arithmetic on every element) and conditional transforms (change only some elements). */
import { EMPTY, SINGLE, listAndInt, oneList, type Spec } from './types';

export const elementwise: Spec[] = [
  // ---- held-out: maps ----
  {
    name: 'add_five', kind: 'map', split: 'heldout', params: ['nums'],
    doc: 'Add five to each element of the list and return the result.',
    ref: `function add_five(nums) { return nums.map((x) => x + 5); }`,
    draw: oneList, edges: [EMPTY, SINGLE(-5)],
  },
  {
    name: 'triple_all', kind: 'map', split: 'heldout', params: ['values'],
    doc: 'Returns a new list in which every number has been multiplied by 3.',
    ref: `function triple_all(values) { return values.map((v) => v * 3); }`,
    draw: oneList, edges: [EMPTY, SINGLE(0)],
  },
  {
    name: 'negate_each', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'Flip the sign of every number in the list.',
    ref: `function negate_each(xs) { return xs.map((x) => 0 - x); }`,
    draw: oneList, edges: [EMPTY, [[0, -4, 4]]],
  },
  {
    name: 'square_each', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'Return the list of the squares of the given numbers, in the same order.',
    ref: `function square_each(xs) { return xs.map((x) => x * x); }`,
    draw: (r) => [r.list(0, 9, -12, 12)], edges: [EMPTY, SINGLE(-7)],
  },
  {
    name: 'subtract_k_from_each', kind: 'map', split: 'heldout', params: ['xs', 'k'],
    doc: 'Subtract k from every item in xs.',
    ref: `function subtract_k_from_each(xs, k) { return xs.map((x) => x - k); }`,
    draw: listAndInt(-6, 12), edges: [[[], 3], [[4, 4, 4], 4]],
  },
  {
    name: 'multiply_by_k', kind: 'map', split: 'heldout', params: ['xs', 'k'],
    doc: 'Given a list and a positive number k, multiply each value by k.',
    ref: `function multiply_by_k(xs, k) { return xs.map((x) => x * k); }`,
    draw: listAndInt(1, 6), edges: [[[], 2], [[-3, 0, 5], 1]],
  },
  {
    name: 'halve_down', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'Halve every number, rounding down (so 7 becomes 3 and -3 becomes -2).',
    ref: `function halve_down(xs) { return xs.map((x) => Math.floor(x / 2)); }`,
    draw: oneList, edges: [EMPTY, [[-3, -1, 0, 1, 3]]],
  },
  {
    name: 'abs_values', kind: 'map', split: 'heldout', params: ['numbers'],
    doc: 'Replace each number by its absolute value.',
    ref: `function abs_values(numbers) { return numbers.map((n) => Math.abs(n)); }`,
    draw: oneList, edges: [EMPTY, SINGLE(-9)],
  },
  {
    name: 'last_digit_each', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'Return the last digit of each number, ignoring the sign (so -17 gives 7).',
    ref: `function last_digit_each(xs) { return xs.map((x) => Math.abs(x) % 10); }`,
    draw: (r) => [r.list(0, 9, -99, 150)], edges: [EMPTY, [[-17, 0, 10]]],
  },
  {
    name: 'parity_flags', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'For each number, give true if it is even and false if it is odd.',
    ref: `function parity_flags(xs) { return xs.map((x) => x % 2 === 0); }`,
    draw: oneList, edges: [EMPTY, [[-3, -2, 0]]],
  },
  {
    name: 'index_plus_value', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'Add to every element its position in the list (positions start at 0).',
    ref: `function index_plus_value(xs) { return xs.map((x, i) => x + i); }`,
    draw: oneList, edges: [EMPTY, SINGLE(4)],
  },
  {
    name: 'double_minus_one', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'Map each x in the list to 2*x - 1.',
    ref: `function double_minus_one(xs) { return xs.map((x) => 2 * x - 1); }`,
    draw: oneList, edges: [EMPTY, SINGLE(0)],
  },
  {
    name: 'distance_from_k', kind: 'map', split: 'heldout', params: ['xs', 'k'],
    doc: 'Return how far each number is from k, that is, the absolute difference between the number and k.',
    ref: `function distance_from_k(xs, k) { return xs.map((x) => Math.abs(x - k)); }`,
    draw: listAndInt(-8, 15), edges: [[[], 0], [[3, 7, 5], 5]],
  },
  {
    name: 'remainder_mod_k', kind: 'map', split: 'heldout', params: ['xs', 'k'],
    doc: 'k is a positive number. Replace each number in xs by its remainder after division by k; the remainder should never be negative (-1 mod 3 is 2).',
    ref: `function remainder_mod_k(xs, k) { return xs.map((x) => ((x % k) + k) % k); }`,
    draw: listAndInt(2, 7), edges: [[[], 4], [[-1, -3, 5], 3]],
  },
  {
    name: 'sign_of_each', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'What is the sign of each number? Return -1 for a negative number, 0 for zero and 1 for a positive one.',
    ref: `function sign_of_each(xs) { return xs.map((x) => (x > 0 ? 1 : x < 0 ? -1 : 0)); }`,
    draw: (r) => [r.list(0, 9, -6, 6)], edges: [EMPTY, [[0, 0]]],
  },
  {
    name: 'cube_each', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'Cube every element of xs.',
    ref: `function cube_each(xs) { return xs.map((x) => x * x * x); }`,
    draw: (r) => [r.list(0, 8, -6, 6)], edges: [EMPTY, SINGLE(-2)],
  },
  {
    name: 'is_positive_flags', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'Which entries are greater than zero? Return a list of booleans, one per entry.',
    ref: `function is_positive_flags(xs) { return xs.map((x) => x > 0); }`,
    draw: (r) => [r.list(0, 9, -8, 8)], edges: [EMPTY, [[0, 1, -1]]],
  },
  {
    name: 'times_position', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'Multiply each element by its position, counting positions from 1: the first element is multiplied by 1, the second by 2, and so on.',
    ref: `function times_position(xs) { return xs.map((x, i) => x * (i + 1)); }`,
    draw: oneList, edges: [EMPTY, SINGLE(6)],
  },
  {
    name: 'abs_difference_from_first', kind: 'map', split: 'heldout', params: ['xs'],
    doc: 'How far is each element from the first element? Return the absolute differences; the first entry of the result is always 0.',
    ref: `function abs_difference_from_first(xs) { return xs.map((x) => Math.abs(x - xs[0])); }`,
    draw: oneList, edges: [EMPTY, SINGLE(3)],
  },

  // ---- held-out: conditional transforms ----
  {
    name: 'zero_out_negatives', kind: 'conditional', split: 'heldout', params: ['xs'],
    doc: 'Replace every negative number with 0 and leave the other numbers alone.',
    ref: `function zero_out_negatives(xs) { return xs.map((x) => (x < 0 ? 0 : x)); }`,
    draw: oneList, edges: [EMPTY, [[-1, 0, 1]]],
  },
  {
    name: 'double_the_odds', kind: 'conditional', split: 'heldout', params: ['xs'],
    doc: 'Double the odd numbers in the list; even numbers stay unchanged.',
    ref: `function double_the_odds(xs) { return xs.map((x) => (x % 2 !== 0 ? 2 * x : x)); }`,
    draw: oneList, edges: [EMPTY, [[-3, 2, 0]]],
  },
  {
    name: 'clamp_to_range', kind: 'conditional', split: 'heldout', params: ['xs', 'lo', 'hi'],
    doc: 'Clamp each value into the range lo..hi (both ends included): values below lo become lo, values above hi become hi. You may assume lo <= hi.',
    ref: `function clamp_to_range(xs, lo, hi) { return xs.map((x) => Math.min(hi, Math.max(lo, x))); }`,
    draw: (r) => { const lo = r.int(-8, 8); return [r.list(), lo, lo + r.int(0, 10)]; },
    edges: [[[], 0, 5], [[-4, 2, 9], 3, 3]],
  },
  {
    name: 'cap_at_k', kind: 'conditional', split: 'heldout', params: ['xs', 'k'],
    doc: 'Any number larger than k becomes k; the others are kept as they are.',
    ref: `function cap_at_k(xs, k) { return xs.map((x) => (x > k ? k : x)); }`,
    draw: listAndInt(-5, 15), edges: [[[], 1], [[7, 8, 9], 8]],
  },
  {
    name: 'halve_evens', kind: 'conditional', split: 'heldout', params: ['xs'],
    doc: 'Divide every even number by two. Odd numbers stay as they are.',
    ref: `function halve_evens(xs) { return xs.map((x) => (x % 2 === 0 ? x / 2 : x)); }`,
    draw: oneList, edges: [EMPTY, [[-6, -5, 0]]],
  },
  {
    name: 'flip_sign_of_evens', kind: 'conditional', split: 'heldout', params: ['xs'],
    doc: 'Change the sign of each even number and return the new list.',
    ref: `function flip_sign_of_evens(xs) { return xs.map((x) => (x % 2 === 0 ? 0 - x : x)); }`,
    draw: oneList, edges: [EMPTY, [[0, 1, -2]]],
  },
  {
    name: 'replace_value', kind: 'conditional', split: 'heldout', params: ['xs', 'old', 'new_value'],
    doc: 'Replace every occurrence of old in xs with new_value.',
    ref: `function replace_value(xs, old, new_value) { return xs.map((x) => (x === old ? new_value : x)); }`,
    draw: (r) => { const xs = r.list(0, 9, -3, 6); return [xs, xs.length && r.bool(0.8) ? r.pick(xs) : r.int(-3, 6), r.int(-9, 9)]; },
    edges: [[[], 1, 2], [[5, 5, 5], 5, 0]],
  },
  {
    name: 'bump_small', kind: 'conditional', split: 'heldout', params: ['xs'],
    doc: 'Numbers below ten get ten added to them; the others are left unchanged.',
    ref: `function bump_small(xs) { return xs.map((x) => (x < 10 ? x + 10 : x)); }`,
    draw: oneList, edges: [EMPTY, [[9, 10, 11]]],
  },
  {
    name: 'square_negatives', kind: 'conditional', split: 'heldout', params: ['xs'],
    doc: 'Square the negative numbers only; zero and positive numbers are copied unchanged.',
    ref: `function square_negatives(xs) { return xs.map((x) => (x < 0 ? x * x : x)); }`,
    draw: oneList, edges: [EMPTY, [[-1, 0, 3]]],
  },
  {
    name: 'round_down_to_even', kind: 'conditional', split: 'heldout', params: ['xs'],
    doc: 'Replace each odd number with the even number just below it (5 becomes 4, -3 becomes -4); even numbers stay.',
    ref: `function round_down_to_even(xs) { return xs.map((x) => (x % 2 === 0 ? x : x - 1)); }`,
    draw: oneList, edges: [EMPTY, [[-3, 5, 6]]],
  },
  {
    name: 'zero_multiples_of_three', kind: 'conditional', split: 'heldout', params: ['xs'],
    doc: 'Replace every multiple of three in the list with 0.',
    ref: `function zero_multiples_of_three(xs) { return xs.map((x) => (x % 3 === 0 ? 0 : x)); }`,
    draw: oneList, edges: [EMPTY, [[-6, 4, 9]]],
  },
  {
    name: 'increment_even_indices', kind: 'conditional', split: 'heldout', params: ['xs'],
    doc: 'Add 1 to the elements at even indices (index 0, 2, 4, ...) and leave the others alone.',
    ref: `function increment_even_indices(xs) { return xs.map((x, i) => (i % 2 === 0 ? x + 1 : x)); }`,
    draw: oneList, edges: [EMPTY, SINGLE(-1)],
  },

  // ---- dev ----
  {
    name: 'square_minus_self', kind: 'map', split: 'dev', params: ['xs'],
    doc: 'Map every x to x*x - x.',
    ref: `function square_minus_self(xs) { return xs.map((x) => x * x - x); }`,
    draw: (r) => [r.list(0, 9, -10, 10)], edges: [EMPTY, [[0, 1]]],
  },
  {
    name: 'subtract_from_max', kind: 'map', split: 'dev', params: ['xs'],
    doc: 'Replace each element by how much smaller it is than the largest element of the list.',
    ref: `function subtract_from_max(xs) { const m = Math.max(...xs); return xs.map((x) => m - x); }`,
    draw: oneList, edges: [EMPTY, SINGLE(-4)],
  },
  {
    name: 'equals_index_flags', kind: 'map', split: 'dev', params: ['xs'],
    doc: 'For each element, say whether it is equal to its own index (counting from 0).',
    ref: `function equals_index_flags(xs) { return xs.map((x, i) => x === i); }`,
    draw: (r) => [Array.from({ length: r.int(0, 9) }, (_, i) => (r.bool(0.4) ? i : r.int(-2, 9)))],
    edges: [EMPTY, [[0, 1, 2]]],
  },
  {
    name: 'negatives_doubled_abs', kind: 'conditional', split: 'dev', params: ['xs'],
    doc: 'Negative numbers are replaced by twice their absolute value; non-negative numbers do not change.',
    ref: `function negatives_doubled_abs(xs) { return xs.map((x) => (x < 0 ? -2 * x : x)); }`,
    draw: oneList, edges: [EMPTY, [[-1, 0, 2]]],
  },
  {
    name: 'replace_evens_with_k', kind: 'conditional', split: 'dev', params: ['xs', 'k'],
    doc: 'Return xs with every even number replaced by k.',
    ref: `function replace_evens_with_k(xs, k) { return xs.map((x) => (x % 2 === 0 ? k : x)); }`,
    draw: listAndInt(-5, 9), edges: [[[], 7], [[1, 3, 5], 0]],
  },
  {
    name: 'decrement_positives', kind: 'conditional', split: 'dev', params: ['xs'],
    doc: 'Subtract one from every positive number; zeros and negative numbers stay the same.',
    ref: `function decrement_positives(xs) { return xs.map((x) => (x > 0 ? x - 1 : x)); }`,
    draw: oneList, edges: [EMPTY, [[1, 0, -1]]],
  },
  {
    name: 'min_with_index', kind: 'map', split: 'dev', params: ['xs'],
    doc: 'Replace each element by the smaller of the element and its index (indices start at zero).',
    ref: `function min_with_index(xs) { return xs.map((x, i) => Math.min(x, i)); }`,
    draw: (r) => [r.list(0, 9, -4, 10)], edges: [EMPTY, SINGLE(5)],
  },
  {
    name: 'distance_to_multiple_of_ten', kind: 'map', split: 'dev', params: ['xs'],
    doc: 'For each number, how far is it from the nearest multiple of ten? (14 gives 4, 17 gives 3, -2 gives 2.)',
    ref: `function distance_to_multiple_of_ten(xs) { return xs.map((x) => { const r = ((x % 10) + 10) % 10; return Math.min(r, 10 - r); }); }`,
    draw: (r) => [r.list(0, 9, -40, 60)], edges: [EMPTY, [[14, 17, -2, 5]]],
  },
  {
    name: 'signed_square', kind: 'map', split: 'dev', params: ['xs'],
    doc: 'Square each number but keep its sign, so -3 becomes -9 and 3 becomes 9.',
    ref: `function signed_square(xs) { return xs.map((x) => (x < 0 ? -x * x : x * x)); }`,
    draw: (r) => [r.list(0, 9, -12, 12)], edges: [EMPTY, [[-3, 0, 3]]],
  },
  {
    name: 'multiply_by_length', kind: 'map', split: 'dev', params: ['xs'],
    doc: 'Multiply every element by the number of elements in the list.',
    ref: `function multiply_by_length(xs) { return xs.map((x) => x * xs.length); }`,
    draw: oneList, edges: [EMPTY, SINGLE(-6)],
  },
];
