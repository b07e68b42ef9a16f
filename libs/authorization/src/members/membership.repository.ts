import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow, queryRows } from '#persistence';
import { taskAccessibleBy } from '../access/access.repository.js';
import { REVOCATION_CHANNEL } from '../caller/revocation.channel.js';

export interface MemberRow {
  workspace_id: string;
  user_id: string;
  name: string;
  created_at: Date;
}

/** `workspace_members`: the users who see a workspace as its owner does. */
@Injectable()
export class MembershipRepository {
  constructor(private readonly dataSource: DataSource) {}

  async workspaceExists(workspaceId: string): Promise<boolean> {
    return (await queryRows(this.dataSource, `SELECT 1 FROM workspaces WHERE id = $1`, [workspaceId])).length > 0;
  }

  /** The users among `userIds` that exist, with their names (one query for a whole list). */
  async namesOf(userIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await queryRows<{ id: string; name: string }>(this.dataSource, `SELECT id, name FROM users WHERE id = ANY($1::text[])`, [
      [...userIds],
    ]);
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /**
   * The users among `userIds` who can see the session's task — its workspace's owner and members, or
   * anyone when the workspace is unowned, empty or dangling (AccessService's rule) — with their names.
   */
  async namesOfUsersSeeingSession(sessionId: string, userIds: readonly string[]): Promise<Map<string, string>> {
    const rows = await queryRows<{ id: string; name: string }>(
      this.dataSource,
      `SELECT u.id, u.name FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id
         JOIN users u ON u.id = ANY($2::text[])
        WHERE s.id = $1 AND ${taskAccessibleBy('t', 'u.id')}`,
      [sessionId, [...userIds]],
    );
    return new Map(rows.map((row) => [row.id, row.name]));
  }

  /** Adds the member (idempotent: an existing membership is kept as it was); `added` says whether it is new. */
  async add(workspaceId: string, userId: string): Promise<{ member: MemberRow; added: boolean }> {
    const row = await queryRow<MemberRow & { added: boolean }>(
      this.dataSource,
      `WITH inserted AS (
         INSERT INTO workspace_members (workspace_id, user_id) VALUES ($1, $2)
         ON CONFLICT (workspace_id, user_id) DO NOTHING RETURNING workspace_id, user_id, created_at)
       SELECT m.workspace_id, m.user_id, u.name, m.created_at, true AS added FROM inserted m JOIN users u ON u.id = m.user_id
       UNION ALL
       SELECT m.workspace_id, m.user_id, u.name, m.created_at, false FROM workspace_members m JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = $1 AND m.user_id = $2 AND NOT EXISTS (SELECT 1 FROM inserted)`,
      [workspaceId, userId],
    );
    if (!row) throw new Error(`membership of ${userId} in ${workspaceId} was neither added nor found`);
    const { added, ...member } = row;
    return { member, added };
  }

  list(workspaceId: string): Promise<MemberRow[]> {
    return queryRows<MemberRow>(
      this.dataSource,
      `SELECT m.workspace_id, m.user_id, u.name, m.created_at FROM workspace_members m JOIN users u ON u.id = m.user_id
        WHERE m.workspace_id = $1 ORDER BY m.created_at, m.user_id`,
      [workspaceId],
    );
  }

  /**
   * Removes the member and tells every process — in one statement, so an open subscription of that
   * user scoped to the workspace ends on every replica once the removal commits.
   */
  async remove(workspaceId: string, userId: string): Promise<boolean> {
    const row = await queryRow<{ removed: boolean }>(
      this.dataSource,
      `WITH gone AS (DELETE FROM workspace_members WHERE workspace_id = $1 AND user_id = $2 RETURNING workspace_id, user_id),
       told AS (SELECT pg_notify('${REVOCATION_CHANNEL}', json_build_object('membership', json_build_object('workspace_id', workspace_id, 'user_id', user_id))::text) FROM gone)
       SELECT EXISTS (SELECT 1 FROM gone) AS removed, (SELECT COUNT(*) FROM told) AS told`,
      [workspaceId, userId],
    );
    return row?.removed === true;
  }
}
