/// <reference lib="webworker" />
/**
 * The trainer worker: tfjs on the best backend this browser offers, sandbox workers of its own,
 * and the trainer service (trainerService.ts) exposed with Comlink. Backends: webgpu, webgl,
 * wasm, cpu, the first that works; a software WebGPU adapter or a software WebGL renderer is
 * skipped (slower than wasm on the same CPU), and the page is told why.
 */
import * as Comlink from 'comlink';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs-backend-cpu';
import '@tensorflow/tfjs-backend-webgl';
import '@tensorflow/tfjs-backend-webgpu';
import { createBrowserGenerators } from './generators';
import { browserGradientShards } from './gradientShards';
import { installWasmKernels } from '../core/model/wasmKernels';
import { startProductThreads, type ProductThreads } from '../core/model/productThreads';
import { setProductThreads } from '../core/model/wasmBatchMatMul';
import type { BackendInfo } from './protocol';
import { createBrowserSandboxPool } from './sandboxHost';
import { createTrainerService } from './trainerService';
import { useBundledWasm } from './wasmBackend';

useBundledWasm();

async function softwareWebGpu(): Promise<string | null> {
  const gpu = (navigator as unknown as { gpu?: { requestAdapter(): Promise<any> } }).gpu;
  if (!gpu) return 'navigator.gpu is absent (no WebGPU in this browser or context)';
  const adapter = await gpu.requestAdapter();
  if (!adapter) return 'no WebGPU adapter';
  const fallback = adapter.isFallbackAdapter ?? adapter.info?.isFallbackAdapter;
  return fallback ? 'the WebGPU adapter is a software fallback (SwiftShader), slower than wasm' : null;
}

function softwareWebGl(): string | null {
  try {
    const gl = new OffscreenCanvas(1, 1).getContext('webgl2');
    if (!gl) return 'no WebGL2 context';
    const info = gl.getExtension('WEBGL_debug_renderer_info');
    const renderer = String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER));
    return /swiftshader|llvmpipe|software/i.test(renderer) ? `WebGL renders in software (${renderer}), slower than wasm` : null;
  } catch (error) {
    return `WebGL unavailable (${(error as Error).message})`;
  }
}

/**
 * Start-up flags from the page's address, which ui/trainer.ts puts in this worker's name
 * ("trainer?fma=0&backend=wasm"): `fma=0` runs the wasm kernels' plain SIMD build (before/after
 * measurements), `backend=webgpu|webgl|wasm|cpu` tries that backend first even where it would be
 * skipped as a software one (how `npm run bench -- --only=page` measures SwiftShader's WebGPU),
 * `kernel_threads=2` splits large products with a helper worker (pageProductThreads; the name
 * says which threads, apart from the gradient workers of `shards=N` and the CLI's `--threads`).
 */
const startupFlags = new URLSearchParams(self.name.split('?')[1] ?? '');
const backendNames = ['webgpu', 'webgl', 'wasm', 'cpu'] as const;
const requestedBackend = backendNames.find((name) => name === startupFlags.get('backend'));

async function initBackend(skip: readonly string[] = []): Promise<BackendInfo> {
  const skipped: string[] = [];
  const order = requestedBackend ? [requestedBackend, ...backendNames.filter((name) => name !== requestedBackend)] : backendNames;
  for (const name of order) {
    if (skip.includes(name)) {
      skipped.push(`${name}: its device was lost`);
      continue;
    }
    const reason = name === requestedBackend ? null : name === 'webgpu' ? await softwareWebGpu() : name === 'webgl' ? softwareWebGl() : null;
    if (reason) {
      skipped.push(`${name}: ${reason}`);
      continue;
    }
    try {
      if (await tf.setBackend(name)) {
        await tf.ready();
        // Products, GELU and LayerNorm on our SIMD kernels (with fused multiply-add where the
        // browser has relaxed SIMD, unless the page was opened with ?fma=0); the status line
        // says which kernels run.
        const notes = name === 'wasm' ? installWasmKernels({ fma: startupFlags.get('fma') !== '0' }) : [];
        if (name === requestedBackend) notes.unshift(`backend ${name}: requested by the page's ?backend=${name}`);
        if (name === 'wasm') notes.push(await pageProductThreads(), shardsNote());
        notes.forEach((note) => console.log(note));
        watchDevice(name);
        return { backend: name, skipped, notes, updateThreads: name === 'wasm' ? 1 + shardCount() : 1 };
      }
      skipped.push(`${name}: failed to initialise`);
    } catch (error) {
      skipped.push(`${name}: ${(error as Error).message}`);
    }
  }
  throw new Error(`no tfjs backend could start: ${skipped.join('; ')}`);
}

let productThreads: Promise<ProductThreads | string> | null = null;

/**
 * Threads inside a step (core/model/productThreads.ts): a helper worker computes part of every
 * large product, with `?kernel_threads=2` on the page. It needs SharedArrayBuffer, so a cross-origin
 * isolated page (README, 'Hosting the page'). Started once; a later start-up (a lost device's
 * recovery) reuses it. Returns the status line's note.
 */
async function pageProductThreads(): Promise<string> {
  if (startupFlags.has('threads')) return "matMul threads: one (the page's ?threads is now ?kernel_threads=2, the helper thread for large products)";
  if (startupFlags.get('kernel_threads') !== '2') return "matMul threads: one (the page's ?kernel_threads=2 adds a helper thread)";
  if (!self.crossOriginIsolated) return 'matMul threads: one (the page is not cross-origin isolated, so there is no shared memory)';
  productThreads ??= startProductThreads(
    (init) =>
      new Promise((resolve, reject) => {
        const helper = new Worker(new URL('./productHelper.worker.ts', import.meta.url), { type: 'module', name: 'product helper' });
        helper.addEventListener('error', (event) => reject(new Error(event.message || 'the product helper did not load')), { once: true });
        helper.addEventListener('message', () => resolve({ close: async () => helper.terminate() }), { once: true });
        helper.postMessage(init);
      }),
  ).catch((error: Error) => `matMul threads: one (the helper thread failed: ${error.message})`);
  const threads = await productThreads;
  if (typeof threads === 'string') return threads;
  setProductThreads(threads);
  return `matMul threads: two (a helper worker computes part of each product of >= ${threads.minMacs >> 20}M multiply-adds)`;
}

/** Who hears of a lost GPU device (the trainer service, which pauses and restores the run elsewhere). */
let deviceLost: (reason: string) => void = () => undefined;

/** Listens for the loss of the backend's GPU device: WebGPU's device.lost, a WebGL context's loss. */
function watchDevice(name: string): void {
  const backend = tf.backend() as unknown as { device?: { lost?: Promise<{ reason?: string; message?: string }> }; gpgpu?: { gl?: { canvas?: EventTarget } } };
  if (name === 'webgpu') {
    void backend.device?.lost?.then((info) => info.reason !== 'destroyed' && deviceLost(info.message || info.reason || 'unknown reason'));
  } else if (name === 'webgl') {
    backend.gpgpu?.gl?.canvas?.addEventListener('webglcontextlost', () => deviceLost('the WebGL context was lost'));
  }
}

/**
 * Gradient shards for data-parallel updates (core/gradientShards.ts; the warm start's,
 * reinforce's, expert iteration's): by default one worker per core beyond this one, at most 3;
 * `?shards=N` sets the count (0: none, for before/after measurements; at most 8). They follow
 * `?fma=0` so both halves run the same kernels.
 */
function shardCount(): number {
  return shardChoice().count;
}

/** The count `?shards=` asks for (a whole number, at most 8), or the default; what was wrong with the link's value, if anything. */
function shardChoice(): { count: number; problem?: string } {
  const fallback = Math.max(0, Math.min(3, (navigator.hardwareConcurrency || 1) - 1));
  const asked = startupFlags.get('shards');
  if (asked === null) return { count: fallback };
  if (!/^\d+$/.test(asked)) return { count: fallback, problem: `?shards=${asked} is not a whole number, so ${fallback} gradient worker${fallback === 1 ? '' : 's'} (the default)` };
  if (Number(asked) > 8) return { count: 8, problem: `?shards=${asked} is more than 8, so 8` };
  return { count: Number(asked) };
}

/** The status line's word on the gradient workers. */
function shardsNote(): string {
  const { count, problem } = shardChoice();
  return problem ? `${problem}: ${threadsNote(count)}` : threadsNote(count);
}

/** How many threads an update uses with `count` gradient workers. */
function threadsNote(count: number): string {
  if (count === 0) return 'updates on one thread (no gradient workers: one core, or ?shards=0)';
  return `updates on ${count + 1} threads: ${count} gradient worker${count === 1 ? '' : 's'} beside the trainer split the warm start's, reinforce's and expert iteration's batches, unless an update runs in micro-batches (?shards=0 for one thread)`;
}

const service = createTrainerService({
  initBackend,
  gradientShards: { start: browserGradientShards(startupFlags.get('fma') === '0' ? '?fma=0' : ''), count: shardCount() },
  onDeviceLost: (handler) => (deviceLost = handler),
  createPool: createBrowserSandboxPool,
  transfer: (bytes) => Comlink.transfer(bytes, [bytes.buffer]),
  createGenerators: createBrowserGenerators,
});

self.addEventListener('error', (event) => console.error(`trainer worker error: ${event.message}`));
Comlink.expose(service);
