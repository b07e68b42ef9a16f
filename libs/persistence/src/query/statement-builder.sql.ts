import { DataSource } from 'typeorm';

/** A DataSource that never connects: it lends the query builder PostgreSQL's dialect, nothing more. */
const dialect = new DataSource({ type: 'postgres' });

/**
 * A query builder for a statement composed once, at module load: its `getQuery()` text (`:name`
 * placeholders, no value inlined) becomes a NamedStatement's template, one per shape the code runs.
 */
export function statementBuilder() {
  return dialect.createQueryBuilder();
}

