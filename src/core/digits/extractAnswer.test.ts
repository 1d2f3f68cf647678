import { describe, expect, it } from 'vitest';
import { extractAnswer, scoreAnswer } from './extractAnswer';

describe('extractAnswer', () => {
  it('reads the seed cases: tag, "the answer is", "= n", last number', () => {
    expect(extractAnswer('[ANSWER] 28')).toEqual({ value: 28, tagged: true });
    expect(extractAnswer('1+2+3 = 6, so [ANSWER] 6')).toEqual({ value: 6, tagged: true });
    expect(extractAnswer('The answer is 42')).toEqual({ value: 42, tagged: false });
    expect(extractAnswer('so the answer is 42.')).toEqual({ value: 42, tagged: false });
    expect(extractAnswer('1 + 2 + 3 = 6')).toEqual({ value: 6, tagged: false });
    expect(extractAnswer('I think 17 or maybe 19')).toEqual({ value: 19, tagged: false });
    expect(extractAnswer('no number here')).toEqual({ value: null, tagged: false });
  });

  it('prefers the tag over phrases and other numbers, wherever they are', () => {
    expect(extractAnswer('[ANSWER] 5 but the answer is 7 = 9 and 11')).toEqual({ value: 5, tagged: true });
    expect(extractAnswer('the answer is 7 = 9')).toEqual({ value: 9, tagged: false });
  });

  it('takes the last of several tags and the last of several numbers', () => {
    expect(extractAnswer('[ANSWER] 1 [ANSWER] 2')).toEqual({ value: 2, tagged: true });
    expect(extractAnswer('12 34 56')).toEqual({ value: 56, tagged: false });
  });

  it('reads negative numbers, but not a minus between digits', () => {
    expect(extractAnswer('[ANSWER] -12')).toEqual({ value: -12, tagged: true });
    expect(extractAnswer('x = -5')).toEqual({ value: -5, tagged: false });
    expect(extractAnswer('3-5')).toEqual({ value: 5, tagged: false });
    expect(extractAnswer('[ANSWER] --3')).toEqual({ value: -3, tagged: false }); // not a number right after the tag
  });

  it('treats a tag without a number as no tag and falls back', () => {
    expect(extractAnswer('[ANSWER]')).toEqual({ value: null, tagged: false });
    expect(extractAnswer('12 [ANSWER] ')).toEqual({ value: 12, tagged: false });
    expect(extractAnswer('[ANSWER] x, the answer is 3')).toEqual({ value: 3, tagged: false });
  });

  it('scores +1 for right, -1 for wrong, and with requireTag only a tagged right answer earns +1', () => {
    expect(scoreAnswer('[ANSWER] 28', 28, false).reward).toBe(1);
    expect(scoreAnswer('[ANSWER] 27', 28, false).reward).toBe(-1);
    expect(scoreAnswer('28', 28, false).reward).toBe(1);
    expect(scoreAnswer('28', 28, true)).toMatchObject({ correct: true, tagged: false, reward: -1 });
    expect(scoreAnswer('[ANSWER] 28', 28, true).reward).toBe(1);
    expect(scoreAnswer('', 28, false).reward).toBe(-1);
  });
});
