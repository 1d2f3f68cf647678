/**
 * Makes the "novel" subsets of the public generator's files: the sequences of
 * datasets/kolmogorov/public_heldout.jsonl (and public_dev.jsonl) that the lab's own generator
 * did not make in 2,000,000 draws. About one in ten public sequences (single runs of one value,
 * short ranges) is one our generator also writes, and every warm start streams ~10^6 of its
 * draws, so on those the policy is scored on data its generator made; the held-out
 * figures are meant on data it did not make.
 *
 *   npx tsx scripts/novelSequences.ts     # writes datasets/kolmogorov/public_heldout_novel.jsonl and public_dev_novel.jsonl
 *
 * The draws: 10 streams of 200,000 (seeds 1,000,003 + 7,919 i, i = 0..9, the generator's default
 * distribution, every length). A sequence made by the generator with a probability well under
 * one in a million per draw may remain; the count found grows slowly by then (measured: 93 of
 * the held-out file's 994 after 1,000,000 draws, 97 after 2,000,000). Lines are kept as they
 * are, in their order.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { generateExample } from '../src/core/kolmogorov/generator';
import { Rng } from '../src/core/rng';

export const NOVEL_STREAMS = 10;
export const NOVEL_DRAWS_PER_STREAM = 200_000;
export const novelStreamSeed = (stream: number) => 1_000_003 + 7_919 * stream;
const files = [
  ['datasets/kolmogorov/public_heldout.jsonl', 'datasets/kolmogorov/public_heldout_novel.jsonl'],
  ['datasets/kolmogorov/public_dev.jsonl', 'datasets/kolmogorov/public_dev_novel.jsonl'],
] as const;

const key = (sequence: readonly number[]) => sequence.join(',');

function main(): void {
  const lines = files.map(([from]) => readFileSync(from, 'utf8').split('\n').filter((line) => line.trim()));
  const wanted = new Set(lines.flat().map((line) => key(JSON.parse(line).sequence)));
  const made = new Set<string>();
  for (let stream = 0; stream < NOVEL_STREAMS; stream++) {
    const rng = new Rng(novelStreamSeed(stream));
    for (let draw = 0; draw < NOVEL_DRAWS_PER_STREAM; draw++) {
      const sequence = key(generateExample(rng).sequence);
      if (wanted.has(sequence)) made.add(sequence);
    }
    console.error(`stream ${stream + 1}/${NOVEL_STREAMS}: ${made.size} public sequences made by our generator so far`);
  }
  files.forEach(([from, to], i) => {
    const kept = lines[i].filter((line) => !made.has(key(JSON.parse(line).sequence)));
    writeFileSync(to, kept.map((line) => line + '\n').join(''));
    console.error(`${to}: ${kept.length} of the ${lines[i].length} sequences of ${from}`);
  });
}

if (process.argv[1]?.endsWith('novelSequences.ts')) main();
