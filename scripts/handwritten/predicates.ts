/** Predicates (questions answered true or false) and indexing relative to other elements. */
import { EMPTY, SINGLE, listAndMember, nonEmptyList, oneList, type Rng, type Spec } from './types';

const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);

/** A palindrome about half of the time. */
function maybePalindrome(r: Rng): number[] {
  if (r.bool()) return r.list(0, 9, -5, 9);
  const half = r.list(0, 4, -5, 9);
  return [...half, ...(r.bool() ? [r.int(-5, 9)] : []), ...[...half].reverse()];
}

export const predicates: Spec[] = [
  // ---- held-out: predicates ----
  {
    name: 'is_sorted_ascending', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Is the list in non-decreasing order? An empty list counts as sorted.',
    ref: `function is_sorted_ascending(xs) { for (let i = 1; i < xs.length; i++) if (xs[i] < xs[i - 1]) return false; return true; }`,
    draw: (r) => { const xs = r.list(0, 8, -5, 12); return [r.bool() ? sorted(xs) : xs]; },
    edges: [EMPTY, [[1, 1, 2]], [[2, 1]]],
  },
  {
    name: 'contains_value', kind: 'predicate', split: 'heldout', params: ['xs', 'v'],
    doc: 'Does xs contain v?',
    ref: `function contains_value(xs, v) { return xs.includes(v); }`,
    draw: listAndMember, edges: [[[], 3], [[-3], 3]],
  },
  {
    name: 'all_positive', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Return true if every number in the list is greater than zero (true for an empty list).',
    ref: `function all_positive(xs) { return xs.every((x) => x > 0); }`,
    draw: (r) => [r.bool() ? r.list(1, 8, 1, 20) : r.list(1, 8, -5, 20)], edges: [EMPTY, [[0, 1]]],
  },
  {
    name: 'any_negative', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Is there at least one negative number in the list?',
    ref: `function any_negative(xs) { return xs.some((x) => x < 0); }`,
    draw: (r) => [r.bool() ? r.list(1, 8, 0, 20) : r.list(1, 8, -5, 20)], edges: [EMPTY, [[0, 0]]],
  },
  {
    name: 'has_duplicates', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Does any value appear more than once in the list?',
    ref: `function has_duplicates(xs) { return new Set(xs).size !== xs.length; }`,
    draw: (r) => [r.list(0, 7, -5, 12)], edges: [EMPTY, [[4, 4]], SINGLE(2)],
  },
  {
    name: 'is_palindrome', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Check whether the list reads the same forwards and backwards.',
    ref: `function is_palindrome(xs) { return xs.every((x, i) => x === xs[xs.length - 1 - i]); }`,
    draw: (r) => [maybePalindrome(r)], edges: [EMPTY, SINGLE(3), [[1, 2]]],
  },
  {
    name: 'all_even', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Are all the elements even? (An empty list gives true.)',
    ref: `function all_even(xs) { return xs.every((x) => x % 2 === 0); }`,
    draw: (r) => [r.bool() ? r.list(1, 7, -5, 10).map((x) => 2 * x) : r.list(1, 7)], edges: [EMPTY, [[0, -3]]],
  },
  {
    name: 'strictly_increasing', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'True if each element is strictly larger than the one before it, false otherwise.',
    ref: `function strictly_increasing(xs) { return xs.every((x, i) => i === 0 || x > xs[i - 1]); }`,
    draw: (r) => { const xs = r.list(1, 8, -5, 15); return [r.bool(0.6) ? [...new Set(sorted(xs))] : xs]; },
    edges: [EMPTY, [[1, 1]], [[-2, 0, 3]]],
  },
  {
    name: 'first_equals_last', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Is the first element equal to the last one? The list is not empty.',
    ref: `function first_equals_last(xs) { return xs[0] === xs[xs.length - 1]; }`,
    draw: (r) => { const xs = r.list(2, 8, -5, 9); if (r.bool()) xs[xs.length - 1] = xs[0]; return [xs]; },
    edges: [SINGLE(5), [[2, 3]]],
  },
  {
    name: 'sum_exceeds_k', kind: 'predicate', split: 'heldout', params: ['xs', 'k'],
    doc: 'Is the sum of the numbers in xs greater than k?',
    ref: `function sum_exceeds_k(xs, k) { return xs.reduce((s, x) => s + x, 0) > k; }`,
    draw: (r) => { const xs = r.list(0, 7); return [xs, sum(xs) + r.int(-6, 5)]; },
    edges: [[[], 0], [[], -1], [[3, 4], 7]],
  },
  {
    name: 'has_adjacent_equal', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Are there two neighbouring elements with the same value?',
    ref: `function has_adjacent_equal(xs) { return xs.some((x, i) => i > 0 && x === xs[i - 1]); }`,
    draw: (r) => [r.list(0, 8, -2, 4)], edges: [EMPTY, [[1, 2, 1]], [[6, 6]]],
  },
  {
    name: 'has_pair_with_sum', kind: 'predicate', split: 'heldout', params: ['xs', 'target'],
    doc: 'Are there two elements at different positions whose sum is target?',
    ref: `function has_pair_with_sum(xs, target) { for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) if (xs[i] + xs[j] === target) return true; return false; }`,
    draw: (r) => { const xs = r.list(0, 7, -6, 12); return [xs, xs.length >= 2 && r.bool() ? r.pick(xs) + r.pick(xs) : r.int(-10, 20)]; },
    edges: [[[], 0], [[3], 6], [[3, 3], 6]],
  },
  {
    name: 'all_equal', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Are all the elements equal to each other? Lists with fewer than two elements count as yes.',
    ref: `function all_equal(xs) { return xs.every((x) => x === xs[0]); }`,
    draw: (r) => { const n = r.int(2, 7); return [r.bool() ? Array(n).fill(r.int(-5, 9)) : r.list(2, 7, -2, 3)]; },
    edges: [EMPTY, SINGLE(-1)],
  },
  {
    name: 'more_evens_than_odds', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Does the list contain more even numbers than odd ones?',
    ref: `function more_evens_than_odds(xs) { const e = xs.filter((x) => x % 2 === 0).length; return e > xs.length - e; }`,
    draw: oneList, edges: [EMPTY, [[1, 2]], [[0]]],
  },
  {
    name: 'has_even_length', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Does the list have an even number of elements? Zero elements counts as even.',
    ref: `function has_even_length(xs) { return xs.length % 2 === 0; }`,
    draw: oneList, edges: [EMPTY, SINGLE(2)],
  },
  {
    name: 'alternates_parity', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Do even and odd numbers alternate all the way through the list? Lists shorter than two count as alternating.',
    ref: `function alternates_parity(xs) { return xs.every((x, i) => i === 0 || Math.abs(x % 2) !== Math.abs(xs[i - 1] % 2)); }`,
    draw: (r) => { const start = r.int(0, 1); return [r.bool() ? Array.from({ length: r.int(2, 8) }, (_, i) => 2 * r.int(-4, 6) + ((i + start) % 2)) : r.list(2, 8)]; },
    edges: [EMPTY, SINGLE(7), [[-3, 2, -1]]],
  },
  {
    name: 'last_is_largest', kind: 'predicate', split: 'heldout', params: ['xs'],
    doc: 'Is the last element at least as large as every element before it? The list is not empty.',
    ref: `function last_is_largest(xs) { return xs.every((x) => x <= xs[xs.length - 1]); }`,
    draw: (r) => { const xs = r.list(2, 8); if (r.bool()) xs.push(Math.max(...xs) + r.int(0, 3)); return [xs]; },
    edges: [SINGLE(4), [[3, 1, 3]]],
  },

  // ---- held-out: indexing relative to other elements ----
  {
    name: 'index_of_max', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'Return the index of the largest element; if the largest value appears more than once, the index of its first appearance. The list is never empty.',
    ref: `function index_of_max(xs) { return xs.indexOf(Math.max(...xs)); }`,
    draw: (r) => [r.list(1, 9, -5, 9)], edges: [SINGLE(0), [[2, 9, 9]]],
  },
  {
    name: 'last_index_of_min', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'Return the position of the smallest value in the list. If it occurs several times, return the last of those positions.',
    ref: `function last_index_of_min(xs) { return xs.lastIndexOf(Math.min(...xs)); }`,
    draw: (r) => [r.list(1, 9, -3, 6)], edges: [SINGLE(5), [[1, 1, 2]]],
  },
  {
    name: 'after_first_zero', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'Return the element that comes right after the first 0 in the list. There is always a 0 with something after it.',
    ref: `function after_first_zero(xs) { return xs[xs.indexOf(0) + 1]; }`,
    draw: (r) => { const xs = r.list(1, 8, -5, 9); xs.splice(r.int(0, xs.length - 1), 0, 0); return [xs]; },
    edges: [[[0, 7]], [[0, 0, 3]]],
  },
  {
    name: 'count_greater_than_first', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'How many elements are greater than the first element? (0 for an empty list.)',
    ref: `function count_greater_than_first(xs) { return xs.filter((x) => x > xs[0]).length; }`,
    draw: oneList, edges: [EMPTY, SINGLE(1)],
  },
  {
    name: 'first_index_of', kind: 'relative-index', split: 'heldout', params: ['xs', 'v'],
    doc: 'Return the index of the first occurrence of v in xs, or -1 if v is not in xs.',
    ref: `function first_index_of(xs, v) { return xs.indexOf(v); }`,
    draw: listAndMember, edges: [[[], 1], [[2, 5, 2], 2]],
  },
  {
    name: 'first_negative', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'Return the first negative number in the list, or 0 if there is none.',
    ref: `function first_negative(xs) { for (const x of xs) if (x < 0) return x; return 0; }`,
    draw: (r) => [r.bool(0.25) ? r.list(0, 8, 0, 15) : r.list(1, 9)], edges: [EMPTY, [[3, -1, -8]]],
  },
  {
    name: 'before_last_occurrence', kind: 'relative-index', split: 'heldout', params: ['xs', 'v'],
    doc: 'Return the element that comes just before the last occurrence of v in xs. You can assume v occurs somewhere after the first position.',
    ref: `function before_last_occurrence(xs, v) { return xs[xs.lastIndexOf(v) - 1]; }`,
    draw: (r) => { const xs = r.list(2, 8, -3, 6); return [xs, r.pick(xs.slice(1))]; },
    edges: [[[4, 9], 9], [[1, 2, 1, 2], 2]],
  },
  {
    name: 'count_smaller_than_last', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'Count the elements that are smaller than the last element (0 for an empty list).',
    ref: `function count_smaller_than_last(xs) { return xs.filter((x) => x < xs[xs.length - 1]).length; }`,
    draw: oneList, edges: [EMPTY, SINGLE(-2)],
  },
  {
    name: 'sum_after_first_negative', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'Add up everything that comes after the first negative number. If there is no negative number, the answer is 0.',
    ref: `function sum_after_first_negative(xs) { const i = xs.findIndex((x) => x < 0); return i < 0 ? 0 : xs.slice(i + 1).reduce((s, x) => s + x, 0); }`,
    draw: (r) => [r.list(0, 9, -6, 15)], edges: [EMPTY, [[4, -1]], [[-2, -3, 5]]],
  },
  {
    name: 'index_of_first_even', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'What is the index of the first even number in the list? Give -1 if there is none.',
    ref: `function index_of_first_even(xs) { return xs.findIndex((x) => x % 2 === 0); }`,
    draw: (r) => [r.bool(0.3) ? r.list(0, 6, -5, 10).map((x) => 2 * x + 1) : r.list(1, 9)], edges: [EMPTY, [[1, 3, 0]]],
  },
  {
    name: 'last_index_above_k', kind: 'relative-index', split: 'heldout', params: ['xs', 'k'],
    doc: 'Return the index of the last element of xs that is greater than k, or -1 if no element is.',
    ref: `function last_index_above_k(xs, k) { for (let i = xs.length - 1; i >= 0; i--) if (xs[i] > k) return i; return -1; }`,
    draw: listAndInt0, edges: [[[], 0], [[9, 1, 2], 5]],
  },
  {
    name: 'after_the_minimum', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'Which element directly follows the smallest element (its first occurrence)? The smallest element is never in the last position.',
    ref: `function after_the_minimum(xs) { return xs[xs.indexOf(Math.min(...xs)) + 1]; }`,
    draw: (r) => { const xs = r.list(2, 9); return [xs.indexOf(Math.min(...xs)) === xs.length - 1 ? xs.reverse() : xs]; },
    edges: [[[-1, 6]], [[3, 0, 0, 5]]],
  },
  {
    name: 'element_at_first_value', kind: 'relative-index', split: 'heldout', params: ['xs'],
    doc: 'The first element of the list is an index into the list. Return the element at that index.',
    ref: `function element_at_first_value(xs) { return xs[xs[0]]; }`,
    draw: (r) => { const xs = r.list(1, 9); xs[0] = r.int(0, xs.length - 1); return [xs]; },
    edges: [SINGLE(0), [[2, 8, -4]]],
  },

  // ---- dev ----
  {
    name: 'all_multiples_of_first', kind: 'predicate', split: 'dev', params: ['xs'],
    doc: 'Is every element a multiple of the first element? The first element is never zero.',
    ref: `function all_multiples_of_first(xs) { return xs.every((x) => x % xs[0] === 0); }`,
    draw: (r) => { const f = r.pick([-3, -2, 2, 3, 4, 5]); const rest = r.bool() ? r.list(0, 6, -4, 5).map((x) => x * f) : r.list(1, 6); return [[f, ...rest]]; },
    edges: [SINGLE(3), [[2, 4, 7]], [[-1, 5, 0]]],
  },
  {
    name: 'one_is_sum_of_rest', kind: 'predicate', split: 'dev', params: ['xs'],
    doc: 'Is there an element equal to the sum of all the other elements?',
    ref: `function one_is_sum_of_rest(xs) { const s = xs.reduce((a, x) => a + x, 0); return xs.some((x) => x === s - x); }`,
    draw: (r) => { const xs = r.list(1, 6, -5, 9); if (r.bool()) xs.push(sum(xs)); return [r.shuffle(xs)]; },
    edges: [EMPTY, SINGLE(0), SINGLE(4)],
  },
  {
    name: 'adjacent_negatives', kind: 'predicate', split: 'dev', params: ['xs'],
    doc: 'Are there two neighbouring numbers that are both negative?',
    ref: `function adjacent_negatives(xs) { return xs.some((x, i) => i > 0 && x < 0 && xs[i - 1] < 0); }`,
    draw: (r) => [r.list(0, 9, -6, 6)], edges: [EMPTY, [[-1, 2, -3]], [[-1, -1]]],
  },
  {
    name: 'is_mountain', kind: 'predicate', split: 'dev', params: ['xs'],
    doc: 'Does the list strictly rise and then strictly fall, with at least one step up followed by at least one step down?',
    ref: `function is_mountain(xs) { let i = 0; while (i + 1 < xs.length && xs[i + 1] > xs[i]) i++; if (i === 0 || i === xs.length - 1) return false; while (i + 1 < xs.length && xs[i + 1] < xs[i]) i++; return i === xs.length - 1; }`,
    draw: (r) => {
      if (r.bool()) return [r.list(1, 7, -3, 6)];
      const up = [...new Set(r.list(1, 4, -5, 10))].sort((a, b) => a - b);
      const down = [...new Set(r.list(1, 4, -5, 10))].sort((a, b) => b - a);
      return [[...up, ...down]];
    },
    edges: [EMPTY, [[1, 3, 2]], [[1, 2, 3]], [[1, 3, 3, 2]]],
  },
  {
    name: 'nearest_to_k', kind: 'relative-index', split: 'dev', params: ['xs', 'k'],
    doc: 'Return the element of xs closest to k; when two elements are equally close, return the smaller one. xs is not empty.',
    ref: `function nearest_to_k(xs, k) { let best = xs[0]; for (const x of xs) { const d = Math.abs(x - k), b = Math.abs(best - k); if (d < b || (d === b && x < best)) best = x; } return best; }`,
    draw: (r) => [r.list(1, 8), r.int(-10, 20)], edges: [[[5], 100], [[2, 6], 4]],
  },
  {
    name: 'min_max_index_gap', kind: 'relative-index', split: 'dev', params: ['xs'],
    doc: 'How many positions apart are the first occurrence of the maximum and the first occurrence of the minimum? Return the absolute difference of their indices. The list is not empty.',
    ref: `function min_max_index_gap(xs) { return Math.abs(xs.indexOf(Math.max(...xs)) - xs.indexOf(Math.min(...xs))); }`,
    draw: nonEmptyList, edges: [SINGLE(3), [[4, 4, 4]]],
  },
  {
    name: 'sum_before_first_zero', kind: 'relative-index', split: 'dev', params: ['xs'],
    doc: 'Sum the elements that come before the first 0 in the list; if there is no 0, sum the whole list.',
    ref: `function sum_before_first_zero(xs) { let s = 0; for (const x of xs) { if (x === 0) break; s += x; } return s; }`,
    draw: (r) => [r.list(0, 9, -4, 9)], edges: [EMPTY, [[0, 5]], [[3, 4]]],
  },
  {
    name: 'ends_are_even', kind: 'predicate', split: 'dev', params: ['xs'],
    doc: 'Are both the first and the last element even? The list has at least one element.',
    ref: `function ends_are_even(xs) { return xs[0] % 2 === 0 && xs[xs.length - 1] % 2 === 0; }`,
    draw: (r) => { const xs = r.list(1, 8); if (r.bool()) { xs[0] = 2 * r.int(-4, 8); xs[xs.length - 1] = 2 * r.int(-4, 8); } return [xs]; },
    edges: [SINGLE(4), SINGLE(-3), [[2, 5]]],
  },
  {
    name: 'first_repeat', kind: 'relative-index', split: 'dev', params: ['xs'],
    doc: 'Reading from the left, return the first element that has already appeared earlier in the list. All numbers are non-negative; return -1 if nothing repeats.',
    ref: `function first_repeat(xs) { const seen = new Set(); for (const x of xs) { if (seen.has(x)) return x; seen.add(x); } return -1; }`,
    draw: (r) => [r.list(0, 8, 0, 12)], edges: [EMPTY, [[1, 2, 2, 1]], [[3, 1, 4]]],
  },
  {
    name: 'majority_positive', kind: 'predicate', split: 'dev', params: ['xs'],
    doc: 'Are more than half of the numbers positive?',
    ref: `function majority_positive(xs) { return 2 * xs.filter((x) => x > 0).length > xs.length; }`,
    draw: (r) => [r.list(1, 8, -8, 8)], edges: [EMPTY, [[1, -1]], [[0, 3, 4]]],
  },
];

function listAndInt0(r: Rng) {
  return [r.list(0, 9, -5, 15), r.int(-3, 12)];
}
