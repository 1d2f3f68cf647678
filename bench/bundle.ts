/**
 * `npm run bench -- --only=bundle`: what a browser downloads before the page can draw (its entry
 * chunk, the main thread's script) and each worker's chunk, raw and gzipped, from a fresh build.
 * The entry chunk holds core's config and registry for the form; the workers hold tfjs.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Report } from './learning';
import { runVite } from './page';

export async function bundleFigures(report: Report): Promise<void> {
  const out = mkdtempSync(join(tmpdir(), 'prl-bundle-'));
  try {
    await runVite(['build', '--outDir', out, '--emptyOutDir']);
    const entry = /<script type="module"[^>]*src="\/?assets\/([^"]+)"/.exec(readFileSync(join(out, 'index.html'), 'utf8'))?.[1];
    if (!entry) throw new Error('bench bundle: index.html names no module script');
    for (const file of readdirSync(join(out, 'assets')).filter((name) => name.endsWith('.js'))) {
      const bytes = readFileSync(join(out, 'assets', file));
      const kind = file === entry ? 'entry (main thread)' : /worker/i.test(file) ? 'worker' : 'chunk';
      const name = file === entry ? 'page_bundle/entry' : `page_bundle/${file.replace(/-[A-Za-z0-9_-]{8}\.js$/, '')}`;
      report({ name, unit: 'KB', median: bytes.length / 1024, min: bytes.length / 1024, max: bytes.length / 1024, runs: 1, kind, file, gzip_kb: gzipSync(bytes).length / 1024 });
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
