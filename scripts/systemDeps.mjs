// The system packages the tests need beside node_modules, installed when missing (as .ci/run
// does on a fresh machine): Debian's chromium for the browser tests, and python3-torch for the
// test that checks the exported PyTorch module's logits against the lab's
// (src/cli/export.test.ts). Installing needs root and Debian's apt-get; without them the missing
// packages are named and the suites that need them say so.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const has = {
  chromium: () => existsSync('/usr/bin/chromium'),
  torch: () => spawnSync('/usr/bin/python3', ['-c', 'import torch'], { stdio: 'ignore' }).status === 0,
};
const packages = { chromium: ['chromium'], torch: ['--no-install-recommends', 'python3-torch'] };

/** Installs what is missing of `wanted` ('chromium', 'torch'); returns what is still missing. */
export function ensureSystemDeps(wanted) {
  const missing = wanted.filter((name) => !has[name]());
  if (missing.length === 0) return [];
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !existsSync('/usr/bin/apt-get')) {
    console.error(`missing system packages: ${missing.join(', ')} (install with: sudo apt-get install ${missing.map((name) => packages[name].at(-1)).join(' ')})`);
    return missing;
  }
  console.log(`installing ${missing.join(', ')} with apt-get ...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  for (const name of missing) spawnSync('apt-get', ['install', '-y', '-qq', '-o', 'DPkg::Lock::Timeout=600', ...packages[name]], { stdio: ['ignore', 'ignore', 'inherit'], env });
  return missing.filter((name) => !has[name]());
}
