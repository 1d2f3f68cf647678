/**
 * How a hand-written kernel module (a .wat file assembled by scripts/buildKernels.ts into base64)
 * is instantiated on tfjs-wasm's own WebAssembly.Memory, so that it computes on tensor data in
 * place: shared by wasmBatchMatMul.ts and wasmElementwise.ts.
 *
 * Each kernel comes in two builds (scripts/buildKernels.ts): `fma`, with relaxed SIMD's fused
 * multiply-add (`f32x4.relaxed_madd`: one instruction and one rounding where the CPU has FMA, as
 * x86 with FMA3 and ARM do), and `simd`, the same source with each multiply-add written as a
 * multiply and an add (plain WebAssembly SIMD). The fma build runs when this engine validates
 * relaxed SIMD (Chromium does; Node 20 only with --experimental-wasm-relaxed-simd, which the
 * npm scripts pass) and it is not turned off (setFusedMultiplyAdd(false): PRL_FMA=0 in the CLI,
 * ?fma=0 on the page), the simd build otherwise.
 */

/** The part of tfjs-wasm's emscripten module that holds its memory (not in its public types). */
export interface TfjsWasmModule {
  wasmMemory?: unknown;
  asm?: { memory?: unknown };
}

/** A kernel's builds, base64 (a .generated.ts module's export). */
export interface KernelBuilds {
  fma: { plain: string; shared: string };
  simd: { plain: string; shared: string };
}

/** Which build runs: fused multiply-add (relaxed SIMD) or plain SIMD. */
export type MultiplyAdd = 'fma' | 'simd';

/** A generated kernel's base64 text as bytes (atob: the page, workers and Node alike). */
export function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * A small module using relaxed SIMD: (func (export "madd") (param f32 f32 f32) (result f32)),
 * lane 0 of f32x4.relaxed_madd on the three arguments splatted; assembled by wabt.
 */
const relaxedProbe = '0061736d0100000001080160037d7d7d017d03020100070801046d61646400000a160114002000fd132001fd132002fd13fd8502fd1f000b';

let probe: { supported: boolean; fuses: boolean } | null = null;

function runProbe(): { supported: boolean; fuses: boolean } {
  if (!probe) {
    const bytes = new Uint8Array(relaxedProbe.length / 2);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(relaxedProbe.slice(2 * i, 2 * i + 2), 16);
    probe = { supported: false, fuses: false };
    try {
      if (WebAssembly.validate(bytes)) {
        const madd = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports.madd as (a: number, b: number, c: number) => number;
        // (1 + 2^-12)^2 - (1 + 2^-11) = 2^-24 exactly: a fused multiply-add gives it; a multiply
        // rounded to float32 first loses the 2^-24 (a tie, to even) and the sum is 0.
        const x = 1 + 2 ** -12;
        probe = { supported: true, fuses: madd(x, x, -(1 + 2 ** -11)) === 2 ** -24 };
      }
    } catch {
      // an engine that validates but cannot run it: no relaxed SIMD
    }
  }
  return probe;
}

/** Whether this engine validates relaxed SIMD (checked once). */
export function relaxedSimdSupported(): boolean {
  return runProbe().supported;
}

/**
 * Whether relaxed_madd is fused here (one rounding): it is on CPUs with FMA (x86 FMA3, ARM);
 * elsewhere the engine may compute it as a multiply and an add, and the fma build gains nothing.
 */
export function relaxedMaddFuses(): boolean {
  return runProbe().fuses;
}

let fmaWanted = true;
let choiceVersion = 0;

/**
 * Turns the fused multiply-add builds on (the default) or off, for before/after measurements.
 * Kernels already bound switch at their next call.
 */
export function setFusedMultiplyAdd(on: boolean): void {
  if (on !== fmaWanted) choiceVersion++;
  fmaWanted = on;
}

/** Changes whenever setFusedMultiplyAdd changes the choice (a binding made under another version is remade). */
export function multiplyAddVersion(): number {
  return choiceVersion;
}

/** The build that runs now, and why. */
export function multiplyAddChoice(): { build: MultiplyAdd; reason: string } {
  if (!fmaWanted) return { build: 'simd', reason: 'plain SIMD multiply and add (fused multiply-add turned off)' };
  if (!relaxedSimdSupported()) return { build: 'simd', reason: 'plain SIMD multiply and add (this engine has no relaxed SIMD)' };
  return { build: 'fma', reason: `fused multiply-add (relaxed SIMD f32x4.relaxed_madd${relaxedMaddFuses() ? '' : ', computed unfused by this CPU'})` };
}

/**
 * Instantiates a kernel module on tfjs-wasm's memory: the fma or simd build (multiplyAddChoice),
 * for a shared memory when that memory is shared (tfjs-wasm's threaded build), for a plain one
 * otherwise. Returns the module's exports and the build, or why it cannot.
 */
export function instantiateOnTfjsMemory(module: TfjsWasmModule | undefined, builds: KernelBuilds): { exports: Record<string, unknown>; build: MultiplyAdd; version: number } | string {
  const memory = module?.wasmMemory ?? module?.asm?.memory;
  if (!(memory instanceof WebAssembly.Memory)) return "tfjs-wasm's WebAssembly.Memory was not found on its module";
  const isShared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
  const { build } = multiplyAddChoice();
  const bytes = decodeBase64(builds[build][isShared ? 'shared' : 'plain']);
  if (!WebAssembly.validate(bytes)) return 'this engine has no WebAssembly SIMD (the kernel does not validate)';
  try {
    const exports = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports as Record<string, unknown>;
    return { exports, build, version: choiceVersion };
  } catch (error) {
    return `the kernel cannot import tfjs-wasm's ${isShared ? 'shared ' : ''}memory (${(error as Error).message})`;
  }
}
