/**
 * The test harness of the functions task: one sandbox job runs a program's function on every
 * test input and reports each result, and the host decides what passed.
 *
 * The job is `__tests(inputs);` then the program, then `__runTests(name);`. Inside QuickJS the
 * prelude's `__tests` keeps the tests' inputs (the first call only: it is the job's first
 * statement, before any of the program runs), and `__runTests(f)` calls f once per test on a
 * fresh copy of the arguments (a function that sorts its list in place cannot spoil the next
 * test), catches what a call throws, and encodes each result as integers, since the sandbox's
 * output is an integer list:
 *   int n -> [0, n]; bool b -> [1, 0|1]; list -> [2, length, ...items]; threw -> [3];
 *   anything else (a string, NaN, a float, undefined, an object) -> [4].
 *
 * The result channel is out of the program's reach (issue 29, docs/reliability.md): the encoding
 * reaches the host only through the sandbox's `report`, which this prelude takes while it runs,
 * before any program, and holds in its closure; the sandbox then reads these jobs from the report
 * alone, never from `output`. `__tests` and `__runTests` are read-only globals (a program that
 * declares its own fails to run), the encoder uses builtins captured when the prelude ran and
 * defines its array's elements (no push, no index assignment a program could intercept), and a
 * job whose program skips or breaks the harness call reports nothing, which fails every test.
 * The expected values never enter the sandbox: the host compares (`decodeResults`,
 * `testsPassed`). A program that loops or exhausts memory fails the whole job (timeout, oom):
 * every test counts as failed.
 */
import type { SandboxJob, SandboxOutcome } from '../sandbox/outcome';
import { MAX_PARAMS, type Value } from './language';
import { MAX_LIST_VALUES, MAX_TESTS, type TestCase } from './problems';

export const functionsPrelude = `
(function () {
  var G = globalThis;
  var report = G.__takeReport(); // the sandbox's result channel: only this closure holds it
  var isArray = Array.isArray, isSafe = Number.isSafeInteger, parse = JSON.parse, apply = Reflect.apply, define = Object.defineProperty;
  var isProxy = G.__isProxy || function () { return false; }; // the sandbox's tag of Proxies
  var inputs = null;
  function put(out, value) { define(out, out.length, { value: value, writable: true, enumerable: true, configurable: true }); }
  function enc(v, out, depth) {
    if (isProxy(v)) { put(out, 4); return; }
    if (typeof v === 'boolean') { put(out, 1); put(out, v ? 1 : 0); return; }
    if (typeof v === 'number') { if (isSafe(v)) { put(out, 0); put(out, v === 0 ? 0 : v); } else put(out, 4); return; }
    if (depth === 0 && isArray(v)) {
      var n = v.length;
      if (!(n <= ${MAX_LIST_VALUES})) { put(out, 4); return; } // longer than any expected list: wrong, on this test alone
      put(out, 2); put(out, n);
      for (var i = 0; i < n; i++) enc(v[i], out, 1);
      return;
    }
    put(out, 4);
  }
  function setTests(list) { if (inputs === null) inputs = list; }
  function runTests(f) {
    var out = [];
    var list = inputs || [];
    for (var t = 0; t < list.length; t++) {
      var start = out.length;
      try { enc(apply(f, null, parse(list[t])), out, 0); } catch (e) { out.length = start; put(out, 3); }
    }
    report(out);
  }
  define(G, '__tests', { value: setTests, writable: false, enumerable: false, configurable: false });
  define(G, '__runTests', { value: runTests, writable: false, enumerable: false, configurable: false });
})();
`;

/** The longest report of one job: every shown and hidden test's result, a list of MAX_LIST_VALUES at most (tag, length, then tag and value per element). */
export const REPORT_LENGTH = 2 * MAX_TESTS * (2 + 2 * MAX_LIST_VALUES);

/**
 * The most source a job adds around its function: every shown and hidden test's arguments inline
 * (MAX_PARAMS lists of MAX_LIST_VALUES integers of the safe range at most, 17 characters and a
 * comma each, written as JSON in a JSON string) and the calls around them.
 */
export const HARNESS_SOURCE_LENGTH = 2 * MAX_TESTS * (8 + MAX_PARAMS * (4 + 18 * MAX_LIST_VALUES)) + 256;

/** The sandbox job that runs `functionText` (a declaration of `name`) on each test's arguments. */
export function testJob(functionText: string, name: string, tests: readonly TestCase[], seed: number): SandboxJob {
  const inputs = JSON.stringify(tests.map((test) => JSON.stringify(test.args)));
  return { source: `__tests(${inputs});\n${functionText}\n__runTests(${name});`, seed, prelude: 'functions' };
}

/** What one call returned: a value, a throw, or something that is not a value of the task. */
export type TestResult = { kind: 'value'; value: Value } | { kind: 'threw' } | { kind: 'invalid' };

/** Decodes the harness's integer list into one result per test; null when it is malformed. */
export function decodeResults(output: readonly number[], tests: number): TestResult[] | null {
  const results: TestResult[] = [];
  let at = 0;
  const scalar = (): Value | null => {
    const tag = output[at++];
    if (tag === 0 && at < output.length) return output[at++];
    if (tag === 1 && at < output.length) return output[at++] === 1;
    if (tag === 4) return null;
    throw new Error('malformed');
  };
  try {
    while (results.length < tests) {
      if (at >= output.length) return null;
      const tag = output[at];
      if (tag === 3) {
        at++;
        results.push({ kind: 'threw' });
      } else if (tag === 2) {
        const n = output[at + 1];
        at += 2;
        const items: Value[] = [];
        let valid = true;
        for (let i = 0; i < n; i++) {
          const item = scalar();
          if (item === null) valid = false;
          else items.push(item);
        }
        results.push(valid ? { kind: 'value', value: items } : { kind: 'invalid' });
      } else {
        const value = scalar();
        results.push(value === null ? { kind: 'invalid' } : { kind: 'value', value });
      }
    }
  } catch {
    return null;
  }
  return at === output.length ? results : null;
}

export function sameValue(a: Value, b: Value): boolean {
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => sameValue(item, (b as Value[])[i]));
  }
  return a === b;
}

/** Per test, whether the program passed it; all false when the job itself failed. */
export function testsPassed(outcome: SandboxOutcome, tests: readonly TestCase[]): boolean[] {
  if (outcome.kind !== 'ok' || !outcome.output) return tests.map(() => false);
  const results = decodeResults(outcome.output, tests.length);
  if (!results) return tests.map(() => false);
  return results.map((result, i) => result.kind === 'value' && sameValue(result.value, tests[i].expected));
}
