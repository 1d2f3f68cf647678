/**
 * Makes datasets/functions/heldout.jsonl: 40 list functions of the kind public program-synthesis
 * benchmarks ask for (map, filter, fold, index, slice, sort, count, arithmetic and predicates
 * over an integer list; one list argument), each with 5 shown and 10 hidden tests. The
 * problems, their docstrings and their reference implementations below are written for the
 * lab; no benchmark's data is used. Tests are the references run on seeded random lists.
 *
 *   npx tsx scripts/functionsHeldout.ts > datasets/functions/heldout.jsonl
 *   npx tsx scripts/functionsHeldout.ts --dev > datasets/functions/dev.jsonl
 *
 * The held-out file is for reporting only: nothing trains on it and nothing is tuned on it.
 * `--dev` writes 20 other hand-written problems of the same kind (dev.jsonl), the set the
 * recipe's settings are chosen on; the generator's validation file is too like its training
 * data to choose by.
 */
import { Rng } from '../src/core/rng';

type Ref = (xs: number[]) => number | boolean | number[] | boolean[];

interface Spec {
  name: string;
  doc: string;
  ref: Ref;
  /** Shortest list this function is defined on. */
  min?: number;
  /** Draws a list (default: 0-8 values in -9..15). */
  draw?: (rng: Rng) => number[];
}

const list = (rng: Rng, min = 0) => Array.from({ length: rng.int(min, 8) }, () => rng.int(-9, 15));
/** Lists whose values are even half of the time (so that "all even" is sometimes true). */
const evenish = (rng: Rng) => (rng.chance(0.5) ? list(rng).map((x) => 2 * Math.floor(x / 2)) : list(rng));
/** Lists that contain a 7 half of the time. */
const sevenish = (rng: Rng) => {
  const xs = list(rng).filter((x) => x !== 7);
  if (rng.chance(0.5)) xs.splice(rng.int(0, xs.length), 0, 7);
  return xs;
};

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const even = (x: number) => x % 2 === 0;

const specs: Spec[] = [
  { name: 'sum_of_evens', doc: 'Return the sum of the even numbers in the list.', ref: (xs) => sum(xs.filter(even)) },
  { name: 'count_negatives', doc: 'Return how many numbers in the list are negative.', ref: (xs) => xs.filter((x) => x < 0).length },
  { name: 'max_element', doc: 'Return the largest element of a non-empty list.', ref: (xs) => Math.max(...xs), min: 1 },
  { name: 'double_all', doc: 'Return a new list with every element doubled.', ref: (xs) => xs.map((x) => 2 * x) },
  { name: 'remove_negatives', doc: 'Return the list without its negative numbers.', ref: (xs) => xs.filter((x) => x >= 0) },
  { name: 'last_element', doc: 'Return the last element of the list.', ref: (xs) => xs[xs.length - 1], min: 1 },
  { name: 'product_of_list', doc: 'Return the product of all the numbers.', ref: (xs) => xs.reduce((a, b) => a * b, 1) },
  { name: 'count_zeros', doc: 'Count how many zeros the list contains.', ref: (xs) => xs.filter((x) => x === 0).length },
  { name: 'sort_descending', doc: 'Return the numbers sorted from largest to smallest.', ref: (xs) => [...xs].sort((a, b) => b - a) },
  { name: 'first_two', doc: 'Return the first two elements of the list.', ref: (xs) => xs.slice(0, 2) },
  { name: 'sum_of_squares', doc: 'Return the sum of the squares of the numbers.', ref: (xs) => sum(xs.map((x) => x * x)) },
  { name: 'all_even', doc: 'Return true if all the numbers are even.', ref: (xs) => xs.every(even), draw: evenish },
  { name: 'has_negative', doc: 'Return true if the list contains a negative number.', ref: (xs) => xs.some((x) => x < 0), draw: (rng) => (rng.chance(0.4) ? list(rng).map(Math.abs) : list(rng)) },
  { name: 'increment_all', doc: 'Add one to every element of the list.', ref: (xs) => xs.map((x) => x + 1) },
  { name: 'min_element', doc: 'Return the smallest element of a non-empty list.', ref: (xs) => Math.min(...xs), min: 1 },
  { name: 'list_length', doc: 'Return the number of elements in the list.', ref: (xs) => xs.length },
  { name: 'squares_of_odds', doc: 'Return the squares of the odd numbers, in order.', ref: (xs) => xs.filter((x) => !even(x)).map((x) => x * x) },
  { name: 'count_above_five', doc: 'Count the elements greater than 5.', ref: (xs) => xs.filter((x) => x > 5).length },
  { name: 'floor_mean', doc: 'Return the mean of a non-empty list, rounded down.', ref: (xs) => Math.floor(sum(xs) / xs.length), min: 1 },
  { name: 'value_range', doc: 'Return the largest element minus the smallest element.', ref: (xs) => Math.max(...xs) - Math.min(...xs), min: 1 },
  { name: 'drop_first', doc: 'Return the list without its first element.', ref: (xs) => xs.slice(1) },
  { name: 'contains_seven', doc: 'Return true if 7 is in the list.', ref: (xs) => xs.includes(7), draw: sevenish },
  { name: 'sum_of_positives', doc: 'Return the sum of the positive numbers.', ref: (xs) => sum(xs.filter((x) => x > 0)) },
  { name: 'subtract_three', doc: 'Subtract 3 from each element of the list.', ref: (xs) => xs.map((x) => x - 3) },
  { name: 'below_ten', doc: 'Return the elements that are less than 10.', ref: (xs) => xs.filter((x) => x < 10) },
  { name: 'index_of_zero', doc: 'Return the index of the first 0 in the list, or -1 if there is none.', ref: (xs) => xs.indexOf(0) },
  { name: 'count_odd', doc: 'Return the number of odd elements.', ref: (xs) => xs.filter((x) => !even(x)).length },
  { name: 'negate_all', doc: 'Return the list with the sign of every number flipped.', ref: (xs) => xs.map((x) => (x === 0 ? 0 : -x)) },
  { name: 'absolute_values', doc: 'Return the absolute value of each element.', ref: (xs) => xs.map((x) => Math.abs(x)) },
  { name: 'sum_first_three', doc: 'Return the sum of the first three elements (or of all of them if there are fewer).', ref: (xs) => sum(xs.slice(0, 3)) },
  { name: 'all_but_last', doc: 'Return the list without its last element.', ref: (xs) => xs.slice(0, Math.max(0, xs.length - 1)) },
  { name: 'count_multiples_of_three', doc: 'Count the numbers that are divisible by 3.', ref: (xs) => xs.filter((x) => x % 3 === 0).length },
  { name: 'halve_all', doc: 'Return each element divided by 2, rounded down.', ref: (xs) => xs.map((x) => Math.floor(x / 2)) },
  { name: 'sum_of_absolute_values', doc: 'Return the sum of the absolute values of the numbers.', ref: (xs) => sum(xs.map((x) => Math.abs(x))) },
  { name: 'second_element', doc: 'Return the second element of the list.', ref: (xs) => xs[1], min: 2 },
  { name: 'any_above_ten', doc: 'Return true if some element is greater than 10.', ref: (xs) => xs.some((x) => x > 10), draw: (rng) => (rng.chance(0.5) ? list(rng).map((x) => Math.min(x, 10)) : list(rng)) },
  { name: 'evens_doubled', doc: 'Keep the even numbers and double each of them.', ref: (xs) => xs.filter(even).map((x) => 2 * x) },
  { name: 'count_equal_to_first', doc: 'Count the elements equal to the first element.', ref: (xs) => xs.filter((x) => x === xs[0]).length, min: 1 },
  { name: 'sum_of_cubes', doc: 'Return the sum of the cubes of the numbers.', ref: (xs) => sum(xs.map((x) => x * x * x)) },
  { name: 'sorted_ascending', doc: 'Return the list sorted in increasing order.', ref: (xs) => [...xs].sort((a, b) => a - b) },
];

/** The dev set: other functions of the same kind, for choosing settings. */
const devSpecs: Spec[] = [
  { name: 'count_positives', doc: 'Return the number of positive elements.', ref: (xs) => xs.filter((x) => x > 0).length },
  { name: 'sum_of_odds', doc: 'Return the sum of the odd numbers in the list.', ref: (xs) => sum(xs.filter((x) => !even(x))) },
  { name: 'triple_all', doc: 'Multiply every element by 3.', ref: (xs) => xs.map((x) => 3 * x) },
  { name: 'keep_evens', doc: 'Return only the even elements.', ref: (xs) => xs.filter(even) },
  { name: 'first_element', doc: 'Return the first element of a non-empty list.', ref: (xs) => xs[0], min: 1 },
  { name: 'count_equal_to_two', doc: 'Count how many elements equal 2.', ref: (xs) => xs.filter((x) => x === 2).length },
  { name: 'reverse_list', doc: 'Return the elements in reverse order.', ref: (xs) => [...xs].reverse() },
  { name: 'any_zero', doc: 'Return true if the list contains a zero.', ref: (xs) => xs.includes(0), draw: (rng) => (rng.chance(0.5) ? [0, ...list(rng)] : list(rng).filter((x) => x !== 0)) },
  { name: 'square_all', doc: 'Return the square of every element.', ref: (xs) => xs.map((x) => x * x) },
  { name: 'max_plus_one', doc: 'Return the largest element plus one.', ref: (xs) => Math.max(...xs) + 1, min: 1 },
  { name: 'drop_two', doc: 'Return the list without its first two elements.', ref: (xs) => xs.slice(2) },
  { name: 'sum_of_doubles', doc: 'Return twice the sum of the elements.', ref: (xs) => 2 * sum(xs) },
  { name: 'positives_squared', doc: 'Square the positive numbers and drop the others.', ref: (xs) => xs.filter((x) => x > 0).map((x) => x * x) },
  { name: 'count_above_mean_zero', doc: 'Count the elements that are at least 0.', ref: (xs) => xs.filter((x) => x >= 0).length },
  { name: 'decrement_all', doc: 'Subtract one from each element.', ref: (xs) => xs.map((x) => x - 1) },
  { name: 'min_times_two', doc: 'Return twice the smallest element.', ref: (xs) => 2 * Math.min(...xs), min: 1 },
  { name: 'all_positive', doc: 'Return true if every element is positive.', ref: (xs) => xs.every((x) => x > 0), draw: (rng) => (rng.chance(0.5) ? list(rng).map((x) => Math.abs(x) + 1) : list(rng)) },
  { name: 'take_three', doc: 'Return the first three elements.', ref: (xs) => xs.slice(0, 3) },
  { name: 'sum_minus_length', doc: 'Return the sum of the elements minus the number of elements.', ref: (xs) => sum(xs) - xs.length },
  { name: 'index_of_five', doc: 'Return the position of the first 5, or -1 if the list has none.', ref: (xs) => xs.indexOf(5) },
];

const dev = process.argv.includes('--dev');
const rng = new Rng(dev ? 7070 : 20261125);
const lines: string[] = [];
for (const spec of dev ? devSpecs : specs) {
  const seen = new Set<string>();
  const cases: [number[][], unknown][] = [];
  const perOutput = new Map<string, number>();
  while (cases.length < 15) {
    const xs = spec.draw ? spec.draw(rng) : list(rng, spec.min);
    const key = xs.join(',');
    if (seen.has(key) || xs.length < (spec.min ?? 0)) continue;
    seen.add(key);
    const out = spec.ref(xs);
    // A true/false function gets both answers: at most 10 of the 15 tests say the same.
    const said = perOutput.get(JSON.stringify(out)) ?? 0;
    if (typeof out === 'boolean' && said >= 10) continue;
    perOutput.set(JSON.stringify(out), said + 1);
    cases.push([[xs], out]);
  }
  if (perOutput.size < 2) throw new Error(`${spec.name}: every test has the same output`);
  lines.push(JSON.stringify({
    function_name: spec.name,
    docstring: spec.doc,
    test_cases: cases.slice(0, 5),
    hidden_test_cases: cases.slice(5),
    starter_code: `def ${spec.name}(numbers):\n    pass`,
  }));
}
process.stdout.write(lines.join('\n') + '\n');
