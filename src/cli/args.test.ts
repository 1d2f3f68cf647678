import { describe, expect, it } from 'vitest';
import { parseArgs } from './args';

describe('parseArgs', () => {
  it('reads a boolean flag alone as true and --flag false / --flag=false as false', () => {
    expect(parseArgs(['--overlap'], []).config.digits.overlap).toBe(true);
    expect(parseArgs(['--overlap', 'false'], []).config.digits.overlap).toBe(false);
    expect(parseArgs(['--overlap=false'], []).config.digits.overlap).toBe(false);
    // The word after a boolean flag is only its value when it is true or false.
    expect(parseArgs(['--require-tag', '--num-steps', '5'], []).config.digits).toMatchObject({ requireTag: true, numSteps: 5 });
    expect(() => parseArgs(['--overlap', 'maybe'], [])).toThrow(/unexpected argument "maybe"/);
  });
});
