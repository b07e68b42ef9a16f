import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { authorizationStatements } from '#authorization';
import { channelsStatements } from '#channels';
import { clarificationStatements } from '#clarification';
import { decisionsStatements } from '#decisions';
import { type NamedStatement, persistenceStatements, type StatementCatalog } from '#persistence';
import { receiptsStatements } from '#receipts';
import { tasksStatements } from '#tasks';
import { webhooksStatements } from '#webhooks';

export interface SqlFile {
  /** Relative to the repository root: `libs/<lib>/sql/<label>[.<variant>].sql`. */
  path: string;
  text: string;
}

/** Every lib's catalog: each lists the statements its repositories run. */
function catalogs(): StatementCatalog[] {
  return [
    authorizationStatements(),
    channelsStatements(),
    clarificationStatements(),
    decisionsStatements(),
    persistenceStatements(),
    receiptsStatements(),
    tasksStatements(),
    webhooksStatements(),
  ];
}

function fileText(statement: NamedStatement): string {
  const bindings = statement.parameters.map((name, index) => `--   $${index + 1} ${name}`);
  return [
    `-- ${statement.label}${statement.variant ? ` (${statement.variant})` : ''}: a named statement, written by \`npm run sql:write\` (a test fails when this file is stale).`,
    ...(bindings.length > 0 ? ['-- Parameters:', ...bindings] : []),
    statement.text.trim(),
    '',
  ].join('\n');
}

/** Every named statement's file, as the code builds it now. */
export function sqlFiles(): SqlFile[] {
  return catalogs().flatMap(({ lib, statements }) =>
    statements.map((statement) => ({
      path: path.posix.join('libs', lib, 'sql', `${statement.label}${statement.variant ? `.${statement.variant}` : ''}.sql`),
      text: fileText(statement),
    })),
  );
}

/** The `.sql` files committed under `libs/<lib>/sql/` today. */
export async function committedSqlFiles(root: string): Promise<SqlFile[]> {
  const libs = await readdir(path.join(root, 'libs'));
  const files: SqlFile[] = [];
  for (const lib of libs) {
    const folder = path.join(root, 'libs', lib, 'sql');
    const names = await readdir(folder).catch(() => [] as string[]);
    for (const name of names.filter((entry) => entry.endsWith('.sql')).sort()) {
      const relative = path.posix.join('libs', lib, 'sql', name);
      files.push({ path: relative, text: await readFile(path.join(root, relative), 'utf8') });
    }
  }
  return files;
}

/** Writes every named statement's file under `root`, and removes the ones no statement has any more. */
export async function writeSqlFiles(root: string): Promise<string[]> {
  const wanted = sqlFiles();
  const stale = (await committedSqlFiles(root)).filter((file) => !wanted.some((entry) => entry.path === file.path));
  for (const file of stale) await rm(path.join(root, file.path));
  for (const file of wanted) {
    await mkdir(path.dirname(path.join(root, file.path)), { recursive: true });
    await writeFile(path.join(root, file.path), file.text);
  }
  return wanted.map((file) => file.path);
}
