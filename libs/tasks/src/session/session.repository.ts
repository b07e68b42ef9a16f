import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { keysetInstantSql } from '#common';
import { queryRow, queryRows, type SqlExecutor } from '#persistence';
import type { SessionState } from './session-state.js';
import type { MessageRow, SessionRow, TurnRow } from '../tasks.rows.js';

const SESSION_COLUMNS = 'id, task_id, state, resume_url, created_at, updated_at';
const TURN_COLUMNS = 'id, task_session_id, task_id, started_at, completed_at, metadata, created_at';
const MESSAGE_COLUMNS = `id, task_session_id, task_id, turn_id, author_type, type, content, requests_input, metadata,
  created_at, updated_at, ${keysetInstantSql('created_at')} AS created_at_key`;

export interface LockedSession extends SessionRow {
  task_archived: boolean;
}

export interface MessagePageQuery {
  sessionId: string;
  limit: number;
  after: { createdAt: string; id: string } | undefined;
}

@Injectable()
export class SessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    session: { id: string; taskId: string; state: SessionState; agentTokenSha256: string; resumeUrl: string; openedBy: string },
    executor: SqlExecutor = this.dataSource,
  ): Promise<SessionRow> {
    return (await queryRow<SessionRow>(
      executor,
      `INSERT INTO task_sessions (id, task_id, state, agent_token_sha256, resume_url, opened_by)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${SESSION_COLUMNS}`,
      [session.id, session.taskId, session.state, session.agentTokenSha256, session.resumeUrl, session.openedBy],
    )) as SessionRow;
  }

  findById(id: string, executor: SqlExecutor = this.dataSource): Promise<SessionRow | undefined> {
    return queryRow<SessionRow>(executor, `SELECT ${SESSION_COLUMNS} FROM task_sessions WHERE id = $1`, [id]);
  }

  /**
   * Serializes every change of the session's clarification lifecycle for the rest of the transaction:
   * the session's advisory lock (the one the claim takes), then reads its row. Returns the session and
   * whether its task is archived. No row lock: every lifecycle change takes the advisory lock, and a
   * row lock would give the transaction its id at once — every event written after that waits behind
   * the transaction until it commits (the feed's settled horizon), and event lag grows under sustained load.
   */
  async lockById(id: string, executor: SqlExecutor): Promise<LockedSession | undefined> {
    await executor.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [id]);
    return queryRow<LockedSession>(
      executor,
      `SELECT ${SESSION_COLUMNS.split(', ').map((column) => `s.${column}`).join(', ')}, t.archived_at IS NOT NULL AS task_archived
         FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = $1`,
      [id],
    );
  }

  /** Locks every session of the task the same way, in id order. */
  async lockByTaskId(taskId: string, executor: SqlExecutor): Promise<SessionRow[]> {
    const ids = await queryRows<{ id: string }>(executor, `SELECT id FROM task_sessions WHERE task_id = $1 ORDER BY id`, [taskId]);
    const sessions: SessionRow[] = [];
    for (const { id } of ids) {
      const session = await this.lockById(id, executor);
      if (session) sessions.push(session);
    }
    return sessions;
  }

  async updateState(id: string, state: SessionState, executor: SqlExecutor = this.dataSource): Promise<SessionRow> {
    return (await queryRow<SessionRow>(
      executor,
      `UPDATE task_sessions SET state = $2, updated_at = clock_timestamp() WHERE id = $1 RETURNING ${SESSION_COLUMNS}`,
      [id, state],
    )) as SessionRow;
  }

  async insertTurn(turn: { id: string; sessionId: string; taskId: string; metadata?: Record<string, unknown> }, executor: SqlExecutor = this.dataSource): Promise<TurnRow> {
    return (await queryRow<TurnRow>(
      executor,
      `INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
       VALUES ($1, $2, $3, $4::jsonb) RETURNING ${TURN_COLUMNS}`,
      [turn.id, turn.sessionId, turn.taskId, JSON.stringify(turn.metadata ?? {})],
    )) as TurnRow;
  }

  /** Completes a turn of the session (idempotent: the first completion time is kept). */
  completeTurn(sessionId: string, turnId: string, executor: SqlExecutor = this.dataSource): Promise<TurnRow | undefined> {
    return queryRow<TurnRow>(
      executor,
      `UPDATE task_session_turns SET completed_at = COALESCE(completed_at, clock_timestamp())
        WHERE id = $1 AND task_session_id = $2 RETURNING ${TURN_COLUMNS}`,
      [turnId, sessionId],
    );
  }

  listMessages(query: MessagePageQuery): Promise<MessageRow[]> {
    const after = query.after
      ? `AND (created_at, id) > ($3::timestamptz, $4)`
      : '';
    const parameters: unknown[] = [query.sessionId, query.limit];
    if (query.after) parameters.push(query.after.createdAt, query.after.id);
    return queryRows<MessageRow>(
      this.dataSource,
      `SELECT ${MESSAGE_COLUMNS} FROM task_session_messages
        WHERE task_session_id = $1 ${after}
        ORDER BY created_at, id LIMIT $2`,
      parameters,
    );
  }
}
