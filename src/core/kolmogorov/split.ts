/**
 * Split search: write a long sequence as the concatenation of pieces the policy can write.
 *
 * The generator folds 1 to 5 base sequences of 5..25 values into its output, mostly with
 * `concatenate`, so a sequence of 100 values is usually a few short pieces end to end. The
 * warm-start policy writes short sequences well and long ones almost never: it gets the
 * structure of a 7-17-line program wrong, which no literal edit repairs. Split search asks the
 * policy for each piece instead and joins the pieces with one `concatenate`.
 *
 * Where the pieces meet is not known, so the search works on positions of the sequence. A
 * position is reached when the values before it are covered by programs that the sandbox
 * confirmed piece by piece; position 0 is reached at the start. Each round takes the `expand`
 * furthest reached positions not yet tried and asks the policy for the segments that start
 * there and end at a few likely places (`segmentEnds`): fixed widths, and the ends of runs of
 * constant difference (a range, an interval, a repeat). Every segment the sandbox confirms
 * reaches its end, and each position keeps its cheapest cover (the sum of its pieces' prior
 * bits, each piece without the output line it had as a program of its own: the joined program
 * has one), so the first cover of the whole sequence is refined by later rounds when they find
 * a cheaper one.
 *
 * The generator reuses its sequences (repeat_list, a sequence folded in twice, a reversed copy),
 * so a long sequence often repeats a piece. Where a part of a position's cover comes again, or
 * comes again reversed, the search copies it (`SplitSearch.copies`): the joined program writes
 * each line once, so a copy costs a reference and a reversed copy one line. Segments also end
 * where the values from their start recur, so that the repeated piece is asked for on its own.
 * On the validation file (greedy + split, shipped checkpoint), copies took the first 200 from
 * 0.865 / 0.593 to 0.865 / 0.562 and the next 200 from 0.810 / 0.577 to 0.830 / 0.543; ends at
 * recurrences then to 0.875 / 0.554 and 0.830 / 0.540. A rest may also copy the woven pieces
 * written beside it: 0.885 / 0.549 and 0.830 / 0.536.
 *
 * Interleave is the other way the generator folds a piece in, and it weaves the piece into the
 * start of everything folded before it. So a sequence the pieces end to end do not cover is
 * also tried as interleave(rest, woven) (`unweave`): the policy writes the woven piece for each
 * likely length, and the lengths whose piece costs the fewest bits per value get a split search
 * of their rest. A second interleave weaves a later piece into the start of the first, so a rest
 * is tried the same way in turn (`splitPrograms`). On the validation file's first 200 sequences,
 * greedy + split solved 0.56 end to end, 0.755 with one interleave (5 rests), 0.835 with two
 * (3 rests, then 2 of each rest), and 0.865 once segments also ended where runs start. A
 * sequence covered end to end only by costly pieces (literals of an interleaved stretch, above
 * `unweaveAbove` of its raw bits) is tried the same way, and the cheaper program kept: with
 * copies, first 200 0.885 / 0.549 -> 0.885 / 0.538, next 200 0.830 / 0.536 -> 0.830 / 0.523.
 *
 * The joined program is a program like any other: the sandbox runs it on the whole sequence and
 * it counts only if its output is the sequence; its bits are its own under the prior.
 */
import type { Program } from './program';
import { priorConstants, programBits, type PriorName } from './prior';
import { concatenatePrograms, interleavePrograms, literalProgram } from './join';
import { mergeRuns } from './merge';

export interface SplitSettings {
  /**
   * Interleave: how many splits of a sequence into interleave(rest, woven) get a split search of
   * their rest, per sequence; `unweave[1]` per unsolved rest, and so on (its length is how deep
   * interleaves nest).
   */
  unweave: readonly number[];
  /**
   * A sequence covered end to end at more than this many bits per raw bit (8 a value) is also
   * tried as an interleave: a cover of `set_list` pieces (8 bits a value and more) is what
   * writing an interleaved stretch literally looks like. Infinity: only unsolved sequences.
   */
  unweaveAbove: number;
  /** Lengths of the woven piece tried besides the ends of runs in the sequence's odd-indexed values. */
  unweaveWidths: readonly number[];
  /** Rounds: each tries the segments from `expand` reached positions. */
  rounds: number;
  expand: number;
  /** Segment widths tried from each position; the widest also bounds where runs are looked for. */
  widths: readonly number[];
  /** Run ends considered per position, nearest first. */
  runEnds: number;
  /** Runs of constant difference shorter than this do not suggest an end, and parts shorter than this are not copied. */
  minRun: number;
  /** Where the values from a segment's start come again (the first `recurEnds` places within the widest width), the segment may end. */
  recurEnds: number;
  /**
   * Literal bridges: when no reached position is left to try, the furthest one is bridged with
   * `set_list` pieces of these widths (the values themselves, 8 bits each), and the policy is
   * asked again from where they end. Empty: never.
   */
  bridge: readonly number[];
  /**
   * A sequence's program holding a bridge counts only at most this many bits per raw bit of the
   * whole sequence (8 a value): at 1, it must be shorter than the values written out.
   */
  bridgeAbove: number;
}

/**
 * The search the recipe and the page use. Chosen on the seed-3 validation file (not the held-out
 * file): see docs/kolmogorov.md for the figures.
 */
export const splitSearch: SplitSettings = {
  rounds: 24,
  expand: 2,
  widths: [8, 12, 16, 20, 24, 32, 48, 64],
  runEnds: 6,
  minRun: 3,
  recurEnds: 2,
  bridge: [1, 2, 4, 8],
  bridgeAbove: 1,
  unweave: [3, 2],
  unweaveAbove: 0.6,
  unweaveWidths: [4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 28, 32, 40, 48],
};

/** A piece to ask the policy for: `sequence.slice(start, end)`. */
export interface Segment {
  start: number;
  end: number;
}

/** How many values from a segment's start must come again for a recurrence to suggest an end. */
const RECUR_MATCH = 4;

/**
 * Where a segment starting at `start` may end, ascending: `start + w` for each width, the
 * sequence's end when it is at most the widest width away, the starts and ends of the first
 * `runEnds` runs of constant difference (at least `minRun` values) within the widest width, and
 * the first `recurEnds` places where the values from `start` come again (a piece that the
 * sequence repeats, which `SplitSearch` then copies).
 */
export function segmentEnds(sequence: readonly number[], start: number, settings: SplitSettings = splitSearch): number[] {
  const length = sequence.length;
  const widest = Math.max(...settings.widths);
  const ends = new Set<number>();
  for (const width of settings.widths) if (start + width <= length) ends.add(start + width);
  if (length - start <= widest) ends.add(length);
  let runStart = start;
  let found = 0;
  for (let p = start + 2; p <= Math.min(length, start + widest) && found < settings.runEnds; p++) {
    if (p < length && sequence[p] - sequence[p - 1] === sequence[p - 1] - sequence[p - 2]) continue;
    // The run of constant difference that started at runStart ends before p.
    if (p - runStart >= settings.minRun) {
      ends.add(p);
      // And where it starts, so that the values before it can be a piece of their own.
      if (runStart > start) ends.add(runStart);
      found++;
    }
    runStart = p - 1;
  }
  // A run recurs at every place within itself: only values with no constant difference count.
  const head = sequence.slice(start, start + RECUR_MATCH);
  if (head.length === RECUR_MATCH && head.some((v, i) => i >= 2 && v - head[i - 1] !== head[i - 1] - head[i - 2])) {
    let recurrences = 0;
    for (let q = start + settings.minRun; q <= Math.min(length - RECUR_MATCH, start + widest) && recurrences < settings.recurEnds; q++) {
      if (head.every((v, i) => sequence[q + i] === v)) {
        ends.add(q);
        recurrences++;
      }
    }
  }
  return [...ends].filter((end) => end > start).sort((a, b) => a - b);
}

/** Pieces shorter than this are not worth training on: the shortest base the generator makes. */
const MIN_PIECE = 5;

/**
 * `count` pieces of a long sequence of the kind split search asks the policy for, each at most
 * `maxLength` values: the first from the sequence's start, the others from random positions,
 * each ending at one of `segmentEnds` chosen at random. RL on whole short sequences teaches the
 * policy whole programs; split search then asks it for pieces of long ones, which start and end
 * where the generator's bases do not always.
 */
export function trainingPieces(sequence: readonly number[], count: number, maxLength: number, rng: { next(): number }): number[][] {
  const pieces: number[][] = [];
  for (let k = 0; k < count && sequence.length >= MIN_PIECE; k++) {
    const start = k === 0 ? 0 : Math.floor(rng.next() * (sequence.length - MIN_PIECE + 1));
    const ends = segmentEnds(sequence, start).filter((end) => end - start >= MIN_PIECE && end - start <= maxLength);
    if (ends.length > 0) pieces.push(sequence.slice(start, ends[Math.floor(rng.next() * ends.length)]));
  }
  return pieces;
}

/**
 * A sequence as interleave(rest, woven): `woven` is the odd-indexed values of its first 2m,
 * `rest` the even-indexed ones followed by everything after 2m. This holds for every
 * m <= length / 2 (interleave appends the longer list's tail). The generator folds its pieces
 * left to right, so an interleave step weaves one piece into the start of everything before it:
 * for that piece's length, `woven` is the piece and `rest` is again pieces end to end.
 */
export function unweave(sequence: readonly number[], m: number): { rest: number[]; woven: number[] } {
  if (!(m >= 1 && 2 * m <= sequence.length)) throw new Error(`unweave: m = ${m} must be in 1..${Math.floor(sequence.length / 2)}`);
  const woven: number[] = [];
  const rest: number[] = [];
  for (let i = 0; i < 2 * m; i++) (i % 2 ? woven : rest).push(sequence[i]);
  return { rest: rest.concat(sequence.slice(2 * m)), woven };
}

/** The lengths of the woven piece worth trying: the ends of runs in the odd-indexed values, and `unweaveWidths`; at least 3, at most half the sequence. */
export function unweaveLengths(sequence: readonly number[], settings: SplitSettings = splitSearch): number[] {
  const odd = sequence.filter((_, i) => i % 2 === 1);
  const runs = segmentEnds(odd, 0, { ...settings, widths: [Math.max(...settings.unweaveWidths)], runEnds: settings.runEnds + 2 });
  return [...new Set([...runs, ...settings.unweaveWidths])].filter((m) => m >= 3 && 2 * m <= sequence.length).sort((a, b) => a - b);
}

/** A program in a cover, and the values it covers there: `sequence.slice(start, end)`. */
interface Part {
  program: Program;
  start: number;
  end: number;
}

interface Cover {
  /** The parts' bits (each piece priced without its output line, which the joined program has once). */
  bits: number;
  parts: Part[];
  /** Whether a literal bridge is among the parts. */
  bridged: boolean;
}

/** A program and its output, which a search may copy. */
export interface Known {
  program: Program;
  values: readonly number[];
}

/** A confirmed piece from `start` (its key in `pieces`) to `end`. */
interface Piece {
  end: number;
  program: Program;
  bits: number;
  /** A literal bridge, not a program the policy wrote. */
  literal?: boolean;
}

/** The search state of one sequence. */
export class SplitSearch {
  /** covers[p]: the cheapest confirmed cover of the first p values, or null while p is not reached. */
  private readonly covers: (Cover | null)[];
  private readonly tried = new Set<number>();
  /** pieces[p]: the confirmed pieces that start at p. */
  private readonly pieces: Piece[][];

  constructor(
    readonly sequence: readonly number[],
    private readonly settings: SplitSettings = splitSearch,
    private readonly prior: PriorName = 'kt',
    /** Programs written beside this sequence's (the woven pieces of the interleaves it is the rest of), which it may copy too. */
    private readonly known: readonly Known[] = [],
  ) {
    this.covers = Array.from({ length: sequence.length + 1 }, (_, p) => (p === 0 ? { bits: 0, parts: [], bridged: false } : null));
    this.pieces = Array.from({ length: sequence.length + 1 }, () => []);
  }

  /** True once the whole sequence is covered. */
  get solved(): boolean {
    return this.covers[this.sequence.length] !== null;
  }

  /**
   * The segments of the next round: those from the `expand` furthest reached positions not tried
   * yet. When none is left, the furthest reached position is bridged with literals, and the
   * segments are those from every bridge's end, so the nearest (cheapest) that the policy can go
   * on from is found in the same round. Empty when solved or stuck.
   */
  next(): Segment[] {
    if (this.solved) return [];
    let open = this.open();
    // A bridge may reach the end; the policy is still asked from the nearer ends this round, and a cheaper cover wins.
    if (open.length === 0) open = this.bridge();
    return open.flatMap((start) => {
      this.tried.add(start);
      return segmentEnds(this.sequence, start, this.settings).map((end) => ({ start, end }));
    });
  }

  private open(): number[] {
    const open: number[] = [];
    for (let p = this.sequence.length - 1; p >= 0 && open.length < this.settings.expand; p--) {
      if (this.covers[p] && !this.tried.has(p)) open.push(p);
    }
    return open;
  }

  /**
   * Lays `set_list` pieces of the `bridge` widths from the furthest reached position, so that
   * the policy is asked again past values it could not write, and returns where they end. A
   * literal needs no sandbox: its output is its values. Empty when there is nothing to bridge.
   */
  private bridge(): number[] {
    const { sequence } = this;
    if (this.settings.bridge.length === 0) return [];
    // The furthest reached position (position 0 always is); after a bridge it lies past the last one, so no place is bridged twice.
    let p = sequence.length - 1;
    while (!this.covers[p]) p--;
    const ends = [...new Set(this.settings.bridge.map((width) => Math.min(sequence.length, p + width)))];
    for (const end of ends) {
      const program = literalProgram(sequence.slice(p, end));
      this.add(p, { end, program, bits: pieceBits(programBits(program, this.prior), this.prior), literal: true });
    }
    return ends.filter((end) => end < sequence.length && !this.tried.has(end)).sort((a, b) => b - a);
  }

  /**
   * A program whose output the sandbox confirmed equals `sequence.slice(start, end)`, at `bits`
   * under the prior. Every confirmed piece is kept, so when it makes a position's cover cheaper,
   * the saving is carried on to the positions reached from there (pieces only go forward, so one
   * pass in order of position settles every cover).
   */
  confirm({ start, end }: Segment, program: Program, bits: number): void {
    this.add(start, { end, program, bits: pieceBits(bits, this.prior) });
  }

  private add(start: number, piece: Piece): void {
    if (!this.covers[start]) throw new Error(`position ${start} is not reached`);
    this.pieces[start].push(piece);
    const changed = new Set([start]);
    for (let p = start; p < this.sequence.length; p++) {
      const before = this.covers[p];
      if (!before || !changed.has(p)) continue;
      for (const piece of [...this.pieces[p], ...this.copies(p, before)]) {
        const after = this.covers[piece.end];
        if (after && after.bits <= before.bits + piece.bits) continue;
        this.covers[piece.end] = {
          bits: before.bits + piece.bits,
          parts: [...before.parts, { program: piece.program, start: p, end: piece.end }],
          bridged: before.bridged || piece.literal === true,
        };
        changed.add(piece.end);
      }
    }
  }

  /**
   * The pieces from `p` that the cover of the first p values already holds: a part whose values
   * come again at p, or come again reversed. The generator reuses its sequences and reverses
   * them, so a long sequence often repeats a piece; a copy is the same program (written once:
   * `appendPrograms`, join.ts) and costs nothing more, a reversed copy one `reverse_list` line.
   * They need no policy and no sandbox: the joined program is run on the whole sequence in the end.
   */
  private copies(p: number, cover: Cover): Piece[] {
    const { sequence } = this;
    const copies: Piece[] = [];
    const seen = new Set<Program>();
    const sources = [...cover.parts.map(({ program, start, end }) => ({ program, values: sequence.slice(start, end) })), ...this.known];
    for (const { program, values } of sources) {
      const length = values.length;
      const end = p + length;
      if (length < this.settings.minRun || end > sequence.length || seen.has(program)) continue;
      seen.add(program);
      let same = true;
      let reversed = true;
      for (let i = 0; i < length && (same || reversed); i++) {
        same &&= sequence[p + i] === values[i];
        reversed &&= sequence[p + i] === values[length - 1 - i];
      }
      if (same) copies.push({ end, program, bits: partBits(this.prior) });
      else if (reversed) {
        const { lines, output } = program;
        const copy = { lines: [...lines, { fn: 'reverse_list' as const, args: [{ kind: 'ref' as const, line: output }] }], output: lines.length };
        copies.push({ end, program: copy, bits: programBits(copy, this.prior) - programBits(program, this.prior) + partBits(this.prior) });
      }
    }
    return copies;
  }

  /** Whether the cheapest whole cover holds a literal bridge. */
  get bridgedCover(): boolean {
    return this.covers[this.sequence.length]?.bridged ?? false;
  }

  /** The joined program of the cheapest whole cover, or null when none was found. */
  result(): Program | null {
    const cover = this.covers[this.sequence.length];
    return cover ? concatenatePrograms(cover.parts.map((part) => part.program)) : null;
  }
}

/** What a part costs beside its lines: nothing under kt (one `concatenate` pays two references whatever the parts), a reference each under strict (a name's bits stand for it). */
const partBits = (prior: PriorName): number => (prior === 'strict' ? priorConstants.nameBits : 0);

/**
 * What a piece adds to a cover: its bits as a program of its own, less its output line (the
 * joined program has one), plus its part's cost. An output line charged to every piece made a
 * cover of more, cheaper pieces lose to one of fewer, dearer ones under kt.
 */
const pieceBits = (programBits: number, prior: PriorName): number => programBits - priorConstants.nameBits + partBits(prior);

/** A sequence's joined program, and whether it holds a literal bridge (`SplitSettings.bridge`). */
export interface SplitFound {
  program: Program;
  bridged: boolean;
}

/** A program the sandbox confirmed reproduces a piece, with its bits under the prior; null when none was found. */
export type WrittenPiece = { program: Program; bits: number } | null;

/** Writes a program for each piece: in the lab, the policy's greedy program, checked in the sandbox. */
export type PieceWriter = (pieces: readonly (readonly number[])[]) => Promise<WrittenPiece[]>;

export interface SplitOptions {
  /** The prior that prices the joined programs. */
  prior: PriorName;
  /** The search's settings, `splitSearch` unless given (the eval CLI's `--split R` sets its rounds). */
  settings?: SplitSettings;
}

/** Runs split searches side by side, a round at a time (one `write` per round for all of them), until each is solved or stuck. */
async function runSplit(searches: readonly SplitSearch[], write: PieceWriter, rounds: number): Promise<void> {
  for (let round = 0; round < rounds; round++) {
    const segments = searches.flatMap((search) => search.next().map((segment) => ({ search, segment })));
    if (segments.length === 0) return;
    const written = await write(segments.map(({ search, segment }) => search.sequence.slice(segment.start, segment.end)));
    written.forEach((piece, j) => {
      if (piece) segments[j].search.confirm(segments[j].segment, piece.program, piece.bits);
    });
  }
}

/**
 * Split search for a batch of sequences at once. First as pieces end to end; then, for the
 * sequences still unsolved or covered only at more than `unweaveAbove` of their raw bits, as
 * interleave(rest, woven): `write` is asked for the woven piece of
 * each likely length, and the `unweave[0]` cheapest per value get a split search of their rest.
 * A rest is itself tried as an interleave when its pieces end to end do not cover it, with
 * `unweave[1]` woven pieces, and so on: the generator weaves each later piece into the start of
 * everything before it, so two interleaves are a rest that is again an interleave. The sequences
 * that leaves unsolved are searched once more with literal bridges (`bridge`), the last resort,
 * so a bridge never displaces a program the policy wrote whole. Returns each sequence's cheapest
 * joined program, or null.
 */
export async function splitPrograms(targets: readonly (readonly number[])[], write: PieceWriter, options: SplitOptions): Promise<(SplitFound | null)[]> {
  const settings = options.settings ?? splitSearch;
  // Neighbouring pieces one line writes are that line in the program kept (merge.ts): a range cut where pieces ended is one range again.
  const merged = (one: SplitFound | null) => one && { program: mergeRuns(one.program, options.prior), bridged: one.bridged };
  const found = (await searchAll(targets, write, options.prior, { ...settings, bridge: [] })).map(merged);
  if (settings.bridge.length === 0) return found;
  // Bridges are the last resort: the whole search again, with them, for the sequences left unsolved.
  // A program holding one counts only within `bridgeAbove` of the whole sequence's raw bits.
  const left = found.flatMap((one, r) => (one ? [] : [r]));
  const bridged = left.length > 0 ? await searchAll(left.map((r) => targets[r]), write, options.prior, settings) : [];
  left.forEach((r, j) => {
    const one = merged(bridged[j]);
    if (one && (!one.bridged || programBits(one.program, options.prior) <= settings.bridgeAbove * 8 * targets[r].length)) found[r] = one;
  });
  return found;
}

/** `splitPrograms` with the given settings: pieces end to end, then interleaves as deep as `unweave` goes. */
async function searchAll(
  targets: readonly (readonly number[])[],
  write: PieceWriter,
  prior: PriorName,
  settings: SplitSettings,
  depth = 0,
  known: readonly (readonly Known[])[] = [],
): Promise<(SplitFound | null)[]> {
  const searches = targets.map((target, r) => new SplitSearch(target, settings, prior, known[r]));
  await runSplit(searches, write, settings.rounds);
  const found = searches.map((search): SplitFound | null => {
    const program = search.result();
    return program && { program, bridged: search.bridgedCover };
  });
  const width = settings.unweave[depth] ?? 0;
  const bits = found.map((one) => (one ? programBits(one.program, prior) : Infinity));
  // Unsolved, or covered only at a cost that suggests literals where an interleave was.
  const unweaving = width > 0 ? targets.flatMap((target, r) => (!found[r] || bits[r] > settings.unweaveAbove * 8 * target.length ? [r] : [])) : [];
  if (unweaving.length === 0) return found;
  // The programs kept are merged (splitPrograms), so candidates are compared merged: an
  // interleave cheaper than the cover end to end before merging may be dearer after (only the
  // sequences tried as interleaves are compared).
  const mergedBits = (program: Program) => programBits(mergeRuns(program, prior), prior);
  const best = found.map((one, r) => (one && unweaving.includes(r) ? mergedBits(one.program) : Infinity));
  const tries = unweaving.map((r) => unweaveLengths(targets[r], settings).map((m) => ({ r, m, ...unweave(targets[r], m) })));
  const written = await write(tries.flat().map(({ woven }) => woven));
  let next = 0;
  const chosen = tries.flatMap((attempts) =>
    attempts
      .flatMap((attempt) => {
        const piece = written[next++];
        return piece ? [{ ...attempt, piece }] : [];
      })
      .sort((a, b) => a.piece.bits / a.m - b.piece.bits / b.m || b.m - a.m)
      .slice(0, width),
  );
  // The woven piece is written beside the rest, so the rest may copy it (`appendPrograms` in join.ts shares its lines).
  const rests = await searchAll(
    chosen.map(({ rest }) => rest),
    write,
    prior,
    settings,
    depth + 1,
    chosen.map(({ r, woven, piece }) => [...(known[r] ?? []), { program: piece.program, values: woven }]),
  );
  // Keep the cheapest of the cover end to end and the interleaves whose rest was covered.
  chosen.forEach(({ r, piece }, c) => {
    const rest = rests[c];
    if (!rest) return;
    const program = interleavePrograms(rest.program, piece.program);
    const joinedBits = mergedBits(program);
    if (joinedBits < best[r]) [found[r], best[r]] = [{ program, bridged: rest.bridged }, joinedBits];
  });
  return found;
}
