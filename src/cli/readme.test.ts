/** The repository's contract: the README opens with the two commands, and CI runs the second. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

describe('README', () => {
  it('opens with the command that starts the lab and the command that runs every test, which CI runs', () => {
    const [title, , start, test] = readFileSync('README.md', 'utf8').split('\n');
    expect(title).toBe('# Program RL Lab');
    expect(start.trim()).toMatch(/^npm ci && npm start\s+#/);
    expect(test.trim()).toMatch(/^npm ci && npm test\s+#/);
    expect(readFileSync('.ci/run', 'utf8')).toMatch(/^npm test$/m);
    const scripts = JSON.parse(readFileSync('package.json', 'utf8')).scripts as Record<string, string>;
    expect(scripts.start).toContain('vite preview');
    expect(scripts.test).toBe('node scripts/runAll.mjs');
  });
});
