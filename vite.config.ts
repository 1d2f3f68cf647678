import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// Cross-origin isolation lets tfjs-wasm use SharedArrayBuffer (threads) where the machine allows.
const isolation = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export default defineConfig({
  plugins: [react()],
  server: { headers: isolation },
  preview: { headers: isolation },
  worker: { format: 'es' },
  optimizeDeps: {
    include: ['@tensorflow/tfjs', '@tensorflow/tfjs-backend-wasm', '@tensorflow/tfjs-backend-webgpu', 'quickjs-emscripten-core', 'comlink', 'fflate', 'zod'],
  },
  build: { target: 'es2022', chunkSizeWarningLimit: 4096 },
});
