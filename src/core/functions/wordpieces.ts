/**
 * Docstring words outside the functions vocabulary, read as pieces of it instead of one UNK for
 * all (the vocabulary, and so every shipped policy's shape, stays as it is):
 *
 * 1. a synonym written for the lab ("indices" -> index, "subtract" -> minus, "biggest" ->
 *    largest, ordinals such as "fifth" -> five);
 * 2. an inflection of a known word: "counts" -> count, "replaced" -> replace, "dropping" -> drop,
 *    "sixth" -> six (suffixes s, es, ies, ed, d, ing, ly, er, est, th, with a doubled last
 *    consonant or a dropped e restored);
 * 3. a hyphenated word as its known parts ("zero-based" -> zero, the unknown part dropped;
 *    "k-th" -> k), a compound as two known words ("everyone" -> every one);
 * 4. the longest known prefix of at least four letters ("multiplication" -> multiply);
 * 5. else nothing fits, and the caller writes UNK once for the word.
 *
 * Synonyms are plain English the lab's own phrasings use, chosen on the dev problems' words and
 * common usage, never on a held-out file.
 */

/** Unknown word -> a known word (or words) it stands for here. */
export const synonyms: Readonly<Record<string, string>> = {
  indices: 'index', indexes: 'index', idx: 'index', location: 'position', place: 'position', places: 'positions', spot: 'position',
  subtract: 'minus', subtracted: 'minus', subtracting: 'minus', less_than: 'less', fewer: 'less',
  biggest: 'largest', maximal: 'maximum', tiniest: 'smallest', minimal: 'minimum',
  entries: 'elements', entry: 'element', members: 'elements', member: 'element', terms: 'elements', term: 'element', ints: 'integers', nums: 'numbers', num: 'number',
  arrays: 'lists', sequences: 'lists', vector: 'list', xs: 'list', ys: 'list', lst: 'list', arr: 'array', nums_list: 'list', collection: 'list',
  give: 'return', gives: 'returns', output: 'return', outputs: 'returns', produce: 'return', produces: 'returns', yield: 'return', yields: 'returns', build: 'return', make: 'return', create: 'return', construct: 'return', calculate: 'compute', determine: 'find', report: 'return', tell: 'check',
  front: 'start', beginning: 'start', begin: 'start', head: 'first', back: 'end', tail: 'end', rear: 'end', final: 'last', ending: 'end', initial: 'first', leading: 'first', trailing: 'last', opening: 'first',
  neighbour: 'next', neighbor: 'next', neighbours: 'next', neighbors: 'next', neighbouring: 'next', neighboring: 'next', adjacent: 'next', consecutive: 'next', following: 'next', preceding: 'previous', prior: 'previous', earlier: 'before', later: 'after', afterwards: 'after', then: 'after',
  insert: 'add', put: 'add', prepend: 'add first', push: 'append', attach: 'append', extend: 'append', delete: 'remove', erase: 'remove', discard: 'drop', omit: 'drop', exclude: 'without', excluding: 'without', ignore: 'skip', ignoring: 'skip', removing: 'remove',
  repeat: 'copy', repeated: 'copy', repeating: 'copy', repeats: 'copy', repetition: 'copy', duplicate: 'copy', duplicated: 'copy', copies: 'copy', clone: 'copy', again: 'copy',
  rotation: 'rotate', rotated: 'rotate', rotating: 'rotate', rotations: 'rotate', cycle: 'rotate', shifted: 'shift', shifting: 'shift', move: 'shift', moves: 'shift', moved: 'shift', moving: 'shift', swap: 'flip', swapped: 'flip', exchange: 'flip',
  halves: 'half', doubles: 'double', triples: 'triple', thrice: 'triple', quadruple: 'four',
  fifth: 'five', ninth: 'nine', zeroth: 'zero', once: 'one', pairs: 'pair', single: 'one', lone: 'one', nothing: 'none', null: 'none',
  mod: 'modulo', remainders: 'remainder', divisor: 'divide', divides: 'divisible', dividing: 'divide', factor: 'divide', factors: 'divide', quotient: 'divided',
  magnitude: 'absolute', magnitudes: 'absolute', abs: 'absolute', opposite: 'negate', negation: 'negate', inverted: 'negated', invert: 'negate',
  average: 'mean', avg: 'mean', sums: 'sum', summed: 'sum', summing: 'sum', totals: 'total', tally: 'count', counts: 'count', number_of: 'count', amount: 'number', quantity: 'number',
  identical: 'same', matching: 'equal', match: 'equal', matches: 'equal', equals: 'equal', unequal: 'not equal', differ: 'not equal', differs: 'not equal',
  exceeding: 'exceed', surpass: 'exceed', over: 'above', under: 'below', beneath: 'below', higher: 'greater', lower: 'less', more: 'greater',
  retain: 'keep', retaining: 'keep', keeping: 'keep', kept: 'keep', select: 'keep', selected: 'keep', choose: 'keep', pick: 'keep', filter: 'keep', filtered: 'keep', leave: 'keep', leaves: 'keep', stay: 'keep', stays: 'keep', unchanged: 'same', untouched: 'same', preserve: 'keep',
  ordered: 'sorted', sorting: 'sort', arrange: 'sort', arranged: 'sort', ranking: 'sort', increasingly: 'increasing', rising: 'increasing', rise: 'increasing', falling: 'decreasing', fall: 'decreasing', reversing: 'reverse', backwards: 'reversed', backward: 'reversed', mirror: 'reverse', mirrored: 'reversed',
  whole: 'all', map: 'transform', non: 'not', nonempty: 'not empty', unsorted: 'not sorted', entire: 'all', everything: 'all', per: 'each', either: 'any', some: 'any', exists: 'any', exist: 'any', always: 'every', never: 'no', nowhere: 'no',
  zeroes: 'zeros', naught: 'zero', nil: 'zero', positivity: 'positive', negativity: 'negative', nonnegative: 'non-negative', 
  wise: 'element-wise', elementwise: 'element-wise', pairwise: 'element-wise', corresponding: 'element-wise', respective: 'element-wise',
  combine: 'join', combined: 'join', merge: 'join', merged: 'join', glue: 'join', concatenation: 'concatenate', concatenated: 'concatenate', followed: 'after', precede: 'before', precedes: 'before', preceded: 'before', follows: 'after',
  segment: 'slice', portion: 'slice', part: 'slice', chunk: 'slice', window: 'slice', subarray: 'sublist', subsequence: 'sublist',
  occurring: 'occurs', occur: 'occurs', appearing: 'appears', appeared: 'appears', present: 'contains', inside: 'in', within: 'in', among: 'in', containing: 'contains',
  equally: 'equal', change: 'replace', changed: 'replace', changes: 'replace', changing: 'replace', set: 'replace', substitute: 'replace', swapping: 'flip', running: 'prefix', cumulative: 'prefix', cut: 'slice', len: 'length', size: 'length', elsewhere: 'otherwise', multiplication: 'multiply', addition: 'add', subtraction: 'minus', division: 'divide', what: 'which', so: 'that', until: 'before', while: 'if', stop: 'end', stopping: 'end', nearest: 'least difference', close: 'difference', closer: 'less difference', closest: 'least difference', distance: 'difference', gap: 'difference', gaps: 'difference', diff: 'difference', differences: 'difference', delta: 'difference', step: 'difference', steps: 'difference',
  does: 'whether', is_there: 'whether', are_there: 'whether', yes: 'true', wrong: 'false',
  multiplying: 'multiply', adding: 'add',
  their: 'its', own: 'its', itself: 'it', themselves: 'them', they: 'them', whose: 'which', where: 'which', when: 'if', whenever: 'if', unless: 'not', else: 'otherwise', instead: 'otherwise',
};

/** Suffixes an inflected word may carry, longest first, with what the stem may need back. */
const suffixes: readonly { suffix: string; restore: readonly string[] }[] = [
  { suffix: 'ies', restore: ['y'] }, { suffix: 'ied', restore: ['y'] }, { suffix: 'ing', restore: ['', 'e'] }, { suffix: 'est', restore: ['', 'e'] },
  { suffix: 'es', restore: ['', 'e'] }, { suffix: 'ed', restore: ['', 'e'] }, { suffix: 'ly', restore: [''] }, { suffix: 'er', restore: ['', 'e'] },
  { suffix: 'th', restore: [''] }, { suffix: 'h', restore: [''] }, { suffix: 's', restore: [''] }, { suffix: 'd', restore: [''] },
];

/** A known word, or the known words a synonym stands for (empty when neither). */
function lookup(word: string, known: (word: string) => boolean): string[] {
  if (known(word)) return [word];
  return Object.prototype.hasOwnProperty.call(synonyms, word) ? synonyms[word].split(' ').filter(known) : [];
}

/** The known words of an inflected word's stem ("dropped" -> drop, "halving" -> halve, "divisors" -> divide), or empty. */
function stem(word: string, known: (word: string) => boolean): string[] {
  for (const { suffix, restore } of suffixes) {
    if (!word.endsWith(suffix) || word.length - suffix.length < 2) continue;
    const base = word.slice(0, -suffix.length);
    for (const end of restore) {
      const found = lookup(base + end, known);
      if (found.length) return found;
    }
    // A doubled last consonant: dropped -> drop, bigger -> big.
    if (base.length > 2 && base.at(-1) === base.at(-2) && known(base.slice(0, -1))) return [base.slice(0, -1)];
  }
  return [];
}

/**
 * The known words an unknown word is read as (empty when nothing fits: the caller writes UNK).
 * `known` says whether a word is in the vocabulary.
 */
export function wordPieces(word: string, known: (word: string) => boolean, depth = 0): string[] {
  const direct = lookup(word, known);
  if (direct.length) return direct;
  const stemmed = stem(word, known);
  if (stemmed.length) return stemmed;
  if (depth > 2) return [];
  // Hyphens and underscores: the known parts, in order ("zero-based" -> zero, "k-th" -> k).
  const parts = word.split(/[-_]+/).filter(Boolean);
  if (parts.length > 1) return parts.flatMap((part) => wordPieces(part, known, depth + 1));
  // A compound of two known words ("sublists" is a stem, "nonzero" a word; "everyone" -> every one).
  for (let cut = word.length - 2; cut >= 2; cut--) {
    const head = word.slice(0, cut);
    const tail = word.slice(cut);
    if (known(head) && head.length >= 3) {
      const rest = wordPieces(tail, known, depth + 1);
      if (rest.length) return [head, ...rest];
    }
  }
  // The longest known prefix of four letters or more ("multiplying" -> multiply).
  for (let cut = word.length - 1; cut >= 4; cut--) if (known(word.slice(0, cut))) return [word.slice(0, cut)];
  return [];
}
