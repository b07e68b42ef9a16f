import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import { taskAccessibleBy, visibleWorkspaceIdsSql, workspaceVisibleBy } from './task-visibility.sql.js';

/**
 * Named: every scoped list of a person (pending questions, tasks, workspaces, decisions) reads it
 * first — the workspaces unowned or the user's, and those the user is a member of.
 */
export const VISIBLE_WORKSPACES = namedStatement(
  'visible_workspaces',
  ['user_id'],
  `${visibleWorkspaceIdsSql(':user_id')}
   ORDER BY id`,
);

/**
 * The terminal session states (TERMINAL_SESSION_STATES of libs/tasks, which sits above this lib and
 * cannot be imported here); test/e2e/mcp/session-mcp.e2e-spec.ts walks every state to hold the two together.
 */
const ENDED_SESSION_STATES_SQL = `('COMPLETED', 'FAILED', 'CANCELLED')`;

const ACCESS_TASK_ACCESSIBLE = namedStatement(
  'access_task_accessible',
  ['task_id', 'user_id'],
  `SELECT ${taskAccessibleBy('t', ':user_id')} AS allowed FROM tasks t WHERE t.id = :task_id`,
);

const ACCESS_ACCESSIBLE_TASK_IDS = namedStatement(
  'access_accessible_task_ids',
  ['task_ids', 'user_id'],
  `SELECT t.id FROM tasks t WHERE t.id = ANY(:task_ids::text[]) AND ${taskAccessibleBy('t', ':user_id')}`,
);

const ACCESS_SESSION_ACCESSIBLE = namedStatement(
  'access_session_accessible',
  ['session_id', 'user_id'],
  `SELECT ${taskAccessibleBy('t', ':user_id')} AS allowed FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = :session_id`,
);

const ACCESS_FIND_SESSION_TASK_ID = namedStatement(
  'access_find_session_task_id',
  ['session_id'],
  `SELECT task_id FROM task_sessions WHERE id = :session_id`,
);

const ACCESS_FIND_SESSION_BY_AGENT_TOKEN = namedStatement(
  'access_find_session_by_agent_token',
  ['token_sha256'],
  `SELECT id, task_id, opened_by FROM task_sessions WHERE agent_token_sha256 = :token_sha256 AND state NOT IN ${ENDED_SESSION_STATES_SQL}`,
);

const ACCESS_FIND_WORKSPACE_OWNER = namedStatement(
  'access_find_workspace_owner',
  ['workspace_id'],
  `SELECT owner_id FROM workspaces WHERE id = :workspace_id`,
);

const ACCESS_WORKSPACE_VISIBLE_TO = namedStatement(
  'access_workspace_visible_to',
  ['workspace_id', 'user_id'],
  `SELECT ${workspaceVisibleBy('w', ':user_id')} AS visible
         FROM workspaces w WHERE w.id = :workspace_id`,
);

/** The statements AccessRepository runs, for `npm run sql:write`. */
export const accessStatements: readonly NamedStatement[] = [
  VISIBLE_WORKSPACES,
  ACCESS_TASK_ACCESSIBLE,
  ACCESS_ACCESSIBLE_TASK_IDS,
  ACCESS_SESSION_ACCESSIBLE,
  ACCESS_FIND_SESSION_TASK_ID,
  ACCESS_FIND_SESSION_BY_AGENT_TOKEN,
  ACCESS_FIND_WORKSPACE_OWNER,
  ACCESS_WORKSPACE_VISIBLE_TO,
];

@Injectable()
export class AccessRepository {
  constructor(private readonly dataSource: DataSource) {}

  async taskAccessible(taskId: string, userId: string): Promise<boolean> {
    const row = await ACCESS_TASK_ACCESSIBLE.row<{ allowed: boolean }>(this.dataSource, { task_id: taskId, user_id: userId });
    return row?.allowed === true;
  }

  /** The ids among `taskIds` the user may act on (one query for a whole batch). */
  async accessibleTaskIds(taskIds: readonly string[], userId: string): Promise<string[]> {
    const rows = await ACCESS_ACCESSIBLE_TASK_IDS.rows<{ id: string }>(this.dataSource, {
      task_ids: [...taskIds],
      user_id: userId,
    });
    return rows.map((row) => row.id);
  }

  async sessionAccessible(sessionId: string, userId: string): Promise<boolean> {
    const row = await ACCESS_SESSION_ACCESSIBLE.row<{ allowed: boolean }>(this.dataSource, {
      session_id: sessionId,
      user_id: userId,
    });
    return row?.allowed === true;
  }

  async findSessionTaskId(sessionId: string): Promise<string | undefined> {
    const row = await ACCESS_FIND_SESSION_TASK_ID.row<{ task_id: string }>(this.dataSource, { session_id: sessionId });
    return row?.task_id;
  }

  /** The session an agent token belongs to, while it has not ended: an ended session's token authenticates nothing. */
  findSessionByAgentToken(tokenSha256: string): Promise<{ id: string; task_id: string; opened_by: string } | undefined> {
    return ACCESS_FIND_SESSION_BY_AGENT_TOKEN.row<{ id: string; task_id: string; opened_by: string }>(this.dataSource, { token_sha256: tokenSha256 });
  }

  async findWorkspaceOwner(workspaceId: string): Promise<string | undefined> {
    const row = await ACCESS_FIND_WORKSPACE_OWNER.row<{ owner_id: string }>(this.dataSource, { workspace_id: workspaceId });
    return row?.owner_id;
  }

  /** Whether the workspace exists and the user sees it: unowned, theirs, or one they are a member of. */
  async workspaceVisibleTo(workspaceId: string, userId: string): Promise<boolean> {
    const row = await ACCESS_WORKSPACE_VISIBLE_TO.row<{ visible: boolean }>(this.dataSource, {
      workspace_id: workspaceId,
      user_id: userId,
    });
    return row?.visible === true;
  }

  async listWorkspaceIdsVisibleTo(userId: string): Promise<string[]> {
    const rows = await VISIBLE_WORKSPACES.run<{ id: string }>(this.dataSource, { user_id: userId });
    return rows.map((row) => row.id);
  }
}
