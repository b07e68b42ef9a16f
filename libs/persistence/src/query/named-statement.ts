import { createHash } from 'node:crypto';
import type pg from 'pg';
import { DataSource, type QueryRunner } from 'typeorm';
import { queryText, type ReadExecutor, type SqlExecutor } from './query-rows.js';

/** PostgreSQL truncates identifiers to 63 bytes; a label plus `_` and the 16-hex digest stays under it. */
const MAX_LABEL = 40;

/** Each statement text's name, computed once per text (the texts are a fixed, finite set). */
const names = new Map<string, string>();

/** The DataSources behind a transaction pooler, which keeps no prepared statement from one transaction to the next. */
const unnamedOnly = new WeakSet<DataSource>();

/** Every NamedStatement run on `dataSource` is sent unnamed (parsed and planned on every call). */
export function sendUnnamed(dataSource: DataSource): void {
  unnamedOnly.add(dataSource);
}

/**
 * A statement a repository runs: a fixed text written with `:name` placeholders, declared once at
 * module level; `parameters` lists the names, and the name at index i is bound as `$(i+1)` — the one
 * place a parameter list is mapped to positions. `npm run sql:write` writes every such text (one file
 * per label and variant) to the lib's `sql/` folder, so a reviewer sees the SQL a change produces.
 */
export class NamedStatement<P extends string = string> {
  constructor(
    /** The prepared statement's label (its name is the label plus a digest of the text). */
    readonly label: string,
    readonly parameters: readonly P[],
    /** The text as PostgreSQL receives it (positional `$n`). */
    readonly text: string,
    /** Which of the label's texts this is, when a method builds a few (one per caller kind, say). */
    readonly variant: string | undefined,
  ) {}

  /**
   * The rows of a hot statement, sent as a named prepared statement: PostgreSQL parses and plans it
   * once per connection (a generic plan after its five custom ones) instead of on every call.
   */
  run<T>(executor: SqlExecutor, values: Readonly<Record<P, unknown>>): Promise<T[]> {
    return runNamed<T>(executor, {
      name: statementName(this.label, this.text),
      text: this.text,
      values: this.bind(values),
    });
  }

  /** The rows of a statement sent unnamed (parsed and planned on every call): not worth a prepared statement on every connection. */
  rows<T>(executor: ReadExecutor, values: Readonly<Record<P, unknown>>): Promise<T[]> {
    return queryText<T>(executor, this.text, this.bind(values));
  }

  /** The first row of `rows`. */
  async row<T>(executor: SqlExecutor, values: Readonly<Record<P, unknown>>): Promise<T | undefined> {
    const rows = await this.rows<T>(executor, values);
    return rows[0];
  }

  private bind(values: Readonly<Record<P, unknown>>): unknown[] {
    return this.parameters.map((name) => values[name]);
  }
}

/** The statements a lib sends named, for `npm run sql:write` and its staleness test. */
export interface StatementCatalog {
  /** The lib's folder name under libs/. */
  readonly lib: string;
  readonly statements: readonly NamedStatement[];
}

function placeholderPattern(name: string): RegExp {
  // Not after a word character or a colon (`::text` is a cast), not followed by a word character.
  return new RegExp(`(?<![\\w:]):${name}(?!\\w)`, 'g');
}

/**
 * A named statement from a `:name` template. Every declared name must appear in the template, and
 * no name twice in `parameters`; a `:word` that is not declared stays as it is (a cast, a time format).
 */
export function namedStatement<const P extends string>(
  label: string,
  parameters: readonly P[],
  template: string,
  variant?: string,
): NamedStatement<P> {
  if (!/^[a-z][a-z0-9_]*$/.test(label) || label.length > MAX_LABEL) throw new Error(`invalid statement label: ${label}`);
  if (new Set(parameters).size !== parameters.length) throw new Error(`${label}: a parameter is declared twice`);
  // Longest names first, so `:after_at` is never read as `:after` followed by `_at`.
  const byLength = parameters.map((name, index) => ({ name, index })).sort((a, b) => b.name.length - a.name.length);
  let text = template;
  for (const { name, index } of byLength) {
    if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`${label}: invalid parameter name ${name}`);
    const pattern = placeholderPattern(name);
    if (!pattern.test(text)) throw new Error(`${label}: parameter :${name} does not appear in the text`);
    text = text.replace(placeholderPattern(name), `$${index + 1}`);
  }
  return new NamedStatement(label, parameters, text, variant);
}

/**
 * The prepared statement's name for `text`: the caller's label plus a digest of the exact text, so two
 * texts can never share a name on a connection (pg refuses that) — also when one label has variants.
 */
export function statementName(label: string, text: string): string {
  const known = names.get(text);
  if (known !== undefined) return known;
  const name = `${label}_${createHash('sha256').update(text).digest('hex').slice(0, 16)}`;
  names.set(text, name);
  return name;
}

async function runOn<T>(runner: QueryRunner, query: pg.QueryConfig): Promise<T[]> {
  const client = (await runner.connect()) as pg.PoolClient;
  runner.connection.logger.logQuery(query.text, query.values, runner);
  const result = await client.query<T & pg.QueryResultRow>(query);
  return result.rows;
}

/**
 * Runs on the open transaction's connection, or on a pooled one; pg prepares the statement again by
 * itself on a new connection (after an outage, for instance). Unnamed on a DataSource behind a pooler.
 */
async function runNamed<T>(executor: SqlExecutor, named: pg.QueryConfig): Promise<T[]> {
  const dataSource = executor instanceof DataSource ? executor : executor.connection;
  const query = unnamedOnly.has(dataSource) ? { text: named.text, values: named.values } : named;
  if (!(executor instanceof DataSource) && executor.queryRunner) return runOn<T>(executor.queryRunner, query);
  const runner = dataSource.createQueryRunner();
  try {
    return await runOn<T>(runner, query);
  } finally {
    await runner.release();
  }
}
