import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, queryRow, queryRows } from '#persistence';

/** Which workspaces a caller sees: every one, or exactly these ids. */
export type WorkspaceVisibility = { readonly all: true } | { readonly all: false; readonly ids: readonly string[] };

/**
 * The rule of AccessService.authorizeTaskAccess for a scoped user, as one SQL condition over a task
 * alias (null when the task is missing): the task exists and its workspace is empty, names no
 * workspace row (dangling), or names one that is unowned, the user's, or one the user is a member of.
 * `userIdSql` is the SQL of the user id (a bind parameter).
 */
export function taskAccessibleBy(taskAlias: string, userIdSql: string): string {
  return `(${taskAlias}.id IS NOT NULL AND ${taskAlias}.id <> '' AND (${taskAlias}.workspace_id = ''
    OR NOT EXISTS (SELECT 1 FROM workspaces access_w WHERE access_w.id = ${taskAlias}.workspace_id)
    OR EXISTS (SELECT 1 FROM workspaces access_w WHERE access_w.id = ${taskAlias}.workspace_id AND access_w.owner_id IN ('', ${userIdSql}))
    OR EXISTS (SELECT 1 FROM workspace_members access_m WHERE access_m.workspace_id = ${taskAlias}.workspace_id AND access_m.user_id = ${userIdSql})))`;
}

/**
 * Named: every scoped list of a person (pending questions, tasks, workspaces, decisions) reads it
 * first — the workspaces unowned or the user's, and those the user is a member of.
 */
export const VISIBLE_WORKSPACES = namedStatement(
  'visible_workspaces',
  ['user_id'],
  `SELECT id FROM workspaces WHERE owner_id IN ('', :user_id)
   UNION SELECT workspace_id FROM workspace_members WHERE user_id = :user_id
   ORDER BY id`,
);

/**
 * The terminal session states (TERMINAL_SESSION_STATES of libs/tasks, which sits above this lib and
 * cannot be imported here); test/e2e/mcp/session-mcp.e2e-spec.ts walks every state to hold the two together.
 */
const ENDED_SESSION_STATES_SQL = `('COMPLETED', 'FAILED', 'CANCELLED')`;

@Injectable()
export class AccessRepository {
  constructor(private readonly dataSource: DataSource) {}

  async taskAccessible(taskId: string, userId: string): Promise<boolean> {
    const row = await queryRow<{ allowed: boolean }>(
      this.dataSource,
      `SELECT ${taskAccessibleBy('t', '$2')} AS allowed FROM tasks t WHERE t.id = $1`,
      [taskId, userId],
    );
    return row?.allowed === true;
  }

  /** The ids among `taskIds` the user may act on (one query for a whole batch). */
  async accessibleTaskIds(taskIds: readonly string[], userId: string): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `SELECT t.id FROM tasks t WHERE t.id = ANY($1::text[]) AND ${taskAccessibleBy('t', '$2')}`,
      [[...taskIds], userId],
    );
    return rows.map((row) => row.id);
  }

  async sessionAccessible(sessionId: string, userId: string): Promise<boolean> {
    const row = await queryRow<{ allowed: boolean }>(
      this.dataSource,
      `SELECT ${taskAccessibleBy('t', '$2')} AS allowed FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = $1`,
      [sessionId, userId],
    );
    return row?.allowed === true;
  }

  async findSessionTaskId(sessionId: string): Promise<string | undefined> {
    const row = await queryRow<{ task_id: string }>(this.dataSource, `SELECT task_id FROM task_sessions WHERE id = $1`, [
      sessionId,
    ]);
    return row?.task_id;
  }

  /** The session an agent token belongs to, while it has not ended: an ended session's token authenticates nothing. */
  findSessionByAgentToken(tokenSha256: string): Promise<{ id: string; task_id: string; opened_by: string } | undefined> {
    return queryRow<{ id: string; task_id: string; opened_by: string }>(
      this.dataSource,
      `SELECT id, task_id, opened_by FROM task_sessions WHERE agent_token_sha256 = $1 AND state NOT IN ${ENDED_SESSION_STATES_SQL}`,
      [tokenSha256],
    );
  }

  async findWorkspaceOwner(workspaceId: string): Promise<string | undefined> {
    const row = await queryRow<{ owner_id: string }>(this.dataSource, `SELECT owner_id FROM workspaces WHERE id = $1`, [
      workspaceId,
    ]);
    return row?.owner_id;
  }

  /** Whether the workspace exists and the user sees it: unowned, theirs, or one they are a member of. */
  async workspaceVisibleTo(workspaceId: string, userId: string): Promise<boolean> {
    const row = await queryRow<{ visible: boolean }>(
      this.dataSource,
      `SELECT (w.owner_id IN ('', $2) OR EXISTS (SELECT 1 FROM workspace_members m WHERE m.workspace_id = w.id AND m.user_id = $2)) AS visible
         FROM workspaces w WHERE w.id = $1`,
      [workspaceId, userId],
    );
    return row?.visible === true;
  }

  async listWorkspaceIdsVisibleTo(userId: string): Promise<string[]> {
    const rows = await VISIBLE_WORKSPACES.run<{ id: string }>(this.dataSource, { user_id: userId });
    return rows.map((row) => row.id);
  }
}
