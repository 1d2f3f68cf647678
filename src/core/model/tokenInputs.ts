/**
 * Inputs a policy reads from its tokens on the host, one row of a learned table per token per
 * input: the run lengths (runLengths.ts) and the copy pointer (copyPointer.ts). Each is a small
 * state machine fed one token at a time, so a whole row (training, prefill) and the KV cache's
 * one token per step (decoding) give each token the same rows; modeling_prl.py computes them the
 * same way.
 */

/** One learned table: its rows, and optionally a fixed number code of rows 0 .. count - 1 moved to a direction of its own (`movedCode` seed). */
export interface InputTable {
  name: string;
  rows: number;
  code?: { count: number; seed: number };
}

export interface TokenInput<S> {
  /** The tables, in the order of `rows`. */
  inputs(): InputTable[];
  start(): S;
  /** The state after `token`; never changes `state` (rows of a batch may share one, after a beam's reorder). */
  next(state: S, token: number): S;
  /** The row of each table the last token of `state` reads. */
  rows(state: S): number[];
}

/** The states of every part after a row's tokens. */
export type InputStates = unknown[];

/** The rows each token reads, per table, [rows x T] flat each, and each row's states after its last token. */
export interface InputRows {
  index: Int32Array[];
  states: InputStates[];
}

/** Several inputs as one: their tables one after the other. */
export class TokenInputs {
  constructor(readonly parts: readonly TokenInput<unknown>[]) {}

  inputs(): InputTable[] {
    return this.parts.flatMap((part) => part.inputs());
  }

  start(): InputStates {
    return this.parts.map((part) => part.start());
  }

  next(states: InputStates, token: number): InputStates {
    return this.parts.map((part, i) => part.next(states[i], token));
  }

  rows(states: InputStates): number[] {
    return this.parts.flatMap((part, i) => part.rows(states[i]));
  }

  ofRows(rows: readonly (readonly number[])[]): InputRows {
    const T = rows[0]?.length ?? 0;
    const index = this.inputs().map(() => new Int32Array(rows.length * T));
    const states = rows.map((row, b) => {
      let state = this.start();
      row.forEach((token, t) => {
        state = this.next(state, token);
        this.rows(state).forEach((value, i) => (index[i][b * T + t] = value));
      });
      return state;
    });
    return { index, states };
  }
}
