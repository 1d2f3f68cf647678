/**
 * The wasm memory of the QuickJS module: loaded with a bounded size (the hard memory cap), and
 * its live parts copied at a quiescent moment so that every program starts from a byte-identical
 * heap (sandbox.ts says why this beats a fresh context); and where in it the allocator keeps its
 * break, by which a program's memory is measured.
 */
import releaseSyncVariant from '@jitl/quickjs-wasmfile-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSContext, type QuickJSWASMModule } from 'quickjs-emscripten-core';

const PAGE = 64 * 1024;
/** The QuickJS module's own heap at start (its declared initial memory). */
const INITIAL_HEAP = 16 << 20;

/** A compiled QuickJS wasm module (a WebAssembly.Module), or a loader of one. */
export type QuickJSWasmModuleSource = NonNullable<Parameters<typeof newVariant>[1]['wasmModule']>;

/**
 * Loads the QuickJS module with a wasm memory of bounded size. This build's allocator does
 * not count most bytes against setMemoryLimit, and its interrupt handler is not consulted
 * while builtins allocate, so the hard memory cap is the wasm memory's `maximum`: a memory
 * bomb fails with QuickJS's own "out of memory" once the heap is full, instead of growing
 * the heap to 2 GB. `wasmLocation` is the .wasm URL in the browser (Node finds the file).
 * `wasmModule`, when given, is an already compiled module (the pool compiles it once and
 * shares it, so a new worker neither compiles the wasm again nor starts from cold code).
 */
export function quickJSLoader(options: { memoryBytes: number; wasmLocation?: string; wasmModule?: QuickJSWasmModuleSource }): () => Promise<QuickJSWASMModule> {
  const maximumBytes = INITIAL_HEAP + options.memoryBytes + (16 << 20);
  return () =>
    newQuickJSWASMModuleFromVariant(
      newVariant(releaseSyncVariant, {
        ...(options.wasmLocation ? { wasmLocation: options.wasmLocation } : {}),
        ...(options.wasmModule ? { wasmModule: options.wasmModule } : {}),
        wasmMemory: new WebAssembly.Memory({ initial: INITIAL_HEAP / PAGE, maximum: Math.ceil(maximumBytes / PAGE) }),
      }),
    );
}

/** Granularity of the scan that finds the live parts of the wasm memory. */
const SCAN_PAGE = 4096;
/**
 * Kept after the last non-zero page of static data: zero-initialised statics may follow it (in
 * this build they end 3 KB past the initialised data; sandbox.test.ts checks that nothing past
 * the margin is ever written).
 */
const STATIC_MARGIN = 16 << 10;
/** The unused C stack is the largest all-zero stretch below the heap's top; smaller means no stack was found. */
const MIN_STACK_GAP = 1 << 20;

interface MemoryRange {
  start: number;
  bytes: Uint8Array;
}

/** The live bytes of the wasm memory at one quiescent moment (no call into QuickJS under way). */
export interface Snapshot {
  ranges: MemoryRange[];
  /** The dead stretch between the ranges (the unused C stack), and the end of the live bytes. */
  gap: [number, number] | null;
  top: number;
}

function pageIsZero(words: Int32Array, page: number): boolean {
  const end = Math.min(words.length, ((page + 1) * SCAN_PAGE) >> 2);
  for (let i = (page * SCAN_PAGE) >> 2; i < end; i++) if (words[i] !== 0) return false;
  return true;
}

/**
 * Copies the live parts of `memory`: everything below the largest all-zero stretch under the
 * heap's top (static data, with a margin for zero-initialised statics) and everything from the
 * end of that stretch to the last non-zero page (the used top of the C stack and the heap).
 * The stretch itself is the unused C stack, dead between calls.
 */
export function takeSnapshot(memory: WebAssembly.Memory): Snapshot {
  const bytes = new Uint8Array(memory.buffer);
  const words = new Int32Array(memory.buffer);
  const pages = Math.ceil(bytes.length / SCAN_PAGE);
  let last = pages - 1;
  while (last >= 0 && pageIsZero(words, last)) last--;
  let gapStart = 0;
  let gapEnd = 0;
  for (let page = 0; page <= last; ) {
    if (!pageIsZero(words, page)) {
      page++;
      continue;
    }
    const start = page;
    while (page <= last && pageIsZero(words, page)) page++;
    if (page - start > gapEnd - gapStart) [gapStart, gapEnd] = [start, page];
  }
  const top = Math.min(bytes.length, (last + 1) * SCAN_PAGE);
  if ((gapEnd - gapStart) * SCAN_PAGE < MIN_STACK_GAP) return { ranges: [{ start: 0, bytes: bytes.slice(0, top) }], gap: null, top };
  const staticEnd = Math.min(gapStart * SCAN_PAGE + STATIC_MARGIN, gapEnd * SCAN_PAGE);
  return {
    ranges: [
      { start: 0, bytes: bytes.slice(0, staticEnd) },
      { start: gapEnd * SCAN_PAGE, bytes: bytes.slice(gapEnd * SCAN_PAGE, top) },
    ],
    gap: [staticEnd, gapEnd * SCAN_PAGE],
    top,
  };
}


/**
 * Finds the allocator's break (the static word sbrk keeps) in the wasm memory, or null: among the
 * words of the static data (which `base` restores) that move by about what a probe allocates
 * (4 MB) and hold an address in the heap before and after it, the largest (the break is past
 * everything allocated and never falls while a program runs; dlmalloc's top chunk below it falls as
 * memory is freed; its byte counts and bin bitmaps are not addresses in the heap). The sandbox
 * restores it before every program, so a program's memory is measured from the same level whatever
 * ran before it; the wasm memory's size, which never shrinks, would hide what an earlier program had
 * grown. `base` is restored after, and the probe's bytes above its top are zeroed, so a later
 * snapshot stays as small.
 */
export function findHeapTop(memory: WebAssembly.Memory, context: QuickJSContext, base: Snapshot, restore: (snapshot: Snapshot) => void): number | null {
  const probe = 4 << 20;
  const staticWords = (base.gap ? base.gap[0] : base.top) >> 2;
  const before = new Int32Array(memory.buffer).slice(0, staticWords);
  try {
    context.evalCode(`globalThis.__heapProbe = []; for (var i = 0; i < ${probe >> 20}; i++) globalThis.__heapProbe.push(new ArrayBuffer(1 << 20));`, 'probe.js').dispose();
    const after = new Int32Array(memory.buffer);
    // The heap starts past the unused C stack (the snapshot's gap) and ends at the memory's end.
    const [heapStart, heapEnd] = [base.gap ? base.gap[1] : staticWords * 4, memory.buffer.byteLength];
    const moved: number[] = [];
    // About the probe's size: some of it may come from free space the heap already had.
    for (let i = 0; i < staticWords; i++) {
      const grew = after[i] - before[i];
      if (grew >= probe * 0.9 && grew <= probe * 1.25 && before[i] >= heapStart && after[i] <= heapEnd) moved.push(i);
    }
    return moved.sort((a, b) => before[b] - before[a])[0] ?? null;
  } finally {
    restore(base);
    new Uint8Array(memory.buffer).fill(0, base.top);
  }
}
