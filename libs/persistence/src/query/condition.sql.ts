import type { Brackets } from 'typeorm';
import { statementBuilder } from './statement-builder.sql.js';

const WHERE = ' WHERE ';

/**
 * The SQL text of a condition built with the query builder, its `:name` placeholders kept — for the
 * places TypeORM's builder cannot hold a condition itself: a select-list expression, a LATERAL
 * subquery. The builder renders it as the WHERE clause of a query whose text before it is fixed.
 */
export function conditionSql(condition: Brackets): string {
  const text = statementBuilder().select('1').from('condition', 'condition').where(condition).getQuery();
  return text.slice(text.indexOf(WHERE) + WHERE.length);
}
