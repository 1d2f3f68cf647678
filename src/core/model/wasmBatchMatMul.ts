/**
 * A faster BatchMatMul for tfjs-backend-wasm: every float32 product runs on our SIMD kernel.
 *
 * tfjs-wasm 4.22 runs plain 2D products through XNNPACK (8-11 GMAC/s on the reference policy's
 * shapes on this kind of machine), a batched one (attention's [B, h, T, dh]) through a plain
 * blocked loop (~0.6 GMAC/s), and a 2D one with a transpose flag (every gradient product) through
 * the same loop (0.4-0.8 GMAC/s). This replaces the wasm backend's BatchMatMul kernel with one
 * that sends float32 products with equal batch shapes to a hand-written SIMD kernel
 * (batchMatMulKernel.wat, 4x8 register tiles over packed panels, any transposeA/transposeB):
 * 12-16 GMAC/s on the training shapes, at least XNNPACK's speed on the small ones of a decode
 * step (scratch measurements quoted in docs/performance.md). Broadcast batch shapes and other dtypes go to
 * tfjs's own kernel. Gradients of matMul dispatch to BatchMatMul with transpose flags, so they
 * run here with no transpose copies.
 *
 * Two builds of the kernel (wasmKernelModule.ts): with relaxed SIMD's fused multiply-add where the
 * engine has it (one instruction and one rounding per multiply-add, 27-31 against 23-27 GMAC/s on
 * the step's shapes here), plain SIMD multiplies and adds otherwise or when turned off.
 *
 * The kernel module imports tfjs-wasm's own WebAssembly.Memory and computes on tensor data in
 * place: inputs at their memoryOffset, the output from backend.makeOutput, packing scratch from
 * the backend's _malloc. If that memory cannot be found (another tfjs build), or this engine
 * lacks WebAssembly SIMD, nothing is replaced and the returned status says why.
 * One thread (tfjs-wasm runs one here, docs/architecture.md), unless setProductThreads gave it a
 * helper thread (productThreads.ts), which then computes part of each large product.
 * Deliberate simplification: the scratch buffer only grows (to ~4.5 MB for the reference policy's weight gradients, [2016, 512]^T x [2016, 128]:
 * B is packed whole).
 */
import * as tf from '@tensorflow/tfjs-core';
import { batchMatMulKernel } from './batchMatMulKernel.generated';
import { scratchBytes } from './batchMatMulScratch';
import type { ProductJob, ProductThreads } from './productThreads';
import { instantiateOnTfjsMemory, multiplyAddVersion, type MultiplyAdd, type TfjsWasmModule } from './wasmKernelModule';

export interface WasmBatchMatMulStatus {
  /** True when float32 products run on the SIMD kernel. */
  active: boolean;
  /** What is used and, when inactive, why. */
  reason: string;
  /** Products computed by the SIMD kernel since the process started (tests check it moves). */
  calls: number;
  /** The build the last product ran on (fused multiply-add or plain SIMD), null before the first. */
  build: MultiplyAdd | null;
}

/** The parts of tfjs-wasm's BackendWasm this file uses (they are not in its public types). */
interface WasmBackend {
  wasm: TfjsWasmModule & { _malloc(bytes: number): number; _free(pointer: number): void };
  dataIdMap: { get(dataId: object): { memoryOffset: number } | undefined };
  makeOutput(shape: number[], dtype: 'float32'): tf.TensorInfo;
}

type KernelEntry = (
  a: number, b: number, c: number, batch: number, m: number, n: number, k: number,
  aRowStride: number, aInnerStride: number, bInnerStride: number, bColumnStride: number, scratch: number,
) => void;

/** The kernel instantiated on one backend instance's memory, with that backend's scratch. */
interface Binding {
  backend: WasmBackend;
  entry: KernelEntry;
  build: MultiplyAdd;
  /** multiplyAddVersion() when it was made: the FMA switch changed since when they differ. */
  version: number;
  scratch: number;
  scratchBytes: number;
}

let installed: { reason: string; active: boolean } | null = null;
let binding: Binding | null = null;
let calls = 0;

/** Instantiates the kernel on a backend's memory, or says why it cannot. */
function bind(backend: WasmBackend): Binding | string {
  const module = backend.wasm;
  if (typeof module?._malloc !== 'function' || typeof module._free !== 'function') return "tfjs-wasm's module exports no _malloc/_free";
  const made = instantiateOnTfjsMemory(module, batchMatMulKernel);
  if (typeof made === 'string') return made;
  return { backend, entry: made.exports.batchMatMul as KernelEntry, build: made.build, version: made.version, scratch: 0, scratchBytes: 0 };
}

/** The binding for this backend instance under the current FMA choice, remade when either changed; null if it cannot be made. */
function bindingFor(backend: WasmBackend): Binding | null {
  if (binding?.backend === backend && binding.version === multiplyAddVersion()) return binding;
  const bound = bind(backend); // a new backend instance (tf.removeBackend and back): a new memory
  if (typeof bound === 'string') return null;
  if (binding?.backend === backend) Object.assign(bound, { scratch: binding.scratch, scratchBytes: binding.scratchBytes }); // the same heap: keep its scratch
  binding = bound;
  return binding;
}



function scratchFor(b: Binding, bytes: number): number {
  if (bytes > b.scratchBytes) {
    if (b.scratch) b.backend.wasm._free(b.scratch);
    b.scratchBytes = Math.max(bytes, 2 * b.scratchBytes);
    b.scratch = b.backend.wasm._malloc(b.scratchBytes);
    if (!b.scratch) {
      b.scratchBytes = 0;
      throw new Error(`wasmBatchMatMul: _malloc(${bytes}) failed`);
    }
  }
  return b.scratch;
}

export { scratchBytes };

const sameShape = (x: number[], y: number[]) => x.length === y.length && x.every((v, i) => v === y[i]);

/**
 * Computes the product on the SIMD kernel and returns its output, or returns null when this
 * product is one for tfjs's own kernel.
 */
function simdBatchMatMul(args: { inputs: tf.NamedTensorInfoMap; backend: unknown; attrs?: tf.NamedAttrMap }): tf.TensorInfo | null {
  const { a, b } = args.inputs as { a: tf.TensorInfo; b: tf.TensorInfo };
  const { transposeA, transposeB } = (args.attrs ?? {}) as { transposeA?: boolean; transposeB?: boolean };
  if (a.dtype !== 'float32' || b.dtype !== 'float32') return null;
  const outer = a.shape.slice(0, -2);
  if (!sameShape(outer, b.shape.slice(0, -2))) return null; // broadcasting: tfjs's kernel
  const batch = outer.reduce((p, v) => p * v, 1);
  const [aRows, aCols] = a.shape.slice(-2);
  const [bRows, bCols] = b.shape.slice(-2);
  const [m, k] = transposeA ? [aCols, aRows] : [aRows, aCols];
  const [kb, n] = transposeB ? [bCols, bRows] : [bRows, bCols];
  if (k !== kb || m === 0 || n === 0 || k === 0) return null; // a mismatch: tfjs's error; empty: tfjs's

  const backend = args.backend as WasmBackend;
  const bound = bindingFor(backend);
  if (!bound) return null;
  const scratch = scratchFor(bound, scratchBytes(m, n, k));
  const out = backend.makeOutput([...outer, m, n], 'float32');
  const offset = (t: tf.TensorInfo) => backend.dataIdMap.get(t.dataId)!.memoryOffset;
  const job: ProductJob = {
    a: offset(a), b: offset(b), c: offset(out), batch, m, n, k,
    aRowStride: transposeA ? 1 : k, aInnerStride: transposeA ? m : 1, // A stored [M, K], or [K, M] when transposed
    bInnerStride: transposeB ? 1 : n, bColumnStride: transposeB ? k : 1, // B stored [K, N], or [N, K] when transposed
    transposeA: !!transposeA,
  };
  const compute = (part: ProductJob) =>
    bound.entry(part.a, part.b, part.c, part.batch, part.m, part.n, part.k, part.aRowStride, part.aInnerStride, part.bInnerStride, part.bColumnStride, scratch);
  const memory = backend.wasm.wasmMemory ?? backend.wasm.asm?.memory;
  if (!(threads && memory instanceof WebAssembly.Memory && threads.run(job, () => memory.buffer, bound.build, compute))) compute(job);
  calls++;
  return out;
}

let threads: ProductThreads | null = null;

/**
 * Splits large products with a helper thread from now on (productThreads.ts), or stops (null).
 * The caller owns the threads and closes them.
 */
export function setProductThreads(helper: ProductThreads | null): void {
  threads = helper;
}

/**
 * Replaces the wasm backend's BatchMatMul (idempotent). Call once tf.setBackend('wasm') has
 * resolved (wasm the active backend), so that the kernel can be checked against the backend's
 * memory; returns whether it is active and why not (then nothing was changed, and a later call
 * may try again). Once installed it stays, also if another backend becomes active.
 */
export function installWasmBatchMatMul(): WasmBatchMatMulStatus {
  if (installed?.active) return wasmBatchMatMulStatus();
  const original = tf.getKernel('BatchMatMul', 'wasm');
  const refuse = (reason: string) => {
    installed = { active: false, reason: `tfjs's BatchMatMul: ${reason}` };
    return wasmBatchMatMulStatus();
  };
  if (!original) return refuse('the wasm backend is not registered');
  // Not tf.findBackend('wasm'): on a backend not yet started, that starts it.
  if (tf.getBackend() !== 'wasm') return refuse(`the active backend is ${tf.getBackend()}, not wasm`);
  const bound = bind(tf.backend() as unknown as WasmBackend);
  if (typeof bound === 'string') return refuse(bound);
  binding = bound;
  const kernelFunc: tf.KernelFunc = (args) => simdBatchMatMul(args) ?? (original.kernelFunc(args) as tf.TensorInfo);
  tf.unregisterKernel('BatchMatMul', 'wasm');
  tf.registerKernel({ ...original, kernelFunc });
  installed = { active: true, reason: 'SIMD kernel for float32 products' };
  return wasmBatchMatMulStatus();
}

export function wasmBatchMatMulStatus(): WasmBatchMatMulStatus {
  return { active: installed?.active ?? false, reason: installed?.reason ?? 'not installed', calls, build: binding?.build ?? null };
}
