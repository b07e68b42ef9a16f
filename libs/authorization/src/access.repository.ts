import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow, queryRows } from '../../persistence/src/index.js';

/** Which workspaces a caller sees: every one, or exactly these ids. */
export type WorkspaceVisibility = { readonly all: true } | { readonly all: false; readonly ids: readonly string[] };

export interface TaskWorkspaceRow {
  workspace_id: string;
  workspace_exists: boolean;
  owner_id: string | null;
}

export interface SqlCondition {
  sql: string;
  parameters: Record<string, unknown>;
}

/**
 * The task-visibility rule as one SQL condition over a task alias: the task's workspace is empty,
 * or names no workspace row (dangling), or is one the caller sees. An empty visible set drops the
 * IN term instead of emitting `IN ()`; an unscoped caller gets no condition at all.
 */
export function taskVisibilityCondition(taskAlias: string, visibility: WorkspaceVisibility): SqlCondition {
  if (visibility.all) return { sql: 'TRUE', parameters: {} };
  const disjuncts = [
    `${taskAlias}.workspace_id = ''`,
    `NOT EXISTS (SELECT 1 FROM workspaces visibility_ws WHERE visibility_ws.id = ${taskAlias}.workspace_id)`,
  ];
  if (visibility.ids.length > 0) disjuncts.push(`${taskAlias}.workspace_id IN (:...visibleWorkspaceIds)`);
  return { sql: `(${disjuncts.join(' OR ')})`, parameters: { visibleWorkspaceIds: [...visibility.ids] } };
}

@Injectable()
export class AccessRepository {
  constructor(private readonly dataSource: DataSource) {}

  findTaskWorkspace(taskId: string): Promise<TaskWorkspaceRow | undefined> {
    return queryRow<TaskWorkspaceRow>(
      this.dataSource,
      `SELECT t.workspace_id, w.id IS NOT NULL AS workspace_exists, w.owner_id
         FROM tasks t LEFT JOIN workspaces w ON w.id = t.workspace_id
        WHERE t.id = $1`,
      [taskId],
    );
  }

  async findSessionTaskId(sessionId: string): Promise<string | undefined> {
    const row = await queryRow<{ task_id: string }>(this.dataSource, `SELECT task_id FROM task_sessions WHERE id = $1`, [
      sessionId,
    ]);
    return row?.task_id;
  }

  findSessionByAgentToken(tokenSha256: string): Promise<{ id: string; task_id: string } | undefined> {
    return queryRow<{ id: string; task_id: string }>(
      this.dataSource,
      `SELECT id, task_id FROM task_sessions WHERE agent_token_sha256 = $1`,
      [tokenSha256],
    );
  }

  async findWorkspaceOwner(workspaceId: string): Promise<string | undefined> {
    const row = await queryRow<{ owner_id: string }>(this.dataSource, `SELECT owner_id FROM workspaces WHERE id = $1`, [
      workspaceId,
    ]);
    return row?.owner_id;
  }

  async listWorkspaceIdsVisibleTo(userId: string): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `SELECT id FROM workspaces WHERE owner_id IN ('', $1) ORDER BY id`,
      [userId],
    );
    return rows.map((row) => row.id);
  }
}
