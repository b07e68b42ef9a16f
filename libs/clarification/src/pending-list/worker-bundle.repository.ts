import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { taskVisibleTo, VISIBLE_WORKSPACE_IDS, visibleWorkspaceIds, type WorkspaceVisibility } from '#authorization';
import { namedStatement, type NamedStatement, statementBuilder } from '#persistence';
import { activeOrHeldRow, activeRow, CLARIFICATION_REQUEST } from '#tasks';
import { D2_ORDER } from '../bundle/bundle.sql.js';
import type { BundleRow } from '../bundle/clarification.types.js';

/** A worker (session) with a current decision: its newest bundle that is active or held by a pending delivery. */
export interface WorkerBundleHead {
  worker_id: string;
  task_id: string;
  pending_id: string;
}

/** The columns a worker's decision is read with. */
const BUNDLE_COLUMNS = `m.id, m.task_session_id, m.task_id, s.task_id AS session_task_id, m.turn_id, m.content, m.metadata, m.created_at`;

const WORKER_BUNDLE_CURRENT_BUNDLE = namedStatement(
  'worker_bundle_current_bundle',
  ['worker_id'],
  `SELECT ${BUNDLE_COLUMNS}, ${activeRow('m')} AS row_active FROM task_session_messages m
         JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.type = '${CLARIFICATION_REQUEST}'
          AND m.metadata->>'pending_id' = (
            SELECT cm.metadata->>'pending_id' FROM task_session_messages cm
             WHERE cm.task_session_id = :worker_id AND ${activeOrHeldRow('cm')}
             ORDER BY cm.created_at DESC, cm.metadata->>'pending_id' DESC LIMIT 1)
        ORDER BY ${D2_ORDER}`,
);

const WORKER_BUNDLE_BUNDLE_ROWS = namedStatement(
  'worker_bundle_bundle_rows',
  ['pending_ids'],
  `SELECT ${BUNDLE_COLUMNS} FROM task_session_messages m
         JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.metadata->>'pending_id' = ANY(:pending_ids) AND m.type = '${CLARIFICATION_REQUEST}'
        ORDER BY m.metadata->>'pending_id', ${D2_ORDER}`,
);

/** One head per visible worker with a current decision (see `listWorkerBundles`). */
const WORKER_BUNDLE_HEADS = namedStatement(
  'worker_bundle_heads',
  [VISIBLE_WORKSPACE_IDS],
  statementBuilder()
      .select('heads.worker_id', 'worker_id')
      .addSelect('heads.task_id', 'task_id')
      .addSelect('heads.pending_id', 'pending_id')
      .from((sub) => {
        const query = sub
          .select('cm.task_session_id', 'worker_id')
          .addSelect('t.id', 'task_id')
          .addSelect(`cm.metadata->>'pending_id'`, 'pending_id')
          .addSelect('cm.created_at', 'created_at')
          .distinctOn(['cm.task_session_id'])
          .from('task_session_messages', 'cm')
          .innerJoin('task_sessions', 'cs', 'cs.id = cm.task_session_id')
          .innerJoin('tasks', 't', 't.id = cs.task_id')
          .where(activeOrHeldRow('cm'))
          .andWhere(taskVisibleTo('t'))
          .orderBy('cm.task_session_id')
          .addOrderBy('cm.created_at', 'DESC')
          .addOrderBy(`cm.metadata->>'pending_id'`, 'DESC');
        return query;
      }, 'heads')
      .orderBy('heads.created_at', 'ASC')
      .addOrderBy('heads.worker_id', 'ASC').getQuery(),
);

/** The statements WorkerBundleRepository runs, for `npm run sql:write`. */
export const workerBundleStatements: readonly NamedStatement[] = [
  WORKER_BUNDLE_CURRENT_BUNDLE,
  WORKER_BUNDLE_BUNDLE_ROWS,
  WORKER_BUNDLE_HEADS,
];

/** The bundles of workers (sessions) as the decisions surface reads them: each worker's current decision. */
@Injectable()
export class WorkerBundleRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Every row of the worker's current decision, in question order, and whether the bundle is active;
   * no rows when it has no decision. A
   * worker's decision is its session's newest bundle that is active or held by a winner's pending
   * delivery (the shared rules), ties broken by pending_id — the same choice `listWorkerBundles` makes.
   * The caller tells the two apart by the bundle's settlement.
   */
  async currentBundle(workerId: string): Promise<{ rows: BundleRow[]; active: boolean }> {
    const rows = await WORKER_BUNDLE_CURRENT_BUNDLE.rows<BundleRow & { row_active: boolean }>(this.dataSource, { worker_id: workerId });
    return { rows: rows.map(({ row_active: _active, ...row }) => row), active: rows.some((row) => row.row_active) };
  }

  /** One head per visible worker (session) that has a current decision (see `currentBundleRows`), oldest bundle first. */
  listWorkerBundles(visibility: WorkspaceVisibility): Promise<WorkerBundleHead[]> {
    return WORKER_BUNDLE_HEADS.rows<WorkerBundleHead>(this.dataSource, { [VISIBLE_WORKSPACE_IDS]: visibleWorkspaceIds(visibility) });
  }

  /** The rows of these bundles, each in question order. */
  bundleRows(pendingIds: string[]): Promise<BundleRow[]> {
    if (pendingIds.length === 0) return Promise.resolve([]);
    return WORKER_BUNDLE_BUNDLE_ROWS.rows<BundleRow>(this.dataSource, { pending_ids: pendingIds });
  }
}
