/**
 * Our kernels for tfjs-backend-wasm, installed together: the CLI, the page's trainer worker and
 * its digit generators call installWasmKernels once wasm is the active backend.
 *
 * - wasmBatchMatMul.ts: every float32 product on a SIMD kernel (XNNPACK and tfjs's loop otherwise);
 * - wasmElementwise.ts: GELU and LayerNorm, values and gradients, as fused SIMD kernels;
 * - wasmZeroCopy.ts: Identity and same-dtype Cast share data instead of copying it.
 * The first two run their fused multiply-add build (relaxed SIMD) where the engine has it, their
 * plain SIMD build otherwise or when `fma` is false (wasmKernelModule.ts).
 */
import { installWasmBatchMatMul } from './wasmBatchMatMul';
import { installWasmElementwise } from './wasmElementwise';
import { multiplyAddChoice, setFusedMultiplyAdd } from './wasmKernelModule';
import { installWasmZeroCopy } from './wasmZeroCopy';

/** Which kernels to install (all by default; the CLI turns some off for before/after measurements). */
export interface WasmKernelChoice {
  batchMatMul?: boolean;
  elementwise?: boolean;
  zeroCopy?: boolean;
  /** Fused multiply-add (relaxed SIMD) where the engine has it; false: plain SIMD (default true). */
  fma?: boolean;
}

/** Installs the chosen kernels (idempotent); returns one line per kernel saying what runs, and one for the multiply-add. */
export function installWasmKernels(choice: WasmKernelChoice = {}): string[] {
  setFusedMultiplyAdd(choice.fma !== false);
  const line = (name: string, wanted: boolean | undefined, install: () => { reason: string }) =>
    `${name}: ${wanted === false ? "tfjs's own (turned off)" : install().reason}`;
  const lines = [
    line('matMul', choice.batchMatMul, installWasmBatchMatMul),
    line('GELU and LayerNorm', choice.elementwise, installWasmElementwise),
    line('Identity and Cast', choice.zeroCopy, installWasmZeroCopy),
  ];
  if (choice.batchMatMul !== false || choice.elementwise !== false) lines.push(`kernels' multiply-add: ${multiplyAddChoice().reason}`);
  return lines;
}
