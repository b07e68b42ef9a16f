import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type CursorPosition, keysetAfter, keysetInstantSql } from '#common';
import { taskVisibleTo, VISIBLE_WORKSPACE_IDS, visibleWorkspaceIds, type WorkspaceVisibility } from '#authorization';
import { queryRow, type SqlExecutor } from '#persistence';
import { sessionHasActiveBundle } from './activeness.sql.js';
import type { ListedTaskRow, TaskRow } from '../tasks.rows.js';

const COLUMNS = ['id', 'workspace_id', 'title', 'state', 'archived_at', 'created_at', 'updated_at'];
const RETURNING = `RETURNING ${COLUMNS.join(', ')}`;

/** The pending-action projection: "clarification" while a session (or the primary one) is blocked. */
const TASK_PENDING_ACTION = `CASE WHEN EXISTS (SELECT 1 FROM task_sessions pa_s
  WHERE pa_s.task_id = t.id AND ${sessionHasActiveBundle('pa_s.id')}) THEN 'clarification' END`;
const PRIMARY_SESSION_PENDING_ACTION = `(SELECT CASE WHEN ${sessionHasActiveBundle('primary_s.id')} THEN 'clarification' END
  FROM task_sessions primary_s WHERE primary_s.task_id = t.id
  ORDER BY primary_s.created_at DESC, primary_s.id DESC LIMIT 1)`;
const PROJECTED_COLUMNS = [
  ...COLUMNS.map((column) => `t.${column}`),
  `${TASK_PENDING_ACTION} AS task_pending_action`,
  `${PRIMARY_SESSION_PENDING_ACTION} AS primary_session_pending_action`,
];

export interface TaskListFilter {
  visibility: WorkspaceVisibility;
  workspaceId: string | undefined;
  /** The page starts after this (created_at, id); undefined for the first page. */
  after: CursorPosition | undefined;
  limit: number;
}

@Injectable()
export class TaskRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(id: string, workspaceId: string, title: string, state: string): Promise<TaskRow> {
    return (await queryRow<TaskRow>(
      this.dataSource,
      `INSERT INTO tasks (id, workspace_id, title, state) VALUES ($1, $2, $3, $4) ${RETURNING}`,
      [id, workspaceId, title, state],
    )) as TaskRow;
  }

  findById(id: string, executor: SqlExecutor = this.dataSource): Promise<TaskRow | undefined> {
    return queryRow<TaskRow>(executor, `SELECT ${PROJECTED_COLUMNS.join(', ')} FROM tasks t WHERE t.id = $1`, [id]);
  }

  lockForNewSession(id: string, executor: SqlExecutor): Promise<Pick<TaskRow, 'id' | 'archived_at'> | undefined> {
    return queryRow(executor, `SELECT id, archived_at FROM tasks WHERE id = $1 FOR SHARE`, [id]);
  }

  /** One page of the visible tasks, oldest first (created_at, then id: the keyset order). */
  list(filter: TaskListFilter): Promise<ListedTaskRow[]> {
    const query = this.dataSource
      .createQueryBuilder()
      .select([...PROJECTED_COLUMNS, `${keysetInstantSql('t.created_at')} AS created_at_key`])
      .from('tasks', 't')
      .where(taskVisibleTo('t'))
      .andWhere(keysetAfter({ at: 't.created_at', id: 't.id' }, { at: 'after_at', id: 'after_id' }))
      .setParameters({ [VISIBLE_WORKSPACE_IDS]: visibleWorkspaceIds(filter.visibility), after_at: filter.after?.at ?? null, after_id: filter.after?.id ?? null })
      .orderBy('t.created_at', 'ASC')
      .addOrderBy('t.id', 'ASC')
      .limit(filter.limit);
    if (filter.workspaceId !== undefined) query.andWhere('t.workspace_id = :workspace_id', { workspace_id: filter.workspaceId });
    return query.getRawMany<ListedTaskRow>();
  }

  /** Archives the task (idempotent: the first archival time is kept). */
  archive(id: string, state: string, executor: SqlExecutor = this.dataSource): Promise<TaskRow | undefined> {
    return queryRow<TaskRow>(
      executor,
      `UPDATE tasks SET state = $2, archived_at = COALESCE(archived_at, clock_timestamp()),
              updated_at = CASE WHEN archived_at IS NULL THEN clock_timestamp() ELSE updated_at END
        WHERE id = $1 ${RETURNING}`,
      [id, state],
    );
  }
}
