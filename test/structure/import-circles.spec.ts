/**
 * No import circle anywhere: computed from the import statements of every source file (type-only
 * imports and `#lib` subpath imports included — a `#lib` import reaches that lib's index.ts), so a
 * circle through a lib's index counts as well as one inside a folder.
 */
import { importCircles, importGraph } from '../support/import-graph.js';

const ROOT = process.cwd();

describe('import circles', () => {
  const graph = importGraph(ROOT, ['apps', 'libs', 'test', 'bench', 'scripts', 'migrations', 'packages/client/src', 'examples']);

  it('sees the whole tree, #lib imports resolved to the lib index', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('apps/server/src/http/create-app.ts')).toEqual(expect.arrayContaining(['libs/authorization/src/index.ts', 'apps/server/src/app.module.ts']));
  });

  it('finds a circle when there is one (the detector itself)', () => {
    const circular = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(importCircles(circular)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['e.ts']]);
  });

  it('there is none', () => {
    expect(importCircles(graph)).toEqual([]);
  });
});
