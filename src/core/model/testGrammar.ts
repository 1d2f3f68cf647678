/**
 * A toy grammar for tests of the model and algorithms: a program is one or two "lines", each
 * a single choice token followed by EOL, then DONE. Tokens: 0 PAD, 1 BOS, 2 A, 3 B, 4 EOL,
 * 5 DONE, 6..9 prompt tokens. Small enough that probabilities can be checked exactly.
 */
import type { Grammar } from '../grammar';

export const TOY = { PAD: 0, BOS: 1, A: 2, B: 3, EOL: 4, DONE: 5, vocabSize: 10 } as const;

interface ToyState {
  lines: number;
  inLine: boolean;
  done: boolean;
}

export class ToyGrammar implements Grammar<ToyState> {
  readonly vocabSize = TOY.vocabSize;
  initial(): ToyState {
    return { lines: 0, inLine: false, done: false };
  }
  allowed(state: ToyState, mask: Uint8Array): void {
    mask.fill(0);
    if (state.done) return;
    if (state.inLine) mask[TOY.EOL] = 1;
    else {
      if (state.lines < 2) {
        mask[TOY.A] = 1;
        mask[TOY.B] = 1;
      }
      if (state.lines > 0) mask[TOY.DONE] = 1;
    }
  }
  advance(state: ToyState, token: number): ToyState {
    if (token === TOY.DONE) return { ...state, done: true };
    if (token === TOY.EOL) return { lines: state.lines + 1, inLine: false, done: false };
    return { ...state, inLine: true };
  }
  isDone(state: ToyState): boolean {
    return state.done;
  }
  endsLine(token: number): boolean {
    return token === TOY.EOL || token === TOY.DONE;
  }
}
