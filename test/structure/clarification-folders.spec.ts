/**
 * The folders of `libs/clarification/src` are layered — no two of them import each other.
 * A file-level circle is caught by import-circles.spec.ts; this catches the folder-level one it
 * cannot see (a/x.ts imports b/y.ts and b/z.ts imports a/w.ts, no file circle), which is what makes
 * rooms impossible to read, test or move one at a time. Shapes both sides need go down to the lower
 * folder (bundle/ holds the resolution types, the bundle channel and the event-writing CTEs for that
 * reason). Spec files are left out: a test reaching into another room is no dependency of the room.
 */
import path from 'node:path';
import { importGraph } from '../support/import-graph.js';

const ROOT = process.cwd();
const SRC = 'libs/clarification/src';

/** The folder directly under `base` that holds `file`, or undefined for a file outside `base` or at its top level. */
function folderOf(base: string, file: string): string | undefined {
  const parts = path.relative(base, file).split(path.sep);
  return parts.length > 1 && parts[0] !== '..' ? parts[0] : undefined;
}

/** Every pair of folders under `base` that import each other, each pair once, sorted ("a <-> b"). */
function mutualFolders(graph: ReadonlyMap<string, readonly string[]>, base: string): string[] {
  const edges = new Set<string>();
  for (const [file, targets] of graph) {
    const from = folderOf(base, file);
    if (from === undefined || file.endsWith('.spec.ts')) continue;
    for (const target of targets) {
      const to = folderOf(base, target);
      if (to !== undefined && to !== from) edges.add(`${from} ${to}`);
    }
  }
  const pairs = [...edges].map((edge) => edge.split(' ')).filter(([from = '', to = '']) => from < to && edges.has(`${to} ${from}`));
  return pairs.map(([from, to]) => `${from} <-> ${to}`).sort();
}

describe('the folders of libs/clarification/src', () => {
  const graph = importGraph(ROOT, [SRC]);

  it('sees every folder and the imports between them', () => {
    expect(graph.size).toBeGreaterThan(50);
    expect(graph.get(`${SRC}/resolve/resolve-bundle.service.ts`)).toEqual(expect.arrayContaining([`${SRC}/bundle/resolution.types.ts`, `${SRC}/delivery/delivery.service.ts`]));
  });

  it('finds two folders that import each other when there are (the detector itself)', () => {
    const mutual = new Map([
      ['src/a/one.ts', ['src/b/two.ts', 'src/a/three.ts', 'src/index.ts']],
      ['src/a/three.ts', []],
      ['src/b/two.ts', ['src/c/four.ts']],
      ['src/b/five.ts', ['src/a/three.ts']],
      ['src/c/four.ts', []],
      ['src/c/four.spec.ts', ['src/b/two.ts']],
      ['src/index.ts', ['src/a/one.ts']],
    ]);
    expect(mutualFolders(mutual, 'src')).toEqual(['a <-> b']);
  });

  it('no two of them import each other', () => {
    expect(mutualFolders(graph, SRC)).toEqual([]);
  });
});
