import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRow } from '#persistence';
import { taskAccessibleBy } from '../access.repository.js';

/** A session as the act rule reads it: who opened it, and whether a given user sees its task. */
export interface SessionStanding {
  opened_by: string;
  visible: boolean;
}

@Injectable()
export class SessionActorRepository {
  constructor(private readonly dataSource: DataSource) {}

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
