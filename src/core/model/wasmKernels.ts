/**
 * Our kernels for tfjs-backend-wasm, installed together: the CLI, the page's trainer worker and
 * its digit generators call installWasmKernels once wasm is the active backend.
 *
 * - wasmBatchMatMul.ts: every float32 product on a SIMD kernel (XNNPACK and tfjs's loop otherwise);
 * - wasmElementwise.ts: GELU and LayerNorm, values and gradients, as fused SIMD kernels;
 * - wasmZeroCopy.ts: Identity and same-dtype Cast share data instead of copying it.
 */
import { installWasmBatchMatMul } from './wasmBatchMatMul';
import { installWasmElementwise } from './wasmElementwise';
import { installWasmZeroCopy } from './wasmZeroCopy';

/** Which kernels to install (all by default; the CLI turns some off for before/after measurements). */
export interface WasmKernelChoice {
  batchMatMul?: boolean;
  elementwise?: boolean;
  zeroCopy?: boolean;
}

/** Installs the chosen kernels (idempotent); returns one line per kernel saying what runs. */
export function installWasmKernels(choice: WasmKernelChoice = {}): string[] {
  const line = (name: string, wanted: boolean | undefined, install: () => { reason: string }) =>
    `${name}: ${wanted === false ? "tfjs's own (turned off)" : install().reason}`;
  return [
    line('matMul', choice.batchMatMul, installWasmBatchMatMul),
    line('GELU and LayerNorm', choice.elementwise, installWasmElementwise),
    line('Identity and Cast', choice.zeroCopy, installWasmZeroCopy),
  ];
}
