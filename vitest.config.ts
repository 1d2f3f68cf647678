import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'src/**/*.test.tsx', 'bench/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Every core: vitest's default leaves one idle (one worker on a 2-core machine), while most of
    // the slow files wait on a CLI child process that computes on a single core.
    maxWorkers: '100%',
    // Relaxed SIMD (the kernels' fused multiply-add build) needs this flag in Node 20, as the npm
    // scripts pass it: without it the tests would only cover the plain SIMD build.
    execArgv: ['--experimental-wasm-relaxed-simd'],
    reporters: ['default'],
  },
});
