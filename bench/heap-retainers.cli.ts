/**
 * `node dist/bench/heap-retainers.cli.js <before.heapsnapshot> <after.heapsnapshot> <N> [top]`: what
 * holds the growth between two snapshots kept by the waiters benchmark (`BENCH_SNAPSHOT_DIR`), per
 * waiter, by step of the first-retainer chain (see `retainerSteps`). Read by hand; not a benchmark.
 */
import { retainerSteps } from './support/heap-retainers.js';

const [before, after, n, top] = process.argv.slice(2);
const waiters = Number(n);
if (!before || !after || !Number.isInteger(waiters) || waiters <= 0) {
  process.stderr.write('usage: heap-retainers.cli.js <before.heapsnapshot> <after.heapsnapshot> <N> [top]\n');
  process.exit(2);
}
for (const { step, bytes } of (await retainerSteps(before, after)).slice(0, Number(top ?? 60))) {
  process.stdout.write(`${(bytes / waiters).toFixed(0).padStart(7)} B  ${step}\n`);
}
