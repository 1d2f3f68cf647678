#!/usr/bin/env node
// `npm test`: every check of the repository in one command (docs/architecture.md), on a fresh
// machine too (the system packages the suites need are installed when missing): typecheck, lint,
// unit tests (vitest) and end-to-end tests (Playwright on Debian's chromium). Each suite's
// counts are summed into one closing line `N passed, N failed` that CI reads.
// Flags: --skip-e2e, --only=typecheck,lint,unit,e2e
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { ensureSystemDeps } from './systemDeps.mjs';

const args = process.argv.slice(2);
const only = args.find((a) => a.startsWith('--only='))?.slice(7).split(',');
const wanted = (name) => (only ? only.includes(name) : !(name === 'e2e' && args.includes('--skip-e2e')));
mkdirSync('test-results', { recursive: true });

// What the suites need beside node_modules, installed when missing (root and apt-get), as on a fresh machine.
ensureSystemDeps([...(wanted('e2e') ? ['chromium'] : []), ...(wanted('unit') ? ['torch'] : [])]);

const totals = { passed: 0, failed: 0, skipped: 0 };
const lines = [];

function run(cmd, cmdArgs, env = {}) {
  console.log(`\n$ ${cmd} ${cmdArgs.join(' ')}`);
  const result = spawnSync(cmd, cmdArgs, { stdio: 'inherit', env: { ...process.env, ...env } });
  return result.status ?? 1;
}

function check(name, cmd, cmdArgs) {
  if (!wanted(name)) return;
  const ok = run(cmd, cmdArgs) === 0;
  totals[ok ? 'passed' : 'failed'] += 1;
  lines.push(`${name}: ${ok ? 'passed' : 'FAILED'}`);
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

check('typecheck', 'npx', ['tsc', '-p', 'tsconfig.json', '--noEmit']);
check('typecheck-core', 'npx', ['tsc', '-p', 'src/core/tsconfig.json', '--noEmit']);
check('lint', 'npx', ['eslint', '.']);

if (wanted('unit')) {
  const out = 'test-results/vitest.json';
  rmSync(out, { force: true });
  const status = run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile=${out}`]);
  const report = readJson(out);
  if (report) {
    totals.passed += report.numPassedTests;
    totals.failed += report.numFailedTests;
    totals.skipped += report.numPendingTests + (report.numTodoTests ?? 0);
    // A suite that fails to load has no tests to count; count it as a failure.
    const brokenFiles = report.testResults.filter((r) => r.status === 'failed' && r.assertionResults.length === 0).length;
    totals.failed += brokenFiles;
    lines.push(`unit: ${report.numPassedTests} passed, ${report.numFailedTests + brokenFiles} failed`);
  } else {
    totals.failed += 1;
    lines.push(`unit: no report (exit ${status})`);
  }
  if (status !== 0 && report && report.numFailedTests === 0) totals.failed += 1;
}

if (wanted('e2e')) {
  const out = 'test-results/playwright.json';
  rmSync(out, { force: true });
  if (!existsSync('/usr/bin/chromium')) {
    totals.failed += 1;
    lines.push('e2e: /usr/bin/chromium is missing (apt-get install chromium)');
  } else if (run('npx', ['vite', 'build']) !== 0) {
    totals.failed += 1;
    lines.push('e2e: vite build failed');
  } else {
    const status = run('npx', ['playwright', 'test', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: out });
    const report = readJson(out);
    if (report) {
      const { expected = 0, unexpected = 0, flaky = 0, skipped = 0 } = report.stats;
      totals.passed += expected + flaky;
      totals.failed += unexpected;
      totals.skipped += skipped;
      if (status !== 0 && unexpected === 0) totals.failed += 1;
      lines.push(`e2e: ${expected + flaky} passed, ${unexpected} failed`);
    } else {
      totals.failed += 1;
      lines.push(`e2e: no report (exit ${status})`);
    }
  }
}

console.log('\n' + lines.join('\n'));
console.log(`${totals.passed} passed, ${totals.failed} failed${totals.skipped ? `, ${totals.skipped} skipped` : ''}`);
process.exit(totals.failed > 0 ? 1 : 0);
