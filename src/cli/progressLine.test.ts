import { describe, expect, it } from 'vitest';
import { progressLine } from './report';

const stream = (isTTY: boolean) => {
  const written: string[] = [];
  return { written, stream: { isTTY, write: (text: string) => written.push(text) } as unknown as NodeJS.WriteStream };
};

describe('progressLine', () => {
  it('rewrites one line in place on a terminal', () => {
    const { written, stream: s } = stream(true);
    const line = progressLine(s);
    for (let done = 1; done <= 3; done++) line.update(`evaluated ${done}/3`, done, 3);
    line.end();
    expect(written).toEqual(['\revaluated 1/3', '\revaluated 2/3', '\revaluated 3/3', '\n']);
  });

  it('writes whole lines to a log, one per tenth of the work and the last, so updates never run together', () => {
    const { written, stream: s } = stream(false);
    const line = progressLine(s);
    for (let done = 1; done <= 50; done++) line.update(`evaluated ${done}/50`, done, 50);
    line.end();
    expect(written.every((text) => text.endsWith('\n') && !text.includes('\r'))).toBe(true);
    expect(written).toHaveLength(11); // 1 (the first tenth, 0), then 5, 10, ..., 50
    expect(written.at(-1)).toBe('evaluated 50/50\n');
  });
});

describe('progressLine on long work', () => {
  it('says the time so far and, from the pace so far, the time left; a shorter line is padded over a longer one', () => {
    let clock = 0;
    const { written, stream: s } = stream(false);
    const line = progressLine(s, () => clock);
    clock = 30_000;
    line.update('evaluated 100/500', 100, 500);
    clock = 150_000;
    line.update('evaluated 500/500', 500, 500);
    expect(written).toEqual(['evaluated 100/500 (30 s, about 2.0 min left)\n', 'evaluated 500/500 (2.5 min)\n']);
    const tty = stream(true);
    const rewritten = progressLine(tty.stream, () => clock);
    clock = 160_000;
    rewritten.update('evaluated 1/2', 1, 2);
    rewritten.update('done 2/2', 2, 2);
    expect(tty.written[1].length).toBe(tty.written[0].length);
  });
});
