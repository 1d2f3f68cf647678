/**
 * The grammar interface the sampler uses to constrain generation so that every sample
 * parses (DESIGN: "a program is a token sequence under the task's grammar"). A task gives
 * its grammar; the sampler knows nothing about DSLs. States are immutable values so a batch
 * of samples can each hold their own.
 */
export interface Grammar<State = unknown> {
  /** Size of the token vocabulary the policy emits. */
  readonly vocabSize: number;
  /**
   * State before the first program token. A grammar whose programs depend on the item (the
   * functions task's signature) reads it from the prompt; the others ignore it.
   */
  initial(prompt?: readonly number[]): State;
  /** Writes 1 for every token allowed next, 0 otherwise, into `mask` (length vocabSize). */
  allowed(state: State, mask: Uint8Array): void;
  /** State after emitting `token`; only called with allowed tokens. */
  advance(state: State, token: number): State;
  /** True when the program is complete (no token is allowed any more). */
  isDone(state: State): boolean;
  /** True when `token` ends a program line (for line-level credit assignment). */
  endsLine(token: number): boolean;
}

/**
 * Every token but PAD (0) anywhere, never done: the grammar of a language model with no
 * constraints (benchmarks on random tokens, as the Python reference trains).
 */
export class OpenGrammar implements Grammar<null> {
  constructor(readonly vocabSize: number) {}
  initial(): null {
    return null;
  }
  allowed(_state: null, mask: Uint8Array): void {
    mask.fill(1);
    mask[0] = 0;
  }
  advance(): null {
    return null;
  }
  isDone(): boolean {
    return false;
  }
  endsLine(): boolean {
    return false;
  }
}

/** Why `tokens` is not a complete program of `grammar` after `prompt`, or null when it is one. */
export function grammarProblem<S>(grammar: Grammar<S>, prompt: readonly number[], tokens: readonly number[]): string | null {
  const mask = new Uint8Array(grammar.vocabSize);
  let state = grammar.initial(prompt);
  for (let i = 0; i < tokens.length; i++) {
    grammar.allowed(state, mask);
    if (!mask[tokens[i]]) return `token ${i} (${tokens[i]}) is not allowed there by the grammar`;
    state = grammar.advance(state, tokens[i]);
  }
  return grammar.isDone(state) ? null : `the program is incomplete after ${tokens.length} tokens`;
}

/** A task's grammar as a message can carry it (to generator and gradient workers): the task's name and its grammar's parameters. */
export type GrammarSpec = { task: string } & Record<string, string | number | boolean>;
