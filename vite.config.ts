import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** The build's id, recorded with every run the page makes: the git commit (+dirty), or none outside a clone. */
function buildId(): string {
  try {
    const git = (args: string[]) => execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return git(['rev-parse', 'HEAD']) + (git(['status', '--porcelain', '--untracked-files=no']) ? '+dirty' : '');
  } catch {
    return 'unknown';
  }
}

// Cross-origin isolation lets tfjs-wasm use SharedArrayBuffer (threads) where the machine allows.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [react()],
  define: {
    __BUILD_ID__: JSON.stringify(buildId()),
    __PACKAGE_VERSION__: JSON.stringify((JSON.parse(readFileSync('package.json', 'utf8')) as { version: string }).version),
  },
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: 'es' },
  optimizeDeps: {
    include: ['@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-backend-webgpu', 'quickjs-emscripten-core', 'comlink', 'fflate', 'zod'],
  },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
});
