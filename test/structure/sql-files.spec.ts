/**
 * Every named statement's text is committed under `libs/<lib>/sql/` (`npm run sql:write`), so a
 * reviewer sees the SQL a change produces. Fails when a committed file is stale, missing or left over,
 * and when code defines a named statement that no lib's catalog lists (its text would never be written).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { committedSqlFiles, sqlFiles } from '../../apps/server/src/cli/sql-files.js';

const ROOT = process.cwd();

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourcesUnder(full);
    return full.endsWith('.ts') && !full.endsWith('.spec.ts') ? [full] : [];
  });
}

describe('committed SQL of the named statements (run `npm run sql:write` when this fails)', () => {
  const wanted = sqlFiles();

  it('lists the statements (claim, claim_lock, authorized_bundle, the pending list heads, active_token)', () => {
    const paths = wanted.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'libs/clarification/sql/claim.sql',
        'libs/clarification/sql/claim_lock.sql',
        'libs/clarification/sql/authorized_bundle.user.sql',
        'libs/clarification/sql/pending_heads.sql',
        'libs/clarification/sql/pending_candidates.sql',
        'libs/authorization/sql/active_token.sql',
      ]),
    );
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('every committed file is exactly what the code builds, and there is no other', async () => {
    const committed = await committedSqlFiles(ROOT);
    expect(committed.map((file) => file.path).sort()).toEqual(wanted.map((file) => file.path).sort());
    for (const file of wanted) {
      expect({ path: file.path, text: committed.find((entry) => entry.path === file.path)?.text }).toEqual(file);
    }
  });

  it('every label code passes to namedStatement is in a catalog', () => {
    const labels = new Set<string>();
    for (const file of sourcesUnder(path.join(ROOT, 'libs'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(/namedStatement\(\s*'([a-z0-9_]+)'/g)) labels.add(match[1]);
    }
    expect(labels.size).toBeGreaterThan(0);
    const written = new Set(wanted.map((file) => path.basename(file.path).split('.')[0]));
    expect([...labels].filter((label) => !written.has(label))).toEqual([]);
  });
});
