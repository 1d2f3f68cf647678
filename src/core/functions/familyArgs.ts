/**
 * How the wider families (positionFamilies.ts, conditionFamilies.ts) take their numbers: a
 * constant said in the docstring ("the last 3 elements") or an integer parameter it names ("the
 * last k elements of xs"), and how a family over one list with such numbers becomes a Spec.
 */
import type { Rng } from '../rng';
import { randomList, say, type Phrasing, type Predicate, type Spec } from './familyKit';
import type { Value, ValueType } from './language';

/** An integer a family uses: a constant, or a parameter with how its value is drawn (given the list). */
export type IntArg =
  | { kind: 'const'; value: number; text: string }
  | { kind: 'param'; name: string; text: string; draw: (rng: Rng, xs: number[]) => number };

/** The constant `value` (said as digits or a word), or, with probability `asParam`, the parameter `name` drawn by `draw`. */
export function intArg(rng: Rng, value: number, name: string, draw: (rng: Rng, xs: number[]) => number, asParam = 0.4): IntArg {
  return rng.chance(asParam) ? { kind: 'param', name, text: name, draw } : { kind: 'const', value, text: say(value) };
}

export const constArg = (value: number): IntArg => ({ kind: 'const', value, text: say(value) });

/** What every wider family is drawn with. */
export interface Context {
  ph: Phrasing;
  /** A small constant (1..9). */
  k: number;
  p: Predicate;
  /** The predicate's phrase ("greater than 3") and adjective ("even"), when it has one. */
  pr: string;
  adj: string | null;
}

/**
 * A family over one list (and the integer parameters among `args`): `body(refs)` gets each
 * argument as tokens (a literal, or P1, P2, ...), `docs(texts)` each as the docstring says it.
 * `minLength` is the shortest list drawn.
 */
export function listFamily(
  c: Context,
  name: string,
  ret: ValueType,
  args: readonly IntArg[],
  body: (refs: (string | number)[][]) => (string | number)[],
  docs: (texts: string[]) => string[],
  minLength = 0,
): Spec {
  let next = 1;
  const refs = args.map((arg) => (arg.kind === 'const' ? [arg.value] : [`P${next++}`]));
  const params = args.filter((arg): arg is Extract<IntArg, { kind: 'param' }> => arg.kind === 'param');
  return {
    name,
    sig: { params: ['list', ...params.map((): ValueType => 'int')], ret },
    body: body(refs),
    docs: docs(args.map((arg) => arg.text)),
    params: [c.ph.xs, ...params.map((arg) => arg.name)],
    inputs: (rng: Rng): Value[] => {
      const xs = randomList(rng, minLength);
      return [xs, ...params.map((arg) => arg.draw(rng, xs))];
    },
  };
}

/** Capitalises the first letter (a docstring starting with a parameter name or a lowercase phrase). */
export const cap = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** An index into a list of `xs.length` (sometimes one past the end, where an insert may go). */
export const indexIn = (rng: Rng, xs: number[], pastEnd = 0) => rng.int(0, Math.max(0, xs.length - 1 + pastEnd));
