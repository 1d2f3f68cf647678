/**
 * Bytes of scratch batchMatMulKernel.wat needs: a 128-byte spill area, B packed whole in panels
 * of 8 columns, and one block of A's rows packed in panels of 4 (at most 32768 / K rows, a
 * multiple of 4, at least 4). Its own module so that a product helper thread (productThreads.ts)
 * can use it without loading tfjs.
 */
export function scratchBytes(m: number, n: number, k: number): number {
  const blockRows = Math.max(4, Math.floor(32768 / k) & ~3);
  return 128 + 4 * k * (Math.min(Math.ceil(m / 4) * 4, blockRows) + Math.ceil(n / 8) * 8);
}
