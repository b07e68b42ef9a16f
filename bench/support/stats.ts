export interface Summary {
  n: number;
  p50: number;
  p95: number;
  mean: number;
  min: number;
  max: number;
}

/** Nearest-rank percentile of ascending `sorted`. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1];
}

export function summarize(samples: number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    mean: sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
  };
}

export interface Scenario {
  key: string;
  label: string;
  run(): Promise<unknown>;
}

export interface RoundRobinOptions {
  warmup: number;
  iterations: number;
  /** Measurement stops early (after a complete round) once this much wall time has passed. */
  budgetMs: number;
  onProgress?: (done: number) => void;
}

/**
 * Runs the scenarios round-robin — one call of each per round — so slow drift of the machine (2
 * cores shared by PostgreSQL, the server and this client) lands on every scenario alike and the
 * ratios stay meaningful. Rounds are bounded by `iterations` and by `budgetMs`.
 */
export async function measureRoundRobin(scenarios: Scenario[], options: RoundRobinOptions): Promise<Map<string, number[]>> {
  for (let round = 0; round < options.warmup; round++) {
    for (const scenario of scenarios) await scenario.run();
  }
  const samples = new Map<string, number[]>(scenarios.map((scenario) => [scenario.key, []]));
  const started = performance.now();
  for (let round = 0; round < options.iterations; round++) {
    // Rotate the order each round so no scenario always follows the same neighbour.
    for (let index = 0; index < scenarios.length; index++) {
      const scenario = scenarios[(index + round) % scenarios.length];
      const t0 = performance.now();
      await scenario.run();
      samples.get(scenario.key)?.push(performance.now() - t0);
    }
    options.onProgress?.(round + 1);
    if (performance.now() - started > options.budgetMs) break;
  }
  return samples;
}

export function ms(value: number): string {
  if (!Number.isFinite(value)) return 'n/a';
  return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
}
