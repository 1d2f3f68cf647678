/**
 * The run each number token ends: how many values of one constant difference end at it (a
 * repeat has difference 0, a range +1, a step +k), counted along a row of tokens. The policy
 * embeds it at each number (`runLengths` in transformer.ts), so a run's last value is a key that
 * says how long the run is: `repeat_num(16, 208)` then copies 16 from the key that ends the run
 * of 208s, where a policy without it had to count sixteen equal tokens, and guessed.
 *
 * With stride 2 the same is counted over every other value, and each number's difference from
 * the number two back is given too: the two streams `interleave` weaves (a0 b0 a1 b1 ...) are
 * runs at stride 2, invisible at stride 1, where the differences alternate.
 *
 * A token that is not a number ends no run (length 0, and the next number starts afresh); a
 * number `stride` places after a number makes a run of two with it; a third value at the same
 * difference makes three, and so on. modeling_prl.py counts the same way.
 */

import type { InputTable, TokenInput } from './tokenInputs';

/** At a token, for one stride: its number (when it is one), the difference its run keeps, and the run's length in values (0: not a number). */
export interface RunState {
  value: number;
  delta: number;
  length: number;
}

export const NO_RUN: RunState = { value: 0, delta: 0, length: 0 };

/** After a token: per stride s (1, 2, ...), the states of the last s tokens, oldest first. */
export type RunTrail = RunState[][];

export class RunLengths implements TokenInput<RunTrail> {
  /**
   * Tokens first .. first + count - 1 stand for the numbers 0 .. count - 1; a run's length is
   * read up to count - 1, a stride-2 difference clipped to -deltaMax - 1 .. deltaMax + 1.
   */
  constructor(readonly first: number, readonly count: number, readonly strides = 1, readonly deltaMax = 8) {}

  /** The tables, in the order of `rows`: a run length per stride (its number code moved by seed 2 + stride), then a difference per stride from 2. */
  inputs(): InputTable[] {
    const strides = Array.from({ length: this.strides }, (_, i) => i + 1);
    return [
      ...strides.map((s) => ({ name: s === 1 ? 'runlen' : `runlen${s}`, rows: this.count, code: { count: this.count, seed: 2 + s } })),
      ...strides.slice(1).map((s) => ({ name: `delta${s}`, rows: 2 * this.deltaMax + 4 })),
    ];
  }

  start(): RunTrail {
    return Array.from({ length: this.strides }, (_, i) => Array<RunState>(i + 1).fill(NO_RUN));
  }

  /** The state after `token`, from the state `stride` tokens before it. */
  step(before: RunState, token: number): RunState {
    const value = token - this.first;
    if (value < 0 || value >= this.count) return NO_RUN;
    if (before.length === 0) return { value, delta: 0, length: 1 };
    const delta = value - before.value;
    return { value, delta, length: before.length >= 2 && delta === before.delta ? before.length + 1 : 2 };
  }

  next(trail: RunTrail, token: number): RunTrail {
    return trail.map((last) => [...last.slice(1), this.step(last[0], token)]);
  }

  /** The rows the last token of `trail` reads, one per input. */
  rows(trail: RunTrail): number[] {
    const states = trail.map((last) => last[last.length - 1]);
    const { deltaMax } = this;
    return [
      ...states.map((state) => Math.min(state.length, this.count - 1)),
      // A difference only where the run has two values; the last row otherwise.
      ...states.slice(1).map((state) => (state.length >= 2 ? Math.min(Math.max(state.delta, -deltaMax - 1), deltaMax + 1) + deltaMax + 1 : 2 * deltaMax + 3)),
    ];
  }
}
