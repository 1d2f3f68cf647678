/**
 * Docstring words outside the vocabulary are read as known pieces (a synonym, a stem, a
 * hyphenated word's parts), parameters' names as their variable tokens, and UNK is left for a
 * word nothing fits, once; the vocabulary itself (and so the shipped policy's shape) is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { UNK, VAR0, docstringTokens, tokenText, vocabSize, words } from './language';
import { synonyms, wordPieces } from './wordpieces';

const text = (doc: string, params: string[] = []) => docstringTokens(doc, 64, params).map(tokenText).join(' ');
const known = new Set(words);
const isKnown = (word: string) => known.has(word);

describe('word pieces for docstring words outside the vocabulary', () => {
  it('keeps the vocabulary of the shipped functions policy', () => {
    expect(vocabSize).toBe(527);
  });

  it('reads synonyms, inflections and hyphenated words as known words', () => {
    expect(wordPieces('indices', isKnown)).toEqual(['index']);
    expect(wordPieces('subtract', isKnown)).toEqual(['minus']);
    expect(wordPieces('dropped', isKnown)).toEqual(['drop']); // a doubled consonant
    expect(wordPieces('counts', isKnown)).toEqual(['count']);
    expect(wordPieces('halving', isKnown)).toEqual(['halve']); // a dropped e
    expect(wordPieces('sixth', isKnown)).toEqual(['six']);
    expect(wordPieces('fifth', isKnown)).toEqual(['five']);
    expect(wordPieces('rotated', isKnown)).toEqual(['rotate']);
    expect(wordPieces('zero-based', isKnown)).toEqual(['zero']); // the unknown part dropped
    expect(wordPieces('non-empty', isKnown)).toEqual(['not', 'empty']); // never "empty" alone
    expect(wordPieces('everyone', isKnown)).toEqual(['every', 'one']); // a compound
    expect(wordPieces('qwxz', isKnown)).toEqual([]); // nothing fits
  });

  it('every synonym stands for words of the vocabulary, and no vocabulary word is redefined', () => {
    for (const [word, meaning] of Object.entries(synonyms)) {
      expect(meaning.split(' ').every(isKnown), `${word} -> ${meaning}`).toBe(true);
      expect(isKnown(word), word).toBe(false);
    }
  });

  it('degrades an unknown sentence gracefully: fewer UNKs than unknown words, one per word at most', () => {
    const doc = 'Subtract one from every positive number; zeros and negative numbers stay the same.';
    expect(text(doc)).toBe('minus one from every positive number zeros and negative numbers keep the same');
    expect(text('Return the indices of the elements, in increasing order.')).toBe('return the index of the elements in increasing order');
    expect(docstringTokens('Frobnicate the quux.').filter((t) => t === UNK)).toHaveLength(2);
  });

  it('reads a parameter\'s name as its variable token, but not an article or a longer vocabulary word', () => {
    expect(text('Insert v at index i of xs.', ['xs', 'i', 'v'])).toBe('add P2 at index P1 of P0');
    expect(text('Return the k-th element of xs.', ['xs', 'k'])).toBe('return the P1 element of P0');
    expect(docstringTokens('Return a plus b.', 32, ['a', 'b'])).toEqual([...docstringTokens('Return a plus'), VAR0 + 1]);
    expect(text('Sum the odd numbers.', ['numbers'])).toBe('sum the odd numbers');
    expect(text('Return the k-th element of xs.')).toBe('return the k element of list'); // no parameters given
    // A name with digits is the name, whole; other words still end where digits begin.
    expect(text('Return list1 plus list2.', ['list1', 'list2'])).toBe('return P0 plus P1');
    expect(text('Return x_1 minus x_2.', ['x_1', 'x_2'])).toBe('return P0 minus P1');
    expect(text('Return a1 plus a10.', ['a1', 'a10'])).toBe('return P0 plus P1');
    expect(text('Keep the top3 of xs1.', ['xs'])).toBe(text('Keep the top 3 of xs 1.', ['xs']));
  });

  it('reads a word that names a property of every JavaScript object ("constructor", "__proto__") as any other word', () => {
    expect(text('Return x plus y, as the constructor does.', ['x', 'y'])).toMatch(/^return P0 plus P1 /);
    expect(() => text('Read __proto__ and toString here.')).not.toThrow();
  });

  it('reads a formula\'s operators as the words that say them, and a minus after an operand as minus, not a sign', () => {
    expect(text('Replace each x by 10 - x.')).toBe('replace each x by 10 minus x');
    expect(text('Map x to a*x + b.', ['xs', 'a', 'b'])).toBe('transform x to a times x plus P2');
    expect(text('Keep x when x % 3 == 1 or x >= k.', ['xs', 'k'])).toBe('keep x if x modulo 3 equal 1 or x at least P1');
    expect(text('Return n-1, then x-3, then -3.', ['n'])).toBe('return P0 minus 1 after x minus 3 after -3');
    expect(text('Is a != b? Is a < b? x // 2, x ** 2', ['a', 'b'])).toBe('is a not equal P1 is a less than P1 x divided 2 x power 2');
    expect(text('non-empty, zero-based')).toBe('not empty zero'); // a hyphen inside a word is not an operator
    // A hyphen in a compound is not minus either; between one-letter names it is.
    expect(text('a 0-based index, 1-indexed')).toBe(text('a 0 based index, 1 indexed'));
    expect(text('the top-3 values')).toBe(text('the top 3 values'));
    expect(text('Return n-k, or 2-x, or len(xs)-1.', ['xs', 'n', 'k'])).toBe('return P1 minus P2 or 2 minus x or length P0 minus 1');
  });
});
