/**
 * Shared pieces of the hand-written function problems (scripts/handwrittenFunctions.ts): the spec
 * type, a small seeded random number generator (mulberry32, written here so nothing of the
 * project's own generator is used) and drawers for common argument shapes.
 */

/**
 * Which file a problem goes to: `heldout` is read once for reporting, `dev` and `dev2` are for
 * choosing settings (`dev2` was written after the generator's families were aimed at `dev` misses).
 */
export type Split = 'heldout' | 'dev' | 'dev2';

export const KINDS = [
  'map',
  'conditional',
  'filter',
  'fold',
  'predicate',
  'relative-index',
  'positional',
  'pairs',
  'prefix',
  'sorting',
  'integer',
] as const;
export type Kind = (typeof KINDS)[number];

/** An argument list: integers, booleans and flat lists of them. */
export type Args = unknown[];

export interface Spec {
  /** snake_case identifier, also the name of the function in `ref`. */
  name: string;
  kind: Kind;
  split: Split;
  /** The problem statement, as a person would write it. */
  doc: string;
  params: string[];
  /** The reference solution: `function name(params) { ... }` in plain JavaScript. */
  ref: string;
  /** Draws one random argument list. */
  draw: (r: Rng) => Args;
  /** Hand-picked inputs that are always among the tests (empty list, one element, ...). */
  edges?: Args[];
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in lo..hi, both included. */
  int(lo: number, hi: number): number;
  bool(p?: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** A list of integers: length in minLen..maxLen, values in lo..hi. */
  list(minLen?: number, maxLen?: number, lo?: number, hi?: number): number[];
  /** A list of booleans of the given length. */
  bools(length: number): boolean[];
  /** Shuffles in place and returns the array. */
  shuffle<T>(items: T[]): T[];
}

/** mulberry32: a tiny 32-bit PRNG, deterministic for a given seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a hash of a string, to give every problem its own seed from its name. */
export function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function makeRng(seed: number): Rng {
  const next = mulberry32(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1));
  return {
    next,
    int,
    bool: (p = 0.5) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    list: (minLen = 0, maxLen = 9, lo = -10, hi = 20) => Array.from({ length: int(minLen, maxLen) }, () => int(lo, hi)),
    bools: (length) => Array.from({ length }, () => next() < 0.5),
    shuffle: (items) => {
      for (let i = items.length - 1; i > 0; i--) {
        const j = Math.floor(next() * (i + 1));
        [items[i], items[j]] = [items[j], items[i]];
      }
      return items;
    },
  };
}

// Common drawers.
/** One list of 0 to 9 integers in -10..20. */
export const oneList = (r: Rng): Args => [r.list()];
/** One non-empty list. */
export const nonEmptyList = (r: Rng): Args => [r.list(1)];
/** One list with small values, so that repeats are common. */
export const dupList = (r: Rng): Args => [r.list(0, 9, -3, 5)];
/** A list and an integer k in lo..hi. */
export const listAndInt = (lo: number, hi: number) => (r: Rng): Args => [r.list(), r.int(lo, hi)];
/** A list and a value that is often one of its elements. */
export const listAndMember = (r: Rng): Args => {
  const xs = r.list(0, 9, -5, 9);
  return [xs, xs.length > 0 && r.bool(0.7) ? r.pick(xs) : r.int(-5, 9)];
};

// Common edge cases.
export const EMPTY: Args = [[]];
export const SINGLE = (x: number): Args => [[x]];
