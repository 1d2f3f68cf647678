/**
 * The functions task's grammar: which token may come next so that the program stays well typed,
 * every variable it names is in scope, and it can still be finished within the token budget.
 * Constrained sampling under it only ever writes programs that print as JavaScript that parses
 * (language.ts says what the subset is).
 *
 * The state is a stack of what is still to be written, top last: expressions of a type with
 * the variables in scope, and blocks of statements. A production replaces the expression on top
 * by its arguments; a statement keeps its block and pushes what it needs. The cheapest way to
 * finish each frame is known (an int is one literal, a block a `RETURN` and an expression, or a
 * statement and its `END`), so a token is allowed only if the stack it leaves can still be
 * finished in the tokens left. A list of booleans is the one type the scope decides: `MAPB`'s
 * lambda binds an element name, so inside two nested `for of` loops only a variable holding one
 * writes it, and where none does a `RETURN` of one is not allowed.
 *
 * The signature (parameter and return types) is read from the prompt (`BOS types ARROW type`),
 * so one grammar serves every problem.
 */
import type { Grammar } from '../grammar';
import {
  ARROW, BOS, ELEM_SLOTS, EXPR0, LOOP_SLOTS, MAX_LOCALS, MAX_PARAMS, SET0, SLOT, STMT0, TYPE0, VALUE0, VAR0, WORD0,
  expressions, statements, typeNames, variableNames, vocabSize, type Production, type ValueType,
} from './language';

export interface Signature {
  params: ValueType[];
  ret: ValueType;
}

interface ExprFrame {
  kind: 'expr';
  type: ValueType;
  /** Bitmask of the variable slots in scope (language.ts SLOT). */
  vars: number;
}

interface BlockFrame {
  kind: 'block';
  vars: number;
  /** The function body: it can only end with RETURN. */
  top: boolean;
  stmts: number;
}

type Frame = ExprFrame | BlockFrame;

export interface FunctionState {
  readonly sig: Signature;
  readonly stack: readonly Frame[];
  /** Types of the locals declared so far, V0 first. */
  readonly locals: readonly ValueType[];
  readonly used: number;
}

const bit = (slot: number) => 1 << slot;

/** Fewest tokens that write an expression of a type where it can be written (a list of booleans: `exprCostIn`). */
const exprCost: Record<ValueType, number> = { int: 1, bool: 1, list: 1, blist: 3 };

/** Reads `BOS type* ARROW type` from the start of a prompt. */
export function signatureOf(prompt: readonly number[]): Signature {
  let at = prompt.indexOf(BOS);
  if (at < 0) throw new Error('functions prompt has no BOS');
  const params: ValueType[] = [];
  for (at += 1; at < prompt.length && prompt[at] !== ARROW; at++) {
    const type = typeNames[prompt[at] - TYPE0];
    if (!type) throw new Error(`functions prompt: token ${prompt[at]} is not a type`);
    params.push(type);
  }
  const ret = typeNames[prompt[at + 1] - TYPE0];
  if (!ret) throw new Error('functions prompt has no return type after ARROW');
  if (params.length > MAX_PARAMS) throw new Error(`functions take at most ${MAX_PARAMS} parameters, got ${params.length}`);
  return { params, ret };
}

export class FunctionGrammar implements Grammar<FunctionState> {
  readonly vocabSize = vocabSize;

  /** `budget`: most program tokens (the sampler's maxTokens), so that every sample can finish. */
  constructor(readonly budget: number) {
    if (budget < 2) throw new Error('a function needs at least 2 tokens (return and a value)');
  }

  initial(prompt?: readonly number[]): FunctionState {
    if (!prompt) throw new Error('the functions grammar reads the signature from the prompt');
    const sig = signatureOf(prompt);
    const vars = sig.params.reduce((mask, _, k) => mask | bit(SLOT.P0 + k), 0);
    return { sig, stack: [{ kind: 'block', vars, top: true, stmts: 0 }], locals: [], used: 0 };
  }

  isDone(state: FunctionState): boolean {
    return state.stack.length === 0;
  }

  endsLine(): boolean {
    return false; // one reward at the end; every token gets it undiscounted
  }

  allowed(state: FunctionState, mask: Uint8Array): void {
    mask.fill(0);
    for (const token of this.candidates(state)) mask[token] = 1;
  }

  advance(state: FunctionState, token: number): FunctionState {
    const next = this.apply(state, token);
    if (!next) throw new Error(`token ${token} is not allowed here`);
    return next;
  }

  /** True when `token` may come next (one token of `allowed`). */
  permits(state: FunctionState, token: number): boolean {
    return this.apply(state, token) !== null;
  }

  /** Every token allowed in `state`. */
  candidates(state: FunctionState): number[] {
    const top = state.stack[state.stack.length - 1];
    if (!top) return [];
    const tokens: number[] = [];
    const consider = (token: number) => {
      if (this.apply(state, token)) tokens.push(token);
    };
    if (top.kind === 'block') {
      for (let s = 0; s < statements.length; s++) consider(STMT0 + s);
      for (let k = 0; k < MAX_LOCALS; k++) consider(SET0 + k);
      return tokens;
    }
    for (let p = 0; p < expressions.length; p++) if (expressions[p].result === top.type) consider(EXPR0 + p);
    for (let v = 0; v < variableNames.length; v++) consider(VAR0 + v);
    if (top.type === 'int' && this.fits(state, top, 0)) for (let t = VALUE0; t < WORD0; t++) tokens.push(t);
    return tokens;
  }

  /** Tokens still needed to finish a stack (Infinity when a frame cannot be finished). */
  private cost(stack: readonly Frame[], state: Pick<FunctionState, 'sig' | 'locals'>): number {
    let total = 0;
    for (const frame of stack) total += this.frameCost(frame, state);
    return total;
  }

  private frameCost(frame: Frame, state: Pick<FunctionState, 'sig' | 'locals'>): number {
    if (frame.kind === 'expr') return this.exprCostIn(frame.type, frame.vars, state);
    const returned = 1 + this.exprCostIn(state.sig.ret, frame.vars, state);
    if (frame.top) return returned;
    if (frame.stmts > 0) return 1; // END
    // An empty block needs a statement before its END: a return, or where none can be written a local declared or set (and END).
    if (Number.isFinite(returned)) return returned;
    return state.locals.length < MAX_LOCALS || state.locals.some((_, k) => frame.vars & bit(SLOT.V0 + k)) ? 3 : Infinity;
  }

  /** Fewest tokens that write an expression of `type` with `vars` in scope: a list of booleans needs a variable holding one, or `MAPB` and a free element name. */
  private exprCostIn(type: ValueType, vars: number, state: Pick<FunctionState, 'sig' | 'locals'>): number {
    if (type !== 'blist') return exprCost[type];
    for (let slot = SLOT.P0; slot <= SLOT.V3; slot++) if (vars & bit(slot) && this.variableType(state, slot) === 'blist') return 1;
    return ELEM_SLOTS.some((slot) => !(vars & bit(slot))) ? exprCost.blist : Infinity;
  }

  /** Whether replacing the top frame by frames costing `added` (plus the token itself) still fits the budget. */
  private fits(state: FunctionState, top: Frame, added: number): boolean {
    const after = this.cost(state.stack, state) - this.frameCost(top, state) + added + 1;
    return state.used + after <= this.budget;
  }

  private variableType(state: Pick<FunctionState, 'sig' | 'locals'>, slot: number): ValueType | null {
    if (slot <= SLOT.P3) return state.sig.params[slot - SLOT.P0] ?? null;
    if (slot <= SLOT.V3) return state.locals[slot - SLOT.V0] ?? null;
    return 'int'; // loop indices, list elements, the accumulator
  }

  /** The state after `token`, or null when the grammar does not allow it. */
  private apply(state: FunctionState, token: number): FunctionState | null {
    const stack = state.stack;
    const top = stack[stack.length - 1];
    if (!top) return null;
    const below = stack.slice(0, -1);
    const next = (frames: Frame[], locals = state.locals): FunctionState => ({ sig: state.sig, stack: [...below, ...frames], locals, used: state.used + 1 });
    const fitting = (frames: Frame[], locals?: readonly ValueType[]): FunctionState | null => {
      const candidate = next(frames, locals);
      return candidate.used + this.cost(candidate.stack, candidate) <= this.budget ? candidate : null;
    };

    if (top.kind === 'expr') {
      if (token >= VALUE0 && token < WORD0) return top.type === 'int' ? fitting([]) : null;
      if (token >= VAR0 && token < VALUE0) {
        const slot = token - VAR0;
        if (!(top.vars & bit(slot)) || this.variableType(state, slot) !== top.type) return null;
        return fitting([]);
      }
      if (token < EXPR0 || token >= STMT0) return null;
      const production = expressions[token - EXPR0];
      if (production.result !== top.type) return null;
      const args = argumentFrames(production, top.vars);
      return args ? fitting(args.reverse()) : null;
    }

    // A block: a statement, or its end.
    const written: BlockFrame = { ...top, stmts: top.stmts + 1 };
    if (token >= SET0 && token < VAR0) {
      const k = token - SET0;
      if (!(top.vars & bit(SLOT.V0 + k))) return null;
      return fitting([written, { kind: 'expr', type: state.locals[k], vars: top.vars }]);
    }
    if (token < STMT0 || token >= SET0) return null;
    const name = statements[token - STMT0].name;
    switch (name) {
      case 'RETURN':
        return fitting([{ kind: 'expr', type: state.sig.ret, vars: top.vars }]);
      case 'END':
        return top.top || top.stmts === 0 ? null : fitting([]);
      case 'LET_INT':
      case 'LET_LIST':
      case 'LET_BOOL': {
        if (state.locals.length >= MAX_LOCALS) return null;
        const type: ValueType = name === 'LET_INT' ? 'int' : name === 'LET_LIST' ? 'list' : 'bool';
        const declared = { ...written, vars: top.vars | bit(SLOT.V0 + state.locals.length) };
        return fitting([declared, { kind: 'expr', type, vars: top.vars }], [...state.locals, type]);
      }
      case 'IF':
        return fitting([written, { kind: 'block', vars: top.vars, top: false, stmts: 0 }, { kind: 'expr', type: 'bool', vars: top.vars }]);
      case 'FOR': {
        const slot = LOOP_SLOTS.find((s) => !(top.vars & bit(s)));
        if (slot === undefined) return null;
        const body: BlockFrame = { kind: 'block', vars: top.vars | bit(slot), top: false, stmts: 0 };
        return fitting([written, body, { kind: 'expr', type: 'int', vars: top.vars }, { kind: 'expr', type: 'int', vars: top.vars }]);
      }
      case 'FOR_OF': {
        const slot = ELEM_SLOTS.find((s) => !(top.vars & bit(s)));
        if (slot === undefined) return null;
        const body: BlockFrame = { kind: 'block', vars: top.vars | bit(slot), top: false, stmts: 0 };
        return fitting([written, body, { kind: 'expr', type: 'list', vars: top.vars }]);
      }
      default:
        return null;
    }
  }
}

/** The frames of a production's arguments, first argument first; null when a lambda has no free variable name left. */
function argumentFrames(production: Production, vars: number): ExprFrame[] | null {
  const frames: ExprFrame[] = [];
  for (const arg of production.args) {
    let scope = vars;
    for (const kind of arg.bind ?? []) {
      const slot = kind === 'acc' ? (vars & bit(SLOT.ACC) ? undefined : SLOT.ACC) : ELEM_SLOTS.find((s) => !(scope & bit(s)));
      if (slot === undefined) return null;
      scope |= bit(slot);
    }
    frames.push({ kind: 'expr', type: arg.type, vars: scope });
  }
  return frames;
}

/** The variable slots a production's lambda binds, in the order its arguments name them (for printing). */
export function boundSlots(production: Production, vars: number): number[][] {
  const out: number[][] = [];
  for (const arg of production.args) {
    let scope = vars;
    const slots: number[] = [];
    for (const kind of arg.bind ?? []) {
      const slot = kind === 'acc' ? SLOT.ACC : ELEM_SLOTS.find((s) => !(scope & bit(s)))!;
      scope |= bit(slot);
      slots.push(slot);
    }
    out.push(slots);
  }
  return out;
}

export { bit };
