import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import { taskAccessibleBy } from '../access/task-visibility.sql.js';
import { REVOCATION_CHANNEL } from '../caller/revocation.channel.js';

export interface MemberRow {
  workspace_id: string;
  user_id: string;
  name: string;
  created_at: Date;
}

const MEMBERSHIP_WORKSPACE_EXISTS = namedStatement(
  'membership_workspace_exists',
  ['workspace_id'],
  `SELECT 1 FROM workspaces WHERE id = :workspace_id`,
);

const MEMBERSHIP_NAMES_OF = namedStatement(
  'membership_names_of',
  ['user_ids'],
  `SELECT id, name FROM users WHERE id = ANY(:user_ids::text[])`,
);

const MEMBERSHIP_NAMES_OF_USERS_SEEING_SESSION = namedStatement(
  'membership_names_of_users_seeing_session',
  ['session_id', 'user_ids'],
  `SELECT u.id, u.name FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id
         JOIN users u ON u.id = ANY(:user_ids::text[])
        WHERE s.id = :session_id AND ${taskAccessibleBy('t', 'u.id')}`,
);

const MEMBERSHIP_ADD = namedStatement(
  'membership_add',
  ['workspace_id', 'user_id'],
  `WITH inserted AS (
         INSERT INTO workspace_members (workspace_id, user_id) VALUES (:workspace_id, :user_id)
         ON CONFLICT (workspace_id, user_id) DO NOTHING RETURNING workspace_id, user_id, created_at)
       SELECT m.workspace_id, m.user_id, u.name, m.created_at, true AS added FROM inserted m JOIN users u ON u.id = m.user_id
       UNION ALL
       SELECT m.workspace_id, m.user_id, u.name, m.created_at, false FROM workspace_members m JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = :workspace_id AND m.user_id = :user_id AND NOT EXISTS (SELECT 1 FROM inserted)`,
);

const MEMBERSHIP_LIST = namedStatement(
  'membership_list',
  ['workspace_id'],
  `SELECT m.workspace_id, m.user_id, u.name, m.created_at FROM workspace_members m JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = :workspace_id ORDER BY m.created_at, m.user_id`,
);

const MEMBERSHIP_REMOVE = namedStatement(
  'membership_remove',
  ['workspace_id', 'user_id'],
  `WITH gone AS (DELETE FROM workspace_members WHERE workspace_id = :workspace_id AND user_id = :user_id RETURNING workspace_id, user_id),
       told AS (SELECT pg_notify('${REVOCATION_CHANNEL}', json_build_object('membership', json_build_object('workspace_id', workspace_id, 'user_id', user_id))::text) FROM gone)
       SELECT EXISTS (SELECT 1 FROM gone) AS removed, (SELECT COUNT(*) FROM told) AS told`,
);

/** The statements MembershipRepository runs, for `npm run sql:write`. */
export const membershipStatements: readonly NamedStatement[] = [
  MEMBERSHIP_WORKSPACE_EXISTS,
  MEMBERSHIP_NAMES_OF,
  MEMBERSHIP_NAMES_OF_USERS_SEEING_SESSION,
  MEMBERSHIP_ADD,
  MEMBERSHIP_LIST,
  MEMBERSHIP_REMOVE,
];

/** `workspace_members`: the users who see a workspace as its owner does. */
@Injectable()
export class MembershipRepository {
  constructor(private readonly dataSource: DataSource) {}

  async workspaceExists(workspaceId: string): Promise<boolean> {
    return (await MEMBERSHIP_WORKSPACE_EXISTS.rows(this.dataSource, { workspace_id: workspaceId })).length > 0;
  }

  /** The users among `userIds` that exist, with their names (one query for a whole list). */
  async namesOf(userIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await MEMBERSHIP_NAMES_OF.rows<{ id: string; name: string }>(this.dataSource, { user_ids: [...userIds] });
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /**
   * The users among `userIds` who can see the session's task — its workspace's owner and members, or
   * anyone when the workspace is unowned, empty or dangling (AccessService's rule) — with their names.
   */
  async namesOfUsersSeeingSession(sessionId: string, userIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await MEMBERSHIP_NAMES_OF_USERS_SEEING_SESSION.rows<{ id: string; name: string }>(this.dataSource, {
      session_id: sessionId,
      user_ids: [...userIds],
    });
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** Adds the member (idempotent: an existing membership is kept as it was); `added` says whether it is new. */
  async add(workspaceId: string, userId: string): Promise<{ member: MemberRow; added: boolean }> {
    const row = await MEMBERSHIP_ADD.row<MemberRow & { added: boolean }>(this.dataSource, {
      workspace_id: workspaceId,
      user_id: userId,
    });
    if (!row) throw new Error(`membership of ${userId} in ${workspaceId} was neither added nor found`);
    const { added, ...member } = row;
    return { member, added };
  }

  list(workspaceId: string): Promise<MemberRow[]> {
    return MEMBERSHIP_LIST.rows<MemberRow>(this.dataSource, { workspace_id: workspaceId });
  }

  /**
   * Removes the member and tells every process — in one statement, so an open subscription of that
   * user scoped to the workspace ends on every replica once the removal commits.
   */
  async remove(workspaceId: string, userId: string): Promise<boolean> {
    const row = await MEMBERSHIP_REMOVE.row<{ removed: boolean }>(this.dataSource, {
      workspace_id: workspaceId,
      user_id: userId,
    });
    return row?.removed === true;
  }
}
