/**
 * A comment says why; the measurement behind it lives in docs/benchmarks.md, where it is dated and can
 * be taken again — a figure in a comment goes stale unseen. Checked over the comments of libs/ and apps/.
 *
 * The allow rule, kept short: a quantity with a unit (ms, s, KiB, MB, %, ×) is a measurement when the
 * same comment line compares or estimates it ("vs", "instead of", "against", "took", "about", "~",
 * "faster", a percentile, a median) — or a comment estimates a ratio in words ("about twice").
 * A bound, a default or a protocol constant stated plainly ("≤ 64 KB", "expires in 3 s", "(10 s)") is
 * documentation, not a measurement.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const ROOT = process.cwd();
const SCANNED = ['libs', 'apps'];
const SKIPPED = new Set(['node_modules', 'dist', 'generated']);

const QUANTITY = /\d[\d,.]*\s?(ms|µs|s|min|KiB|MiB|GiB|kB|KB|MB|GB|%|×)(?![\w])/;
const CUE = /(\bvs\b|\bversus\b|\binstead of\b|\bagainst\b|\btook\b|\babout\b|\broughly\b|\bnearly\b|~\s?\d|\bfaster\b|\bslower\b|\bp(50|90|95|99)\b|\bmedian\b|\bmeasured\b)/i;
const RATIO_IN_WORDS = /\b(about|roughly|nearly|almost)\s+(twice|three times|half|an order of magnitude)\b/i;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|tsx|mts|mjs)$/.test(name) ? [full] : [];
  });
}

/** The comment lines of a source text, with their line numbers (`//` and block comments; strings are not told apart). */
function commentLines(text: string): { line: number; text: string }[] {
  const found: { line: number; text: string }[] = [];
  for (const match of text.matchAll(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g)) {
    const first = text.slice(0, match.index).split('\n').length;
    match[0].split('\n').forEach((line, offset) => found.push({ line: first + offset, text: line }));
  }
  return found;
}

function quotesMeasurement(line: string): boolean {
  return (QUANTITY.test(line) && CUE.test(line)) || RATIO_IN_WORDS.test(line);
}

describe('comments quote no measurement (structure)', () => {
  const files = SCANNED.flatMap((dir) => sourceFiles(path.join(ROOT, dir)));

  it('sees the sources and their comments', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files.flatMap((file) => commentLines(readFileSync(file, 'utf8'))).length).toBeGreaterThan(3000);
  });

  it('tells a measurement from a bound (the detector itself)', () => {
    for (const measured of [
      ' * bundle of every key before sorting (65 ms vs 1.4 ms at 100k bundles). When a row',
      ' * instead of walking the index in order and stopping at the LIMIT (> 90 s vs 1.5 ms).',
      ' * connection: the claim CTE\'s planning cost about twice its execution).',
      '// a spawned Node process per call cost ~3 s',
      '/** a clean shutdown here takes about 0.5 s */',
      '// the named path is 1.3× faster',
    ]) {
      expect([measured, quotesMeasurement(measured)]).toEqual([measured, true]);
    }
    for (const bound of [
      '/** The modal for a bundle a button cannot answer; the trigger expires in 3 s, so it is opened before the reply. */',
      '/** Optional action (name ≤ 200 characters, arguments a JSON object ≤ 64 KB); validated by the service. */',
      ' * SIGTERM afterwards still ends the server cleanly, well within main.ts\'s 10 s shutdown deadline',
      '// bundles(first: 10) { nodes { id } }: 10 × (1 + nodes(1 + id 1)).',
      ' * postmaster of another Parley process already serves the directory, it is shared, not started twice.',
    ]) {
      expect([bound, quotesMeasurement(bound)]).toEqual([bound, false]);
    }
  });

  it('no comment in libs/ or apps/ quotes a measurement (docs/benchmarks.md holds them)', () => {
    const found = files.flatMap((file) =>
      commentLines(readFileSync(file, 'utf8'))
        .filter((comment) => quotesMeasurement(comment.text))
        .map((comment) => `${path.relative(ROOT, file)}:${comment.line}: ${comment.text.trim()}`),
    );
    expect(found).toEqual([]);
  });
});
