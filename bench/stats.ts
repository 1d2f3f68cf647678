/** The summaries every benchmark reports a figure with. */

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** A figure's median, min, max and number of runs. */
export function summary(values: number[]): { median: number; min: number; max: number; runs: number } {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), runs: values.length };
}
