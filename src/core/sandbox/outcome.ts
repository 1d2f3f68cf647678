/**
 * The sandbox's typed contract: what a job asks for and what comes back. Every generated
 * program is hostile (docs/reliability.md); the outcome classes below are the only things the
 * trainer ever sees of it.
 */

export type OutcomeKind =
  | 'ok' // ran, output equals the expected sequence (or no expectation was given)
  | 'wrong' // ran, output is a valid integer list that differs from the expected one
  | 'compile_error'
  | 'runtime_error'
  | 'timeout' // deadline interrupt, or the host watchdog terminated the worker
  | 'oom'
  | 'stack_overflow'
  | 'output_invalid' // output missing, not a list of safe integers, too long, or hostile to serialise
  | 'infra_error'; // the sandbox itself failed (worker died, wasm failed to load): not the program's fault

export const outcomeKinds: readonly OutcomeKind[] = [
  'ok', 'wrong', 'compile_error', 'runtime_error', 'timeout', 'oom', 'stack_overflow', 'output_invalid', 'infra_error',
];

export interface SandboxLimits {
  /** Wall-clock limit inside QuickJS (interrupt handler). */
  deadlineMs: number;
  /** Host watchdog: a worker that has not answered by then is terminated and respawned. */
  watchdogMs: number;
  memoryBytes: number;
  stackBytes: number;
  maxSourceBytes: number;
  /** Longest output list (number of elements) accepted. */
  maxOutputLength: number;
}

export interface SandboxJob {
  /** Program text. For the Kolmogorov task it is DSL lines ending in `output = sequence_k`. */
  source: string;
  /** When given, an output equal to it is `ok`, any other valid list is `wrong`. */
  expected?: readonly number[];
  /** Seed of the guest's Math.random. */
  seed?: number;
  /** Name of a prelude registered with the sandbox (e.g. 'kolmogorov'); defaults to none. */
  prelude?: string;
}

export interface SandboxOutcome {
  kind: OutcomeKind;
  /** The program's output when it was a valid integer list (ok or wrong). */
  output?: number[];
  /** Readable reason for anything but ok/wrong, capped in length. */
  message?: string;
  /** Time spent evaluating, host-measured. */
  elapsedMs: number;
}
