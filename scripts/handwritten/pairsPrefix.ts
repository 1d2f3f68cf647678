/** Two lists at once, and running / prefix / neighbour operations. */
import { EMPTY, SINGLE, oneList, type Args, type Rng, type Spec } from './types';

/** Two lists of the same length. */
const sameLength = (r: Rng, lo = -10, hi = 20): Args => { const n = r.int(0, 8); return [r.list(n, n, lo, hi), r.list(n, n, lo, hi)]; };
/** Two lists of any lengths, often sharing values. */
const twoLists = (r: Rng): Args => [r.list(0, 8, -4, 8), r.list(0, 8, -4, 8)];
const sortedList = (r: Rng) => r.list(0, 6).sort((a, b) => a - b);

export const pairsPrefix: Spec[] = [
  // ---- held-out: pairs of lists ----
  {
    name: 'add_lists', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Add the two lists element by element. They always have the same length.',
    ref: `function add_lists(xs, ys) { return xs.map((x, i) => x + ys[i]); }`,
    draw: sameLength, edges: [[[], []], [[1], [-1]]],
  },
  {
    name: 'interleave', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Alternate elements from xs and ys, starting with xs. When one list runs out, append the rest of the other one.',
    ref: `function interleave(xs, ys) { const out = []; for (let i = 0; i < Math.max(xs.length, ys.length); i++) { if (i < xs.length) out.push(xs[i]); if (i < ys.length) out.push(ys[i]); } return out; }`,
    draw: (r) => [r.list(0, 6), r.list(0, 6)], edges: [[[], []], [[1, 2, 3], []], [[1], [7, 8, 9]]],
  },
  {
    name: 'common_elements', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Return the elements of xs that also appear in ys, in the order they have in xs and without repeats.',
    ref: `function common_elements(xs, ys) { return xs.filter((x, i) => ys.includes(x) && xs.indexOf(x) === i); }`,
    draw: twoLists, edges: [[[], [1]], [[2, 2, 3], [2]]],
  },
  {
    name: 'dot_product', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Compute the dot product of two lists of equal length: the sum of xs[i] * ys[i].',
    ref: `function dot_product(xs, ys) { return xs.reduce((s, x, i) => s + x * ys[i], 0); }`,
    draw: (r) => sameLength(r, -8, 10), edges: [[[], []], [[3], [-4]]],
  },
  {
    name: 'concat_lists', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Join ys onto the end of xs.',
    ref: `function concat_lists(xs, ys) { return [...xs, ...ys]; }`,
    draw: (r) => [r.list(0, 6), r.list(0, 6)], edges: [[[], []], [[5], []]],
  },
  {
    name: 'pairwise_max', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'For each position i, take the larger of xs[i] and ys[i]. The lists are equally long.',
    ref: `function pairwise_max(xs, ys) { return xs.map((x, i) => Math.max(x, ys[i])); }`,
    draw: sameLength, edges: [[[], []], [[2, 9], [5, 9]]],
  },
  {
    name: 'count_matches', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'In how many positions do the two lists hold the same value? Only compare positions that exist in both lists.',
    ref: `function count_matches(xs, ys) { let c = 0; for (let i = 0; i < Math.min(xs.length, ys.length); i++) if (xs[i] === ys[i]) c++; return c; }`,
    draw: (r) => { const xs = r.list(0, 8, -2, 4); return [xs, [...xs.map((x) => (r.bool() ? x : r.int(-2, 4))), ...r.list(0, 2, -2, 4)].slice(0, r.int(0, 9))]; }, edges: [[[], [1, 2]], [[1, 2, 3], [1, 2]]],
  },
  {
    name: 'only_in_first', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Which elements of xs do not appear anywhere in ys? Keep their order, and keep repeats.',
    ref: `function only_in_first(xs, ys) { return xs.filter((x) => !ys.includes(x)); }`,
    draw: twoLists, edges: [[[], [1]], [[4, 4, 1], []]],
  },
  {
    name: 'same_length', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Do the two lists have the same number of elements?',
    ref: `function same_length(xs, ys) { return xs.length === ys.length; }`,
    draw: (r) => { const xs = r.list(0, 7); return [xs, r.bool() ? r.list(xs.length, xs.length) : r.list(0, 7)]; },
    edges: [[[], []], [[1], []]],
  },
  {
    name: 'lists_equal', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Are the two lists identical, with the same values in the same order?',
    ref: `function lists_equal(xs, ys) { return xs.length === ys.length && xs.every((x, i) => x === ys[i]); }`,
    draw: (r) => { const xs = r.list(0, 6, -3, 6); const ys = [...xs]; if (r.bool(0.6)) { if (ys.length && r.bool()) ys[r.int(0, ys.length - 1)] += r.int(1, 3); else r.shuffle(ys); } return [xs, ys]; },
    edges: [[[], []], [[1, 2], [1, 2, 3]], [[1, 2], [2, 1]]],
  },
  {
    name: 'first_mismatch_index', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'xs and ys have the same length. Give the first index at which they differ, or -1 if they are identical.',
    ref: `function first_mismatch_index(xs, ys) { for (let i = 0; i < xs.length; i++) if (xs[i] !== ys[i]) return i; return -1; }`,
    draw: (r) => { const xs = r.list(1, 8); const ys = [...xs]; if (r.bool(0.8)) ys[r.int(0, ys.length - 1)] += r.int(1, 5); return [xs, ys]; },
    edges: [[[], []], [[3, 4], [3, 4]]],
  },
  {
    name: 'is_prefix', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Is xs a prefix of ys, that is, does ys start with the elements of xs in the same order?',
    ref: `function is_prefix(xs, ys) { return xs.length <= ys.length && xs.every((x, i) => x === ys[i]); }`,
    draw: (r) => { const ys = r.list(0, 8, -3, 6); const xs = ys.slice(0, r.int(0, ys.length)); if (r.bool(0.5)) { if (xs.length && r.bool()) xs[r.int(0, xs.length - 1)] += 1; else xs.push(r.int(-3, 6)); } return [xs, ys]; },
    edges: [[[], []], [[1, 2], [1]], [[], [4, 5]]],
  },
  {
    name: 'merge_sorted', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Both lists are sorted in ascending order. Merge them into one sorted list that keeps every element of both.',
    ref: `function merge_sorted(xs, ys) { const out = []; let i = 0, j = 0; while (i < xs.length || j < ys.length) { if (j >= ys.length || (i < xs.length && xs[i] <= ys[j])) out.push(xs[i++]); else out.push(ys[j++]); } return out; }`,
    draw: (r) => [sortedList(r), sortedList(r)], edges: [[[], []], [[1, 1], [1]], [[], [2, 3]]],
  },
  {
    name: 'sum_of_abs_differences', kind: 'pairs', split: 'heldout', params: ['xs', 'ys'],
    doc: 'Return the sum of |xs[i] - ys[i]| over all positions. Both lists have the same length.',
    ref: `function sum_of_abs_differences(xs, ys) { return xs.reduce((s, x, i) => s + Math.abs(x - ys[i]), 0); }`,
    draw: sameLength, edges: [[[], []], [[2, 5], [5, 2]]],
  },
  {
    name: 'select_by_mask', kind: 'pairs', split: 'heldout', params: ['xs', 'keep'],
    doc: 'keep is a list of booleans as long as xs. Return the elements xs[i] for which keep[i] is true.',
    ref: `function select_by_mask(xs, keep) { return xs.filter((_, i) => keep[i]); }`,
    draw: (r) => { const xs = r.list(1, 8); return [xs, r.bools(xs.length)]; },
    edges: [[[], []], [[1, 2, 3], [false, false, false]]],
  },

  // ---- held-out: running, prefix and neighbour operations ----
  {
    name: 'running_sum', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'Return the running totals of the list: element i of the result is the sum of the first i + 1 numbers.',
    ref: `function running_sum(xs) { let s = 0; return xs.map((x) => (s += x)); }`,
    draw: oneList, edges: [EMPTY, SINGLE(-4)],
  },
  {
    name: 'neighbour_differences', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'Return the differences between consecutive elements: xs[1] - xs[0], xs[2] - xs[1], and so on. Lists shorter than two give an empty list.',
    ref: `function neighbour_differences(xs) { return xs.slice(1).map((x, i) => x - xs[i]); }`,
    draw: oneList, edges: [EMPTY, SINGLE(3), [[5, 2]]],
  },
  {
    name: 'running_max', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'Replace each element by the largest value seen so far, including itself.',
    ref: `function running_max(xs) { let m = -Infinity; return xs.map((x) => (m = Math.max(m, x))); }`,
    draw: oneList, edges: [EMPTY, [[3, 1, 2, 5]]],
  },
  {
    name: 'count_increases', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'How many times is an element larger than the element just before it?',
    ref: `function count_increases(xs) { let c = 0; for (let i = 1; i < xs.length; i++) if (xs[i] > xs[i - 1]) c++; return c; }`,
    draw: oneList, edges: [EMPTY, SINGLE(2), [[1, 1, 1]]],
  },
  {
    name: 'pair_sums', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'Add each element to its right-hand neighbour. The result has one element fewer than the input (and is empty for lists shorter than two).',
    ref: `function pair_sums(xs) { return xs.slice(1).map((x, i) => x + xs[i]); }`,
    draw: oneList, edges: [EMPTY, SINGLE(9), [[1, 2]]],
  },
  {
    name: 'longest_run', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'What is the length of the longest block of consecutive equal values? An empty list gives 0.',
    ref: `function longest_run(xs) { let best = 0, cur = 0; xs.forEach((x, i) => { cur = i > 0 && x === xs[i - 1] ? cur + 1 : 1; best = Math.max(best, cur); }); return best; }`,
    draw: (r) => [r.list(0, 10, -1, 2)], edges: [EMPTY, SINGLE(5), [[2, 2, 3, 2]]],
  },
  {
    name: 'running_product', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'Return the list of prefix products: the i-th entry is xs[0] * xs[1] * ... * xs[i].',
    ref: `function running_product(xs) { let p = 1; return xs.map((x) => (p *= x)); }`,
    draw: (r) => [r.list(0, 7, -3, 4)], edges: [EMPTY, [[2, 0, 5]]],
  },
  {
    name: 'count_sign_changes', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'Count the places where two neighbouring numbers have opposite signs (one negative, one positive). Zero has no sign, so a pair involving 0 is never a change.',
    ref: `function count_sign_changes(xs) { let c = 0; for (let i = 1; i < xs.length; i++) if (xs[i] * xs[i - 1] < 0) c++; return c; }`,
    draw: (r) => [r.list(0, 9, -5, 5)], edges: [EMPTY, [[-1, 0, 1]], [[-2, 3, -4]]],
  },
  {
    name: 'suffix_sums', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'Entry i of the result is xs[i] plus everything that comes after it in the list.',
    ref: `function suffix_sums(xs) { const out = []; let s = 0; for (let i = xs.length - 1; i >= 0; i--) { s += xs[i]; out[i] = s; } return out; }`,
    draw: oneList, edges: [EMPTY, SINGLE(7)],
  },
  {
    name: 'max_adjacent_sum', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'What is the largest sum of two neighbouring elements? The list has at least two elements.',
    ref: `function max_adjacent_sum(xs) { let best = -Infinity; for (let i = 1; i < xs.length; i++) best = Math.max(best, xs[i] + xs[i - 1]); return best; }`,
    draw: (r) => [r.list(2, 9)], edges: [[[3, -8]], [[-1, -2, -3]]],
  },
  {
    name: 'compress_runs', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'Collapse each run of equal neighbouring values into a single copy: [1, 1, 2, 2, 2, 1] becomes [1, 2, 1].',
    ref: `function compress_runs(xs) { return xs.filter((x, i) => i === 0 || x !== xs[i - 1]); }`,
    draw: (r) => [r.list(0, 10, -1, 3)], edges: [EMPTY, [[1, 1, 2, 2, 2, 1]]],
  },
  {
    name: 'longest_increasing_run', kind: 'prefix', split: 'heldout', params: ['xs'],
    doc: 'Return the length of the longest stretch of consecutive elements that strictly increases (0 for an empty list, 1 if nothing increases).',
    ref: `function longest_increasing_run(xs) { let best = 0, cur = 0; xs.forEach((x, i) => { cur = i > 0 && x > xs[i - 1] ? cur + 1 : 1; best = Math.max(best, cur); }); return best; }`,
    draw: (r) => [r.list(0, 10, -3, 8)], edges: [EMPTY, [[5, 4, 3]], [[1, 2, 2, 3]]],
  },

  // ---- dev ----
  {
    name: 'larger_sum_list', kind: 'pairs', split: 'dev', params: ['xs', 'ys'],
    doc: 'Return whichever of the two lists has the larger sum. If the sums are equal, return xs.',
    ref: `function larger_sum_list(xs, ys) { const s = (a) => a.reduce((t, x) => t + x, 0); return s(ys) > s(xs) ? ys : xs; }`,
    draw: (r) => [r.list(0, 5), r.list(0, 5)], edges: [[[], []], [[1, 2], [3]], [[], [-1]]],
  },
  {
    name: 'is_rotation', kind: 'pairs', split: 'dev', params: ['xs', 'ys'],
    doc: 'Is ys a rotation of xs? (A rotation moves some number of elements from the front to the back, keeping their order.)',
    ref: `function is_rotation(xs, ys) { if (xs.length !== ys.length) return false; if (xs.length === 0) return true; for (let k = 0; k < xs.length; k++) if (xs.every((_, i) => xs[(i + k) % xs.length] === ys[i])) return true; return false; }`,
    draw: (r) => { const xs = r.list(1, 7, -3, 6); const k = r.int(0, xs.length - 1); let ys = [...xs.slice(k), ...xs.slice(0, k)]; if (r.bool()) ys = r.bool() ? r.shuffle(ys) : ys.slice(1); return [xs, ys]; },
    edges: [[[], []], [[1, 2, 3], [3, 2, 1]], [[1, 2, 3], [3, 1, 2]]],
  },
  {
    name: 'indices_where_first_bigger', kind: 'pairs', split: 'dev', params: ['xs', 'ys'],
    doc: 'The two lists have the same length. Return the indices i where xs[i] is greater than ys[i].',
    ref: `function indices_where_first_bigger(xs, ys) { const out = []; xs.forEach((x, i) => { if (x > ys[i]) out.push(i); }); return out; }`,
    draw: (r) => sameLength(r, -3, 6), edges: [[[], []], [[1, 5], [1, 4]]],
  },
  {
    name: 'alternate_pick', kind: 'pairs', split: 'dev', params: ['xs', 'ys'],
    doc: 'Build a list whose i-th element is xs[i] when i is even and ys[i] when i is odd. xs and ys have equal length.',
    ref: `function alternate_pick(xs, ys) { return xs.map((x, i) => (i % 2 === 0 ? x : ys[i])); }`,
    draw: sameLength, edges: [[[], []], [[1, 2, 3], [4, 5, 6]]],
  },
  {
    name: 'record_indices', kind: 'prefix', split: 'dev', params: ['xs'],
    doc: 'Return the indices of the elements that are strictly larger than every element before them. For a non-empty list, index 0 always counts.',
    ref: `function record_indices(xs) { const out = []; let m = -Infinity; xs.forEach((x, i) => { if (x > m) { out.push(i); m = x; } }); return out; }`,
    draw: oneList, edges: [EMPTY, [[2, 2, 3]]],
  },
  {
    name: 'sum_of_adjacent_products', kind: 'prefix', split: 'dev', params: ['xs'],
    doc: 'Add up xs[i] * xs[i + 1] over all pairs of neighbouring elements.',
    ref: `function sum_of_adjacent_products(xs) { let s = 0; for (let i = 0; i + 1 < xs.length; i++) s += xs[i] * xs[i + 1]; return s; }`,
    draw: (r) => [r.list(0, 8, -6, 9)], edges: [EMPTY, SINGLE(5), [[2, 3, 4]]],
  },
  {
    name: 'total_variation', kind: 'prefix', split: 'dev', params: ['xs'],
    doc: 'Walk along the list from value to value. How far do you travel in total? That is the sum of |xs[i + 1] - xs[i]|.',
    ref: `function total_variation(xs) { let s = 0; for (let i = 1; i < xs.length; i++) s += Math.abs(xs[i] - xs[i - 1]); return s; }`,
    draw: oneList, edges: [EMPTY, SINGLE(8), [[1, 4, 2]]],
  },
  {
    name: 'zero_sum_prefixes', kind: 'prefix', split: 'dev', params: ['xs'],
    doc: 'How many non-empty prefixes of the list add up to exactly zero?',
    ref: `function zero_sum_prefixes(xs) { let s = 0, c = 0; for (const x of xs) { s += x; if (s === 0) c++; } return c; }`,
    draw: (r) => [r.list(0, 10, -3, 3)], edges: [EMPTY, [[0, 0]], [[1, -1, 2, -2]]],
  },
  {
    name: 'balance_never_negative', kind: 'prefix', split: 'dev', params: ['xs'],
    doc: 'Treat the numbers as deposits (positive) and withdrawals (negative) on an account that starts at 0. Does the balance stay at zero or above after every step?',
    ref: `function balance_never_negative(xs) { let s = 0; for (const x of xs) { s += x; if (s < 0) return false; } return true; }`,
    draw: (r) => [r.list(1, 8, r.bool() ? -4 : -9, 9)], edges: [EMPTY, [[3, -3]], [[-1, 5]]],
  },
];
