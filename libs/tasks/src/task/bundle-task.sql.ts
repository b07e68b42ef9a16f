/**
 * Rule M5 in SQL, the one place it is written: the task a clarification row belongs to is the row's
 * own `task_id`, or — when that is empty, as upstream writes it when its session lookup failed — its
 * session's `task_sessions.task_id`; '' when neither yields one (M5a: unresolvable, a task no caller
 * reaches). The bundle index, the access check and the lifecycle events all resolve it through this;
 * clarification's bundle.mapper.ts applies the same rule to rows already read.
 *
 * Takes SQL expressions (not aliases): some callers read the session's task from a joined row, one
 * from a column a CTE already carries. Imports nothing, like the activeness fragments that use it.
 */
export function bundleTaskIdSql(messageTaskIdExpression: string, sessionTaskIdExpression: string): string {
  return `COALESCE(NULLIF(${messageTaskIdExpression}, ''), ${sessionTaskIdExpression}, '')`;
}
