/**
 * The public files' novel subsets (scripts/novelSequences.ts): the public generator's sequences our
 * own generator did not make. Checked here on a slice of the script's draws (the whole 2,000,000
 * take a minute and a half).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateExample } from '../core/kolmogorov/generator';
import { Rng } from '../core/rng';
import { novelStreamSeed } from '../../scripts/novelSequences';

const lines = (path: string) => readFileSync(path, 'utf8').split('\n').filter((line) => line.trim());
const key = (line: string) => (JSON.parse(line).sequence as number[]).join(',');

describe('the novel subsets of the public files', () => {
  for (const [from, to, removed] of [['public_heldout', 'public_heldout_novel', 97], ['public_dev', 'public_dev_novel', 42]] as const) {
    it(`${to}.jsonl is ${from}.jsonl, in order, without the ${removed} sequences our generator made`, () => {
      const all = lines(`datasets/kolmogorov/${from}.jsonl`);
      const novel = lines(`datasets/kolmogorov/${to}.jsonl`);
      expect(all.length - novel.length).toBe(removed);
      let at = 0;
      for (const line of novel) {
        at = all.indexOf(line, at);
        expect(at, 'a line of the subset not in its file, or out of order').toBeGreaterThanOrEqual(0);
        at += 1;
      }
      // The script's first stream, its first 20,000 draws: every public sequence among them was removed, and some were.
      const kept = new Set(novel.map(key));
      const gone = new Set(all.map(key).filter((sequence) => !kept.has(sequence)));
      const rng = new Rng(novelStreamSeed(0));
      let met = 0;
      for (let draw = 0; draw < 20_000; draw++) {
        const sequence = generateExample(rng).sequence.join(',');
        expect(kept.has(sequence), `drawn by our generator but kept: ${sequence}`).toBe(false);
        if (gone.has(sequence)) met += 1;
      }
      expect(met).toBeGreaterThan(0);
    });
  }
});
