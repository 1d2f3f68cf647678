/**
 * How a hand-written kernel module (a .wat file assembled by scripts/buildKernels.ts into base64)
 * is instantiated on tfjs-wasm's own WebAssembly.Memory, so that it computes on tensor data in
 * place: shared by wasmBatchMatMul.ts and wasmElementwise.ts.
 */

/** The part of tfjs-wasm's emscripten module that holds its memory (not in its public types). */
export interface TfjsWasmModule {
  wasmMemory?: unknown;
  asm?: { memory?: unknown };
}

function decodeBase64(text: string): Uint8Array<ArrayBuffer> {
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Instantiates a kernel module (base64, built by scripts/buildKernels.ts) on tfjs-wasm's memory:
 * the shared-memory build when that memory is shared (tfjs-wasm's threaded build), the plain one
 * otherwise. Returns the module's exports, or why it cannot.
 */
export function instantiateOnTfjsMemory(module: TfjsWasmModule | undefined, plain: string, shared: string): Record<string, unknown> | string {
  const memory = module?.wasmMemory ?? module?.asm?.memory;
  if (!(memory instanceof WebAssembly.Memory)) return "tfjs-wasm's WebAssembly.Memory was not found on its module";
  const isShared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
  const bytes = decodeBase64(isShared ? shared : plain);
  if (!WebAssembly.validate(bytes)) return 'this engine has no WebAssembly SIMD (the kernel does not validate)';
  try {
    return new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } }).exports as Record<string, unknown>;
  } catch (error) {
    return `the kernel cannot import tfjs-wasm's ${isShared ? 'shared ' : ''}memory (${(error as Error).message})`;
  }
}
