/**
 * tfjs in Node: the wasm backend (SIMD where the CPU has it; Node gives tfjs-wasm no threads,
 * so it runs single-threaded), falling back to the pure-JS cpu backend, and saying which and
 * why. @tensorflow/tfjs-node cannot install here (its install script downloads a binary).
 * On wasm our kernels are installed (core/model/wasmKernels.ts): products, GELU and LayerNorm on
 * SIMD kernels, copies that share data. For before/after measurements PRL_WASM_BATCH_MATMUL=off,
 * PRL_WASM_ELEMENTWISE=off and PRL_WASM_ZERO_COPY=off keep tfjs's own.
 * The kernels use relaxed SIMD's fused multiply-add when V8 has it: Node 20 only with
 * --experimental-wasm-relaxed-simd, which the npm scripts pass (package.json); PRL_FMA=0 (or off)
 * runs their plain SIMD build instead. PRL_KERNEL_THREADS=2 splits large products with a helper
 * thread (cli/productThreads.ts; off by default).
 */
import * as tf from '@tensorflow/tfjs';
import '@tensorflow/tfjs-backend-wasm';
import { relaxedSimdSupported } from '../core/model/wasmKernelModule';
import { installWasmKernels } from '../core/model/wasmKernels';
import { setProductThreads } from '../core/model/wasmBatchMatMul';
import { isMainThread } from 'node:worker_threads';
import { startNodeProductThreads } from './productThreads';

export type NodeBackend = 'auto' | 'wasm' | 'cpu';

export async function initTensorflow(preference: NodeBackend = 'auto'): Promise<{ backend: string; detail: string }> {
  if (!['auto', 'wasm', 'cpu'].includes(preference)) throw new Error(`--backend: expected auto, wasm or cpu, got "${preference}"`);
  const order = preference === 'auto' ? ['wasm', 'cpu'] : [preference];
  const skipped: string[] = [];
  for (const name of order) {
    try {
      // tfjs's cpu backend greets Node users with advice to install tfjs-node, which cannot
      // install here; the backend line below already says what runs. Prod mode silences it.
      if (name === 'cpu') tf.enableProdMode();
      if (await tf.setBackend(name)) {
        await tf.ready();
        const simd = name === 'wasm' ? await tf.env().getAsync('WASM_HAS_SIMD_SUPPORT') : false;
        const threads = name === 'wasm' ? await productThreads() : '';
        const detail = name === 'wasm' ? `WebAssembly${simd ? ' with SIMD' : ' without SIMD'}, ${threads ? 'tfjs single-threaded' : 'single thread'}; ${ourKernels().join('; ')}${threads}` : 'pure JavaScript';
        return { backend: name, detail: skipped.length ? `${detail}; skipped ${skipped.join(', ')}` : detail };
      }
      skipped.push(`${name} (failed to initialise)`);
    } catch (error) {
      skipped.push(`${name} (${(error as Error).message})`);
    }
  }
  throw new Error(`no tfjs backend could start: ${skipped.join('; ')}`);
}

/**
 * PRL_KERNEL_THREADS=2: a helper thread takes part of every large product (threads inside a
 * step, cli/productThreads.ts); in the main thread only, never in the CLI's own worker threads.
 */
async function productThreads(): Promise<string> {
  const wanted = Number(process.env.PRL_KERNEL_THREADS ?? 1);
  if (!(wanted >= 2) || !isMainThread) return '';
  const threads = await startNodeProductThreads();
  setProductThreads(threads);
  return `; matMul: 2 threads (a helper thread computes part of each product of >= ${threads.minMacs >> 20}M multiply-adds, PRL_KERNEL_THREADS)`;
}

/** Whether PRL_FMA allows the fused multiply-add kernels (anything but 0, off or false). */
export function fmaWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return !['0', 'off', 'false'].includes((env.PRL_FMA ?? '').trim().toLowerCase());
}

function ourKernels(): string[] {
  const on = (name: string) => process.env[name] !== 'off';
  const fma = fmaWanted();
  const lines = installWasmKernels({ batchMatMul: on('PRL_WASM_BATCH_MATMUL'), elementwise: on('PRL_WASM_ELEMENTWISE'), zeroCopy: on('PRL_WASM_ZERO_COPY'), fma });
  return lines.map((line) => {
    if (!line.startsWith("kernels' multiply-add")) return line;
    if (!fma) return line.replace('turned off', 'turned off by PRL_FMA');
    return relaxedSimdSupported() ? line : `${line}; start node with --experimental-wasm-relaxed-simd, as the npm scripts do`;
  });
}
