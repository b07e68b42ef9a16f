/**
 * Every SQL statement a repository runs is a named statement (label, text, parameter order) listed in
 * its lib's catalog, and its text is committed under `libs/<lib>/sql/` (`npm run sql:write`), so a
 * reviewer sees the SQL a change produces. Fails when a committed file is stale, missing or left over,
 * when a lib's code defines a named statement its catalog does not list (its text would never be
 * written), and when code runs SQL text that is not a named statement.
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

const relative = (file: string): string => path.relative(ROOT, file).split(path.sep).join('/');

/**
 * The only places that send SQL text themselves, each for a reason a named statement cannot serve:
 * the runners of named statements, the migration lock taken before any statement exists, the
 * listener's LISTEN and probe on its own connection, the dialect builder that composes templates, and
 * the rate limiter's store, whose statements the rate-limiter-flexible library writes.
 */
const RUNS_TEXT = new Set([
  'libs/persistence/src/query/query-rows.ts',
  'libs/persistence/src/query/named-statement.ts',
  'libs/persistence/src/connection/database.ts',
  'libs/persistence/src/connection/database-listener.ts',
  'libs/persistence/src/query/statement-builder.sql.ts',
  'libs/rate-limit/src/rate-limit.repository.ts',
]);

/** A call that sends SQL text or runs a query builder against a connection. */
const SENDS_TEXT = /\.query\s*[<(]|createQueryBuilder\s*\(|\.getRaw(?:Many|One)\s*[<(]|\.getMany\s*[<(]|\.getOne\s*[<(]|\bqueryText\s*[<(]/;

describe('committed SQL of the named statements (run `npm run sql:write` when this fails)', () => {
  const wanted = sqlFiles();
  const sources = ['libs', 'apps/server/src'].flatMap((dir) => sourcesUnder(path.join(ROOT, dir)));

  it('lists the statements of every lib whose repositories run SQL', () => {
    const paths = wanted.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'libs/clarification/sql/claim.sql',
        'libs/clarification/sql/authorized_bundle.user.sql',
        'libs/clarification/sql/pending_heads.sql',
        'libs/authorization/sql/active_token.sql',
        'libs/authorization/sql/visible_workspaces.sql',
        'libs/channels/sql/chat_card_claim_due.sql',
        'libs/persistence/sql/process_lease_renew.sql',
        'libs/tasks/sql/task_list.all.sql',
        'libs/tasks/sql/task_list.workspace.sql',
      ]),
    );
    expect(new Set(paths).size).toBe(paths.length);
    const libsWithRepositories = new Set(
      sources.filter((file) => file.endsWith('.repository.ts') && /namedStatement\(/.test(readFileSync(file, 'utf8'))).map((file) => relative(file).split('/')[1]),
    );
    const libsWritten = new Set(paths.map((file) => file.split('/')[1]));
    expect([...libsWithRepositories].filter((lib) => !libsWritten.has(lib))).toEqual([]);
  });

  it('every committed file is exactly what the code builds, and there is no other', async () => {
    const committed = await committedSqlFiles(ROOT);
    expect(committed.map((file) => file.path).sort()).toEqual(wanted.map((file) => file.path).sort());
    for (const file of wanted) {
      expect({ path: file.path, text: committed.find((entry) => entry.path === file.path)?.text }).toEqual(file);
    }
  });

  it("every label a lib's code passes to namedStatement is in that lib's catalog", () => {
    const missing: string[] = [];
    for (const file of sources.filter((entry) => relative(entry).startsWith('libs/'))) {
      const lib = relative(file).split('/')[1];
      for (const match of readFileSync(file, 'utf8').matchAll(/namedStatement\(\s*'([a-z0-9_]+)'/g)) {
        const written = wanted.some((entry) => entry.path.startsWith(`libs/${lib}/sql/${match[1]}.`));
        if (!written) missing.push(`${relative(file)}: ${match[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('no code runs SQL text of its own: every statement is a named statement', () => {
    const offenders = sources
      .filter((file) => !RUNS_TEXT.has(relative(file)))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, index) => (SENDS_TEXT.test(line) ? [`${relative(file)}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(offenders).toEqual([]);
  });
});
