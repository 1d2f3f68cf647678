/**
 * The sandbox pool over Node worker_threads. Workers run TypeScript through tsx (tsWorker.mjs),
 * so the same entry works under `npm run train` and under vitest. The QuickJS wasm is compiled
 * once per process and shared with every worker.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { SandboxPool, type SandboxWorkerHandle } from '../core/sandbox/pool';
import type { SandboxLimits } from '../core/sandbox/outcome';
import type { Prelude } from '../core/sandbox/prelude';

const bootstrap = new URL('./tsWorker.mjs', import.meta.url);
const entry = new URL('./sandbox.worker.ts', import.meta.url).href;

let compiled: Promise<WebAssembly.Module> | null = null;
/** The QuickJS wasm, compiled once for all pools of this process. */
function quickJSWasmModule(): Promise<WebAssembly.Module> {
  compiled ??= readFile(createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm')).then((bytes) => WebAssembly.compile(bytes));
  return compiled;
}

function spawnNodeWorker(): SandboxWorkerHandle {
  const worker = new Worker(bootstrap, { workerData: { entry }, resourceLimits: { maxOldGenerationSizeMb: 256 } });
  worker.unref();
  return {
    postMessage: (message) => worker.postMessage(message),
    onMessage: (listener) => worker.on('message', listener),
    onError: (listener) => {
      worker.on('error', (error) => listener(error.message));
      worker.on('exit', (code) => listener(`exited with code ${code}`));
    },
    terminate: () => void worker.terminate(),
  };
}

export function createNodeSandboxPool(options: {
  size: number;
  limits: SandboxLimits;
  preludes?: Record<string, Prelude>;
  chunkSize?: number;
  /** false: one message per outcome instead of a SharedArrayBuffer progress slot (what a page without cross-origin isolation gets). */
  sharedProgress?: boolean;
}): SandboxPool {
  return new SandboxPool({ ...options, spawn: spawnNodeWorker, wasmModule: quickJSWasmModule });
}
