/** The CLI's dataset reading, as a user sees its report on stderr. */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadKolmogorovFile } from './data';

describe('a dataset with many bad lines', () => {
  it('says how many more bad lines there are than it shows, all of them (the loader keeps only the first errors)', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'prl-data-')), 'bad.jsonl');
    writeFileSync(path, `${'{"sequence": "no"}\n'.repeat(1500)}{"sequence": [1, 2, 3]}\n`);
    const said: string[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((line: string) => void said.push(line));
    try {
      expect(await loadKolmogorovFile(path)).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
    expect(said.filter((line) => /^.*bad.jsonl:\d+: /.test(line))).toHaveLength(10);
    expect(said).toContain(`${path}: ... and 1490 more bad lines`);
  });
});
