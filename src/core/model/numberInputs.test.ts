import { describe, expect, it } from 'vitest';
import { numberInputs } from './numberInputs';

const off = { numberCode: false, valueDeltas: false, runLengths: false, strideTwo: false, copyPointer: false, copyResume: false };
const numbers = { first: 10, count: 256 };

describe('numberInputs', () => {
  it('builds a copy pointer only for a prompt of numbers, and says where the prompt ends', () => {
    expect(numberInputs({ ...off, copyPointer: true }, { ...numbers, promptEnd: 3 }).copyPointer).toEqual({ first: 10, count: 256, end: 3 });
    expect(numberInputs({ ...off, copyPointer: true, copyResume: true }, { ...numbers, promptEnd: 3 }).copyPointer).toEqual({ first: 10, count: 256, end: 3, resume: true });
    expect(numberInputs({ ...off, copyPointer: true }, numbers).copyPointer).toBeUndefined();
  });

  it('refuses copyResume without the pointer it extends, where a pointer is built, and nowhere else', () => {
    expect(() => numberInputs({ ...off, copyResume: true }, { ...numbers, promptEnd: 3 })).toThrow(/model.copyResume \(--copy-resume\) needs model.copyPointer/);
    // A task whose prompt is no list of numbers (functions) builds no pointer, so the switch means nothing there.
    expect(numberInputs({ ...off, copyResume: true }, numbers).copyPointer).toBeUndefined();
  });

  it('refuses strideTwo without the run lengths it extends, on any task', () => {
    expect(() => numberInputs({ ...off, strideTwo: true }, numbers)).toThrow(/model.strideTwo \(--stride-two\) needs model.runLengths/);
    expect(numberInputs({ ...off, runLengths: true, strideTwo: true }, numbers).runLengths).toEqual({ first: 10, count: 256, strides: 2 });
  });
});
