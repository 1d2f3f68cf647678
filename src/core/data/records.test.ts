import { describe, expect, it } from 'vitest';
import { defaultConfig } from '../config';
import { kolmogorovTask } from '../kolmogorov/task';
import { parseKolmogorovRecord, parsePreferenceRecord } from './records';

describe('records (issue 29)', () => {
  it('a null line is said to be null, not "object"', () => {
    expect(() => parsePreferenceRecord(null)).toThrow('expected an object {"prompt", "chosen", "rejected"}, got null');
    expect(() => parseKolmogorovRecord(null)).toThrow('expected an object {"sequence": [...]}, got null');
  });

  it('a pair whose chosen program is its rejected one is refused: it teaches nothing and has a zero margin', () => {
    const program = 'sequence_1 = range_func_up(1, 3)\noutput = sequence_1';
    expect(() => parsePreferenceRecord({ prompt: '1, 2, 3', chosen: program, rejected: program })).toThrow('"chosen" and "rejected" are the same program');
    // The same program written with other spacing is the same tokens: refused by the task.
    const task = kolmogorovTask(defaultConfig());
    expect(() => task.pairFromText!({ prompt: '1, 2, 3', chosen: program, rejected: program.replace('(1, 3)', '(1,3)') })).toThrow('"chosen" and "rejected" are the same program');
  });
});
