/** Sorting-related problems, and simple functions of one to three integers. */
import { EMPTY, SINGLE, dupList, oneList, type Rng, type Spec } from './types';

const oddLength = (r: Rng) => { const n = 2 * r.int(0, 4) + 1; return [r.list(n, n)]; };

export const sortingIntegers: Spec[] = [
  // ---- held-out: sorting ----
  {
    name: 'sort_ascending', kind: 'sorting', split: 'heldout', params: ['xs'],
    doc: 'Sort the numbers from smallest to largest.',
    ref: `function sort_ascending(xs) { return [...xs].sort((a, b) => a - b); }`,
    draw: oneList, edges: [EMPTY, [[3, -1, 3]]],
  },
  {
    name: 'sort_descending', kind: 'sorting', split: 'heldout', params: ['xs'],
    doc: 'Return the list sorted in decreasing order.',
    ref: `function sort_descending(xs) { return [...xs].sort((a, b) => b - a); }`,
    draw: oneList, edges: [EMPTY, SINGLE(2)],
  },
  {
    name: 'k_smallest', kind: 'sorting', split: 'heldout', params: ['xs', 'k'],
    doc: 'Return the k smallest numbers of xs in ascending order. k is at most the length of xs, and repeated values count separately.',
    ref: `function k_smallest(xs, k) { return [...xs].sort((a, b) => a - b).slice(0, k); }`,
    draw: (r) => { const xs = r.list(1, 9, -5, 12); return [xs, r.int(1, xs.length)]; },
    edges: [[[], 0], [[4, 1, 1], 2], [[3, 2], 0]],
  },
  {
    name: 'median_of_odd_list', kind: 'sorting', split: 'heldout', params: ['xs'],
    doc: 'The list has an odd length. Return its median, the middle value once the list is sorted.',
    ref: `function median_of_odd_list(xs) { const s = [...xs].sort((a, b) => a - b); return s[(s.length - 1) / 2]; }`,
    draw: oddLength, edges: [SINGLE(6), [[9, 1, 5]]],
  },
  {
    name: 'kth_largest', kind: 'sorting', split: 'heldout', params: ['xs', 'k'],
    doc: 'Return the k-th largest element of xs, counting duplicates (k = 1 is the maximum). k is between 1 and the length of xs.',
    ref: `function kth_largest(xs, k) { return [...xs].sort((a, b) => b - a)[k - 1]; }`,
    draw: (r) => { const xs = r.list(1, 9, -5, 12); return [xs, r.int(1, xs.length)]; },
    edges: [[[4], 1], [[5, 5, 2], 2]],
  },
  {
    name: 'sorted_unique', kind: 'sorting', split: 'heldout', params: ['xs'],
    doc: 'Return the distinct values of the list in increasing order.',
    ref: `function sorted_unique(xs) { return [...new Set(xs)].sort((a, b) => a - b); }`,
    draw: dupList, edges: [EMPTY, [[2, 2, 2]]],
  },
  {
    name: 'sort_by_abs', kind: 'sorting', split: 'heldout', params: ['xs'],
    doc: 'Sort the list by absolute value, smallest first. When two numbers have the same absolute value, the negative one comes first.',
    ref: `function sort_by_abs(xs) { return [...xs].sort((a, b) => Math.abs(a) - Math.abs(b) || a - b); }`,
    draw: (r) => [r.list(0, 9, -9, 9)], edges: [EMPTY, [[3, -3, 0, -1]]],
  },
  {
    name: 'evens_then_odds', kind: 'sorting', split: 'heldout', params: ['xs'],
    doc: 'Put all the even numbers first and then all the odd numbers; inside each group keep the original order.',
    ref: `function evens_then_odds(xs) { return [...xs.filter((x) => x % 2 === 0), ...xs.filter((x) => x % 2 !== 0)]; }`,
    draw: oneList, edges: [EMPTY, [[1, 3, 2]]],
  },
  {
    name: 'count_out_of_place', kind: 'sorting', split: 'heldout', params: ['xs'],
    doc: 'How many positions hold a different value from the one they would hold if the list were sorted in ascending order?',
    ref: `function count_out_of_place(xs) { const s = [...xs].sort((a, b) => a - b); return xs.filter((x, i) => x !== s[i]).length; }`,
    draw: (r) => { const xs = r.list(0, 8, -5, 9); if (r.bool(0.4)) { xs.sort((a, b) => a - b); if (xs.length > 1) { const i = r.int(0, xs.length - 2); [xs[i], xs[i + 1]] = [xs[i + 1], xs[i]]; } } return [xs]; },
    edges: [EMPTY, [[1, 2, 3]], [[2, 1]]],
  },
  {
    name: 'second_smallest', kind: 'sorting', split: 'heldout', params: ['xs'],
    doc: 'Return the second-smallest element, counting repeats (so [1, 1, 2] gives 1). The list has at least two elements.',
    ref: `function second_smallest(xs) { return [...xs].sort((a, b) => a - b)[1]; }`,
    draw: (r) => [r.list(2, 9, -5, 9)], edges: [[[1, 1, 2]], [[8, 3]]],
  },
  {
    name: 'rank_each', kind: 'sorting', split: 'heldout', params: ['xs'],
    doc: 'Replace each element by the number of elements in the list that are strictly smaller than it.',
    ref: `function rank_each(xs) { return xs.map((x) => xs.filter((y) => y < x).length); }`,
    draw: (r) => [r.list(0, 8, -4, 9)], edges: [EMPTY, [[5, 5, 1]]],
  },

  // ---- held-out: integer functions ----
  {
    name: 'gcd', kind: 'integer', split: 'heldout', params: ['a', 'b'],
    doc: 'Return the greatest common divisor of two non-negative integers a and b, which are not both zero.',
    ref: `function gcd(a, b) { while (b !== 0) { const t = a % b; a = b; b = t; } return a; }`,
    draw: (r) => { const g = r.int(1, 6); const a = g * r.int(0, 10), b = g * r.int(0, 10); return a === 0 && b === 0 ? [g, 0] : [a, b]; },
    edges: [[0, 5], [12, 18], [7, 0]],
  },
  {
    name: 'digit_sum', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'What is the sum of the decimal digits of n? n is not negative.',
    ref: `function digit_sum(n) { let s = 0; while (n > 0) { s += n % 10; n = Math.floor(n / 10); } return s; }`,
    draw: (r) => [r.int(0, r.pick([9, 99, 999, 9999]))], edges: [[0], [505]],
  },
  {
    name: 'is_power_of_two', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'Is n a power of two (1, 2, 4, 8, ...)? n is zero or positive.',
    ref: `function is_power_of_two(n) { if (n < 1) return false; while (n % 2 === 0) n /= 2; return n === 1; }`,
    draw: (r) => [r.bool() ? 2 ** r.int(0, 9) : r.int(0, 600)], edges: [[0], [1], [6]],
  },
  {
    name: 'product_from_to', kind: 'integer', split: 'heldout', params: ['a', 'b'],
    doc: 'Multiply together all the integers from a to b, both included. If a is greater than b there is nothing to multiply and the answer is 1.',
    ref: `function product_from_to(a, b) { let p = 1; for (let i = a; i <= b; i++) p *= i; return p; }`,
    draw: (r) => { const a = r.int(-5, 10); return [a, a + r.int(-1, 4)]; }, edges: [[3, 2], [5, 5], [1, 6]],
  },
  {
    name: 'fibonacci', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'Return the n-th Fibonacci number, where fib(0) = 0, fib(1) = 1 and each later number is the sum of the two before it.',
    ref: `function fibonacci(n) { let a = 0, b = 1; for (let i = 0; i < n; i++) { const t = a + b; a = b; b = t; } return a; }`,
    draw: (r) => [r.int(0, 25)], edges: [[0], [1], [2]],
  },
  {
    name: 'is_prime', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'Is n a prime number? n is at least 0; 0 and 1 are not prime.',
    ref: `function is_prime(n) { if (n < 2) return false; for (let d = 2; d * d <= n; d++) if (n % d === 0) return false; return true; }`,
    draw: (r) => [r.int(0, 100)], edges: [[0], [1], [2], [9]],
  },
  {
    name: 'count_divisors', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'How many positive whole numbers divide n exactly? n is at least one.',
    ref: `function count_divisors(n) { let c = 0; for (let d = 1; d <= n; d++) if (n % d === 0) c++; return c; }`,
    draw: (r) => [r.int(1, 100)], edges: [[1], [12]],
  },
  {
    name: 'reverse_digits', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'Reverse the decimal digits of a non-negative integer; leading zeros disappear, so 120 becomes 21.',
    ref: `function reverse_digits(n) { let r = 0; while (n > 0) { r = r * 10 + (n % 10); n = Math.floor(n / 10); } return r; }`,
    draw: (r) => [r.int(0, 999) * (r.bool(0.25) ? 10 : 1)], edges: [[0], [120], [7]],
  },
  {
    name: 'lcm', kind: 'integer', split: 'heldout', params: ['a', 'b'],
    doc: 'Return the least common multiple of two positive integers.',
    ref: `function lcm(a, b) { let m = Math.max(a, b); while (m % a !== 0 || m % b !== 0) m++; return m; }`,
    draw: (r) => [r.int(1, 20), r.int(1, 20)], edges: [[1, 1], [4, 6], [7, 7]],
  },
  {
    name: 'max_of_three', kind: 'integer', split: 'heldout', params: ['a', 'b', 'c'],
    doc: 'Which of the three numbers a, b and c is the biggest? Return its value.',
    ref: `function max_of_three(a, b, c) { return Math.max(a, b, c); }`,
    draw: (r) => [r.int(-20, 30), r.int(-20, 30), r.int(-20, 30)], edges: [[-1, -1, -1], [2, 9, 9]],
  },
  {
    name: 'sum_up_to', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'Return 1 + 2 + ... + n for a non-negative n (the sum is 0 when n is 0).',
    ref: `function sum_up_to(n) { let s = 0; for (let i = 1; i <= n; i++) s += i; return s; }`,
    draw: (r) => [r.int(0, 60)], edges: [[0], [1]],
  },
  {
    name: 'is_leap_year', kind: 'integer', split: 'heldout', params: ['year'],
    doc: 'Is the given year a leap year in the Gregorian calendar? Years divisible by 4 are leap years, except years divisible by 100, which are leap years only when also divisible by 400.',
    ref: `function is_leap_year(year) { return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0; }`,
    draw: (r) => [r.pick([() => 4 * r.int(475, 600), () => 100 * r.int(16, 24), () => r.int(1900, 2400)])()],
    edges: [[1900], [2000], [2024], [2023]],
  },
  {
    name: 'power', kind: 'integer', split: 'heldout', params: ['base', 'exponent'],
    doc: 'Raise base to the power exponent, where exponent is zero or positive.',
    ref: `function power(base, exponent) { let p = 1; for (let i = 0; i < exponent; i++) p *= base; return p; }`,
    draw: (r) => [r.int(-5, 6), r.int(0, 7)], edges: [[0, 0], [-2, 3], [7, 1]],
  },
  {
    name: 'count_digits', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'How many digits does n have? Zero has one digit, and a minus sign is not a digit.',
    ref: `function count_digits(n) { let c = 1; n = Math.abs(n); while (n >= 10) { n = Math.floor(n / 10); c++; } return c; }`,
    draw: (r) => [r.int(-1, 1) * r.int(0, r.pick([9, 99, 999, 9999, 99999]))], edges: [[0], [-10], [999]],
  },
  {
    name: 'collatz_steps', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'Starting from n >= 1, repeatedly halve the number if it is even or replace it by 3 * n + 1 if it is odd. How many steps does it take to reach 1?',
    ref: `function collatz_steps(n) { let c = 0; while (n !== 1) { n = n % 2 === 0 ? n / 2 : 3 * n + 1; c++; } return c; }`,
    draw: (r) => [r.int(1, 40)], edges: [[1], [2], [3]],
  },
  {
    name: 'clamp_number', kind: 'integer', split: 'heldout', params: ['x', 'lo', 'hi'],
    doc: 'Return x limited to the interval from lo to hi: lo if x is below it, hi if x is above it, and x itself otherwise. lo <= hi.',
    ref: `function clamp_number(x, lo, hi) { return x < lo ? lo : x > hi ? hi : x; }`,
    draw: (r) => { const lo = r.int(-10, 10); return [r.int(-20, 30), lo, lo + r.int(0, 12)]; },
    edges: [[5, 5, 5], [-3, 0, 4], [9, 0, 4]],
  },
  {
    name: 'digits_of', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'Return the decimal digits of n (n >= 0) as a list, most significant digit first.',
    ref: `function digits_of(n) { const out = [n % 10]; n = Math.floor(n / 10); while (n > 0) { out.unshift(n % 10); n = Math.floor(n / 10); } return out; }`,
    draw: (r) => [r.int(10, r.pick([99, 999, 99999]))], edges: [[0], [7], [1002]],
  },
  {
    name: 'range_inclusive', kind: 'integer', split: 'heldout', params: ['a', 'b'],
    doc: 'List the integers from a up to b, both included. If a is greater than b, return an empty list.',
    ref: `function range_inclusive(a, b) { const out = []; for (let i = a; i <= b; i++) out.push(i); return out; }`,
    draw: (r) => { const a = r.int(-8, 12); return [a, a + r.int(-3, 9)]; },
    edges: [[3, 3], [4, 2], [-2, 1]],
  },
  {
    name: 'integer_sqrt', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'Return the largest integer whose square is at most n. n is zero or positive.',
    ref: `function integer_sqrt(n) { let r = 0; while ((r + 1) * (r + 1) <= n) r++; return r; }`,
    draw: (r) => [r.bool(0.3) ? r.int(0, 14) ** 2 : r.int(0, 200)], edges: [[0], [15], [16]],
  },
  {
    name: 'count_one_bits', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'How many 1s are there when the non-negative number n is written in binary?',
    ref: `function count_one_bits(n) { let c = 0; while (n > 0) { c += n % 2; n = Math.floor(n / 2); } return c; }`,
    draw: (r) => [r.int(0, 300)], edges: [[0], [255], [256]],
  },
  {
    name: 'divisors_list', kind: 'integer', split: 'heldout', params: ['n'],
    doc: 'List all the positive divisors of n in increasing order. n is between 1 and 100.',
    ref: `function divisors_list(n) { const out = []; for (let d = 1; d <= n; d++) if (n % d === 0) out.push(d); return out; }`,
    draw: (r) => [r.int(1, 100)], edges: [[1], [13], [36]],
  },

  // ---- dev ----
  {
    name: 'sort_evens_in_place', kind: 'sorting', split: 'dev', params: ['xs'],
    doc: 'Sort only the even numbers of the list among themselves, in ascending order; odd numbers stay at their positions.',
    ref: `function sort_evens_in_place(xs) { const e = xs.filter((x) => x % 2 === 0).sort((a, b) => a - b); let j = 0; return xs.map((x) => (x % 2 === 0 ? e[j++] : x)); }`,
    draw: oneList, edges: [EMPTY, [[8, 1, 4, 3, 2]]],
  },
  {
    name: 'largest_gap_sorted', kind: 'sorting', split: 'dev', params: ['xs'],
    doc: 'After sorting the list, what is the largest difference between two consecutive values? The list has at least two elements.',
    ref: `function largest_gap_sorted(xs) { const s = [...xs].sort((a, b) => a - b); let g = 0; for (let i = 1; i < s.length; i++) g = Math.max(g, s[i] - s[i - 1]); return g; }`,
    draw: (r) => [r.list(2, 9)], edges: [[[5, 5]], [[10, 1, 3]]],
  },
  {
    name: 'is_permutation_of_range', kind: 'sorting', split: 'dev', params: ['xs'],
    doc: 'Does the list contain each of the numbers 0, 1, ..., n - 1 exactly once, where n is its length?',
    ref: `function is_permutation_of_range(xs) { const s = [...xs].sort((a, b) => a - b); return s.every((x, i) => x === i); }`,
    draw: (r) => { const n = r.int(1, 8); const xs = r.shuffle(Array.from({ length: n }, (_, i) => i)); if (r.bool()) xs[r.int(0, n - 1)] = r.int(-1, n); return [xs]; },
    edges: [EMPTY, [[1]], [[1, 0, 2]]],
  },
  {
    name: 'closer_to_zero', kind: 'integer', split: 'dev', params: ['a', 'b'],
    doc: 'Return whichever of a and b is closer to zero. If they are equally close, return the larger of the two.',
    ref: `function closer_to_zero(a, b) { const da = Math.abs(a), db = Math.abs(b); if (da !== db) return da < db ? a : b; return Math.max(a, b); }`,
    draw: (r) => { const a = r.int(-20, 20); return [a, r.bool(0.2) ? -a : r.int(-20, 20)]; }, edges: [[-4, 4], [0, 3], [-2, -7]],
  },
  {
    name: 'count_trailing_zeros', kind: 'integer', split: 'dev', params: ['n'],
    doc: 'How many zeros does the decimal form of n end with? n is at least 1.',
    ref: `function count_trailing_zeros(n) { let c = 0; while (n % 10 === 0) { n /= 10; c++; } return c; }`,
    draw: (r) => [r.int(1, 99) * 10 ** r.int(0, 3)], edges: [[1], [100], [105]],
  },
  {
    name: 'next_multiple', kind: 'integer', split: 'dev', params: ['n', 'k'],
    doc: 'Return the smallest multiple of k that is greater than or equal to n. k is positive.',
    ref: `function next_multiple(n, k) { return Math.ceil(n / k) * k; }`,
    draw: (r) => [r.int(-20, 50), r.int(1, 9)], edges: [[10, 5], [11, 5], [0, 3], [-7, 4]],
  },
  {
    name: 'smallest_prime_factor', kind: 'integer', split: 'dev', params: ['n'],
    doc: 'Give the smallest prime that divides n, for n >= 2.',
    ref: `function smallest_prime_factor(n) { let d = 2; while (n % d !== 0) d++; return d; }`,
    draw: (r) => [r.int(2, 120)], edges: [[2], [49], [97]],
  },
  {
    name: 'round_to_nearest_ten', kind: 'integer', split: 'dev', params: ['n'],
    doc: 'Round n to the nearest multiple of ten. Numbers exactly halfway round up, so 15 gives 20 and -15 gives -10.',
    ref: `function round_to_nearest_ten(n) { return Math.floor((n + 5) / 10) * 10; }`,
    draw: (r) => [r.int(-60, 120)], edges: [[15], [-15], [4], [-6]],
  },
  {
    name: 'sort_by_last_digit', kind: 'sorting', split: 'dev', params: ['xs'],
    doc: 'Sort the numbers by their last digit (of the absolute value), from 0 up to 9. Numbers with the same last digit keep their original order.',
    ref: `function sort_by_last_digit(xs) { return [...xs].sort((a, b) => (Math.abs(a) % 10) - (Math.abs(b) % 10)); }`,
    draw: (r) => [r.list(0, 9, -60, 99)], edges: [EMPTY, [[21, 11, -1, 30]]],
  },
  {
    name: 'count_inversions', kind: 'sorting', split: 'dev', params: ['xs'],
    doc: 'How many pairs of positions i < j have xs[i] > xs[j]?',
    ref: `function count_inversions(xs) { let c = 0; for (let i = 0; i < xs.length; i++) for (let j = i + 1; j < xs.length; j++) if (xs[i] > xs[j]) c++; return c; }`,
    draw: (r) => [r.list(0, 8, -5, 9)], edges: [EMPTY, [[3, 2, 1]], [[1, 1]]],
  },
];
