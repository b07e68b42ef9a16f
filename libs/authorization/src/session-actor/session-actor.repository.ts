import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';
import { taskAccessibleBy } from '../access/task-visibility.sql.js';

/** A session as the act rule reads it: who opened it, and whether a given user sees its task. */
export interface SessionStanding {
  opened_by: string;
  visible: boolean;
}

const SESSION_ACTOR_ENDS_EVERY_SESSION = namedStatement(
  'session_actor_ends_every_session',
  ['task_id', 'user_id', 'user_key'],
  `SELECT (COALESCE(w.owner_id = :user_id, false)
               OR NOT EXISTS (SELECT 1 FROM task_sessions s WHERE s.task_id = t.id AND s.opened_by <> :user_key)) AS allowed
         FROM tasks t LEFT JOIN workspaces w ON w.id = t.workspace_id WHERE t.id = :task_id`,
);

const SESSION_ACTOR_STANDING = namedStatement(
  'session_actor_standing',
  ['session_id', 'user_id'],
  `SELECT s.opened_by, (:user_id::text IS NULL OR ${taskAccessibleBy('t', ':user_id')}) AS visible
         FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = :session_id`,
);

/** The statements SessionActorRepository runs, for `npm run sql:write`. */
export const sessionActorStatements: readonly NamedStatement[] = [SESSION_ACTOR_ENDS_EVERY_SESSION, SESSION_ACTOR_STANDING];

@Injectable()
export class SessionActorRepository {
  constructor(private readonly dataSource: DataSource) {}

  /**
   * Whether `userKey` (a caller id) may end every session of the task: it owns the task's workspace,
   * or it opened each of the task's sessions (a task without sessions: true). Undefined when there is no such task.
   */
  async endsEverySession(taskId: string, userId: string, userKey: string): Promise<boolean | undefined> {
    const row = await SESSION_ACTOR_ENDS_EVERY_SESSION.row<{ allowed: boolean }>(this.dataSource, {
      task_id: taskId,
      user_id: userId,
      user_key: userKey,
    });
    return row?.allowed;
  }

  /** Who opened the session and whether `userId` sees it (null: sees every task) — one query; undefined when there is no such session. */
  standing(sessionId: string, userId: string | null): Promise<SessionStanding | undefined> {
    return SESSION_ACTOR_STANDING.row<SessionStanding>(this.dataSource, { session_id: sessionId, user_id: userId });
  }
}
