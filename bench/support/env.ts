/** A positive integer from the environment, or the fallback. */
export function envInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
  return Number.isInteger(value) && value > 0 ? value : fallback;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle]) : ((sorted[middle - 1]) + (sorted[middle])) / 2;
}

/** Nearest-rank percentile. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1];
}

export const fixed = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
