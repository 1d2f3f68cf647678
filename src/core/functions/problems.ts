/**
 * Problems of the functions task in the DQN code-generation seed's format:
 * `{function_name, docstring, test_cases, starter_code}`, with optional `parameters` (argument
 * names) and `hidden_test_cases` (scored, never shown to the policy). A test case is
 * `[input, output]`: an input that is an array is the argument list (`[[2, 3], 5]` calls
 * f(2, 3); `[[[1, 2, 3]], 6]` calls f([1, 2, 3])), any other input is the single argument
 * (`[10, 55]` calls f(10)). Values are integers, booleans and lists of them.
 *
 * A file is a JSON array of problems (the seed's training_problems.json) or JSONL, one problem
 * a line. A bad problem is reported with where it is and why, and the others load. Only known
 * fields are read, so `__proto__` or `constructor` keys change nothing.
 */
import type { Signature } from './grammar';
import { MAX_PARAMS, type Value, type ValueType } from './language';
import { parse as parseJsonc, type ParseError } from 'jsonc-parser';
import { printable } from '../data/jsonl';
import { jsReservedNames, programGlobals } from './program';

export interface TestCase {
  args: Value[];
  expected: Value;
}

export interface FunctionProblem {
  functionName: string;
  docstring: string;
  /** Shown tests: in the prompt, and the ones best-of-k chooses by. */
  tests: TestCase[];
  /** Scored, never shown. */
  hiddenTests: TestCase[];
  starterCode: string;
  /** Argument names (given, or read from the starter code's `def f(a, b):` / `function f(a, b)`). */
  parameters?: string[];
  signature: Signature;
  /** Difficulty for the curriculum (generated problems carry their program's size). */
  difficulty?: number;
}

export const MAX_TESTS = 64;
export const MAX_LIST_VALUES = 64;
const MAX_TEXT = 4096;

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const own = (value: Record<string, unknown>, key: string): unknown => (Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined);

/** A clean value and its type, or an error naming where it is. */
function checkValue(value: unknown, where: string): { value: Value; type: ValueType | 'emptylist' } {
  if (typeof value === 'boolean') return { value, type: 'bool' };
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new Error(`${where}: ${value} is not an integer (safe range)`);
    return { value: value === 0 ? 0 : value, type: 'int' };
  }
  if (Array.isArray(value)) {
    if (value.length > MAX_LIST_VALUES) throw new Error(`${where}: a list of ${value.length} values, more than ${MAX_LIST_VALUES}`);
    if (value.length === 0) return { value: [], type: 'emptylist' };
    const items = value.map((item, i) => {
      if (typeof item === 'boolean') return { value: item, type: 'bool' as const };
      if (typeof item === 'number') return checkValue(item, `${where}[${i}]`);
      throw new Error(`${where}[${i}]: lists hold integers or booleans, got ${Array.isArray(item) ? 'a list' : typeof item}`);
    });
    const types = new Set(items.map((item) => item.type));
    if (types.size > 1) throw new Error(`${where}: a list mixes integers and booleans`);
    return { value: items.map((item) => item.value), type: types.has('bool') ? 'blist' : 'list' };
  }
  throw new Error(`${where}: values are integers, booleans or lists of them, got ${value === null ? 'null' : typeof value}`);
}

/** One type from the types seen at one place across tests (an empty list fits either list type). */
function unify(types: (ValueType | 'emptylist')[], where: string): ValueType {
  const known = new Set(types.filter((t) => t !== 'emptylist'));
  if (known.size > 1) throw new Error(`${where} has different types across tests (${[...known].join(', ')})`);
  const [type] = known;
  if (type === undefined) return 'list'; // only empty lists
  if (types.includes('emptylist') && type !== 'list' && type !== 'blist') throw new Error(`${where} is an empty list in one test and ${type} in another`);
  return type;
}

function parseTests(value: unknown, field: string): { cases: TestCase[]; argTypes: (ValueType | 'emptylist')[][]; outTypes: (ValueType | 'emptylist')[] } {
  if (!Array.isArray(value)) throw new Error(`"${field}" must be a list of [input, output] pairs`);
  if (value.length > MAX_TESTS) throw new Error(`"${field}" has ${value.length} tests, more than ${MAX_TESTS}`);
  const cases: TestCase[] = [];
  const argTypes: (ValueType | 'emptylist')[][] = [];
  const outTypes: (ValueType | 'emptylist')[] = [];
  value.forEach((test, t) => {
    const where = `"${field}"[${t}]`;
    if (!Array.isArray(test) || test.length !== 2) throw new Error(`${where} must be [input, output]`);
    const [input, output] = test;
    const rawArgs = Array.isArray(input) ? input : [input];
    if (rawArgs.length > MAX_PARAMS) throw new Error(`${where}: ${rawArgs.length} arguments, at most ${MAX_PARAMS} (a single list argument is written [[[1, 2, 3]], 6])`);
    const args = rawArgs.map((arg, i) => checkValue(arg, `${where} argument ${i + 1}`));
    const out = checkValue(output, `${where} output`);
    cases.push({ args: args.map((a) => a.value), expected: out.value });
    argTypes.push(args.map((a) => a.type));
    outTypes.push(out.type);
  });
  return { cases, argTypes, outTypes };
}

/** Argument names from starter code such as `def add(a, b):` or `function add(a, b) {`. */
export function starterParameters(starter: string): string[] | undefined {
  const match = /(?:def|function)\s+[A-Za-z_$][\w$]*\s*\(([^)]*)\)/.exec(starter);
  if (!match) return undefined;
  const names = match[1].split(',').map((p) => p.split(/[:=]/)[0].trim()).filter(Boolean);
  return names.length ? names : undefined;
}

function text(value: Record<string, unknown>, key: string, required: boolean): string {
  const v = own(value, key);
  if (v === undefined || v === null) {
    if (required) throw new Error(`missing field "${key}"`);
    return '';
  }
  if (typeof v !== 'string') throw new Error(`"${key}" must be a string, got ${typeof v}`);
  if (v.length > MAX_TEXT) throw new Error(`"${key}" is longer than ${MAX_TEXT} characters`);
  return v;
}

/** Validates one problem; throws a reason that names the field. */
export function parseFunctionProblem(value: unknown): FunctionProblem {
  if (!isPlainObject(value)) throw new Error(`expected a problem object {"function_name", "docstring", "test_cases", ...}, got ${Array.isArray(value) ? 'an array' : typeof value}`);
  const functionName = text(value, 'function_name', true);
  if (!/^[A-Za-z_$][\w$]{0,63}$/.test(functionName)) throw new Error(`"function_name" ${JSON.stringify(functionName.slice(0, 40))} is not an identifier`);
  if (jsReservedNames.has(functionName)) throw new Error(`"function_name" "${functionName}" is a JavaScript reserved word: no function can be named so`);
  if (programGlobals.has(functionName) || functionName.startsWith('__')) throw new Error(`"function_name" "${functionName}" is a name the printed programs or the test harness use themselves (${[...programGlobals].join(', ')}, or one starting with __): give the function another name`);
  const docstring = text(value, 'docstring', true);
  const starterCode = text(value, 'starter_code', false);
  if (own(value, 'test_cases') === undefined) throw new Error('missing field "test_cases"');
  const shown = parseTests(own(value, 'test_cases'), 'test_cases');
  if (shown.cases.length === 0) throw new Error('"test_cases" is empty');
  const hidden = own(value, 'hidden_test_cases') === undefined ? { cases: [], argTypes: [], outTypes: [] } : parseTests(own(value, 'hidden_test_cases'), 'hidden_test_cases');
  const all = [...shown.argTypes, ...hidden.argTypes];
  const arity = all[0].length;
  const odd = all.findIndex((types) => types.length !== arity);
  if (odd >= 0) {
    const at = odd < shown.argTypes.length ? `"test_cases"[${odd}]` : `"hidden_test_cases"[${odd - shown.argTypes.length}]`;
    throw new Error(`${at} has ${all[odd].length} arguments, "test_cases"[0] has ${arity} (a single list argument is written [[[1, 2, 3]], 6])`);
  }
  // The signature is what the shown tests say (it is in the prompt); hidden tests must agree with
  // it, never add to it (only empty lists shown, and lists of booleans hidden, would tell the policy
  // what only the hidden tests know).
  const typed = (shownTypes: (ValueType | 'emptylist')[], hiddenTypes: (ValueType | 'emptylist')[], where: string): ValueType => {
    const type = unify(shownTypes, where);
    const withHidden = unify([...shownTypes, ...hiddenTypes], where);
    const named = { int: 'an integer', bool: 'a boolean', list: 'a list of integers', blist: 'a list of booleans' };
    if (withHidden !== type) throw new Error(`${where} is ${named[withHidden]} in the hidden tests, which the shown tests do not say (they give only empty lists): show a test where it is not empty`);
    return type;
  };
  const params = Array.from({ length: arity }, (_, k) => typed(shown.argTypes.map((types) => types[k]), hidden.argTypes.map((types) => types[k]), `argument ${k + 1}`));
  const ret = typed(shown.outTypes, hidden.outTypes, 'the output');
  let parameters: string[] | undefined;
  const given = own(value, 'parameters');
  if (given !== undefined) {
    if (!Array.isArray(given) || !given.every((p) => typeof p === 'string')) throw new Error('"parameters" must be a list of names');
    if (given.length !== arity) throw new Error(`"parameters" names ${given.length} arguments, the tests pass ${arity}`);
    parameters = given as string[];
  } else {
    const fromStarter = starterParameters(starterCode);
    if (fromStarter?.length === arity) parameters = fromStarter;
  }
  const problem: FunctionProblem = { functionName, docstring, tests: shown.cases, hiddenTests: hidden.cases, starterCode, signature: { params, ret } };
  if (parameters) problem.parameters = parameters;
  const difficulty = own(value, 'difficulty');
  if (typeof difficulty === 'number' && Number.isFinite(difficulty)) problem.difficulty = difficulty;
  return problem;
}

export interface ProblemError {
  /** 1-based: the line of a JSONL file, or the position in a JSON array. */
  index: number;
  where: 'line' | 'item';
  reason: string;
  /** The problem's `function_name`, when it has a readable one (so a report can say which problem). */
  name?: string;
}

/** The `function_name` of a rejected item, when it is a short string (else undefined). */
function nameOf(item: unknown): string | undefined {
  const name = isPlainObject(item) ? own(item, 'function_name') : undefined;
  return typeof name === 'string' && name.length > 0 && name.length <= 64 ? name : undefined;
}

/** Where a rejected problem is, by position and (when it has one) by name: `line 3 (sum_pairs)`. */
export function describeProblemError(error: { where: string; index: number; name?: string; reason: string }): string {
  return `${error.where} ${error.index}${error.name ? ` (${error.name})` : ''}: ${error.reason}`;
}

/** Where a problem is in its file: its line (JSONL) or its position in the array (JSON). */
export interface ProblemPlace {
  where: ProblemError['where'];
  index: number;
}

/**
 * Problems from a file's text: a JSON array (the seed's format) when it starts with `[`,
 * else JSONL. Bad problems are reported and skipped.
 */
export function parseProblemsText(text: string): { problems: FunctionProblem[]; errors: ProblemError[]; places: ProblemPlace[] } {
  const body = text.replace(/^\uFEFF/, '');
  const problems: FunctionProblem[] = [];
  /** Where each problem read is in the file, in the order of `problems`. */
  const places: ProblemPlace[] = [];
  const errors: ProblemError[] = [];
  /** One problem, or why not: a reason and a name may quote the file, so both are made printable. */
  const take = (item: unknown, index: number, where: ProblemError['where']) => {
    try {
      // Bytes that were not UTF-8 reach here as U+FFFD: the problem they sit in is not read as if they were text.
      if (JSON.stringify(item).includes('\uFFFD')) throw new Error('invalid UTF-8 bytes (or a U+FFFD character)');
      problems.push(parseFunctionProblem(item));
      places.push({ where, index });
    } catch (error) {
      const name = nameOf(item);
      errors.push({ index, where, reason: printable((error as Error).message, 240), ...(name ? { name: printable(name) } : {}) });
    }
  };
  const lines = body.split(/\r?\n/);
  if (body.trimStart().startsWith('[')) {
    let items: unknown;
    try {
      items = JSON.parse(body);
    } catch (error) {
      // A JSONL file whose first line is broken starts with `[` too: read line by line when most
      // lines are whole objects. In a broken JSON array a few lines are too (its last item, one
      // missing its comma), not most: the array is refused whole, never read in part.
      const written = lines.filter((line) => line.trim() !== '');
      if (written.filter((line) => isObjectLine(line)).length * 2 <= written.length) throw new Error(`not valid JSON${jsonErrorPlace(body, error as Error)}`);
      items = undefined;
    }
    if (items !== undefined) {
      if (!Array.isArray(items)) throw new Error('a JSON file of problems is an array of them ([{...}, ...]), or one problem object per line (JSONL)');
      items.forEach((item, i) => take(item, i + 1, 'item'));
      return { problems, errors, places };
    }
  }
  if (body.trimStart().startsWith('{') && !lines.some((line) => isObjectLine(line))) {
    // One problem written over several lines: no line is a whole object.
    try {
      take(JSON.parse(body), 1, 'item');
      return { problems, errors, places };
    } catch {
      throw new Error('no line is a whole problem object: JSONL has one problem object per line, or give a JSON array of them ([{...}, ...])');
    }
  }
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch (error) {
      errors.push({ index: i + 1, where: 'line', reason: `not valid JSON: ${printable((error as Error).message, 240)}` });
      return;
    }
    take(item, i + 1, 'line');
  });
  return { problems, errors, places };
}

/** Whether a line alone is a JSON object. */
function isObjectLine(line: string): boolean {
  const trimmed = line.trim(); // a line of a JSON array ends with a comma: not a JSONL line
  if (!trimmed.startsWith('{')) return false;
  try {
    return isPlainObject(JSON.parse(trimmed));
  } catch {
    return false;
  }
}

/**
 * " at line L, column C: why" of a JSON.parse error. V8 names the position of most errors, not of
 * an unexpected token (a trailing comma's `]`), whose message quotes the text instead: a strict
 * JSON scanner (jsonc-parser) finds the place then, and the quote is left out.
 */
function jsonErrorPlace(text: string, error: Error): string {
  const named = /position (\d+)/.exec(error.message);
  const found: ParseError[] = [];
  if (!named) parseJsonc(text, found, { allowTrailingComma: false, disallowComments: true, allowEmptyContent: false });
  const offset = named ? Number(named[1]) : found[0]?.offset;
  const why = printable(error.message.replace(/, (\.\.\.)?".*" is not valid JSON$/s, '').replace(/ (in|after) JSON at position \d+.*$/s, ''), 240);
  if (offset === undefined) return `: ${why}`;
  const before = text.slice(0, offset).split('\n');
  // A comma just before the token is the usual cause: said, where it is.
  const comma = /,\s*$/.test(text.slice(0, offset)) && /^[\]}]/.test(text.slice(offset)) ? ' (a comma before the end of a list or object)' : '';
  return ` at line ${before.length}, column ${before[before.length - 1].length + 1}: ${why}${comma}`;
}

/** A problem back in the seed's format (for generated files). */
export function problemToJson(problem: FunctionProblem): Record<string, unknown> {
  const test = (t: TestCase) => [t.args.length === 1 && !Array.isArray(t.args[0]) ? t.args[0] : t.args, t.expected];
  return {
    function_name: problem.functionName,
    docstring: problem.docstring,
    test_cases: problem.tests.map(test),
    ...(problem.hiddenTests.length ? { hidden_test_cases: problem.hiddenTests.map(test) } : {}),
    starter_code: problem.starterCode,
    ...(problem.parameters ? { parameters: problem.parameters } : {}),
    ...(problem.difficulty !== undefined ? { difficulty: problem.difficulty } : {}),
  };
}
