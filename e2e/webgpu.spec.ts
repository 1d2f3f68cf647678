import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const fixture = fileURLToPath(new URL('./fixtures/backendStepCheck.ts', import.meta.url));
const wasmDir = fileURLToPath(new URL('../node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url));

/** The check bundled as one script (vite's library build, in memory). */
async function bundle(): Promise<string> {
  const output = await build({
    configFile: false,
    logLevel: 'warn',
    build: { lib: { entry: fixture, formats: ['iife'], name: 'backendStepCheck' }, write: false, minify: false, target: 'es2022' },
  });
  const chunks = (Array.isArray(output) ? output : [output]).flatMap((result) => ('output' in result ? result.output : []));
  const code = chunks.find((chunk) => chunk.type === 'chunk');
  if (!code || code.type !== 'chunk') throw new Error('the check did not bundle');
  return code.code;
}

test('one training step on webgpu agrees with wasm from the same weights (skipped where there is no adapter)', async ({ page }) => {
  test.setTimeout(240_000);
  const script = await bundle();
  // A blank page of the preview server's origin (a secure context, cross-origin isolated like
  // the lab), with the check's script and tfjs-backend-wasm's binaries.
  const isolation = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
  await page.route('**/__check/page.html', (route) => route.fulfill({ contentType: 'text/html', headers: isolation, body: '<!doctype html><title>backend step check</title><script src="check.js"></script>' }));
  await page.route('**/__check/check.js', (route) => route.fulfill({ contentType: 'text/javascript', headers: isolation, body: script }));
  await page.route('**/__check/*.wasm', (route) => route.fulfill({ contentType: 'application/wasm', headers: isolation, body: readFileSync(wasmDir + new URL(route.request().url()).pathname.split('/').pop()) }));
  await page.goto('/__check/page.html');
  const result = await page.evaluate(() => (window as unknown as { __backendStepCheck: () => Promise<Record<string, any>> }).__backendStepCheck());
  if (result.skipped) {
    console.log(`webgpu step not checked: ${result.skipped}`);
    test.skip(true, result.skipped);
  }
  console.log(`webgpu step against wasm: ${JSON.stringify(result)}`);
  expect(result.difference.lossRelative).toBeLessThan(result.tolerance.lossRelative);
  expect(result.difference.worstGradient.relative).toBeLessThan(result.tolerance.gradientRelative);
});
