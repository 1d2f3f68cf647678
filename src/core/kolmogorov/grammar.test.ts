import { describe, expect, it } from 'vitest';
import { Rng } from '../rng';
import { generateProgram } from './generator';
import { KolmogorovGrammar, encodePrompt, programToTokens, tokensToProgram, vocabSize, BOS, SEP } from './grammar';
import { parseProgram, printProgram } from './program';

describe('Kolmogorov grammar', () => {
  it('accepts every generated program and decodes it back', () => {
    const rng = new Rng(9);
    for (let i = 0; i < 1000; i++) {
      const program = generateProgram(rng);
      const tokens = programToTokens(program);
      expect(printProgram(tokensToProgram(tokens))).toBe(printProgram(program));
    }
  });

  it('makes every random walk a program that parses, and permits agrees with the mask at every step', () => {
    const grammar = new KolmogorovGrammar();
    const rng = new Rng(4);
    const mask = new Uint8Array(vocabSize);
    for (let walk = 0; walk < 300; walk++) {
      let state = grammar.initial();
      const tokens: number[] = [];
      while (!grammar.isDone(state)) {
        grammar.allowed(state, mask);
        const allowed = [...mask.keys()].filter((t) => mask[t]);
        expect(allowed.length).toBeGreaterThan(0);
        // permits (one token, used to validate programs) answers as the mask does (used to sample).
        expect([...mask.keys()].filter((t) => grammar.permits(state, t))).toEqual(allowed);
        // Bias towards finishing so walks stay short.
        const finishing = allowed.filter((t) => grammar.endsLine(t) || t === 4);
        const token = finishing.length && rng.chance(0.3) ? rng.pick(finishing) : rng.pick(allowed);
        tokens.push(token);
        state = grammar.advance(state, token);
        expect(tokens.length).toBeLessThan(5000);
      }
      const text = printProgram(tokensToProgram(tokens));
      expect(printProgram(parseProgram(text))).toBe(text);
    }
  });

  it('rejects tokens the grammar does not allow, with their position', () => {
    const tokens = programToTokens(parseProgram('sequence_1 = range_func_up(1, 5)\noutput = sequence_1'));
    expect(() => tokensToProgram(tokens.slice(0, -1))).toThrow(/incomplete/);
    expect(() => tokensToProgram([tokens[1], ...tokens])).toThrow(/token 0/);
  });

  it('encodes prompts as BOS, one token per value, SEP, cut to the maximum length', () => {
    expect(encodePrompt([1, 2, 3], 2)).toEqual([BOS, 5 + 1, 5 + 2, SEP]);
  });
});
