import { describe, expect, it } from 'vitest';
import { dsl } from './dsl';

// Expected values computed by hand with Python semantics (docs/kolmogorov-spec.md).
describe('DSL functions', () => {
  it('build ranges, repeats and literal lists', () => {
    expect(dsl.range_func_up(3, 7)).toEqual([3, 4, 5, 6, 7]);
    expect(dsl.range_func_up(5, 4)).toEqual([]);
    expect(dsl.range_func_interval(2, 11, 3)).toEqual([2, 5, 8]); // end exclusive
    expect(dsl.range_func_interval(2, 12, 5)).toEqual([2, 7]);
    expect(dsl.repeat_num(3, 9)).toEqual([9, 9, 9]);
    expect(dsl.set_list([4, 0, 255])).toEqual([4, 0, 255]);
    expect(dsl.repeat_list(2, [1, 2])).toEqual([1, 2, 1, 2]);
  });

  it('reverse, substitute and take subsequences like Python slices', () => {
    expect(dsl.reverse_list([1, 2, 3])).toEqual([3, 2, 1]);
    expect(dsl.substitute([1, 2, 1, 3], 1, 7)).toEqual([7, 2, 7, 3]);
    expect(dsl.get_subsequence_with_jumps([0, 1, 2, 3, 4, 5, 6], 3)).toEqual([0, 3, 6]);
    expect(dsl.get_subsequence_between_indices([10, 11, 12, 13, 14], 1, 4)).toEqual([11, 12, 13]);
    expect(dsl.get_subsequence_between_indices([10, 11, 12], 2, 99)).toEqual([12]);
    expect(dsl.get_subsequence_between_indices([10, 11, 12], 2, 1)).toEqual([]);
  });

  it('max_n is descending and min_n ascending', () => {
    expect(dsl.max_n([5, 1, 9, 3], 2)).toEqual([9, 5]);
    expect(dsl.min_n([5, 1, 9, 3], 3)).toEqual([1, 3, 5]);
  });

  it('item arithmetic uses Python modulo (sign of the divisor)', () => {
    expect(dsl.add_item_list([1, 2], 10)).toEqual([11, 12]);
    expect(dsl.subtract_item_list([1, 20], 5)).toEqual([-4, 15]);
    expect(dsl.modulo_item_list([7, -7, 0], 3)).toEqual([1, 2, 0]); // Python: -7 % 3 == 2
    expect(dsl.modulo_item_list([7, -7], -3)).toEqual([-2, -1]); // Python: 7 % -3 == -2
  });

  it('filters with the three predicates', () => {
    expect(dsl.filter(dsl.is_even, [0, 1, 2, 3, -4, -5])).toEqual([0, 2, -4]);
    expect(dsl.filter(dsl.is_odd, [0, 1, 2, 3, -5])).toEqual([1, 3, -5]); // Python: -5 % 2 == 1
    expect(dsl.filter(dsl.is_not_zero, [0, 1, 0, 2])).toEqual([1, 2]);
  });

  it('combines two lists over the shorter length', () => {
    expect(dsl.add_two_lists([1, 2, 3], [10, 20])).toEqual([11, 22]);
    expect(dsl.subtract_two_lists([5, 5], [1, 7, 9])).toEqual([4, -2]);
    expect(dsl.modulo_two_lists([7, 8, -7, 9], [2, 0, 3])).toEqual([1, 2]); // b == 0 pair dropped
    expect(dsl.scan_add([1, 2, 3, 4])).toEqual([1, 3, 6, 10]);
    expect(dsl.concatenate([1], [2, 3], [4])).toEqual([1, 2, 3, 4]);
    expect(dsl.interleave([1, 2, 3, 4], [9, 8])).toEqual([1, 9, 2, 8, 3, 4]);
  });

  it('follows Python on negative and out-of-range arguments', () => {
    expect(dsl.get_subsequence_with_jumps([0, 1, 2, 3, 4, 5], -2)).toEqual([5, 3, 1]); // seq[::-2]
    expect(dsl.get_subsequence_between_indices([10, 11, 12, 13], -3, -1)).toEqual([11, 12]); // seq[-3:-1]
    expect(dsl.get_subsequence_between_indices([10, 11, 12, 13], -9, 2)).toEqual([10, 11]);
    expect(dsl.range_func_interval(10, 3, -3)).toEqual([10, 7, 4]); // range(10, 3, -3)
    expect(dsl.range_func_interval(3, 10, -1)).toEqual([]);
    expect(dsl.repeat_num(-2, 5)).toEqual([]);
    expect(dsl.repeat_list(0, [1, 2])).toEqual([]);
    expect(dsl.max_n([4, 1], 5)).toEqual([4, 1]);
    expect(dsl.min_n([4, 1], -1)).toEqual([]);
    expect(dsl.interleave([1], [7, 8, 9])).toEqual([1, 7, 8, 9]);
    expect(dsl.concatenate()).toEqual([]);
    // Python: -4 % 2 == 0, and JavaScript's -0 must not leak out.
    expect(Object.is(dsl.modulo_item_list([-4], 2)[0], 0)).toBe(true);
    expect(() => dsl.get_subsequence_with_jumps([1, 2], 0)).toThrow(RangeError); // Python: ValueError
    expect(() => dsl.modulo_two_lists([1], [0, 1])).not.toThrow();
  });

  it('refuses hostile sizes quickly instead of allocating', () => {
    expect(() => dsl.repeat_num(1e9, 1)).toThrow(RangeError);
    expect(() => dsl.range_func_up(0, 1e9)).toThrow(RangeError);
    expect(() => dsl.modulo_item_list([1], 0)).toThrow(RangeError);
    expect(() => dsl.repeat_list(1e6, [1, 2, 3])).toThrow(RangeError);
    expect(() => dsl.add_item_list([1], 1.5)).toThrow(TypeError);
  });
});
