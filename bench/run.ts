/**
 * `npm run bench [-- name …]`: runs the named benchmarks (all of them, in this order, when none is
 * named), prints each one's figures and writes them into its generated block of docs/benchmarks.md.
 * Benchmarks are never part of `npm test`; every figure is a ratio taken in one run.
 */
import { progress, Report, writeSection } from './support/report.js';

const BENCHMARKS: Record<string, () => Promise<{ run(report: Report): Promise<void> }>> = {
  'answer-path': () => import('./answer-path.bench.js'),
  contention: () => import('./contention.bench.js'),
  'pending-list': () => import('./pending-list.bench.js'),
  waiters: () => import('./waiters.bench.js'),
  sustained: () => import('./sustained.bench.js'),
  'existence-oracle': () => import('./existence-oracle.bench.js'),
};

async function main(): Promise<void> {
  const names = process.argv.slice(2);
  const unknown = names.filter((name) => !(name in BENCHMARKS));
  if (unknown.length > 0) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
  for (const name of names.length > 0 ? names : Object.keys(BENCHMARKS)) {
    progress(`=== ${name}`);
    const started = performance.now();
    const report = new Report();
    const module = await (BENCHMARKS[name])();
    await module.run(report);
    report.say();
    report.say(`Wall time of this benchmark: ${((performance.now() - started) / 1000).toFixed(0)} s; command: \`npm run bench -- ${name}\`.`);
    await writeSection(name, report.markdown);
    progress(`${name}: written to docs/benchmarks.md`);
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
