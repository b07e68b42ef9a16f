import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow } from '#persistence';
import { taskAccessibleBy } from '../access/access.repository.js';

/** A session as the act rule reads it: who opened it, and whether a given user sees its task. */
export interface SessionStanding {
  opened_by: string;
  visible: boolean;
}

@Injectable()
export class SessionActorRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Whether `userKey` (a caller id) may end every session of the task: it owns the task's workspace,
   * or it opened each of the task's sessions (a task without sessions: true). Undefined when there is no such task.
   */
  async endsEverySession(taskId: string, userId: string, userKey: string): Promise<boolean | undefined> {
    const row = await queryRow<{ allowed: boolean }>(
      this.dataSource,
      `SELECT (COALESCE(w.owner_id = $2, false)
               OR NOT EXISTS (SELECT 1 FROM task_sessions s WHERE s.task_id = t.id AND s.opened_by <> $3)) AS allowed
         FROM tasks t LEFT JOIN workspaces w ON w.id = t.workspace_id WHERE t.id = $1`,
      [taskId, userId, userKey],
    );
    return row?.allowed;
  }

  /** Who opened the session and whether `userId` sees it (null: sees every task) — one query; undefined when there is no such session. */
  standing(sessionId: string, userId: string | null): Promise<SessionStanding | undefined> {
    return queryRow<SessionStanding>(
      this.dataSource,
      `SELECT s.opened_by, ($2::text IS NULL OR ${taskAccessibleBy('t', '$2')}) AS visible
         FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = $1`,
      [sessionId, userId],
    );
  }
}
