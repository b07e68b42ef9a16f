import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/** `from '…'`, `import '…'`, `import('…')` and `export … from '…'`, type-only ones included: a type circle is a design circle too. */
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])([^'"]+)\1/g;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (name === 'node_modules' || name === 'dist') return [];
    if (statSync(full).isDirectory()) return sourcesUnder(full);
    return /\.(ts|tsx|mjs)$/.test(name) ? [full] : [];
  });
}

/** The file a specifier names, or undefined for a package. `#lib` is the lib's index (package.json "imports"). */
function resolve(root: string, specifier: string, importer: string, subpaths: Record<string, string>): string | undefined {
  const subpath = subpaths[specifier];
  if (subpath !== undefined) return path.join(root, subpath);
  if (!specifier.startsWith('.')) return undefined;
  const target = path.resolve(path.dirname(importer), specifier);
  const candidates = [target.replace(/\.js$/, '.ts'), target.replace(/\.js$/, '.tsx'), target, `${target}.ts`, path.join(target, 'index.ts')];
  return candidates.find((candidate) => existsSync(candidate) && statSync(candidate).isFile());
}

/** Every source file under `dirs` (relative to `root`) with the source files it imports. */
export function importGraph(root: string, dirs: readonly string[]): Map<string, string[]> {
  const { imports } = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { imports: Record<string, { types: string }> };
  const subpaths = Object.fromEntries(Object.entries(imports).map(([name, target]) => [name, target.types]));
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((dir) => sourcesUnder(path.join(root, dir)))) {
    const text = readFileSync(file, 'utf8');
    const targets = [...text.matchAll(SPECIFIER)].map((match) => resolve(root, match[2] ?? '', file, subpaths)).filter((target) => target !== undefined);
    graph.set(path.relative(root, file), [...new Set(targets.map((target) => path.relative(root, target)))]);
  }
  return graph;
}

/** The import circles of a graph: its strongly connected components of more than one file, or a file importing itself (Tarjan). */
export function importCircles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, counter);
    low.set(file, counter);
    counter += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) {
        low.set(file, Math.min(low.get(file) ?? 0, index.get(next) ?? 0));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string | undefined;
    do {
      member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || (graph.get(file) ?? []).includes(file)) circles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return circles;
}
