/**
 * The inputs a policy gets about its number tokens, from a config's model switches (numberCode,
 * valueDeltas, runLengths, strideTwo, copyPointer, copyResume), for a vocabulary whose tokens first .. first +
 * count - 1 stand for the numbers 0 .. count - 1, and, for a task whose prompt is numbers, the
 * token that ends it (`promptEnd`): the one mapping every task with numbers uses (transformer.ts
 * says what each input is). The copy pointer points into a prompt of numbers: a task without one
 * (functions: a docstring and tests) builds no pointer, as the digit tasks build none of these.
 */
import type { PolicyConfig } from './transformer';

export interface NumberSwitches {
  numberCode: boolean;
  valueDeltas: boolean;
  runLengths: boolean;
  strideTwo: boolean;
  copyPointer: boolean;
  copyResume: boolean;
}

/** The model section with its switches turned into the policy's number inputs; the other fields as they are. */
export function numberInputs<M extends NumberSwitches>(model: M, numbers: { first: number; count: number; promptEnd?: number }): Omit<M, keyof NumberSwitches> & Pick<PolicyConfig, 'numberTokens' | 'valueDeltas' | 'runLengths' | 'copyPointer'> {
  const { numberCode, valueDeltas, runLengths, strideTwo, copyPointer, copyResume, ...rest } = model;
  const { promptEnd, ...range } = numbers;
  if (strideTwo && !runLengths) throw new Error('model.strideTwo (--stride-two) needs model.runLengths (--run-lengths): it adds a second stride to the run lengths');
  if (copyResume && !copyPointer && promptEnd !== undefined) throw new Error('model.copyResume (--copy-resume) needs model.copyPointer (--copy-pointer): it carries the pointer across statements');
  return {
    ...rest,
    numberTokens: numberCode ? { ...range } : undefined,
    valueDeltas: valueDeltas ? { ...range, max: 8 } : undefined,
    runLengths: runLengths ? { ...range, strides: strideTwo ? 2 : 1 } : undefined,
    copyPointer: copyPointer && promptEnd !== undefined ? { ...range, end: promptEnd, ...(copyResume ? { resume: true } : {}) } : undefined,
  };
}
