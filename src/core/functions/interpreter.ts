/**
 * A host-side interpreter of functions-task programs, for the problem generator only: it
 * computes the expected outputs of the generator's own programs, whose inputs it then keeps
 * only when every step is well defined (no division by zero, no index out of range, no
 * maximum of an empty list, integers within the safe range, loops within a step budget). On
 * those inputs it agrees with the JavaScript the printer writes (program.ts), which the tests
 * check in the sandbox. Policy samples are never run here: they run in the sandbox.
 */
import { boundSlots, bit, type Signature } from './grammar';
import { EXPR0, SET0, SLOT, STMT0, VALUE0, VAR0, WORD0, expressions, statements, tokenValue } from './language';
import type { Value } from './language';

/** Thrown when a step is not well defined on this input (the generator then draws other inputs). */
export class Undefined extends Error {}

type Node =
  | { kind: 'value'; value: number }
  | { kind: 'var'; slot: number }
  | { kind: 'op'; name: string; args: Node[]; bound: number[][] };

type Stmt =
  | { kind: 'return'; expr: Node }
  | { kind: 'let' | 'set'; slot: number; expr: Node }
  | { kind: 'if'; cond: Node; body: Stmt[] }
  | { kind: 'for'; slot: number; from: Node; to: Node; body: Stmt[] }
  | { kind: 'forOf'; slot: number; list: Node; body: Stmt[] };

/** Parses the tokens of a complete program (as the grammar allows them) into statements. */
export function parseProgram(tokens: readonly number[], sig: Signature): Stmt[] {
  let at = 0;
  let locals = 0;
  const next = () => {
    if (at >= tokens.length) throw new Error('the program is incomplete');
    return tokens[at++];
  };
  function expr(vars: number): Node {
    const token = next();
    if (token >= VALUE0 && token < WORD0) return { kind: 'value', value: tokenValue(token) };
    if (token >= VAR0 && token < VALUE0) return { kind: 'var', slot: token - VAR0 };
    const production = expressions[token - EXPR0];
    if (!production) throw new Error(`token ${token} is not an expression`);
    const bound = boundSlots(production, vars);
    const args = production.args.map((_, k) => expr(bound[k].reduce((mask, slot) => mask | bit(slot), vars)));
    return { kind: 'op', name: production.name, args, bound };
  }
  function block(vars: number): Stmt[] {
    const out: Stmt[] = [];
    let scope = vars;
    for (;;) {
      const token = next();
      if (token >= SET0 && token < VAR0) {
        out.push({ kind: 'set', slot: SLOT.V0 + token - SET0, expr: expr(scope) });
        continue;
      }
      const name = statements[token - STMT0]?.name;
      if (!name) throw new Error(`token ${token} is not a statement`);
      if (name === 'END') return out;
      if (name === 'RETURN') {
        out.push({ kind: 'return', expr: expr(scope) });
        return out;
      }
      if (name.startsWith('LET_')) {
        const slot = SLOT.V0 + locals++;
        out.push({ kind: 'let', slot, expr: expr(scope) });
        scope |= bit(slot);
      } else if (name === 'IF') {
        const cond = expr(scope);
        out.push({ kind: 'if', cond, body: block(scope) });
      } else if (name === 'FOR') {
        const slot = scope & bit(SLOT.I) ? SLOT.J : SLOT.I;
        const from = expr(scope);
        const to = expr(scope);
        out.push({ kind: 'for', slot, from, to, body: block(scope | bit(slot)) });
      } else {
        const slot = scope & bit(SLOT.X) ? SLOT.Y : SLOT.X;
        const list = expr(scope);
        out.push({ kind: 'forOf', slot, list, body: block(scope | bit(slot)) });
      }
    }
  }
  const body = block(sig.params.reduce((mask, _, k) => mask | bit(SLOT.P0 + k), 0));
  if (at !== tokens.length) throw new Error(`${tokens.length - at} tokens after the end of the program`);
  return body;
}

const MAX_STEPS = 20_000;
const MAX_LIST = 1000;

/** Runs a parsed program on arguments; throws Undefined where JavaScript would not give a task value. */
export function runProgram(body: readonly Stmt[], args: readonly Value[]): Value {
  const env: (Value | undefined)[] = [...args];
  let steps = 0;
  const tick = () => {
    if (++steps > MAX_STEPS) throw new Undefined('too many steps');
  };
  const int = (v: number): number => {
    if (!Number.isSafeInteger(v)) throw new Undefined(`${v} is not a safe integer`);
    return v === 0 ? 0 : v;
  };
  const num = (node: Node): number => {
    const v = evaluate(node);
    if (typeof v !== 'number') throw new Error('type error: expected a number');
    return v;
  };
  const bool = (node: Node): boolean => evaluate(node) as boolean;
  const list = (node: Node): number[] => evaluate(node) as number[];
  const withSlots = (slots: number[], values: Value[], node: Node): Value => {
    const saved = slots.map((slot) => env[slot]);
    slots.forEach((slot, i) => (env[slot] = values[i]));
    try {
      return evaluate(node);
    } finally {
      slots.forEach((slot, i) => (env[slot] = saved[i]));
    }
  };

  function evaluate(node: Node): Value {
    tick();
    if (node.kind === 'value') return node.value;
    if (node.kind === 'var') {
      const v = env[node.slot];
      if (v === undefined) throw new Error(`variable slot ${node.slot} is unset`);
      return v;
    }
    const [a, b, c] = node.args;
    switch (node.name) {
      case 'ADD': return int(num(a) + num(b));
      case 'SUB': return int(num(a) - num(b));
      case 'MUL': return int(num(a) * num(b));
      case 'DIV': {
        const d = num(b);
        if (d === 0) throw new Undefined('division by zero');
        return int(Math.floor(num(a) / d));
      }
      case 'MOD': {
        const x = num(a);
        const d = num(b);
        if (d === 0) throw new Undefined('remainder by zero');
        return int(x % d);
      }
      case 'NEG': return int(-num(a));
      case 'ABS': return int(Math.abs(num(a)));
      case 'MAX2': return Math.max(num(a), num(b));
      case 'MIN2': return Math.min(num(a), num(b));
      case 'COND': case 'BCOND': case 'LCOND': return bool(a) ? evaluate(b) : evaluate(c);
      case 'LEN': return list(a).length;
      case 'AT': {
        const xs = list(a);
        const i = num(b);
        if (i < 0 || i >= xs.length) throw new Undefined('index out of range');
        return xs[i];
      }
      case 'INDEXOF': return list(a).indexOf(num(b));
      case 'MAXL': case 'MINL': {
        const xs = list(a);
        if (xs.length === 0) throw new Undefined('extreme of an empty list');
        return node.name === 'MAXL' ? Math.max(...xs) : Math.min(...xs);
      }
      case 'REDUCE': {
        let acc = num(b);
        for (const x of list(a)) acc = withSlots(node.bound[2], [acc, x], c) as number;
        return acc;
      }
      case 'TRUE': return true;
      case 'FALSE': return false;
      case 'LT': return num(a) < num(b);
      case 'LE': return num(a) <= num(b);
      case 'GT': return num(a) > num(b);
      case 'GE': return num(a) >= num(b);
      case 'EQ': return num(a) === num(b);
      case 'NE': return num(a) !== num(b);
      case 'AND': return bool(a) && bool(b);
      case 'OR': return bool(a) || bool(b);
      case 'NOT': return !bool(a);
      case 'INCLUDES': return list(a).includes(num(b));
      case 'EMPTY': return [];
      case 'SINGLE': return [num(a)];
      case 'APPEND': return sized([...list(a), num(b)]);
      case 'RANGE': {
        const n = num(a);
        if (n < 0 || n > MAX_LIST) throw new Undefined('range length out of bounds');
        return Array.from({ length: n }, (_, i) => i);
      }
      case 'MAP': case 'MAPB': return list(a).map((x) => withSlots(node.bound[1], [x], b)) as number[];
      case 'FILTER': return list(a).filter((x) => withSlots(node.bound[1], [x], b));
      case 'SLICE': return list(a).slice(num(b), num(c));
      case 'DROP': return list(a).slice(num(b));
      case 'CONCAT': return sized(list(a).concat(list(b)));
      case 'SORT': return [...list(a)].sort((p, q) => p - q);
      case 'REVERSE': return [...list(a)].reverse();
      default: throw new Error(`no interpreter for ${node.name}`);
    }
  }
  const sized = (xs: number[]) => {
    if (xs.length > MAX_LIST) throw new Undefined('list too long');
    return xs;
  };

  /** Runs a block; a returned value is boxed so that `false` and `0` are told from falling through. */
  function run(block: readonly Stmt[]): { value: Value } | null {
    for (const stmt of block) {
      tick();
      switch (stmt.kind) {
        case 'return': return { value: evaluate(stmt.expr) };
        case 'let': case 'set': env[stmt.slot] = evaluate(stmt.expr); break;
        case 'if': {
          if (bool(stmt.cond)) {
            const result = run(stmt.body);
            if (result) return result;
          }
          break;
        }
        case 'for': {
          // JavaScript reads the bound again before every iteration; so does this.
          for (let i = num(stmt.from); i < num(stmt.to); i++) {
            tick();
            env[stmt.slot] = i;
            const result = run(stmt.body);
            if (result) return result;
          }
          break;
        }
        case 'forOf': {
          for (const x of list(stmt.list)) {
            env[stmt.slot] = x;
            const result = run(stmt.body);
            if (result) return result;
          }
          break;
        }
      }
    }
    return null;
  }

  const result = run(body);
  if (!result) throw new Error('the function body ended without returning');
  return result.value;
}
