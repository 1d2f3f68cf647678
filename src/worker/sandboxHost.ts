/**
 * The sandbox pool over browser Web Workers (module workers running sandbox.worker.ts). The
 * QuickJS wasm is compiled once here and the compiled module is shared with every worker.
 */
import quickjsWasm from '@jitl/quickjs-wasmfile-release-sync/wasm?url';
import { SandboxPool, type SandboxWorkerHandle } from '../core/sandbox/pool';
import type { SandboxLimits } from '../core/sandbox/outcome';
import type { Prelude } from '../core/sandbox/prelude';

let compiled: Promise<WebAssembly.Module> | null = null;
function quickJSWasmModule(): Promise<WebAssembly.Module> {
  compiled ??= WebAssembly.compileStreaming(fetch(quickjsWasm)).catch((error: unknown) => {
    compiled = null; // the workers load the wasm themselves; try again next time
    throw error;
  });
  return compiled;
}

function spawnBrowserWorker(): SandboxWorkerHandle {
  const worker = new Worker(new URL('./sandbox.worker.ts', import.meta.url), { type: 'module', name: 'sandbox' });
  return {
    postMessage: (message) => worker.postMessage(message),
    onMessage: (listener) => worker.addEventListener('message', (event) => listener(event.data)),
    onError: (listener) => worker.addEventListener('error', (event) => listener(event.message || 'sandbox worker failed to load')),
    terminate: () => worker.terminate(),
  };
}

export function createBrowserSandboxPool(options: { size: number; limits: SandboxLimits; preludes?: Record<string, Prelude> }): SandboxPool {
  return new SandboxPool({ ...options, spawn: spawnBrowserWorker, wasmModule: quickJSWasmModule });
}
