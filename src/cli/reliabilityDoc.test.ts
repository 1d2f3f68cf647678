/**
 * docs/reliability.md names, for each case the lab must survive, the test that holds it: this
 * keeps those names true. Every `file` a row names exists, and every `› test` after it is the
 * start of a test (or describe) name in the file named last before it in that row.
 */
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const rows = readFileSync('docs/reliability.md', 'utf8').split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| what') && !line.startsWith('| ---'));

/** A file's text with the escapes of its string literals undone (`harness\'s` is `harness's`). */
const source = (path: string) => readFileSync(path, 'utf8').replace(/\\(['`])/g, '$1');

describe('docs/reliability.md', () => {
  it('lists cases, each with a test', () => {
    expect(rows.length).toBeGreaterThan(50);
    for (const row of rows) expect(row, row).toMatch(/`[\w./-]+\.tsx?`|npm run bench/);
  });

  it('every file it names exists and every test it names is in the file named before it', () => {
    const names: Record<string, string> = {};
    for (const row of rows) {
      const cell = row.split(' | ').at(-1)!;
      let file: string | null = null;
      // Tokens in order: a `path`, or a › name that runs to the next comma-› , semicolon or the cell's end.
      for (const token of cell.matchAll(/`([\w./-]+\.tsx?)`|› ([^;|]+?)(?=, ›|;|\s*\|?$)/g)) {
        if (token[1]) {
          // A bare file name (`sandbox.test.ts`) is the one named in full earlier in the list.
          file = token[1].includes('/') ? token[1] : names[token[1]] ?? token[1];
          names[file.split('/').at(-1)!] = file;
          expect(existsSync(file), `${file} (${row.slice(0, 60)})`).toBe(true);
          continue;
        }
        expect(file, `a › name without a file before it: ${row.slice(0, 80)}`).not.toBeNull();
        const prefix = token[2].split(/\s*(?:\.\.\.|\(|,)/)[0].trim().slice(0, 60);
        expect(source(file!), `"${prefix}" in ${file}`).toContain(prefix);
      }
    }
  });
});
