/**
 * Migrations are frozen: each holds its own SQL text and imports nothing of the code, so a later
 * change of a SQL builder (the activeness rule, the visibility key) cannot change what an old
 * migration does to a database that has not run it yet.
 */
import path from 'node:path';
import { importGraph } from '../support/import-graph.js';

describe('migrations', () => {
  it('import nothing but TypeORM (and the index, the migrations)', () => {
    const graph = importGraph(process.cwd(), ['migrations']);
    expect(graph.size).toBeGreaterThan(1);
    const reached = [...graph].flatMap(([file, targets]) =>
      targets.filter((target) => !(path.basename(file) === 'index.ts' && target.startsWith('migrations/'))).map((target) => `${file} → ${target}`),
    );
    expect(reached).toEqual([]);
  });
});
