/**
 * Threads inside a training step: a helper thread computes part of each large product, so one
 * step uses two cores. tfjs-wasm runs unthreaded (Node gives it no threads; the page's bundler
 * breaks its threaded build), and its memory is not shared, so the helper cannot read tensors
 * in place. Instead it works on a shared WebAssembly.Memory of our own (the staging memory):
 * for each product large enough, the calling thread copies the helper's part of the operands
 * there, wakes the helper (Atomics.notify), computes its own part on tfjs's memory with the same
 * kernel, waits for the helper (Atomics.wait) and copies the helper's rows back. Products are split
 * by batch entry (attention) or by rows of the output (everything else).
 *
 * This module is platform-neutral: starting the helper thread is the platform's (src/cli's
 * productThreads.ts with worker_threads); the helper runs runProductHelper below. The calling
 * thread blocks in Atomics.wait, which Node's main thread and any worker allow (a page's main
 * thread does not; the page trains in a worker).
 */
import { batchMatMulKernel } from './batchMatMulKernel.generated';
import { scratchBytes } from './batchMatMulScratch';
import { decodeBase64, type MultiplyAdd } from './wasmKernelModule';

/** What a helper thread is given: the staging memory, whose first 64 bytes are the control block. */
export interface ProductHelperInit {
  memory: WebAssembly.Memory;
}

/** Starts a helper thread that calls runProductHelper(init); resolves once it waits for work. */
export type StartProductHelper = (init: ProductHelperInit) => Promise<{ close(): Promise<void> }>;

type KernelEntry = (...args: number[]) => void;

// Control block, Int32 slots: the job number the caller posted, the job number the helper finished,
// the kernel's 12 arguments, quit, which build to run (1: fused multiply-add), and the job number
// whose kernel call threw.
const POSTED = 0;
const DONE = 1;
const ARGS = 2;
const QUIT = 14;
const BUILD = 15;
const FAILED = 16;
const CONTROL_BYTES = 80;
/** How long the helper spins for the next product before it sleeps, and the caller for the helper's part. */
const HELPER_SPIN_MS = 2;
const CALLER_SPIN_MS = 20;

/**
 * The helper thread's loop: waits for a job, runs the kernel's shared-memory build on the staging
 * memory, says it is done, until told to quit. Blocks its thread for good (Atomics.wait).
 */
export function runProductHelper({ memory }: ProductHelperInit): void {
  const kernels: Partial<Record<MultiplyAdd, KernelEntry>> = {};
  const kernel = (build: MultiplyAdd) =>
    (kernels[build] ??= new WebAssembly.Instance(new WebAssembly.Module(decodeBase64(batchMatMulKernel[build].shared)), { env: { memory } }).exports.batchMatMul as KernelEntry);
  const control = new Int32Array(memory.buffer, 0, CONTROL_BYTES / 4);
  let seen = Atomics.load(control, POSTED);
  for (;;) {
    // Spin a little before sleeping: a step's products come every few ms, and a sleeping helper
    // woken by Atomics.notify first runs on the caller's core (Linux wakes it there), stalling
    // the caller for half the product; measured on this 2-core machine, see docs/performance.md.
    const until = performance.now() + HELPER_SPIN_MS;
    while (Atomics.load(control, POSTED) === seen && performance.now() < until);
    if (Atomics.load(control, POSTED) === seen) Atomics.wait(control, POSTED, seen);
    seen = Atomics.load(control, POSTED);
    if (Atomics.load(control, QUIT)) return;
    const args = Array.from(control.subarray(ARGS, ARGS + 12));
    try {
      kernel(control[BUILD] ? 'fma' : 'simd')(...args);
    } catch {
      // Said to the caller, which would otherwise wait for this part for good.
      Atomics.store(control, FAILED, seen);
    }
    Atomics.store(control, DONE, seen);
    Atomics.notify(control, DONE);
  }
}

/** A product as the kernel takes it (byte addresses into tfjs's memory, strides in floats). */
export interface ProductJob {
  a: number; b: number; c: number;
  batch: number; m: number; n: number; k: number;
  aRowStride: number; aInnerStride: number; bInnerStride: number; bColumnStride: number;
  transposeA: boolean;
}

export interface ProductThreads {
  /** Products at least this large (multiply-adds) are split; smaller ones are not worth the hand-off. */
  readonly minMacs: number;
  /**
   * Computes `job` with the helper: `compute(part)` runs the caller's part on tfjs's memory
   * (the caller's kernel and scratch), the helper the rest. `heap` gives tfjs's memory buffer
   * (asked again after `compute`, which may grow it). Returns false (nothing done) when the
   * product is too small or too narrow to split.
   */
  run(job: ProductJob, heap: () => ArrayBuffer, build: MultiplyAdd, compute: (part: ProductJob) => void): boolean;
  /** Products split so far. */
  readonly splits: number;
  close(): Promise<void>;
}

const align16 = (bytes: number) => (bytes + 15) & ~15;

/**
 * Starts one helper thread and returns the splitter. `share` is the part of each product the
 * caller computes itself (it also makes the copies, so a little under half). `minMacs`: 8M
 * multiply-adds takes every product of a reference training step (16M-100M) and none of
 * sampling's (a decode step's are 1.5M at most, and copying a weight matrix for each of them, with
 * a hand-off, made sampling 3x slower at a 1M threshold).
 */
export async function startProductThreads(start: StartProductHelper, { share = 0.45, minMacs = 1 << 23, helperTimeoutMs = 30_000 } = {}): Promise<ProductThreads> {
  const memory = new WebAssembly.Memory({ initial: 16, maximum: 65536, shared: true });
  const control = new Int32Array(memory.buffer, 0, CONTROL_BYTES / 4);
  const helper = await start({ memory });
  let posted = 0;
  let splits = 0;
  let closed = false;

  /** The staging memory as floats, at least `bytes` long. */
  const staging = (bytes: number): Float32Array => {
    const have = memory.buffer.byteLength;
    if (bytes > have) memory.grow(Math.ceil((bytes - have) / 65536));
    return new Float32Array(memory.buffer);
  };

  /** Waits for the helper's part of the last job posted; says why when it will not come. */
  const waitForHelper = (): string | null => {
    const until = performance.now() + CALLER_SPIN_MS;
    while (Atomics.load(control, DONE) !== posted && performance.now() < until);
    // A product takes milliseconds: a helper silent for helperTimeoutMs has died (its thread ended).
    const giveUp = performance.now() + helperTimeoutMs;
    for (let done = Atomics.load(control, DONE); done !== posted; done = Atomics.load(control, DONE)) {
      const left = giveUp - performance.now();
      if (left <= 0) return `the product helper thread did not finish its part of a product in ${helperTimeoutMs / 1000} s`;
      Atomics.wait(control, DONE, done, left);
    }
    return Atomics.load(control, FAILED) === posted ? 'the product helper thread failed on its part of a product' : null;
  };

  return {
    minMacs,
    get splits() {
      return splits;
    },
    run(job, heap, build, compute) {
      const { batch, m, n, k } = job;
      if (closed || batch * m * n * k < minMacs) return false;
      const byBatch = batch >= 2;
      if (!byBatch && m < 8) return false;
      const tfjs = new Float32Array(heap());
      // The caller's part: the first `mine` batch entries, or the first `mine` rows (a multiple of 4).
      const mine = byBatch ? Math.max(1, Math.round(batch * share)) : Math.max(4, Math.round((m * share) / 4) * 4);
      const a = job.a / 4, b = job.b / 4, c = job.c / 4;
      // The helper's operands, copied into the staging memory after the control block.
      let aFrom: number, aFloats: number, aOffset: number; // source float index, count, and where op(A)'s first row starts in the copy
      let bFrom: number, bFloats: number, cTo: number, cFloats: number, helperBatch: number, helperM: number;
      if (byBatch) {
        helperBatch = batch - mine;
        helperM = m;
        [aFrom, aFloats, aOffset] = [a + mine * m * k, helperBatch * m * k, 0];
        [bFrom, bFloats] = [b + mine * k * n, helperBatch * k * n];
        [cTo, cFloats] = [c + mine * m * n, helperBatch * m * n];
      } else {
        helperBatch = 1;
        helperM = m - mine;
        // A stored [m, k]: the helper's rows are contiguous; stored [k, m] (transposeA): all of it, read from column `mine`.
        [aFrom, aFloats, aOffset] = job.transposeA ? [a, k * m, mine] : [a + mine * k, helperM * k, 0];
        [bFrom, bFloats] = [b, k * n];
        [cTo, cFloats] = [c + mine * n, helperM * n];
      }
      const aAt = CONTROL_BYTES;
      const bAt = align16(aAt + 4 * aFloats);
      const cAt = align16(bAt + 4 * bFloats);
      const scratchAt = align16(cAt + 4 * cFloats);
      const floats = staging(scratchAt + scratchBytes(helperM, n, k));
      floats.set(tfjs.subarray(aFrom, aFrom + aFloats), aAt / 4);
      floats.set(tfjs.subarray(bFrom, bFrom + bFloats), bAt / 4);
      control.set([aAt + 4 * aOffset, bAt, cAt, helperBatch, helperM, n, k, job.aRowStride, job.aInnerStride, job.bInnerStride, job.bColumnStride, scratchAt], ARGS);
      control[BUILD] = build === 'fma' ? 1 : 0;
      Atomics.store(control, POSTED, ++posted);
      Atomics.notify(control, POSTED);
      let problem: string | null = null;
      try {
        compute(byBatch ? { ...job, batch: mine } : { ...job, m: mine });
      } finally {
        problem = waitForHelper();
      }
      if (problem) {
        closed = true;
        throw new Error(`${problem}; products stay on one thread from now on`);
      }
      new Float32Array(heap()).set(new Float32Array(memory.buffer, cAt, cFloats), cTo);
      splits++;
      return true;
    },
    async close() {
      if (closed) return;
      closed = true;
      Atomics.store(control, QUIT, 1);
      Atomics.store(control, POSTED, ++posted);
      Atomics.notify(control, POSTED);
      await helper.close();
    },
  };
}
