/**
 * The run each number token ends: how many values of one constant difference end at it (a
 * repeat has difference 0, a range +1, a step +k), counted along a row of tokens. The policy
 * embeds it at each number (`runLengths` in transformer.ts), so a run's last value is a key that
 * says how long the run is: `repeat_num(16, 208)` then copies 16 from the key that ends the run
 * of 208s, where a policy without it had to count sixteen equal tokens, and guessed.
 *
 * A token that is not a number ends no run (length 0, and the next number starts afresh); a
 * number after a number makes a run of two with it; a third value at the same difference makes
 * three, and so on. modeling_prl.py counts the same way.
 */

/** After a token: its number (when it is one), the difference its run keeps, and the run's length in values (0: not a number). */
export interface RunState {
  value: number;
  delta: number;
  length: number;
}

export const NO_RUN: RunState = { value: 0, delta: 0, length: 0 };

export class RunLengths {
  /** Tokens first .. first + count - 1 stand for the numbers 0 .. count - 1; a run's length is read up to count - 1. */
  constructor(readonly first: number, readonly count: number) {}

  /** The state after `token`, from the state after the token before it. */
  next(state: RunState, token: number): RunState {
    const value = token - this.first;
    if (value < 0 || value >= this.count) return NO_RUN;
    if (state.length === 0) return { value, delta: 0, length: 1 };
    const delta = value - state.value;
    return { value, delta, length: state.length >= 2 && delta === state.delta ? state.length + 1 : 2 };
  }

  /** Row of the run-length table for a state: the length, at most count - 1. */
  index(state: RunState): number {
    return Math.min(state.length, this.count - 1);
  }

  /** Each token's row of the table, [rows x T] flat, and each row's state after its last token. */
  ofRows(rows: readonly (readonly number[])[]): { index: Int32Array; states: RunState[] } {
    const T = rows[0]?.length ?? 0;
    const index = new Int32Array(rows.length * T);
    const states = rows.map((row, b) => {
      let state = NO_RUN;
      row.forEach((token, t) => {
        state = this.next(state, token);
        index[b * T + t] = this.index(state);
      });
      return state;
    });
    return { index, states };
  }
}
