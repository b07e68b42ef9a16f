import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { keysetInstantSql } from '#common';
import { namedStatement, type NamedStatement, type SqlExecutor } from '#persistence';
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

const SESSION_INSERT = namedStatement(
  'session_insert',
  ['id', 'task_id', 'state', 'agent_token_sha256', 'resume_url', 'opened_by'],
  `INSERT INTO task_sessions (id, task_id, state, agent_token_sha256, resume_url, opened_by)
       VALUES (:id, :task_id, :state, :agent_token_sha256, :resume_url, :opened_by) RETURNING ${SESSION_COLUMNS}`,
);

const SESSION_FIND_BY_ID = namedStatement(
  'session_find_by_id',
  ['id'],
  `SELECT ${SESSION_COLUMNS} FROM task_sessions WHERE id = :id`,
);

const SESSION_LOCK_BY_ID = namedStatement('session_lock_by_id', ['id'], `SELECT pg_advisory_xact_lock(hashtextextended(:id, 0))`);

const SESSION_LOCK_BY_TASK_ID = namedStatement(
  'session_lock_by_task_id',
  ['task_id'],
  `SELECT id FROM task_sessions WHERE task_id = :task_id ORDER BY id`,
);

const SESSION_UPDATE_STATE = namedStatement(
  'session_update_state',
  ['id', 'state'],
  `UPDATE task_sessions SET state = :state, updated_at = clock_timestamp() WHERE id = :id RETURNING ${SESSION_COLUMNS}`,
);

const SESSION_INSERT_TURN = namedStatement(
  'session_insert_turn',
  ['id', 'session_id', 'task_id', 'metadata'],
  `INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
       VALUES (:id, :session_id, :task_id, :metadata::jsonb) RETURNING ${TURN_COLUMNS}`,
);

const SESSION_COMPLETE_TURN = namedStatement(
  'session_complete_turn',
  ['turn_id', 'session_id'],
  `UPDATE task_session_turns SET completed_at = COALESCE(completed_at, clock_timestamp())
        WHERE id = :turn_id AND task_session_id = :session_id RETURNING ${TURN_COLUMNS}`,
);

const SESSION_LOCKED_ROW = namedStatement(
  'session_locked_row',
  ['id'],
  `SELECT ${SESSION_COLUMNS.split(', ').map((column) => `s.${column}`).join(', ')}, t.archived_at IS NOT NULL AS task_archived
         FROM task_sessions s LEFT JOIN tasks t ON t.id = s.task_id WHERE s.id = :id`,
);

/** A page of a session's messages: the first page, or the one after a (created_at, id) position. */
function sessionMessages<const P extends 'session_id' | 'limit' | 'after_at' | 'after_id'>(after: string, parameters: readonly P[], variant: string): NamedStatement<P> {
  return namedStatement(
    'session_messages',
    parameters,
    `SELECT ${MESSAGE_COLUMNS} FROM task_session_messages
        WHERE task_session_id = :session_id ${after}
        ORDER BY created_at, id LIMIT :limit`,
    variant,
  );
}

const SESSION_MESSAGES = {
  first: sessionMessages('', ['session_id', 'limit'], 'first'),
  after: sessionMessages(`AND (created_at, id) > (:after_at::timestamptz, :after_id)`, ['session_id', 'limit', 'after_at', 'after_id'], 'after'),
};

/** The statements SessionRepository runs, for `npm run sql:write`. */
export const sessionStatements: readonly NamedStatement[] = [
  SESSION_INSERT,
  SESSION_FIND_BY_ID,
  SESSION_LOCK_BY_ID,
  SESSION_LOCKED_ROW,
  SESSION_MESSAGES.first,
  SESSION_MESSAGES.after,
  SESSION_LOCK_BY_TASK_ID,
  SESSION_UPDATE_STATE,
  SESSION_INSERT_TURN,
  SESSION_COMPLETE_TURN,
];

@Injectable()
export class SessionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async insert(
    session: { id: string; taskId: string; state: SessionState; agentTokenSha256: string; resumeUrl: string; openedBy: string },
    executor: SqlExecutor = this.dataSource,
  ): Promise<SessionRow> {
    return (await SESSION_INSERT.row<SessionRow>(executor, {
      id: session.id,
      task_id: session.taskId,
      state: session.state,
      agent_token_sha256: session.agentTokenSha256,
      resume_url: session.resumeUrl,
      opened_by: session.openedBy,
    })) as SessionRow;
  }

  findById(id: string, executor: SqlExecutor = this.dataSource): Promise<SessionRow | undefined> {
    return SESSION_FIND_BY_ID.row<SessionRow>(executor, { id });
  }

  /**
   * Serializes every change of the session's clarification lifecycle for the rest of the transaction:
   * the session's advisory lock (the one the claim takes), then reads its row. Returns the session and
   * whether its task is archived. No row lock: every lifecycle change takes the advisory lock, and a
   * row lock would give the transaction its id at once — every event written after that waits behind
   * the transaction until it commits (the feed's settled horizon), and event lag grows under sustained load.
   */
  async lockById(id: string, executor: SqlExecutor): Promise<LockedSession | undefined> {
    await SESSION_LOCK_BY_ID.rows(executor, { id });
    return SESSION_LOCKED_ROW.row<LockedSession>(executor, { id });
  }

  /** Locks every session of the task the same way, in id order. */
  async lockByTaskId(taskId: string, executor: SqlExecutor): Promise<SessionRow[]> {
    const ids = await SESSION_LOCK_BY_TASK_ID.rows<{ id: string }>(executor, { task_id: taskId });
    const sessions: SessionRow[] = [];
    for (const { id } of ids) {
      const session = await this.lockById(id, executor);
      if (session) sessions.push(session);
    }
    return sessions;
  }

  async updateState(id: string, state: SessionState, executor: SqlExecutor = this.dataSource): Promise<SessionRow> {
    return (await SESSION_UPDATE_STATE.row<SessionRow>(executor, { id, state })) as SessionRow;
  }

  async insertTurn(turn: { id: string; sessionId: string; taskId: string; metadata?: Record<string, unknown> }, executor: SqlExecutor = this.dataSource): Promise<TurnRow> {
    return (await SESSION_INSERT_TURN.row<TurnRow>(executor, {
      id: turn.id,
      session_id: turn.sessionId,
      task_id: turn.taskId,
      metadata: JSON.stringify(turn.metadata ?? {}),
    })) as TurnRow;
  }

  /** Completes a turn of the session (idempotent: the first completion time is kept). */
  completeTurn(sessionId: string, turnId: string, executor: SqlExecutor = this.dataSource): Promise<TurnRow | undefined> {
    return SESSION_COMPLETE_TURN.row<TurnRow>(executor, { turn_id: turnId, session_id: sessionId });
  }

  listMessages(query: MessagePageQuery): Promise<MessageRow[]> {
    const values = { session_id: query.sessionId, limit: query.limit };
    if (!query.after) return SESSION_MESSAGES.first.rows<MessageRow>(this.dataSource, values);
    return SESSION_MESSAGES.after.rows<MessageRow>(this.dataSource, {
      ...values,
      after_at: query.after.createdAt,
      after_id: query.after.id,
    });
  }
}
