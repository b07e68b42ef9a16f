import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { taskVisibilityCondition, type WorkspaceVisibility } from '../../authorization/src/index.js';
import { queryRows } from '../../persistence/src/index.js';
import { activeRow, CLARIFICATION_REQUEST, pendingStatus } from './activeness.repository.js';
import { D2_ORDER } from './bundle.repository.js';
import type { BundleRow } from './clarification.types.js';

export interface PendingListQuery {
  visibility: WorkspaceVisibility;
  workspaceId: string | undefined;
  createdSince: Date | undefined;
  after: { scanKey: string; pendingId: string } | undefined;
  limit: number;
}

export interface PendingBundleHead {
  pending_id: string;
  task_id: string;
  session_id: string;
  /** The keyset position: created_at of the bundle's first pending row, at full precision. */
  scan_key: string;
}

const PENDING_ID = `m.metadata->>'pending_id'`;
const MICROS = `'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'`;
const BUNDLE_CREATED_AT = `(SELECT MIN(d1.created_at) FROM task_session_messages d1
  WHERE d1.metadata->>'pending_id' = ${PENDING_ID} AND d1.type = '${CLARIFICATION_REQUEST}')`;

/**
 * The pending list as one keyset scan of the partial index of pending clarification rows, ordered
 * by (created_at, pending_id): each bundle is represented by its first pending row; activeness (D4,
 * from the shared helpers), the M5 task join, L1c visibility, L7, L8, L16 and the cursor are all
 * predicates of that one query, so LIMIT counts returned bundles (L1a).
 */
@Injectable()
export class PendingListRepository {
  constructor(private readonly dataSource: DataSource) {}

  listHeads(query: PendingListQuery): Promise<PendingBundleHead[]> {
    const visible = taskVisibilityCondition('t', query.visibility);
    const builder = this.dataSource
      .createQueryBuilder()
      .select(PENDING_ID, 'pending_id')
      .addSelect('t.id', 'task_id')
      .addSelect('m.task_session_id', 'session_id')
      .addSelect(`to_char(m.created_at AT TIME ZONE 'UTC', ${MICROS})`, 'scan_key')
      .from('task_session_messages', 'm')
      .innerJoin('task_sessions', 's', 's.id = m.task_session_id')
      .innerJoin('tasks', 't', `t.id = COALESCE(NULLIF(m.task_id, ''), s.task_id)`)
      .where(`m.type = '${CLARIFICATION_REQUEST}'`)
      // M5a: a bundle whose task_id resolves from neither source (a session task_id of '') is never listed.
      .andWhere(`t.id <> ''`)
      .andWhere(pendingStatus('m'))
      .andWhere(activeRow('m'))
      .andWhere(
        `NOT EXISTS (SELECT 1 FROM task_session_messages first_p
           WHERE first_p.metadata->>'pending_id' = ${PENDING_ID} AND first_p.type = '${CLARIFICATION_REQUEST}'
             AND ${pendingStatus('first_p')} AND (first_p.created_at, first_p.id) < (m.created_at, m.id))`,
      )
      .andWhere(
        `NOT EXISTS (SELECT 1 FROM task_session_messages l16
           WHERE l16.metadata->>'pending_id' = ${PENDING_ID} AND l16.type = '${CLARIFICATION_REQUEST}'
             AND COALESCE(l16.metadata->>'question_id', '') = '')`,
      )
      .andWhere(visible.sql, visible.parameters)
      .orderBy('m.created_at', 'ASC')
      .addOrderBy(PENDING_ID, 'ASC')
      .limit(query.limit);
    if (query.workspaceId !== undefined) builder.andWhere('t.workspace_id = :workspaceId', { workspaceId: query.workspaceId });
    if (query.createdSince) {
      builder
        .andWhere('m.created_at >= :createdSince', { createdSince: query.createdSince })
        .andWhere(`${BUNDLE_CREATED_AT} >= :createdSince`);
    }
    if (query.after) {
      builder.andWhere(`(m.created_at, ${PENDING_ID}) > (CAST(:afterKey AS timestamptz), :afterPendingId)`, {
        afterKey: query.after.scanKey,
        afterPendingId: query.after.pendingId,
      });
    }
    return builder.getRawMany<PendingBundleHead>();
  }

  /** The rows of the listed bundles, each bundle in D2 order. */
  rowsOf(pendingIds: string[]): Promise<BundleRow[]> {
    if (pendingIds.length === 0) return Promise.resolve([]);
    return queryRows<BundleRow>(
      this.dataSource,
      `SELECT m.id, m.task_session_id, m.task_id, NULL AS session_task_id, m.turn_id, m.content, m.metadata, m.created_at
         FROM task_session_messages m
        WHERE m.metadata->>'pending_id' = ANY($1) AND m.type = '${CLARIFICATION_REQUEST}'
        ORDER BY m.metadata->>'pending_id', ${D2_ORDER}`,
      [pendingIds],
    );
  }
}
