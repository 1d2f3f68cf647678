/**
 * The second dev set (split `dev2`, datasets/functions/handwritten_dev2.jsonl): 100 problems written
 * after the generator's later families had been aimed at misses on `dev`, so that settings can be
 * chosen on problems no generator family was written from. Each was checked by hand against the
 * names and statements of the held-out and dev problems so as not to repeat one of their behaviours.
 */
import { EMPTY, SINGLE, dupList, listAndInt, listAndMember, nonEmptyList, oneList, type Args, type Rng, type Spec } from './types';

const sum = (xs: number[]) => xs.reduce((s, x) => s + x, 0);
/** Two lists of the same length, values in lo..hi. */
const sameLength = (r: Rng, lo: number, hi: number): Args => { const n = r.int(0, 8); return [r.list(n, n, lo, hi), r.list(n, n, lo, hi)]; };
/** A list and an integer that is often, but not always, within its length. */
const listAndCount = (r: Rng): Args => { const xs = r.list(); return [xs, r.bool(0.2) ? r.int(xs.length, xs.length + 3) : r.int(0, xs.length)]; };
/** A list and 0 <= start <= stop <= its length. */
const listAndRange = (r: Rng): Args => { const xs = r.list(); const a = r.int(0, xs.length); return [xs, a, r.int(a, xs.length)]; };
/** A list with zero, one, two or three zeros in it. */
const withZeros = (r: Rng): number[] => { const xs = r.list(0, 8, -4, 9).map((x) => (x === 0 ? 1 : x)); for (let z = r.int(0, 3); z > 0; z--) xs.splice(r.int(0, xs.length), 0, 0); return xs; };

export const dev2: Spec[] = [
  // ---- map ----
  {
    name: 'ten_minus_each', kind: 'map', split: 'dev2', params: ['xs'],
    doc: 'Return a list where each number x has been replaced by 10 - x.',
    ref: `function ten_minus_each(xs) { return xs.map((x) => 10 - x); }`,
    draw: oneList, edges: [EMPTY, [[10, 0, -5]]],
  },
  {
    name: 'linear_map', kind: 'map', split: 'dev2', params: ['xs', 'a', 'b'],
    doc: 'Apply the rule x -> a*x + b to every x in xs and return the new list.',
    ref: `function linear_map(xs, a, b) { return xs.map((x) => a * x + b); }`,
    draw: (r) => [r.list(), r.int(-4, 5), r.int(-10, 10)],
    edges: [[[], 2, 3], [[1, -2, 0], 0, 7], [[4, 5], 1, 0]],
  },
  {
    name: 'add_first_to_each', kind: 'map', split: 'dev2', params: ['xs'],
    doc: 'Add the value of the first element to every element, the first one included (so the first element doubles).',
    ref: `function add_first_to_each(xs) { return xs.map((x) => x + xs[0]); }`,
    draw: oneList, edges: [EMPTY, SINGLE(-4)],
  },
  {
    name: 'tens_digit_each', kind: 'map', split: 'dev2', params: ['xs'],
    doc: 'For every number give its tens digit, ignoring any minus sign: 147 gives 4, -38 gives 3 and 7 gives 0.',
    ref: `function tens_digit_each(xs) { return xs.map((x) => Math.floor(Math.abs(x) / 10) % 10); }`,
    draw: (r) => [r.list(0, 9, -300, 300)], edges: [EMPTY, [[147, -38, 7]]],
  },
  {
    name: 'next_even_above', kind: 'map', split: 'dev2', params: ['xs'],
    doc: 'Replace each number with the next even number strictly above it, so 3 becomes 4, 4 becomes 6 and -3 becomes -2.',
    ref: `function next_even_above(xs) { return xs.map((x) => (x % 2 === 0 ? x + 2 : x + 1)); }`,
    draw: oneList, edges: [EMPTY, [[3, 4, -3, -2]]],
  },
  {
    name: 'times_count_of_itself', kind: 'map', split: 'dev2', params: ['xs'],
    doc: 'Multiply each element by the number of times its value occurs in the list. In [2, 5, 2] the twos occur twice, which gives [4, 5, 4].',
    ref: `function times_count_of_itself(xs) { return xs.map((x) => x * xs.filter((y) => y === x).length); }`,
    draw: dupList, edges: [EMPTY, [[2, 5, 2]]],
  },
  {
    name: 'sum_of_others', kind: 'map', split: 'dev2', params: ['xs'],
    doc: 'Replace each element by the sum of all the other elements of the list.',
    ref: `function sum_of_others(xs) { const t = xs.reduce((s, x) => s + x, 0); return xs.map((x) => t - x); }`,
    draw: oneList, edges: [EMPTY, SINGLE(7)],
  },
  {
    name: 'in_range_flags', kind: 'map', split: 'dev2', params: ['xs', 'lo', 'hi'],
    doc: 'For each value in xs, report true if it lies between lo and hi (both included) and false otherwise. lo is never greater than hi.',
    ref: `function in_range_flags(xs, lo, hi) { return xs.map((x) => x >= lo && x <= hi); }`,
    draw: (r) => { const lo = r.int(-8, 12); return [r.list(), lo, lo + r.int(0, 12)]; },
    edges: [[[], 0, 1], [[1, 2, 3, 4, 5], 2, 4]],
  },
  {
    name: 'negate_flags', kind: 'map', split: 'dev2', params: ['flags'],
    doc: 'Turn every true in flags into false and every false into true.',
    ref: `function negate_flags(flags) { return flags.map((f) => !f); }`,
    draw: (r) => [r.bools(r.int(0, 9))], edges: [EMPTY, [[true]]],
  },
  {
    name: 'round_down_to_multiple', kind: 'map', split: 'dev2', params: ['xs', 'k'],
    doc: 'k is positive. Round every number in xs down to a multiple of k, i.e. to the largest multiple of k that is not greater than it (with k = 4, 9 becomes 8 and -1 becomes -4).',
    ref: `function round_down_to_multiple(xs, k) { return xs.map((x) => Math.floor(x / k) * k); }`,
    draw: listAndInt(1, 7), edges: [[[], 3], [[9, -1, 8], 4], [[5, -5], 1]],
  },

  // ---- conditional ----
  {
    name: 'negatives_to_minus_one', kind: 'conditional', split: 'dev2', params: ['xs'],
    doc: 'Every negative number becomes -1; zero and the positive numbers are kept.',
    ref: `function negatives_to_minus_one(xs) { return xs.map((x) => (x < 0 ? -1 : x)); }`,
    draw: oneList, edges: [EMPTY, [[-7, 0, -1, 3]]],
  },
  {
    name: 'zero_above_k', kind: 'conditional', split: 'dev2', params: ['xs', 'k'],
    doc: 'Set to zero each element of xs that is larger than k, and leave the rest as they are.',
    ref: `function zero_above_k(xs, k) { return xs.map((x) => (x > k ? 0 : x)); }`,
    draw: listAndInt(-5, 15), edges: [[[], 2], [[5, 6, 7], 6]],
  },
  {
    name: 'swap_zeros_and_ones', kind: 'conditional', split: 'dev2', params: ['xs'],
    doc: 'Swap zeros and ones: each 0 becomes 1, each 1 becomes 0, and all other numbers stay the same.',
    ref: `function swap_zeros_and_ones(xs) { return xs.map((x) => (x === 0 ? 1 : x === 1 ? 0 : x)); }`,
    draw: (r) => [r.list(0, 9, -2, 3)], edges: [EMPTY, [[0, 1, 2, -1]]],
  },
  {
    name: 'odd_to_negative', kind: 'conditional', split: 'dev2', params: ['xs'],
    doc: 'Make every odd number negative (an odd number that is already negative stays as it is). Even numbers are not touched.',
    ref: `function odd_to_negative(xs) { return xs.map((x) => (x % 2 !== 0 ? -Math.abs(x) : x)); }`,
    draw: oneList, edges: [EMPTY, [[3, -3, 4, -4]]],
  },
  {
    name: 'replace_max_with_min', kind: 'conditional', split: 'dev2', params: ['xs'],
    doc: "Replace each occurrence of the list's largest value by its smallest value.",
    ref: `function replace_max_with_min(xs) { const hi = Math.max(...xs), lo = Math.min(...xs); return xs.map((x) => (x === hi ? lo : x)); }`,
    draw: (r) => [r.list(0, 9, -4, 8)], edges: [EMPTY, SINGLE(3), [[4, 1, 4, 2]]],
  },
  {
    name: 'repeats_to_zero', kind: 'conditional', split: 'dev2', params: ['xs'],
    doc: 'Keep the first occurrence of every value and replace each later repeat of it by 0.',
    ref: `function repeats_to_zero(xs) { return xs.map((x, i) => (xs.indexOf(x) === i ? x : 0)); }`,
    draw: dupList, edges: [EMPTY, [[3, 3, 3]], [[1, 2, 1, 2, 5]]],
  },
  {
    name: 'replace_outside_range', kind: 'conditional', split: 'dev2', params: ['xs', 'lo', 'hi', 'v'],
    doc: 'Any element of xs below lo or above hi is replaced by v; elements from lo to hi inclusive are kept. You can assume lo <= hi.',
    ref: `function replace_outside_range(xs, lo, hi, v) { return xs.map((x) => (x < lo || x > hi ? v : x)); }`,
    draw: (r) => { const lo = r.int(-8, 8); return [r.list(), lo, lo + r.int(0, 10), r.int(-10, 10)]; },
    edges: [[[], 0, 5, -1], [[-3, 0, 5, 9], 0, 5, 99]],
  },

  // ---- filter ----
  {
    name: 'keep_two_digit_numbers', kind: 'filter', split: 'dev2', params: ['xs'],
    doc: 'Which numbers have exactly two digits? Return them in the order they appear; a minus sign is not a digit, so -42 has two digits.',
    ref: `function keep_two_digit_numbers(xs) { return xs.filter((x) => Math.abs(x) >= 10 && Math.abs(x) <= 99); }`,
    draw: (r) => [r.list(0, 9, -150, 150)], edges: [EMPTY, [[9, 10, 99, 100, -42]]],
  },
  {
    name: 'repeated_values_once', kind: 'filter', split: 'dev2', params: ['xs'],
    doc: 'List each value that occurs more than once in xs, a single time, in the order of its first appearance.',
    ref: `function repeated_values_once(xs) { return xs.filter((x, i) => xs.indexOf(x) === i && xs.lastIndexOf(x) !== i); }`,
    draw: dupList, edges: [EMPTY, [[1, 2, 3]], [[4, 1, 4, 1, 4]]],
  },
  {
    name: 'keep_above_average', kind: 'filter', split: 'dev2', params: ['xs'],
    doc: 'Return the elements that are strictly greater than the average of the whole list, keeping their order.',
    ref: `function keep_above_average(xs) { const s = xs.reduce((t, x) => t + x, 0); return xs.filter((x) => x * xs.length > s); }`,
    draw: oneList, edges: [EMPTY, SINGLE(5), [[2, 2, 2]], [[1, 2, 3, 4]]],
  },
  {
    name: 'keep_ending_in_digit', kind: 'filter', split: 'dev2', params: ['xs', 'd'],
    doc: 'd is a digit from 0 to 9. Keep only the numbers in xs whose last digit is d (ignore the sign: -23 ends in 3).',
    ref: `function keep_ending_in_digit(xs, d) { return xs.filter((x) => Math.abs(x) % 10 === d); }`,
    draw: (r) => { const xs = r.list(0, 9, -60, 60); return [xs, xs.length && r.bool(0.7) ? Math.abs(r.pick(xs)) % 10 : r.int(0, 9)]; },
    edges: [[[], 3], [[-23, 13, 30], 3], [[10, 0, 5], 0]],
  },
  {
    name: 'first_n_positives', kind: 'filter', split: 'dev2', params: ['xs', 'n'],
    doc: 'Return the first n positive numbers in xs, in order. If there are fewer than n of them, return all of them.',
    ref: `function first_n_positives(xs, n) { return xs.filter((x) => x > 0).slice(0, n); }`,
    draw: (r) => [r.list(0, 9, -8, 12), r.int(0, 5)],
    edges: [[[], 2], [[-1, 3, 0, 4, 5], 2], [[1, 2], 0], [[-1, 6], 4]],
  },
  {
    name: 'keep_parity_matches_index', kind: 'filter', split: 'dev2', params: ['xs'],
    doc: 'Keep the elements whose parity matches their index: even numbers at even indices and odd numbers at odd indices (indices start at zero).',
    ref: `function keep_parity_matches_index(xs) { return xs.filter((x, i) => Math.abs(x % 2) === i % 2); }`,
    draw: oneList, edges: [EMPTY, [[0, 1, 2, 3]], [[1, 0]]],
  },
  {
    name: 'keep_divisors_of', kind: 'filter', split: 'dev2', params: ['xs', 'n'],
    doc: 'n is a positive whole number. From xs, keep the positive numbers that divide n evenly, in their original order.',
    ref: `function keep_divisors_of(xs, n) { return xs.filter((x) => x > 0 && n % x === 0); }`,
    draw: (r) => [r.list(0, 9, -6, 15), r.bool(0.6) ? r.pick([12, 18, 20, 24, 30, 36, 60]) : r.int(1, 60)],
    edges: [[[], 12], [[0, -3, 3, 5, 12], 12], [[1, 1], 1]],
  },
  {
    name: 'drop_multiples_of_either', kind: 'filter', split: 'dev2', params: ['xs', 'a', 'b'],
    doc: 'Remove from xs every number that is a multiple of a or a multiple of b. Both a and b are at least two.',
    ref: `function drop_multiples_of_either(xs, a, b) { return xs.filter((x) => x % a !== 0 && x % b !== 0); }`,
    draw: (r) => [r.list(), r.int(2, 5), r.int(2, 7)], edges: [[[], 2, 3], [[0, 4, 9, 7, -5], 2, 3]],
  },

  // ---- fold ----
  {
    name: 'product_of_nonzero', kind: 'fold', split: 'dev2', params: ['xs'],
    doc: 'Multiply together all the non-zero numbers in the list. If there are none, the answer is 1.',
    ref: `function product_of_nonzero(xs) { let p = 1; for (const x of xs) if (x !== 0) p *= x; return p; }`,
    draw: (r) => [r.list(0, 6, -3, 4)], edges: [EMPTY, [[0, 0]], [[0, -3, 2]]],
  },
  {
    name: 'sum_of_multiples_of_k', kind: 'fold', split: 'dev2', params: ['xs', 'k'],
    doc: 'Add up the elements of xs that are divisible by k (k is positive).',
    ref: `function sum_of_multiples_of_k(xs, k) { return xs.reduce((s, x) => (x % k === 0 ? s + x : s), 0); }`,
    draw: listAndInt(2, 5), edges: [[[], 3], [[3, 4, -6, 0], 3], [[5, -5], 1]],
  },
  {
    name: 'sum_of_abs_values', kind: 'fold', split: 'dev2', params: ['xs'],
    doc: 'Sum the absolute values of the numbers, so that -3 adds 3 just like 3 does.',
    ref: `function sum_of_abs_values(xs) { return xs.reduce((s, x) => s + Math.abs(x), 0); }`,
    draw: oneList, edges: [EMPTY, [[-3, 3, 0]]],
  },
  {
    name: 'smallest_positive', kind: 'fold', split: 'dev2', params: ['xs'],
    doc: 'Find the smallest number above zero in the list and return it; return 0 when the list has no positive number.',
    ref: `function smallest_positive(xs) { const p = xs.filter((x) => x > 0); return p.length ? Math.min(...p) : 0; }`,
    draw: (r) => [r.list(0, 9, -10, 20)], edges: [EMPTY, [[0, -2]], [[5, 1, 9]]],
  },
  {
    name: 'mode_count', kind: 'fold', split: 'dev2', params: ['xs'],
    doc: 'How many times does the most common value occur? An empty list gives zero.',
    ref: `function mode_count(xs) { let best = 0; for (const x of xs) best = Math.max(best, xs.filter((y) => y === x).length); return best; }`,
    draw: dupList, edges: [EMPTY, SINGLE(4), [[2, 2, 3, 3, 3]]],
  },
  {
    name: 'sum_without_extremes', kind: 'fold', split: 'dev2', params: ['scores'],
    doc: 'A judge panel gives scores. Drop one lowest and one highest score and add up the rest; there are at least two scores.',
    ref: `function sum_without_extremes(scores) { return scores.reduce((s, x) => s + x, 0) - Math.max(...scores) - Math.min(...scores); }`,
    draw: (r) => [r.list(2, 9, 0, 10)], edges: [[[3, 7]], [[5, 5, 5]], [[1, 9, 4, 6]]],
  },
  {
    name: 'sum_of_distinct', kind: 'fold', split: 'dev2', params: ['xs'],
    doc: 'Add up the distinct values of xs, counting each value only once however often it appears.',
    ref: `function sum_of_distinct(xs) { return [...new Set(xs)].reduce((s, x) => s + x, 0); }`,
    draw: dupList, edges: [EMPTY, [[2, 2, 2]], [[1, -1, 1, 3]]],
  },
  {
    name: 'midrange_floor', kind: 'fold', split: 'dev2', params: ['xs'],
    doc: 'Return the midpoint between the smallest and the largest value, (min + max) / 2, rounded down to an integer. The list is non-empty.',
    ref: `function midrange_floor(xs) { return Math.floor((Math.max(...xs) + Math.min(...xs)) / 2); }`,
    draw: nonEmptyList, edges: [SINGLE(-5), [[-3, 0]], [[2, 9, 4]]],
  },
  {
    name: 'largest_pair_product', kind: 'fold', split: 'dev2', params: ['xs'],
    doc: 'What is the largest product of two elements taken from different positions? There are at least two elements.',
    ref: `function largest_pair_product(xs) { let best = -Infinity; for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) best = Math.max(best, xs[i] * xs[j]); return best; }`,
    draw: (r) => [r.list(2, 8, -10, 10)], edges: [[[-5, -4, 1]], [[3, 3]], [[-2, 7]]],
  },
  {
    name: 'count_equal_pairs', kind: 'fold', split: 'dev2', params: ['xs'],
    doc: 'How many pairs of positions hold the same value? Each pair of positions counts once, so [7, 7, 7] has three pairs.',
    ref: `function count_equal_pairs(xs) { let c = 0; for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) if (xs[i] === xs[j]) c++; return c; }`,
    draw: dupList, edges: [EMPTY, [[7, 7, 7]], [[1, 2, 3]]],
  },

  // ---- predicate ----
  {
    name: 'contains_both', kind: 'predicate', split: 'dev2', params: ['xs', 'a', 'b'],
    doc: 'Are both a and b present in xs? They may be the same number.',
    ref: `function contains_both(xs, a, b) { return xs.includes(a) && xs.includes(b); }`,
    draw: (r) => { const xs = r.list(0, 8, -3, 8); const pick = () => (xs.length && r.bool(0.75) ? r.pick(xs) : r.int(-3, 8)); return [xs, pick(), pick()]; },
    edges: [[[], 1, 2], [[1], 1, 1], [[1, 2], 2, 3]],
  },
  {
    name: 'is_arithmetic', kind: 'predicate', split: 'dev2', params: ['xs'],
    doc: 'Is the gap between each element and the next always the same? Lists with fewer than three elements count as yes.',
    ref: `function is_arithmetic(xs) { for (let i = 2; i < xs.length; i++) if (xs[i] - xs[i - 1] !== xs[1] - xs[0]) return false; return true; }`,
    draw: (r) => { if (r.bool()) return [r.list(3, 8, -5, 10)]; const a = r.int(-10, 10), d = r.int(-4, 4); return [Array.from({ length: r.int(3, 8) }, (_, i) => a + i * d)]; },
    edges: [EMPTY, [[5, 5, 5]], [[1, 3, 6]], [[7, 2]]],
  },
  {
    name: 'three_rising_in_a_row', kind: 'predicate', split: 'dev2', params: ['xs'],
    doc: 'Return true when three neighbouring elements, one after another, strictly increase (like 2, 5, 9), and false otherwise.',
    ref: `function three_rising_in_a_row(xs) { for (let i = 2; i < xs.length; i++) if (xs[i - 2] < xs[i - 1] && xs[i - 1] < xs[i]) return true; return false; }`,
    draw: (r) => [r.list(0, 9, -5, 10)], edges: [EMPTY, [[1, 2, 2, 3]], [[1, 2, 3]]],
  },
  {
    name: 'sum_is_even', kind: 'predicate', split: 'dev2', params: ['xs'],
    doc: 'Is the total of all the numbers even? The empty list sums to zero.',
    ref: `function sum_is_even(xs) { return xs.reduce((s, x) => s + x, 0) % 2 === 0; }`,
    draw: oneList, edges: [EMPTY, SINGLE(-3), [[1, 1]]],
  },
  {
    name: 'has_majority_value', kind: 'predicate', split: 'dev2', params: ['xs'],
    doc: 'Is there one value that fills more than half of the positions in the list?',
    ref: `function has_majority_value(xs) { return xs.some((x) => 2 * xs.filter((y) => y === x).length > xs.length); }`,
    draw: (r) => { if (r.bool()) return [r.list(1, 8, -2, 3)]; const v = r.int(-5, 9); const n = r.int(1, 4); return [r.shuffle([...Array(n + r.int(0, 2)).fill(v), ...r.list(n - 1, n, -5, 9)])]; },
    edges: [EMPTY, [[1, 2]], [[4, 4, 1]], SINGLE(6)],
  },
  {
    name: 'is_zigzag', kind: 'predicate', split: 'dev2', params: ['xs'],
    doc: 'Does xs zigzag? That is, every inner element is either bigger than both of its neighbours or smaller than both. Lists with fewer than three elements count as zigzag.',
    ref: `function is_zigzag(xs) { for (let i = 1; i + 1 < xs.length; i++) { const up = xs[i] > xs[i - 1] && xs[i] > xs[i + 1]; const down = xs[i] < xs[i - 1] && xs[i] < xs[i + 1]; if (!up && !down) return false; } return true; }`,
    draw: (r) => {
      if (r.bool(0.4)) return [r.list(3, 8, -3, 6)];
      let x = r.int(-5, 5), dir = r.bool() ? 1 : -1;
      const xs = [x];
      for (let n = r.int(2, 7); n > 0; n--) { x += dir * r.int(1, 5); dir = -dir; xs.push(x); }
      if (r.bool(0.3)) { const i = r.int(1, xs.length - 1); xs[i] = xs[i - 1]; }
      return [xs];
    },
    edges: [EMPTY, [[1, 1]], [[1, 3, 2, 4]], [[1, 2, 3]]],
  },
  {
    name: 'has_step_of_one', kind: 'predicate', split: 'dev2', params: ['xs'],
    doc: 'Do any two neighbours differ by exactly 1, in either direction?',
    ref: `function has_step_of_one(xs) { return xs.some((x, i) => i > 0 && Math.abs(x - xs[i - 1]) === 1); }`,
    draw: (r) => [r.list(0, 8, -3, 12)], edges: [EMPTY, [[4, 3]], [[1, 3, 5]]],
  },
  {
    name: 'product_is_positive', kind: 'predicate', split: 'dev2', params: ['xs'],
    doc: 'If you multiplied all the numbers together, would the result be greater than zero? The product of no numbers at all is one.',
    ref: `function product_is_positive(xs) { let negatives = 0; for (const x of xs) { if (x === 0) return false; if (x < 0) negatives++; } return negatives % 2 === 0; }`,
    draw: (r) => [r.list(0, 8, -6, 6)], edges: [EMPTY, [[0]], [[-2, -3]], [[-1, 4]]],
  },
  {
    name: 'halves_sum_equal', kind: 'predicate', split: 'dev2', params: ['xs'],
    doc: 'The list has an even number of elements. Do its first half and its second half have the same sum?',
    ref: `function halves_sum_equal(xs) { const h = xs.length / 2; let d = 0; xs.forEach((x, i) => { d += i < h ? x : -x; }); return d === 0; }`,
    draw: (r) => {
      const n = 2 * r.int(1, 4);
      const xs = r.list(n, n, -5, 9);
      if (r.bool()) { const h = n / 2; xs[n - 1] += sum(xs.slice(0, h)) - sum(xs.slice(h)); }
      return [xs];
    },
    edges: [EMPTY, [[3, 3]], [[1, 2, 3, 0]], [[4, -4]]],
  },

  // ---- relative-index ----
  {
    name: 'gap_between_first_and_last', kind: 'relative-index', split: 'dev2', params: ['xs', 'v'],
    doc: 'How far apart are the first and the last occurrences of v in xs? Return the difference of their indices: 0 if v occurs once, and -1 if v does not occur at all.',
    ref: `function gap_between_first_and_last(xs, v) { const i = xs.indexOf(v); return i < 0 ? -1 : xs.lastIndexOf(v) - i; }`,
    draw: listAndMember, edges: [[[], 1], [[5], 5], [[2, 1, 2, 3, 2], 2]],
  },
  {
    name: 'count_between_outer_zeros', kind: 'relative-index', split: 'dev2', params: ['xs'],
    doc: 'Count the elements strictly between the first 0 and the last 0 of the list (any zeros in between count too). If the list has fewer than two zeros, return 0.',
    ref: `function count_between_outer_zeros(xs) { const i = xs.indexOf(0), j = xs.lastIndexOf(0); return i < 0 || i === j ? 0 : j - i - 1; }`,
    draw: (r) => [withZeros(r)], edges: [EMPTY, [[0, 5, 0]], [[0, 0]], [[3, 0, 4]]],
  },
  {
    name: 'first_above_first_index', kind: 'relative-index', split: 'dev2', params: ['xs'],
    doc: "Find the index of the first element that is bigger than the list's first element. Give -1 when there is no such element.",
    ref: `function first_above_first_index(xs) { return xs.findIndex((x) => x > xs[0]); }`,
    draw: oneList, edges: [EMPTY, SINGLE(2), [[5, 1, 7, 9]]],
  },
  {
    name: 'second_occurrence_index', kind: 'relative-index', split: 'dev2', params: ['xs', 'v'],
    doc: 'Where does v show up for the second time in xs? Return that index, or -1 if v appears fewer than two times.',
    ref: `function second_occurrence_index(xs, v) { const i = xs.indexOf(v); return i < 0 ? -1 : xs.indexOf(v, i + 1); }`,
    draw: (r) => [r.list(0, 9, -2, 4), r.int(-2, 4)], edges: [[[], 0], [[3, 1, 3], 3], [[3], 3]],
  },
  {
    name: 'count_after_last_max', kind: 'relative-index', split: 'dev2', params: ['xs'],
    doc: 'How many elements come after the last occurrence of the largest value? The list is not empty.',
    ref: `function count_after_last_max(xs) { return xs.length - 1 - xs.lastIndexOf(Math.max(...xs)); }`,
    draw: (r) => [r.list(1, 9, -3, 6)], edges: [SINGLE(1), [[5, 2, 5, 1, 0]], [[1, 2, 9]]],
  },
  {
    name: 'index_of_first_drop', kind: 'relative-index', split: 'dev2', params: ['xs'],
    doc: 'Return the first index i where xs[i] is smaller than the element before it, or -1 if the list never goes down.',
    ref: `function index_of_first_drop(xs) { for (let i = 1; i < xs.length; i++) if (xs[i] < xs[i - 1]) return i; return -1; }`,
    draw: (r) => { const xs = r.list(1, 9, -5, 12); return [r.bool(0.3) ? xs.sort((a, b) => a - b) : xs]; },
    edges: [EMPTY, [[1, 1, 2]], [[3, 1]]],
  },
  {
    name: 'k_steps_after_value', kind: 'relative-index', split: 'dev2', params: ['xs', 'v', 'k'],
    doc: 'Find the first occurrence of v in xs and return the element k places after it. You may assume v is there and that the position k steps later exists.',
    ref: `function k_steps_after_value(xs, v, k) { return xs[xs.indexOf(v) + k]; }`,
    draw: (r) => { const xs = r.list(2, 9, -4, 9); const v = r.pick(xs.slice(0, -1)); const f = xs.indexOf(v); return [xs, v, r.bool(0.15) ? 0 : r.int(1, xs.length - 1 - f)]; },
    edges: [[[4, 8], 4, 1], [[1, 2, 1, 3], 1, 3], [[5], 5, 0]],
  },

  // ---- positional ----
  {
    name: 'rotate_right', kind: 'positional', split: 'dev2', params: ['xs', 'k'],
    doc: 'Rotate xs to the right by k places: the last k elements move to the front, keeping their order. k may be larger than the length of xs, in which case it wraps around.',
    ref: `function rotate_right(xs, k) { const n = xs.length; if (n === 0) return []; const s = k % n; return xs.slice(n - s).concat(xs.slice(0, n - s)); }`,
    draw: (r) => [r.list(), r.int(0, 12)], edges: [[[], 2], [[1, 2, 3], 1], [[1, 2, 3], 5], [[4, 5], 0]],
  },
  {
    name: 'insert_between', kind: 'positional', split: 'dev2', params: ['xs', 'v'],
    doc: 'Put v between every two neighbouring elements of xs, but not before the first one or after the last one.',
    ref: `function insert_between(xs, v) { return xs.flatMap((x, i) => (i === 0 ? [x] : [v, x])); }`,
    draw: (r) => [r.list(), r.int(-10, 20)], edges: [[[], 0], [[5], 0], [[1, 2, 3], 0]],
  },
  {
    name: 'remove_slice', kind: 'positional', split: 'dev2', params: ['xs', 'start', 'stop'],
    doc: 'Delete the elements from index start up to but not including index stop, and return what is left. 0 <= start <= stop <= the length of xs.',
    ref: `function remove_slice(xs, start, stop) { return [...xs.slice(0, start), ...xs.slice(stop)]; }`,
    draw: listAndRange, edges: [[[], 0, 0], [[1, 2, 3, 4], 1, 3], [[1, 2], 0, 2]],
  },
  {
    name: 'insert_list_at', kind: 'positional', split: 'dev2', params: ['xs', 'ys', 'i'],
    doc: 'Insert all the elements of ys into xs at position i, in order, so that the first element of ys ends up at index i. i is between 0 and len(xs).',
    ref: `function insert_list_at(xs, ys, i) { return [...xs.slice(0, i), ...ys, ...xs.slice(i)]; }`,
    draw: (r) => { const xs = r.list(0, 6); return [xs, r.list(0, 4), r.int(0, xs.length)]; },
    edges: [[[], [], 0], [[1, 2], [9, 9], 1], [[1], [], 1], [[3, 4], [5], 2]],
  },
  {
    name: 'swap_at', kind: 'positional', split: 'dev2', params: ['xs', 'i', 'j'],
    doc: 'Exchange the elements at indices i and j of xs and return the list. Both indices are valid, and they may be equal.',
    ref: `function swap_at(xs, i, j) { const ys = [...xs]; const t = ys[i]; ys[i] = ys[j]; ys[j] = t; return ys; }`,
    draw: (r) => { const xs = r.list(1, 9); return [xs, r.int(0, xs.length - 1), r.int(0, xs.length - 1)]; },
    edges: [[[5], 0, 0], [[1, 2, 3], 0, 2], [[1, 2, 3], 2, 1]],
  },
  {
    name: 'move_to_end', kind: 'positional', split: 'dev2', params: ['xs', 'i'],
    doc: 'Take the element at index i out of the list and put it at the end instead; i is a valid index.',
    ref: `function move_to_end(xs, i) { return [...xs.slice(0, i), ...xs.slice(i + 1), xs[i]]; }`,
    draw: (r) => { const xs = r.list(1, 9); return [xs, r.int(0, xs.length - 1)]; },
    edges: [[[7], 0], [[1, 2, 3], 0], [[1, 2, 3], 2]],
  },
  {
    name: 'last_k_reversed', kind: 'positional', split: 'dev2', params: ['xs', 'k'],
    doc: 'Give me the last k elements of xs, the very last one first. If xs has fewer than k elements, reverse the whole of it.',
    ref: `function last_k_reversed(xs, k) { return xs.slice(Math.max(0, xs.length - k)).reverse(); }`,
    draw: listAndCount, edges: [[[], 2], [[1, 2, 3], 0], [[1, 2, 3], 2], [[1, 2], 5]],
  },
  {
    name: 'reverse_first_k', kind: 'positional', split: 'dev2', params: ['xs', 'k'],
    doc: 'Reverse the order of the first k elements and leave the others where they are. When k exceeds the length, the whole list is reversed.',
    ref: `function reverse_first_k(xs, k) { return [...xs.slice(0, k).reverse(), ...xs.slice(k)]; }`,
    draw: listAndCount, edges: [[[], 3], [[1, 2, 3, 4], 2], [[1, 2, 3], 7], [[1, 2], 0]],
  },
  {
    name: 'up_to_first', kind: 'positional', split: 'dev2', params: ['xs', 'v'],
    doc: 'Return everything in xs that comes before the first v. If v is not in xs, return all of xs.',
    ref: `function up_to_first(xs, v) { const i = xs.indexOf(v); return i < 0 ? [...xs] : xs.slice(0, i); }`,
    draw: listAndMember, edges: [[[], 1], [[1, 2, 3], 1], [[4, 5], 9], [[2, 3, 2], 3]],
  },
  {
    name: 'shift_in_front', kind: 'positional', split: 'dev2', params: ['xs', 'v'],
    doc: 'Push v onto the front of xs and drop the last element, so that the list keeps its length (an empty list stays empty).',
    ref: `function shift_in_front(xs, v) { return xs.length ? [v, ...xs.slice(0, -1)] : []; }`,
    draw: (r) => [r.list(), r.int(-10, 20)], edges: [[[], 4], [[1], 4], [[1, 2, 3], 0]],
  },
  {
    name: 'fill_range', kind: 'positional', split: 'dev2', params: ['xs', 'start', 'stop', 'v'],
    doc: 'Overwrite the elements of xs at indices start, start + 1, ..., stop - 1 with v. Assume 0 <= start <= stop <= len(xs).',
    ref: `function fill_range(xs, start, stop, v) { return xs.map((x, i) => (i >= start && i < stop ? v : x)); }`,
    draw: (r) => [...listAndRange(r), r.int(-10, 20)],
    edges: [[[], 0, 0, 1], [[1, 2, 3, 4], 1, 3, 0], [[5, 6], 0, 2, 9]],
  },
  {
    name: 'slice_with_step', kind: 'positional', split: 'dev2', params: ['xs', 'start', 'step'],
    doc: 'Starting at index start, take every step-th element: xs[start], xs[start + step], xs[start + 2*step], and so on. step is at least one, and a start past the end gives an empty list.',
    ref: `function slice_with_step(xs, start, step) { const out = []; for (let i = start; i < xs.length; i += step) out.push(xs[i]); return out; }`,
    draw: (r) => { const xs = r.list(); return [xs, r.int(0, xs.length + 1), r.int(1, 4)]; },
    edges: [[[], 0, 1], [[1, 2, 3, 4, 5], 1, 2], [[1, 2, 3], 5, 1], [[1, 2, 3], 0, 4]],
  },
  {
    name: 'trim_ends', kind: 'positional', split: 'dev2', params: ['xs'],
    doc: 'Strip off the first and the last element. A list with two elements or fewer becomes empty.',
    ref: `function trim_ends(xs) { return xs.slice(1, Math.max(1, xs.length - 1)); }`,
    draw: oneList, edges: [EMPTY, SINGLE(1), [[1, 2]], [[1, 2, 3]]],
  },
  {
    name: 'wrapped_element', kind: 'positional', split: 'dev2', params: ['xs', 'i'],
    doc: 'Return the element at position i, going round and round the list as if it were a circle, so that i = len(xs) gives the first element again. xs is not empty and i is zero or positive.',
    ref: `function wrapped_element(xs, i) { return xs[i % xs.length]; }`,
    draw: (r) => [r.list(1, 9), r.int(0, 25)], edges: [[[4], 3], [[1, 2, 3], 3], [[1, 2, 3], 2]],
  },
  {
    name: 'riffle_halves', kind: 'positional', split: 'dev2', params: ['xs'],
    doc: 'Cut the list into two halves, the first half taking the extra element when the length is odd, and interleave them like a riffle shuffle: first of the first half, first of the second half, second of the first half, and so on.',
    ref: `function riffle_halves(xs) { const h = Math.ceil(xs.length / 2); const out = []; for (let i = 0; i < h; i++) { out.push(xs[i]); if (h + i < xs.length) out.push(xs[h + i]); } return out; }`,
    draw: oneList, edges: [EMPTY, SINGLE(3), [[1, 2, 3, 4, 5, 6]], [[1, 2, 3]]],
  },

  // ---- pairs ----
  {
    name: 'is_subset', kind: 'pairs', split: 'dev2', params: ['xs', 'ys'],
    doc: 'Is every value in xs also somewhere in ys? Repeats in xs do not need repeats in ys.',
    ref: `function is_subset(xs, ys) { return xs.every((x) => ys.includes(x)); }`,
    draw: (r) => { const ys = r.list(0, 8, -3, 8); const n = r.int(0, 5); return [Array.from({ length: n }, () => (ys.length && r.bool(0.85) ? r.pick(ys) : r.int(-3, 8))), ys]; },
    edges: [[[], []], [[1, 1], [1]], [[2], []]],
  },
  {
    name: 'values_in_exactly_one', kind: 'pairs', split: 'dev2', params: ['xs', 'ys'],
    doc: 'Return, sorted from smallest to largest and without repeats, the values that are in one of the two lists but not in both.',
    ref: `function values_in_exactly_one(xs, ys) { const out = [...new Set([...xs, ...ys])].filter((v) => xs.includes(v) !== ys.includes(v)); return out.sort((a, b) => a - b); }`,
    draw: (r) => [r.list(0, 8, -4, 8), r.list(0, 8, -4, 8)], edges: [[[], []], [[1, 2, 2], [2, 3]], [[5], [5]]],
  },
  {
    name: 'round_wins_margin', kind: 'pairs', split: 'dev2', params: ['xs', 'ys'],
    doc: 'xs[i] and ys[i] are the scores of two players in round i, and the lists are the same length. Return the number of rounds the first player won minus the number the second player won; a tied round counts for nobody.',
    ref: `function round_wins_margin(xs, ys) { let m = 0; xs.forEach((x, i) => { if (x > ys[i]) m++; else if (x < ys[i]) m--; }); return m; }`,
    draw: (r) => sameLength(r, 0, 6), edges: [[[], []], [[3, 3], [3, 3]], [[5, 1, 2], [4, 2, 2]]],
  },
  {
    name: 'sort_by_keys', kind: 'pairs', split: 'dev2', params: ['xs', 'keys'],
    doc: 'keys has one number for each element of xs. Reorder xs so that the keys go from smallest to largest; elements with equal keys keep their original order.',
    ref: `function sort_by_keys(xs, keys) { return xs.map((x, i) => i).sort((a, b) => keys[a] - keys[b] || a - b).map((i) => xs[i]); }`,
    draw: (r) => { const n = r.int(0, 8); return [r.list(n, n), r.list(n, n, -3, 5)]; },
    edges: [[[], []], [[10, 20, 30], [3, 1, 2]], [[1, 2, 3], [0, 0, 0]]],
  },
  {
    name: 'contains_block', kind: 'pairs', split: 'dev2', params: ['xs', 'ys'],
    doc: 'Does ys contain xs as one unbroken block, with the elements of xs next to each other and in the same order? The empty list is inside every list.',
    ref: `function contains_block(xs, ys) { for (let s = 0; s + xs.length <= ys.length; s++) if (xs.every((x, i) => ys[s + i] === x)) return true; return false; }`,
    draw: (r) => {
      const ys = r.list(0, 8, -2, 4);
      if (r.bool(0.4) || ys.length === 0) return [r.list(1, 3, -2, 4), ys];
      const a = r.int(0, ys.length - 1); const xs = ys.slice(a, r.int(a + 1, ys.length));
      if (r.bool(0.3)) xs[r.int(0, xs.length - 1)] += 1;
      return [xs, ys];
    },
    edges: [[[], []], [[1, 3], [1, 2, 3]], [[2, 3], [1, 2, 3]], [[1], []]],
  },
  {
    name: 'union_keep_order', kind: 'pairs', split: 'dev2', params: ['xs', 'ys'],
    doc: 'Combine the two lists into one with no repeated values: the values of xs first, then the values of ys not seen yet, each value at the place of its first appearance.',
    ref: `function union_keep_order(xs, ys) { const out = []; for (const v of [...xs, ...ys]) if (!out.includes(v)) out.push(v); return out; }`,
    draw: (r) => [r.list(0, 8, -4, 8), r.list(0, 8, -4, 8)], edges: [[[], []], [[1, 1], [1]], [[3, 1], [1, 2, 3, 4]]],
  },
  {
    name: 'pick_by_indices', kind: 'pairs', split: 'dev2', params: ['xs', 'idx'],
    doc: 'idx is a list of positions in xs (each a valid index, repeats allowed). Return the elements of xs at those positions, in the order given by idx.',
    ref: `function pick_by_indices(xs, idx) { return idx.map((i) => xs[i]); }`,
    draw: (r) => { const xs = r.list(1, 8); return [xs, r.list(0, 6, 0, xs.length - 1)]; },
    edges: [[[5], []], [[5, 6, 7], [2, 0, 2]]],
  },
  {
    name: 'lexicographically_before', kind: 'pairs', split: 'dev2', params: ['xs', 'ys'],
    doc: 'Would xs come strictly before ys in dictionary order? Compare element by element from the start: the first difference decides, and if one list runs out first, the shorter one comes first. Equal lists give false.',
    ref: `function lexicographically_before(xs, ys) { for (let i = 0; i < Math.min(xs.length, ys.length); i++) if (xs[i] !== ys[i]) return xs[i] < ys[i]; return xs.length < ys.length; }`,
    draw: (r) => {
      const xs = r.list(0, 5, 0, 4); let ys = [...xs];
      const c = r.int(0, 3);
      if (c === 0) ys = r.list(0, 5, 0, 4);
      else if (c === 1 && ys.length) ys[r.int(0, ys.length - 1)] += r.int(-2, 2);
      else if (c === 2) ys = r.bool() ? ys.slice(0, r.int(0, ys.length)) : [...ys, ...r.list(1, 2, 0, 4)];
      return r.bool() ? [xs, ys] : [ys, xs];
    },
    edges: [[[], []], [[], [1]], [[1, 2], [1]], [[1, 2], [1, 3]]],
  },

  // ---- prefix ----
  {
    name: 'first_index_total_reaches', kind: 'prefix', split: 'dev2', params: ['xs', 'target'],
    doc: 'Adding the numbers up from the left, at which index does the running total first become greater than or equal to target? Return -1 if it never does.',
    ref: `function first_index_total_reaches(xs, target) { let s = 0; for (let i = 0; i < xs.length; i++) { s += xs[i]; if (s >= target) return i; } return -1; }`,
    draw: (r) => [r.list(0, 9, -5, 10), r.int(-5, 30)], edges: [[[], 0], [[1, 2, 3], 3], [[5], 6], [[4, -1], 0]],
  },
  {
    name: 'running_even_count', kind: 'prefix', split: 'dev2', params: ['xs'],
    doc: 'For each position, how many even numbers have appeared so far, counting that position itself? Return the list of these counts.',
    ref: `function running_even_count(xs) { let c = 0; return xs.map((x) => (x % 2 === 0 ? ++c : c)); }`,
    draw: oneList, edges: [EMPTY, [[1, 2, 4, 3]]],
  },
  {
    name: 'neighbour_max', kind: 'prefix', split: 'dev2', params: ['xs'],
    doc: 'Return, for each pair of neighbouring elements, the larger of the two. The answer is one element shorter than xs, and empty when xs has fewer than two elements.',
    ref: `function neighbour_max(xs) { return xs.slice(1).map((x, i) => Math.max(x, xs[i])); }`,
    draw: oneList, edges: [EMPTY, SINGLE(4), [[1, 5, 2]]],
  },
  {
    name: 'window_sums_of_three', kind: 'prefix', split: 'dev2', params: ['xs'],
    doc: 'Slide a window three elements wide along the list and return the sum inside each window: xs[0] + xs[1] + xs[2], then xs[1] + xs[2] + xs[3], and so on. Fewer than three elements give an empty list.',
    ref: `function window_sums_of_three(xs) { const out = []; for (let i = 2; i < xs.length; i++) out.push(xs[i - 2] + xs[i - 1] + xs[i]); return out; }`,
    draw: oneList, edges: [EMPTY, [[1, 2]], [[1, 2, 3]]],
  },
  {
    name: 'max_block_sum', kind: 'prefix', split: 'dev2', params: ['xs'],
    doc: 'Among all non-empty stretches of consecutive elements, which has the largest sum? Return that sum. The list is not empty.',
    ref: `function max_block_sum(xs) { let best = xs[0], cur = 0; for (const x of xs) { cur = Math.max(x, cur + x); best = Math.max(best, cur); } return best; }`,
    draw: (r) => [r.list(1, 9, -10, 10)], edges: [SINGLE(-4), [[-3, -1, -2]], [[2, -1, 2]]],
  },
  {
    name: 'running_mean_floor', kind: 'prefix', split: 'dev2', params: ['xs'],
    doc: 'For every position i, return the average of the first i + 1 numbers, rounded down to a whole number.',
    ref: `function running_mean_floor(xs) { let s = 0; return xs.map((x, i) => { s += x; return Math.floor(s / (i + 1)); }); }`,
    draw: oneList, edges: [EMPTY, [[1, 2]], [[-1, -2]]],
  },
  {
    name: 'longest_positive_streak', kind: 'prefix', split: 'dev2', params: ['xs'],
    doc: 'How long is the longest run of consecutive positive numbers? Zero if there is no positive number.',
    ref: `function longest_positive_streak(xs) { let best = 0, cur = 0; for (const x of xs) { cur = x > 0 ? cur + 1 : 0; best = Math.max(best, cur); } return best; }`,
    draw: (r) => [r.list(0, 10, -4, 8)], edges: [EMPTY, [[0, -1]], [[1, 2, 0, 3, 4, 5]]],
  },

  // ---- sorting ----
  {
    name: 'sort_by_distance_to_k', kind: 'sorting', split: 'dev2', params: ['xs', 'k'],
    doc: 'Order the numbers in xs by how close they are to k, closest first; when two are equally close, the smaller number goes first.',
    ref: `function sort_by_distance_to_k(xs, k) { return [...xs].sort((a, b) => Math.abs(a - k) - Math.abs(b - k) || a - b); }`,
    draw: (r) => [r.list(0, 9, -5, 15), r.int(-5, 15)], edges: [[[], 3], [[1, 5, 3, 3], 3], [[2, 4], 3]],
  },
  {
    name: 'sort_by_frequency', kind: 'sorting', split: 'dev2', params: ['xs'],
    doc: 'Sort the list so that the values occurring most often come first. Values that occur equally often go from smallest to largest, and the copies of a value stay together.',
    ref: `function sort_by_frequency(xs) { const c = (v) => xs.filter((y) => y === v).length; return [...xs].sort((a, b) => c(b) - c(a) || a - b); }`,
    draw: dupList, edges: [EMPTY, [[1, 2, 2, 3, 3, 3]], [[5, 4]]],
  },
  {
    name: 'sort_first_k', kind: 'sorting', split: 'dev2', params: ['xs', 'k'],
    doc: 'Sort just the first k elements of xs into ascending order; the rest stay where they are. If k is larger than the list, sort all of it.',
    ref: `function sort_first_k(xs, k) { return [...xs.slice(0, k).sort((a, b) => a - b), ...xs.slice(k)]; }`,
    draw: listAndCount, edges: [[[], 2], [[3, 1, 2, 0], 2], [[3, 1, 2], 9], [[2, 1], 0]],
  },
  {
    name: 'sorting_order', kind: 'sorting', split: 'dev2', params: ['xs'],
    doc: 'Return the indices of xs, listed in the order that would sort xs ascending. When two values are equal, the smaller index comes first.',
    ref: `function sorting_order(xs) { return xs.map((_, i) => i).sort((a, b) => xs[a] - xs[b] || a - b); }`,
    draw: (r) => [r.list(0, 9, -5, 9)], edges: [EMPTY, [[30, 10, 20]], [[2, 2, 1]]],
  },
  {
    name: 'small_large_alternating', kind: 'sorting', split: 'dev2', params: ['xs'],
    doc: 'Rearrange the numbers as smallest, largest, second smallest, second largest, third smallest, and so on, until every number has been used once.',
    ref: `function small_large_alternating(xs) { const s = [...xs].sort((a, b) => a - b); const out = []; let i = 0, j = s.length - 1; while (i <= j) { out.push(s[i++]); if (i <= j) out.push(s[j--]); } return out; }`,
    draw: oneList, edges: [EMPTY, SINGLE(2), [[1, 2, 3, 4, 5]], [[4, 4, 1]]],
  },
  {
    name: 'sorted_squares', kind: 'sorting', split: 'dev2', params: ['xs'],
    doc: 'Square every number and return the squares in increasing order.',
    ref: `function sorted_squares(xs) { return xs.map((x) => x * x).sort((a, b) => a - b); }`,
    draw: (r) => [r.list(0, 9, -12, 12)], edges: [EMPTY, [[-3, 1, 2]]],
  },
  {
    name: 'longest_consecutive_values', kind: 'sorting', split: 'dev2', params: ['xs'],
    doc: 'What is the length of the longest sequence of consecutive integers, such as 4, 5, 6, 7, that can be made from the values in the list, taken in any order? Repeats do not help, and an empty list gives 0.',
    ref: `function longest_consecutive_values(xs) { const s = new Set(xs); let best = 0; for (const x of s) { if (s.has(x - 1)) continue; let n = 1; while (s.has(x + n)) n++; best = Math.max(best, n); } return best; }`,
    draw: (r) => [r.list(0, 10, -3, 10)], edges: [EMPTY, [[10, 4, 20, 1, 3, 2]], [[5, 5]]],
  },

  // ---- integer ----
  {
    name: 'median_of_three', kind: 'integer', split: 'dev2', params: ['a', 'b', 'c'],
    doc: 'Return the middle value of a, b and c: the one that is neither the smallest nor the largest (with repeats, the middle one after sorting).',
    ref: `function median_of_three(a, b, c) { return [a, b, c].sort((x, y) => x - y)[1]; }`,
    draw: (r) => [r.int(-20, 30), r.int(-20, 30), r.int(-20, 30)], edges: [[1, 2, 3], [3, 1, 2], [5, 5, 1], [-4, -4, -4]],
  },
  {
    name: 'product_of_digits', kind: 'integer', split: 'dev2', params: ['n'],
    doc: 'Multiply the decimal digits of n together, where n >= 0. A single digit is its own product, so 0 gives 0.',
    ref: `function product_of_digits(n) { let p = n % 10; n = Math.floor(n / 10); while (n > 0) { p *= n % 10; n = Math.floor(n / 10); } return p; }`,
    draw: (r) => [r.int(0, r.pick([99, 999]))], edges: [[0], [7], [234], [105]],
  },
  {
    name: 'sum_of_proper_divisors', kind: 'integer', split: 'dev2', params: ['n'],
    doc: 'Add up all the divisors of n that are smaller than n itself (for n = 12 that is 1 + 2 + 3 + 4 + 6 = 16). n is at least one, and for n = 1 the answer is 0.',
    ref: `function sum_of_proper_divisors(n) { let s = 0; for (let d = 1; d < n; d++) if (n % d === 0) s += d; return s; }`,
    draw: (r) => [r.int(1, 120)], edges: [[1], [12], [13], [28]],
  },
  {
    name: 'days_in_month', kind: 'integer', split: 'dev2', params: ['month', 'leap'],
    doc: 'How many days are there in month number month (1 is January, 12 is December)? leap tells whether the year is a leap year, which gives February twenty-nine days instead of twenty-eight.',
    ref: `function days_in_month(month, leap) { if (month === 2) return leap ? 29 : 28; return [4, 6, 9, 11].includes(month) ? 30 : 31; }`,
    draw: (r) => [r.int(1, 12), r.bool()], edges: [[2, true], [2, false], [4, false], [12, true]],
  },
  {
    name: 'binary_digits', kind: 'integer', split: 'dev2', params: ['n'],
    doc: 'Write n (zero or more) in base two and return its digits as a list, most significant first; 0 is [0].',
    ref: `function binary_digits(n) { const out = [n % 2]; n = Math.floor(n / 2); while (n > 0) { out.unshift(n % 2); n = Math.floor(n / 2); } return out; }`,
    draw: (r) => [r.int(0, 300)], edges: [[0], [1], [6], [64]],
  },
  {
    name: 'count_multiples_between', kind: 'integer', split: 'dev2', params: ['a', 'b', 'k'],
    doc: 'How many multiples of k lie between a and b, both ends included? Zero counts as a multiple; a <= b and k is positive.',
    ref: `function count_multiples_between(a, b, k) { let c = 0; for (let x = a; x <= b; x++) if (x % k === 0) c++; return c; }`,
    draw: (r) => { const a = r.int(-20, 40); return [a, a + r.int(0, 40), r.int(1, 9)]; }, edges: [[1, 10, 3], [0, 0, 5], [-6, 6, 3], [7, 9, 10]],
  },
  {
    name: 'clock_distance', kind: 'integer', split: 'dev2', params: ['a', 'b'],
    doc: 'On a twelve-hour clock face, a and b are hours from 0 to 11. How many hours apart are they, going whichever way round is shorter?',
    ref: `function clock_distance(a, b) { const d = Math.abs(a - b); return Math.min(d, 12 - d); }`,
    draw: (r) => [r.int(0, 11), r.int(0, 11)], edges: [[0, 0], [1, 11], [3, 9], [2, 5]],
  },
  {
    name: 'minutes_between', kind: 'integer', split: 'dev2', params: ['h1', 'm1', 'h2', 'm2'],
    doc: 'A train leaves at h1:m1 and arrives at h2:m2 on a 24-hour clock (hours 0 to 23, minutes 0 to 59). How many minutes does the trip take? It lasts less than a day, so an arrival time earlier than the departure time means the next day.',
    ref: `function minutes_between(h1, m1, h2, m2) { return (h2 * 60 + m2 - (h1 * 60 + m1) + 1440) % 1440; }`,
    draw: (r) => { const h1 = r.int(0, 23), m1 = r.int(0, 59); return r.bool(0.6) ? [h1, m1, (h1 + r.int(0, 4)) % 24, r.int(0, 59)] : [h1, m1, r.int(0, 23), r.int(0, 59)]; },
    edges: [[10, 0, 10, 0], [23, 30, 0, 15], [8, 45, 9, 5]],
  },
  {
    name: 'fewest_coins', kind: 'integer', split: 'dev2', params: ['amount'],
    doc: 'Coins come in values of 1, 5, 10 and 25. What is the smallest number of coins that add up to exactly amount? amount is zero or more.',
    ref: `function fewest_coins(amount) { let c = 0; for (const v of [25, 10, 5, 1]) { c += Math.floor(amount / v); amount %= v; } return c; }`,
    draw: (r) => [r.int(0, 200)], edges: [[0], [30], [24], [99]],
  },
  {
    name: 'digital_root', kind: 'integer', split: 'dev2', params: ['n'],
    doc: 'Keep replacing n by the sum of its digits until a single digit remains, and return that digit. n is not negative.',
    ref: `function digital_root(n) { while (n >= 10) { let s = 0; while (n > 0) { s += n % 10; n = Math.floor(n / 10); } n = s; } return n; }`,
    draw: (r) => [r.int(0, r.pick([99, 999]))], edges: [[0], [9], [38], [989]],
  },
  {
    name: 'binomial', kind: 'integer', split: 'dev2', params: ['n', 'k'],
    doc: 'In how many ways can you choose k things out of n when the order does not matter? 0 <= k <= n <= 12.',
    ref: `function binomial(n, k) { let c = 1; for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i; return c; }`,
    draw: (r) => { const n = r.int(0, 12); return [n, r.int(0, n)]; }, edges: [[0, 0], [5, 2], [6, 6], [10, 1]],
  },
  {
    name: 'is_between', kind: 'integer', split: 'dev2', params: ['x', 'a', 'b'],
    doc: 'Is x between a and b, with both ends included? a and b may come in either order.',
    ref: `function is_between(x, a, b) { return x >= Math.min(a, b) && x <= Math.max(a, b); }`,
    draw: (r) => [r.int(-12, 12), r.int(-10, 10), r.int(-10, 10)], edges: [[3, 1, 5], [3, 5, 1], [0, 1, 5], [5, 5, 5]],
  },
];
