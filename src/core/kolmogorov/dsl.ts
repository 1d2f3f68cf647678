/**
 * Host-side DSL functions, built from the same prelude text the sandbox runs (prelude.ts),
 * and a runner for TRUSTED programs (the generator's own). Programs from a policy or a user
 * run only in the sandbox.
 */
import { kolmogorovPrelude, preludeFunctionNames } from './prelude';
import type { Arg, Program } from './program';

type DslFunction = (...args: unknown[]) => number[];

export const dsl: Record<(typeof preludeFunctionNames)[number] | 'is_even' | 'is_odd' | 'is_not_zero', DslFunction> = new Function(
  `${kolmogorovPrelude}\nreturn { ${[...preludeFunctionNames, 'is_even', 'is_odd', 'is_not_zero'].join(', ')} };`,
)();

export function runProgram(program: Program): number[] {
  const values: number[][] = [];
  const resolve = (arg: Arg): unknown => {
    switch (arg.kind) {
      case 'int':
        return arg.value;
      case 'list':
        return arg.values;
      case 'ref':
        return values[arg.line];
      case 'pred':
        return dsl[arg.name];
    }
  };
  for (const line of program.lines) values.push(dsl[line.fn](...line.args.map(resolve)));
  return values[program.output];
}
