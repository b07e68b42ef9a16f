import type pg from 'pg';
import type { Statement } from './captured-sql.js';

export const PENDING_INDEX = 'task_session_messages_pending_clarification_idx';

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Alias?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Sort Method'?: string;
  Plans?: PlanNode[];
}

export interface PlanReport {
  text: string;
  executionMs: number;
  /** Rows the outermost scan of task_session_messages produced (the walk, when it is the pending index). */
  drivingRows: number;
  /** Whether that index is read in the statement's own order (the outermost scan of the messages). */
  drivenByPendingIndex: boolean;
  /** Sort nodes and how many rows each sorted. */
  sorts: { rows: number; method: string }[];
  verdict: string;
}

function walk(node: PlanNode, visit: (node: PlanNode, depth: number) => void, depth = 0): void {
  visit(node, depth);
  for (const child of node.Plans ?? []) walk(child, visit, depth + 1);
}

/** EXPLAIN (ANALYZE, BUFFERS) of a captured statement, as text for the report plus a short verdict. */
export async function explain(db: pg.Pool, statement: Statement): Promise<PlanReport> {
  const text = await db.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, statement.parameters);
  const json = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`,
    statement.parameters,
  );
  const root = json.rows[0]?.['QUERY PLAN'][0];
  if (!root) throw new Error('EXPLAIN returned no plan');
  let firstMessagesScan: PlanNode | undefined;
  const sorts: { rows: number; method: string }[] = [];
  walk(root.Plan, (node) => {
    const rows = Math.round((node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1));
    if (!firstMessagesScan && node['Relation Name'] === 'task_session_messages' && /Scan/.test(node['Node Type'])) firstMessagesScan = node;
    if (node['Node Type'] === 'Sort' || node['Node Type'] === 'Incremental Sort') {
      sorts.push({ rows, method: node['Sort Method'] ?? '' });
    }
  });
  const drivenByPendingIndex = firstMessagesScan?.['Index Name'] === PENDING_INDEX;
  const drivingRows = Math.round((firstMessagesScan?.['Actual Rows'] ?? 0) * (firstMessagesScan?.['Actual Loops'] ?? 1));
  const sortText = sorts.length === 0 ? 'no Sort node' : sorts.map((sort) => `Sort of ${sort.rows} rows (${sort.method})`).join(', ');
  const verdict = drivenByPendingIndex
    ? `index-driven keyset walk on ${PENDING_INDEX}: the walk read ${drivingRows} index entries for the page, ${sortText}`
    : `NOT driven by ${PENDING_INDEX} (outer scan: ${firstMessagesScan?.['Node Type'] ?? '?'} ${firstMessagesScan?.['Index Name'] ?? ''}, ` +
      `${drivingRows} rows), ${sortText}`;
  return {
    text: text.rows.map((row) => row['QUERY PLAN']).join('\n'),
    executionMs: root['Execution Time'],
    drivingRows,
    drivenByPendingIndex,
    sorts,
    verdict,
  };
}
