/**
 * No folder under libs/ or apps/ holds more than 14 files: a lib grows by rooms named for their
 * concern (libs/clarification/src/claim/, libs/common/src/paging/, …), not by a longer flat list.
 * Files are counted directly in each folder, spec files included (a spec stays beside its module).
 * Left out: node_modules/ and dist/ (installed and built, not written), and each lib's sql/ folder,
 * which `npm run sql:write` fills with one file per named statement.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';

const ROOT = process.cwd();
const MAX_FILES = 14;
const NOT_WRITTEN = new Set(['node_modules', 'dist']);
/** `libs/<lib>/sql`: the generated statement files. */
const GENERATED = /^libs\/[^/]+\/sql$/;

/** Every regular file under `dir` (relative to the root, `/`-separated), skipping what is not written by hand. */
function filesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return NOT_WRITTEN.has(entry.name) || GENERATED.test(relative) ? [] : filesUnder(relative);
    return entry.isFile() ? [relative] : [];
  });
}

/** The folders holding more than `limit` files directly, as `folder: count`, most crowded first. */
function crowdedFolders(files: readonly string[], limit: number): string[] {
  const counts = new Map<string, number>();
  for (const file of files) counts.set(path.posix.dirname(file), (counts.get(path.posix.dirname(file)) ?? 0) + 1);
  return [...counts]
    .filter(([, count]) => count > limit)
    .sort(([a, countA], [b, countB]) => countB - countA || a.localeCompare(b))
    .map(([folder, count]) => `${folder}: ${String(count)}`);
}

describe('folder size under libs/ and apps/', () => {
  const files = ['libs', 'apps'].flatMap((dir) => filesUnder(dir));

  it('counts only the files directly in a folder, and names each folder over the limit (the detector itself)', () => {
    const tree = ['a/one.ts', 'a/two.ts', 'a/three.ts', 'a/b/four.ts', 'a/b/five.ts', 'c/six.ts', 'c/seven.ts', 'c/eight.ts'];
    expect(crowdedFolders(tree, 2)).toEqual(['a: 3', 'c: 3']);
    expect(crowdedFolders(tree, 3)).toEqual([]);
  });

  it('sees the hand-written files and none of the generated or built ones', () => {
    expect(files.length).toBeGreaterThan(300);
    expect(files).toEqual(expect.arrayContaining(['libs/common/src/index.ts', 'libs/clarification/src/claim/claim.repository.ts', 'apps/web/src/main.tsx']));
    expect(files.filter((file) => /(^|\/)(node_modules|dist)\/|^libs\/[^/]+\/sql\//.test(file))).toEqual([]);
  });

  it(`no folder holds more than ${String(MAX_FILES)} files`, () => {
    expect(crowdedFolders(files, MAX_FILES)).toEqual([]);
  });
});
