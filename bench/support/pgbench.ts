import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Statement } from './captured-sql.js';
import { seededIdSql } from './seed.js';

const run = promisify(execFile);

/** The sequence a pgbench script draws its bundle index from (one per transaction). */
export const PGBENCH_SEQUENCE = 'bench_pgbench_bundle';

/** pgbench from BENCH_PGBENCH, else the first on the PATH or in Debian's PostgreSQL client folders; undefined when there is none. */
export function pgbenchBinary(): string | undefined {
  const candidates = [process.env.BENCH_PGBENCH, '/usr/bin/pgbench', '/usr/local/bin/pgbench', ...['18', '17', '16', '15'].map((v) => `/usr/lib/postgresql/${v}/bin/pgbench`)];
  return candidates.find((candidate): candidate is string => !!candidate && existsSync(candidate));
}

type SeededKey = 'pendingId' | 'sessionId' | 'taskId' | 'turnId';

/** A parameter as SQL: a literal, with each of bundle 0's ids (and each generated id) replaced by its expression of the index. */
function parameterSql(value: unknown, ids: ReadonlyMap<string, SeededKey>, generated: readonly string[], index: string): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean' || typeof value === 'number') return String(value);
  if (typeof value !== 'string') throw new Error(`pgbench replay: a parameter of type ${typeof value} cannot be written as SQL`);
  // An escape string with every colon escaped: pgbench reads any `:word` as one of its variables, even inside a literal.
  let expression = `E'${value.replace(/\\/g, '\\\\').replace(/'/g, "''").replace(/:/g, '\\x3a')}'`;
  for (const [id, key] of ids) if (value.includes(id)) expression = `replace(${expression}, '${id}', ${seededIdSql(key, index)})`;
  generated.forEach((id, k) => {
    if (value.includes(id)) expression = `replace(${expression}, '${id}', md5('generated-${k}-' || (${index})::text)::uuid::text)`;
  });
  return `(${expression})`;
}

/** A statement's text with each `$n` replaced by its parameter as SQL (highest first, so `$1` never eats `$12`). */
function inline(statement: Statement, ids: ReadonlyMap<string, SeededKey>, generated: readonly string[], index: string): string {
  return statement.sql.replace(/\$(\d+)(?!\d)/g, (_match, n: string) => parameterSql(statement.parameters[Number(n) - 1], ids, generated, index));
}

/**
 * The captured claim transaction as a pgbench script: the same statements in the same order, each
 * bundle's ids computed in SQL from one index per transaction. The index comes from a sequence read
 * inside the transaction's first statement (the session's advisory lock), so a transaction sends
 * exactly the statements the app's does.
 */
export function pgbenchClaimScript(claim: readonly Statement[], ids: ReadonlyMap<string, SeededKey>, generated: readonly string[]): string {
  const lines: string[] = [];
  let indexed = false;
  for (const statement of claim) {
    if (/^\s*(START TRANSACTION|BEGIN|COMMIT)\b/i.test(statement.sql)) {
      lines.push(`${statement.sql.trim()};`);
      continue;
    }
    if (!indexed) {
      if (!/pg_advisory_xact_lock/.test(statement.sql)) throw new Error('pgbench replay: the claim transaction does not open with the advisory lock');
      // The lock statement with the index joined in; every column kept, so nothing of it is planned away.
      lines.push(
        `SELECT n.i, l.locked, l.remote_agent IS NULL AS local_agent FROM (SELECT nextval('${PGBENCH_SEQUENCE}') AS i) n CROSS JOIN LATERAL (${inline(statement, ids, generated, 'n.i')}) l\n\\gset`,
      );
      indexed = true;
      continue;
    }
    lines.push(`${inline(statement, ids, generated, ':i')};`);
  }
  return `${lines.join('\n')}\n`;
}

/** Runs `script` with pgbench (prepared statements, as the app sends its hot ones): `clients` connections, `transactions` each; tps without connection time. */
export async function runPgbench(binary: string, databaseUrl: string, script: string, options: { clients: number; transactions: number }): Promise<number> {
  const folder = await mkdtemp(join(tmpdir(), 'parley-pgbench-'));
  try {
    const file = join(folder, 'claim.sql');
    await writeFile(file, script);
    const { stdout } = await run(
      binary,
      ['--no-vacuum', '--protocol=prepared', `--client=${options.clients}`, '--jobs=2', `--transactions=${options.transactions}`, `--file=${file}`, databaseUrl],
      { maxBuffer: 16 * 1024 * 1024 },
    );
    const failed = /number of failed transactions: (\d+)/.exec(stdout);
    if (failed && Number(failed[1]) > 0) throw new Error(`pgbench: ${failed[1]} failed transactions`);
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(stdout);
    if (!tps) throw new Error(`pgbench printed no tps:\n${stdout}`);
    return Number(tps[1]);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
