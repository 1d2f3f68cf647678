/**
 * A command's output survives a pipe: runMain exits only once stdout has written it (process.exit
 * at once cut `eval --json` to 64 KB when piped).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('runMain', () => {
  it('writes all of a large stdout to a pipe before it exits, on success and on error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'prl-runmain-'));
    const script = join(dir, 'big.ts');
    const args = join(process.cwd(), 'src/cli/args.ts');
    writeFileSync(script, `import { runMain } from ${JSON.stringify(args)};\nrunMain(async () => { console.log('x'.repeat(300_000)); if (process.argv[2] === 'fail') throw new Error('late'); });\n`);
    for (const mode of ['ok', 'fail']) {
      const result = spawnSync(process.execPath, ['--import', 'tsx', script, mode], { encoding: 'utf8', maxBuffer: 1 << 22 });
      expect(result.stdout.length, mode).toBe(300_001);
      expect(result.status).toBe(mode === 'ok' ? 0 : 1);
    }
  }, 60_000);
});
