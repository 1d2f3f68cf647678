/** Filters (keep some elements, in order) and folds (reduce a list to one number). */
import { EMPTY, SINGLE, dupList, listAndInt, listAndMember, nonEmptyList, oneList, type Spec } from './types';

export const filtersFolds: Spec[] = [
  // ---- held-out: filters ----
  {
    name: 'keep_evens', kind: 'filter', split: 'heldout', params: ['numbers'],
    doc: 'Return only the even numbers, in their original order.',
    ref: `function keep_evens(numbers) { return numbers.filter((n) => n % 2 === 0); }`,
    draw: oneList, edges: [EMPTY, [[1, 3, 5]], [[-4, 0]]],
  },
  {
    name: 'drop_negatives', kind: 'filter', split: 'heldout', params: ['xs'],
    doc: 'Remove every negative number from the list.',
    ref: `function drop_negatives(xs) { return xs.filter((x) => x >= 0); }`,
    draw: oneList, edges: [EMPTY, [[-1, 0, -2]]],
  },
  {
    name: 'greater_than_k', kind: 'filter', split: 'heldout', params: ['xs', 'k'],
    doc: 'Give back the elements of xs that are strictly greater than k.',
    ref: `function greater_than_k(xs, k) { return xs.filter((x) => x > k); }`,
    draw: listAndInt(-5, 15), edges: [[[], 0], [[3, 4, 5], 4]],
  },
  {
    name: 'remove_value', kind: 'filter', split: 'heldout', params: ['xs', 'v'],
    doc: 'Delete all occurrences of v from xs and return what is left.',
    ref: `function remove_value(xs, v) { return xs.filter((x) => x !== v); }`,
    draw: listAndMember, edges: [[[], 2], [[2, 2, 2], 2]],
  },
  {
    name: 'keep_odd_positions', kind: 'filter', split: 'heldout', params: ['xs'],
    doc: 'Keep the elements at odd indices, i.e. the second, fourth, sixth, ... elements.',
    ref: `function keep_odd_positions(xs) { return xs.filter((_, i) => i % 2 === 1); }`,
    draw: oneList, edges: [EMPTY, SINGLE(8)],
  },
  {
    name: 'every_third', kind: 'filter', split: 'heldout', params: ['xs'],
    doc: 'Take every third element of the list, starting with the first one.',
    ref: `function every_third(xs) { return xs.filter((_, i) => i % 3 === 0); }`,
    draw: oneList, edges: [EMPTY, SINGLE(-2)],
  },
  {
    name: 'nonzero_only', kind: 'filter', split: 'heldout', params: ['xs'],
    doc: 'Filter out the zeros.',
    ref: `function nonzero_only(xs) { return xs.filter((x) => x !== 0); }`,
    draw: (r) => [r.list(0, 9, -3, 4)], edges: [EMPTY, [[0, 0]]],
  },
  {
    name: 'between_inclusive', kind: 'filter', split: 'heldout', params: ['xs', 'lo', 'hi'],
    doc: 'Keep the numbers x of xs with lo <= x <= hi, in the order they appear.',
    ref: `function between_inclusive(xs, lo, hi) { return xs.filter((x) => x >= lo && x <= hi); }`,
    draw: (r) => { const lo = r.int(-8, 12); return [r.list(), lo, lo + r.int(0, 12)]; },
    edges: [[[], 1, 4], [[1, 2, 3, 4, 5], 2, 4]],
  },
  {
    name: 'unique_in_order', kind: 'filter', split: 'heldout', params: ['xs'],
    doc: 'Remove duplicates from the list, keeping the first occurrence of each value.',
    ref: `function unique_in_order(xs) { return xs.filter((x, i) => xs.indexOf(x) === i); }`,
    draw: dupList, edges: [EMPTY, [[3, 3, 3]]],
  },
  {
    name: 'divisible_by_k', kind: 'filter', split: 'heldout', params: ['xs', 'k'],
    doc: 'Which numbers in xs are divisible by k? Return them in order. (k is at least 2.)',
    ref: `function divisible_by_k(xs, k) { return xs.filter((x) => x % k === 0); }`,
    draw: listAndInt(2, 5), edges: [[[], 3], [[-6, 0, 7], 3]],
  },
  {
    name: 'larger_than_previous', kind: 'filter', split: 'heldout', params: ['xs'],
    doc: 'Keep each element that is bigger than the element right before it. The first element is never kept.',
    ref: `function larger_than_previous(xs) { return xs.filter((x, i) => i > 0 && x > xs[i - 1]); }`,
    draw: oneList, edges: [EMPTY, SINGLE(5), [[1, 2, 2, 3]]],
  },
  {
    name: 'values_appearing_once', kind: 'filter', split: 'heldout', params: ['xs'],
    doc: 'Return the elements that occur exactly once in the list, keeping their order.',
    ref: `function values_appearing_once(xs) { return xs.filter((x) => xs.indexOf(x) === xs.lastIndexOf(x)); }`,
    draw: dupList, edges: [EMPTY, [[4, 4]]],
  },
  {
    name: 'keep_below_first', kind: 'filter', split: 'heldout', params: ['xs'],
    doc: 'Keep the elements that are smaller than the first element of the list.',
    ref: `function keep_below_first(xs) { return xs.filter((x) => x < xs[0]); }`,
    draw: oneList, edges: [EMPTY, SINGLE(3)],
  },
  {
    name: 'remove_all_maxima', kind: 'filter', split: 'heldout', params: ['xs'],
    doc: 'Remove every copy of the largest value from the list.',
    ref: `function remove_all_maxima(xs) { const m = Math.max(...xs); return xs.filter((x) => x !== m); }`,
    draw: dupList, edges: [EMPTY, [[2, 2]], [[5, 1, 5, 0]]],
  },

  // ---- held-out: folds ----
  {
    name: 'sum_all', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Add up all the numbers in the list (an empty list sums to 0).',
    ref: `function sum_all(xs) { let s = 0; for (const x of xs) s += x; return s; }`,
    draw: oneList, edges: [EMPTY, SINGLE(-7)],
  },
  {
    name: 'product_all', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'What is the product of all the elements? The product of an empty list is 1.',
    ref: `function product_all(xs) { let p = 1; for (const x of xs) p *= x; return p; }`,
    draw: (r) => [r.list(0, 6, -5, 6)], edges: [EMPTY, SINGLE(4), [[3, 0, -2]]],
  },
  {
    name: 'count_evens', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'How many even numbers does the list contain?',
    ref: `function count_evens(xs) { return xs.filter((x) => x % 2 === 0).length; }`,
    draw: oneList, edges: [EMPTY, [[0, -2, 7]]],
  },
  {
    name: 'largest', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Return the largest element of xs. The list is never empty.',
    ref: `function largest(xs) { return Math.max(...xs); }`,
    draw: nonEmptyList, edges: [SINGLE(-3), [[-5, -2, -9]]],
  },
  {
    name: 'smallest_value', kind: 'fold', split: 'heldout', params: ['values'],
    doc: 'Returns the minimum of a non-empty list of integers.',
    ref: `function smallest_value(values) { return Math.min(...values); }`,
    draw: nonEmptyList, edges: [SINGLE(12), [[4, 4, 4]]],
  },
  {
    name: 'sum_of_squares', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Sum the squares of the elements of the list.',
    ref: `function sum_of_squares(xs) { return xs.reduce((s, x) => s + x * x, 0); }`,
    draw: (r) => [r.list(0, 8, -10, 10)], edges: [EMPTY, [[-3, 4]]],
  },
  {
    name: 'count_occurrences', kind: 'fold', split: 'heldout', params: ['xs', 'v'],
    doc: 'Count how many times v appears in xs.',
    ref: `function count_occurrences(xs, v) { return xs.filter((x) => x === v).length; }`,
    draw: (r) => [r.list(0, 9, -2, 4), r.int(-2, 4)], edges: [[[], 0], [[7, 7, 1, 7], 7]],
  },
  {
    name: 'range_span', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Return the difference between the biggest and the smallest number in a non-empty list.',
    ref: `function range_span(xs) { return Math.max(...xs) - Math.min(...xs); }`,
    draw: nonEmptyList, edges: [SINGLE(6), [[-4, 9, 0]]],
  },
  {
    name: 'sum_positive', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Add together only the positive numbers of the list.',
    ref: `function sum_positive(xs) { return xs.reduce((s, x) => (x > 0 ? s + x : s), 0); }`,
    draw: oneList, edges: [EMPTY, [[-2, -5]]],
  },
  {
    name: 'count_greater_than_k', kind: 'fold', split: 'heldout', params: ['xs', 'k'],
    doc: 'How many elements of xs are greater than k?',
    ref: `function count_greater_than_k(xs, k) { return xs.filter((x) => x > k).length; }`,
    draw: listAndInt(-5, 15), edges: [[[], 3], [[2, 3, 4], 3]],
  },
  {
    name: 'alternating_sum', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Compute xs[0] - xs[1] + xs[2] - xs[3] + ... (0 for an empty list).',
    ref: `function alternating_sum(xs) { return xs.reduce((s, x, i) => (i % 2 === 0 ? s + x : s - x), 0); }`,
    draw: oneList, edges: [EMPTY, SINGLE(5)],
  },
  {
    name: 'sum_at_odd_indices', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Return the sum of the elements at odd positions (index 1, 3, 5, ...).',
    ref: `function sum_at_odd_indices(xs) { return xs.reduce((s, x, i) => (i % 2 === 1 ? s + x : s), 0); }`,
    draw: oneList, edges: [EMPTY, SINGLE(9)],
  },
  {
    name: 'distinct_count', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'How many different values are there in the list?',
    ref: `function distinct_count(xs) { return new Set(xs).size; }`,
    draw: dupList, edges: [EMPTY, [[1, 1, 1]]],
  },
  {
    name: 'second_largest_distinct', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Return the second largest distinct value of a non-empty list. If all the values are the same, return that value.',
    ref: `function second_largest_distinct(xs) { const u = [...new Set(xs)].sort((a, b) => b - a); return u.length > 1 ? u[1] : u[0]; }`,
    draw: (r) => [r.list(1, 9, -3, 6)], edges: [SINGLE(4), [[7, 7, 3]], [[2, 2]]],
  },
  {
    name: 'total_digit_sum', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Add up the digits of every number in the list, ignoring minus signs. For example [12, -305] gives 1 + 2 + 3 + 0 + 5 = 11.',
    ref: `function total_digit_sum(xs) { let s = 0; for (const x of xs) { let n = Math.abs(x); while (n > 0) { s += n % 10; n = Math.floor(n / 10); } } return s; }`,
    draw: (r) => [r.list(0, 6, -400, 400)], edges: [EMPTY, [[12, -305]], SINGLE(0)],
  },
  {
    name: 'max_abs', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Return the largest absolute value in the list, or 0 if the list is empty.',
    ref: `function max_abs(xs) { return xs.reduce((m, x) => Math.max(m, Math.abs(x)), 0); }`,
    draw: oneList, edges: [EMPTY, [[-9, 3, 8]]],
  },
  {
    name: 'mean_rounded_down', kind: 'fold', split: 'heldout', params: ['xs'],
    doc: 'Return the average of the numbers rounded down to an integer (so an average of -1.5 gives -2). The list has at least one element.',
    ref: `function mean_rounded_down(xs) { return Math.floor(xs.reduce((s, x) => s + x, 0) / xs.length); }`,
    draw: nonEmptyList, edges: [SINGLE(-3), [[-1, -2]], [[1, 2]]],
  },

  // ---- dev ----
  {
    name: 'keep_perfect_squares', kind: 'filter', split: 'dev', params: ['xs'],
    doc: 'Return the elements that are perfect squares (0, 1, 4, 9, 16, ...), in their original order.',
    ref: `function keep_perfect_squares(xs) { return xs.filter((x) => x >= 0 && Math.round(Math.sqrt(x)) ** 2 === x); }`,
    draw: (r) => [Array.from({ length: r.int(0, 9) }, () => (r.bool(0.4) ? r.int(0, 6) ** 2 : r.int(-5, 40)))],
    edges: [EMPTY, [[-4, 0, 2]]],
  },
  {
    name: 'positions_of_positives', kind: 'filter', split: 'dev', params: ['xs'],
    doc: 'Return the indices of the positive elements of xs, in increasing order.',
    ref: `function positions_of_positives(xs) { const out = []; xs.forEach((x, i) => { if (x > 0) out.push(i); }); return out; }`,
    draw: (r) => [r.list(0, 9, -8, 8)], edges: [EMPTY, [[0, -1, 3]]],
  },
  {
    name: 'count_equal_to_index', kind: 'fold', split: 'dev', params: ['xs'],
    doc: 'How many elements equal their own (zero-based) index?',
    ref: `function count_equal_to_index(xs) { return xs.filter((x, i) => x === i).length; }`,
    draw: (r) => [Array.from({ length: r.int(0, 9) }, (_, i) => (r.bool(0.35) ? i : r.int(-2, 9)))],
    edges: [EMPTY, [[0, 1, 2, 3]]],
  },
  {
    name: 'smallest_even', kind: 'fold', split: 'dev', params: ['xs'],
    doc: 'Return the smallest even number in the list, or 0 if the list has no even number.',
    ref: `function smallest_even(xs) { const e = xs.filter((x) => x % 2 === 0); return e.length ? Math.min(...e) : 0; }`,
    draw: oneList, edges: [EMPTY, [[3, 5, -1]], [[4, -6, 8]]],
  },
  {
    name: 'sum_of_top_two', kind: 'fold', split: 'dev', params: ['xs'],
    doc: 'Return the sum of the two largest elements. The list has at least two elements, and a repeated maximum counts twice.',
    ref: `function sum_of_top_two(xs) { const s = [...xs].sort((a, b) => b - a); return s[0] + s[1]; }`,
    draw: (r) => [r.list(2, 9)], edges: [[[1, 2]], [[6, 6, 1]]],
  },
  {
    name: 'keep_peaks', kind: 'filter', split: 'dev', params: ['xs'],
    doc: 'Keep the elements that are strictly larger than both of their neighbours. The first and last elements are never kept.',
    ref: `function keep_peaks(xs) { return xs.filter((x, i) => i > 0 && i < xs.length - 1 && x > xs[i - 1] && x > xs[i + 1]); }`,
    draw: oneList, edges: [EMPTY, [[1, 5, 1]], [[3, 3, 3]]],
  },
  {
    name: 'drop_small_magnitudes', kind: 'filter', split: 'dev', params: ['xs', 'k'],
    doc: 'Remove the numbers whose absolute value is less than k.',
    ref: `function drop_small_magnitudes(xs, k) { return xs.filter((x) => Math.abs(x) >= k); }`,
    draw: (r) => [r.list(0, 9, -12, 12), r.int(0, 8)], edges: [[[], 2], [[-2, 1, 2], 2]],
  },
  {
    name: 'even_sum_minus_odd_sum', kind: 'fold', split: 'dev', params: ['xs'],
    doc: 'Return the sum of the even numbers minus the sum of the odd numbers.',
    ref: `function even_sum_minus_odd_sum(xs) { return xs.reduce((s, x) => (x % 2 === 0 ? s + x : s - x), 0); }`,
    draw: oneList, edges: [EMPTY, [[-3, 4]]],
  },
  {
    name: 'most_frequent', kind: 'fold', split: 'dev', params: ['xs'],
    doc: 'Which value occurs most often in the list? If several values are tied, return the one that appears first. The list is not empty.',
    ref: `function most_frequent(xs) { let best = xs[0], bestCount = 0; for (const x of xs) { const c = xs.filter((y) => y === x).length; if (c > bestCount) { best = x; bestCount = c; } } return best; }`,
    draw: (r) => [r.list(1, 9, -3, 5)], edges: [SINGLE(2), [[5, 1, 1, 5]]],
  },
  {
    name: 'largest_odd', kind: 'fold', split: 'dev', params: ['xs'],
    doc: 'What is the largest odd number in the list? Return 0 if there are no odd numbers.',
    ref: `function largest_odd(xs) { const o = xs.filter((x) => x % 2 !== 0); return o.length ? Math.max(...o) : 0; }`,
    draw: oneList, edges: [EMPTY, [[2, 4]], [[-7, -3, 2]]],
  },
];
