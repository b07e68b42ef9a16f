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
  planningMs: number;
  executionMs: number;
  /** Rows every scan node of the plan produced, all loops summed (what the statement read). */
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
  const json = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Planning Time': number; 'Execution Time': number }] }>(
    `EXPLAIN (ANALYZE, FORMAT JSON) ${statement.sql}`,
    statement.parameters,
  );
  const root = json.rows[0]?.['QUERY PLAN'][0];
  if (!root) throw new Error('EXPLAIN returned no plan');
  let firstMessagesScan: PlanNode | undefined;
  const sorts: { rows: number; method: string }[] = [];
  let drivingRows = 0;
  walk(root.Plan, (node) => {
    const rows = Math.round((node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1));
    if (/Scan/.test(node['Node Type'])) drivingRows += rows;
    if (!firstMessagesScan && node['Relation Name'] === 'task_session_messages' && /Scan/.test(node['Node Type'])) firstMessagesScan = node;
    if (node['Node Type'] === 'Sort' || node['Node Type'] === 'Incremental Sort') {
      sorts.push({ rows, method: node['Sort Method'] ?? '' });
    }
  });
  const drivenByPendingIndex = firstMessagesScan?.['Index Name'] === PENDING_INDEX;
  const sortText = sorts.length === 0 ? 'no Sort node' : sorts.map((sort) => `Sort of ${sort.rows} rows (${sort.method})`).join(', ');
  const verdict = drivenByPendingIndex
    ? `index-driven keyset walk on ${PENDING_INDEX}; its scans read ${drivingRows} rows, ${sortText}`
    : `first scan of the messages: ${firstMessagesScan?.['Node Type'] ?? 'none'} ${firstMessagesScan?.['Index Name'] ?? ''}; the plan's scans read ${drivingRows} rows, ${sortText}`;
  return {
    text: text.rows.map((row) => row['QUERY PLAN']).join('\n'),
    planningMs: root['Planning Time'],
    executionMs: root['Execution Time'],
    drivingRows,
    drivenByPendingIndex,
    sorts,
    verdict,
  };
}
