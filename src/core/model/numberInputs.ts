/**
 * The inputs a policy gets about its number tokens, from a config's model switches (numberCode,
 * valueDeltas, runLengths, strideTwo), for a vocabulary whose tokens first .. first + count - 1
 * stand for the numbers 0 .. count - 1: the one mapping every task with numbers uses
 * (transformer.ts says what each input is).
 */
import type { PolicyConfig } from './transformer';

export interface NumberSwitches {
  numberCode: boolean;
  valueDeltas: boolean;
  runLengths: boolean;
  strideTwo: boolean;
}

/** The model section with its switches turned into the policy's number inputs; the other fields as they are. */
export function numberInputs<M extends NumberSwitches>(model: M, numbers: { first: number; count: number }): Omit<M, keyof NumberSwitches> & Pick<PolicyConfig, 'numberTokens' | 'valueDeltas' | 'runLengths'> {
  const { numberCode, valueDeltas, runLengths, strideTwo, ...rest } = model;
  if (strideTwo && !runLengths) throw new Error('model.strideTwo (--stride-two) needs model.runLengths (--run-lengths): it adds a second stride to the run lengths');
  return {
    ...rest,
    numberTokens: numberCode ? { ...numbers } : undefined,
    valueDeltas: valueDeltas ? { ...numbers, max: 8 } : undefined,
    runLengths: runLengths ? { ...numbers, strides: strideTwo ? 2 : 1 } : undefined,
  };
}
