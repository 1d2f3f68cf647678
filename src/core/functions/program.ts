/**
 * A functions-task program from its tokens to JavaScript text, and a few facts about it that
 * the code_quality reward reads. Printing walks the tokens in the grammar's prefix order with
 * the same scopes, so a lambda names the same variable the grammar bound (x, then y inside it).
 * Tokens the grammar would refuse throw: the printer is also the check for hand-made tokens.
 */
import { FunctionGrammar, boundSlots, bit, type Signature } from './grammar';
import {
  ARROW, BOS, EXPR0, typeToken, SET0, SLOT, STMT0, VALUE0, VAR0, WORD0, expressions, statements, tokenValue, variableNames,
} from './language';

/** The prompt's start that carries a signature (what the grammar reads). */
export function signaturePrompt(sig: Signature): number[] {
  return [BOS, ...sig.params.map(typeToken), ARROW, typeToken(sig.ret)];
}

/** JavaScript names of the variable slots other than parameters. */
const slotNames: Record<string, string> = { V0: 'v0', V1: 'v1', V2: 'v2', V3: 'v3', I: 'i', J: 'j', X: 'x', Y: 'y', ACC: 'acc' };
/** Names a JavaScript function cannot take in strict code, or must not shadow: a problem named one could never be solved. */
export const jsReservedNames: ReadonlySet<string> = new Set([
  'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default',
  'delete', 'do', 'else', 'export', 'extends', 'finally', 'for', 'function', 'if', 'import', 'in', 'instanceof', 'new', 'return', 'super',
  'switch', 'this', 'throw', 'try', 'typeof', 'var', 'void', 'while', 'with', 'yield', 'let', 'static', 'enum', 'await', 'implements',
  'package', 'protected', 'interface', 'private', 'public', 'null', 'true', 'false', 'undefined', 'NaN', 'Infinity', 'eval', 'arguments',
]);
/** Globals a printed program or its test harness uses: a function declared with one of these names (or a name starting with __, the harness's) would replace it. */
export const programGlobals: ReadonlySet<string> = new Set(['Math', 'Array', 'output', 'globalThis']);
const reserved = new Set([...Object.values(slotNames), 'p', 'q', ...programGlobals, ...jsReservedNames]);

/** Parameter names fit to print: a given name when it is a plain identifier the program does not use itself, else a, b, c, d. */
export function parameterNames(count: number, given?: readonly string[]): string[] {
  const fallback = ['a', 'b', 'c', 'd'];
  const names = Array.from({ length: count }, (_, k) => {
    const name = given?.[k];
    return name && /^[A-Za-z_$][\w$]{0,30}$/.test(name) && !reserved.has(name) && !name.startsWith('__') ? name : fallback[k];
  });
  return new Set(names).size === names.length ? names : fallback.slice(0, count);
}

export interface PrintedProgram {
  /** The function declaration. */
  text: string;
  statements: number;
  /** Deepest nesting of blocks and expressions (a complexity proxy). */
  depth: number;
  loops: number;
  branches: number;
}

/**
 * Prints the tokens of a complete program as `function name(params) { ... }`. Throws when the
 * tokens are not a complete program the grammar allows for `sig`.
 */
export function printFunction(tokens: readonly number[], sig: Signature, name: string, params: readonly string[]): PrintedProgram {
  // The grammar checks the tokens (types, scopes); the printer only formats them.
  const grammar = new FunctionGrammar(tokens.length + 64); // room to finish: an unfinished program is reported as such
  let state = grammar.initial(signaturePrompt(sig));
  tokens.forEach((token, i) => {
    if (!grammar.permits(state, token)) throw new Error(`token ${token} at ${i} is not allowed by the functions grammar`);
    state = grammar.advance(state, token);
  });
  if (!grammar.isDone(state)) throw new Error('the program is incomplete');

  let at = 0;
  const facts = { statements: 0, depth: 0, loops: 0, branches: 0 };
  const localTypes: string[] = [];
  const nameOf = (slot: number) => (slot <= SLOT.P3 ? params[slot] : slotNames[variableNames[slot]]);

  function expr(vars: number, depth: number): string {
    facts.depth = Math.max(facts.depth, depth);
    const token = tokens[at++];
    if (token >= VALUE0 && token < WORD0) {
      const value = tokenValue(token);
      return value < 0 ? `(${value})` : String(value);
    }
    if (token >= VAR0 && token < VALUE0) return nameOf(token - VAR0);
    const production = expressions[token - EXPR0];
    const bound = boundSlots(production, vars);
    const args = production.args.map((_, k) => expr(bound[k].reduce((mask, slot) => mask | bit(slot), vars), depth + 1));
    const lambda = (k: number) => `(${bound[k].map(nameOf).join(', ')}) => ${args[k]}`;
    const [a, b, c] = args;
    switch (production.name) {
      case 'ADD': return `(${a} + ${b})`;
      case 'SUB': return `(${a} - ${b})`;
      case 'MUL': return `(${a} * ${b})`;
      case 'DIV': return `Math.floor(${a} / ${b})`;
      case 'MOD': return `(${a} % ${b})`;
      case 'NEG': return `(-${a})`;
      case 'ABS': return `Math.abs(${a})`;
      case 'MAX2': return `Math.max(${a}, ${b})`;
      case 'MIN2': return `Math.min(${a}, ${b})`;
      case 'COND': case 'BCOND': case 'LCOND': return `(${a} ? ${b} : ${c})`;
      case 'LEN': return `${a}.length`;
      case 'AT': return `${a}[${b}]`;
      case 'INDEXOF': return `${a}.indexOf(${b})`;
      case 'MAXL': return `Math.max(...${a})`;
      case 'MINL': return `Math.min(...${a})`;
      case 'REDUCE': return `${a}.reduce(${lambda(2)}, ${b})`;
      case 'TRUE': return 'true';
      case 'FALSE': return 'false';
      case 'LT': return `(${a} < ${b})`;
      case 'LE': return `(${a} <= ${b})`;
      case 'GT': return `(${a} > ${b})`;
      case 'GE': return `(${a} >= ${b})`;
      case 'EQ': return `(${a} === ${b})`;
      case 'NE': return `(${a} !== ${b})`;
      case 'AND': return `(${a} && ${b})`;
      case 'OR': return `(${a} || ${b})`;
      case 'NOT': return `!${a}`;
      case 'INCLUDES': return `${a}.includes(${b})`;
      case 'EMPTY': return '[]';
      case 'SINGLE': return `[${a}]`;
      case 'APPEND': return `[...${a}, ${b}]`;
      case 'RANGE': return `[...Array(${a}).keys()]`;
      case 'MAP': case 'MAPB': return `${a}.map(${lambda(1)})`;
      case 'FILTER': return `${a}.filter(${lambda(1)})`;
      case 'SLICE': return `${a}.slice(${b}, ${c})`;
      case 'DROP': return `${a}.slice(${b})`;
      case 'CONCAT': return `${a}.concat(${b})`;
      case 'SORT': return `[...${a}].sort((p, q) => p - q)`;
      case 'REVERSE': return `[...${a}].reverse()`;
      default: throw new Error(`no printer for ${production.name}`);
    }
  }

  /** A block's statements, until RETURN (included) or END (consumed). */
  function block(vars: number, indent: string, depth: number): string[] {
    const lines: string[] = [];
    let scope = vars;
    for (;;) {
      const token = tokens[at++];
      facts.statements += 1;
      if (token >= SET0 && token < VAR0) {
        lines.push(`${indent}v${token - SET0} = ${expr(scope, depth + 1)};`);
        continue;
      }
      const name = statements[token - STMT0].name;
      if (name === 'END') {
        facts.statements -= 1;
        return lines;
      }
      if (name === 'RETURN') {
        lines.push(`${indent}return ${expr(scope, depth + 1)};`);
        return lines;
      }
      if (name.startsWith('LET_')) {
        const k = localTypes.length;
        localTypes.push(name);
        lines.push(`${indent}let v${k} = ${expr(scope, depth + 1)};`);
        scope |= bit(SLOT.V0 + k);
        continue;
      }
      if (name === 'IF') {
        facts.branches += 1;
        lines.push(`${indent}if (${expr(scope, depth + 1)}) {`, ...block(scope, indent + '  ', depth + 1), `${indent}}`);
        continue;
      }
      facts.loops += 1;
      if (name === 'FOR') {
        const slot = (scope & bit(SLOT.I)) ? SLOT.J : SLOT.I;
        const index = nameOf(slot);
        const from = expr(scope, depth + 1);
        const to = expr(scope, depth + 1);
        lines.push(`${indent}for (let ${index} = ${from}; ${index} < ${to}; ${index}++) {`, ...block(scope | bit(slot), indent + '  ', depth + 1), `${indent}}`);
        continue;
      }
      const slot = (scope & bit(SLOT.X)) ? SLOT.Y : SLOT.X;
      const list = expr(scope, depth + 1);
      lines.push(`${indent}for (const ${nameOf(slot)} of ${list}) {`, ...block(scope | bit(slot), indent + '  ', depth + 1), `${indent}}`);
    }
  }

  const vars = sig.params.reduce((mask, _, k) => mask | bit(SLOT.P0 + k), 0);
  const body = block(vars, '  ', 0);
  return { text: `function ${name}(${params.join(', ')}) {\n${body.join('\n')}\n}`, ...facts };
}
