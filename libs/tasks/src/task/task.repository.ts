import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { type CursorPosition, keysetAfter, keysetInstantSql } from '#common';
import { taskVisibleTo, VISIBLE_WORKSPACE_IDS, visibleWorkspaceIds, type WorkspaceVisibility } from '#authorization';
import { namedStatement, type NamedStatement, type SqlExecutor, statementBuilder } from '#persistence';
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

const TASK_INSERT = namedStatement(
  'task_insert',
  ['id', 'workspace_id', 'title', 'state'],
  `INSERT INTO tasks (id, workspace_id, title, state) VALUES (:id, :workspace_id, :title, :state) ${RETURNING}`,
);

const TASK_FIND_BY_ID = namedStatement(
  'task_find_by_id',
  ['id'],
  `SELECT ${PROJECTED_COLUMNS.join(', ')} FROM tasks t WHERE t.id = :id`,
);

const TASK_LOCK_FOR_NEW_SESSION = namedStatement(
  'task_lock_for_new_session',
  ['id'],
  `SELECT id, archived_at FROM tasks WHERE id = :id FOR SHARE`,
);

const TASK_ARCHIVE = namedStatement(
  'task_archive',
  ['id', 'state'],
  `UPDATE tasks SET state = :state, archived_at = COALESCE(archived_at, clock_timestamp()),
              updated_at = CASE WHEN archived_at IS NULL THEN clock_timestamp() ELSE updated_at END
        WHERE id = :id ${RETURNING}`,
);

const LIST_PARAMETERS = [VISIBLE_WORKSPACE_IDS, 'after_at', 'after_id', 'limit'] as const;

/** One page of the visible tasks: of every workspace, or of one (`:workspace_id`). */
function taskList<const P extends string>(parameters: readonly P[], workspaceFilter: string | undefined, variant: string): NamedStatement<P> {
  const query = statementBuilder()
    .select([...PROJECTED_COLUMNS, `${keysetInstantSql('t.created_at')} AS created_at_key`])
    .from('tasks', 't')
    .where(taskVisibleTo('t'))
    .andWhere(keysetAfter({ at: 't.created_at', id: 't.id' }, { at: 'after_at', id: 'after_id' }))
    .orderBy('t.created_at', 'ASC')
    .addOrderBy('t.id', 'ASC');
  if (workspaceFilter !== undefined) query.andWhere(workspaceFilter);
  return namedStatement('task_list', parameters, `${query.getQuery()} LIMIT :limit`, variant);
}

const TASK_LIST = {
  all: taskList(LIST_PARAMETERS, undefined, 'all'),
  workspace: taskList([...LIST_PARAMETERS, 'workspace_id'], 't.workspace_id = :workspace_id', 'workspace'),
};

/** The statements TaskRepository runs, for `npm run sql:write`. */
export const taskStatements: readonly NamedStatement[] = [
  TASK_INSERT,
  TASK_FIND_BY_ID,
  TASK_LOCK_FOR_NEW_SESSION,
  TASK_ARCHIVE,
  TASK_LIST.all,
  TASK_LIST.workspace,
];

@Injectable()
export class TaskRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(id: string, workspaceId: string, title: string, state: string): Promise<TaskRow> {
    return (await TASK_INSERT.row<TaskRow>(this.dataSource, { id, workspace_id: workspaceId, title, state })) as TaskRow;
  }

  findById(id: string, executor: SqlExecutor = this.dataSource): Promise<TaskRow | undefined> {
    return TASK_FIND_BY_ID.row<TaskRow>(executor, { id });
  }

  lockForNewSession(id: string, executor: SqlExecutor): Promise<Pick<TaskRow, 'id' | 'archived_at'> | undefined> {
    return TASK_LOCK_FOR_NEW_SESSION.row(executor, { id });
  }

  /** One page of the visible tasks, oldest first (created_at, then id: the keyset order). */
  list(filter: TaskListFilter): Promise<ListedTaskRow[]> {
    const values = {
      [VISIBLE_WORKSPACE_IDS]: visibleWorkspaceIds(filter.visibility),
      after_at: filter.after?.at ?? null,
      after_id: filter.after?.id ?? null,
      limit: filter.limit,
    };
    if (filter.workspaceId === undefined) return TASK_LIST.all.rows<ListedTaskRow>(this.dataSource, values);
    return TASK_LIST.workspace.rows<ListedTaskRow>(this.dataSource, { ...values, workspace_id: filter.workspaceId });
  }

  /** Archives the task (idempotent: the first archival time is kept). */
  archive(id: string, state: string, executor: SqlExecutor = this.dataSource): Promise<TaskRow | undefined> {
    return TASK_ARCHIVE.row<TaskRow>(executor, { id, state });
  }
}
