/**
 * Learning-rate schedule of the warm start: linear warm-up, then cosine decay to a tenth of the
 * peak (the nanoGPT recipe). Small transformers trained for a few hundred steps gain more from
 * a high peak rate that decays than from a constant rate low enough to be stable throughout.
 */
export function scheduledRate(peak: number, step: number, totalSteps: number, warmupSteps: number): number {
  if (step <= warmupSteps) return (peak * step) / Math.max(1, warmupSteps);
  const progress = Math.min(1, (step - warmupSteps) / Math.max(1, totalSteps - warmupSteps));
  const floor = peak / 10;
  return floor + 0.5 * (peak - floor) * (1 + Math.cos(Math.PI * progress));
}
