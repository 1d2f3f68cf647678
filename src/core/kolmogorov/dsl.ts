/**
 * Host-side DSL functions, built from the same prelude text the sandbox runs (prelude.ts),
 * and a runner for TRUSTED programs (the generator's own). Programs from a policy or a user
 * run only in the sandbox.
 */
import { kolmogorovPrelude } from './prelude';
import { dslFunctions, predicates, type Arg, type DslName, type PredicateName, type Program } from './program';

type DslFunction = (...args: unknown[]) => number[];

export const dsl: Record<DslName | PredicateName, DslFunction> = new Function(
  `${kolmogorovPrelude}\nreturn { ${[...dslFunctions, ...predicates].join(', ')} };`,
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
