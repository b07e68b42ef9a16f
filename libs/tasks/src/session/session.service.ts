import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AccessService, AuthorizationError, type Caller, callerId, generateToken, SESSION_AGENT_TOKEN_PREFIX, SessionActorService, sha256 } from '#authorization';
import { decodeCursor, LIST_PAGE, pageOf } from '#common';
import { OutboundPolicy } from '#outbound';
import { inTransaction } from '#persistence';
import { runAfterCommit, SessionLifecycle } from './session-lifecycle.js';
import { SessionRepository } from './session.repository.js';
import { canTransition, isTerminalSessionState, SessionState } from './session-state.js';
import { TaskRepository } from '../task/task.repository.js';
import { TasksError, TasksErrorCode } from '../tasks.errors.js';
import type { MessageRow, SessionRow, TurnRow } from '../tasks.rows.js';

export const DEFAULT_MESSAGE_PAGE = LIST_PAGE.defaultLimit;

export interface CreatedSession {
  session: SessionRow;
  agentToken: string;
}

export interface MessagePage {
  messages: MessageRow[];
  nextCursor: string;
}

@Injectable()
export class SessionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sessions: SessionRepository,
    private readonly tasks: TaskRepository,
    private readonly lifecycle: SessionLifecycle,
    private readonly access: AccessService,
    private readonly actors: SessionActorService,
    private readonly outbound: OutboundPolicy,
  ) {}

  async create(caller: Caller, taskId: string, resumeUrl: string | undefined): Promise<CreatedSession> {
    this.outbound.assertTarget('resume_url', resumeUrl);
    if (!(await this.access.authorizeTaskAccess(caller, taskId))) throw AuthorizationError.notFound('task');
    return inTransaction(this.dataSource, async (manager) => {
      // Shares the task's row lock with archive: a session is never created on a task being archived.
      const task = await this.tasks.lockForNewSession(taskId, manager);
      if (!task) throw TasksError.taskNotFound();
      if (task.archived_at) throw new TasksError(TasksErrorCode.TaskArchived, 'task is archived');
      const agentToken = generateToken(SESSION_AGENT_TOKEN_PREFIX);
      const session = await this.sessions.insert(
        { id: randomUUID(), taskId, state: SessionState.Created, agentTokenSha256: sha256(agentToken), resumeUrl: resumeUrl ?? '', openedBy: callerId(caller) },
        manager,
      );
      return { session, agentToken };
    });
  }

  async get(caller: Caller, sessionId: string): Promise<SessionRow> {
    await this.authorize(caller, sessionId);
    return this.existing(sessionId);
  }

  private async existing(sessionId: string): Promise<SessionRow> {
    const session = await this.sessions.findById(sessionId);
    if (!session) throw TasksError.sessionNotFound();
    return session;
  }

  /** Changes the session's state; reaching a terminal state expires its pending clarifications. */
  async setState(caller: Caller, sessionId: string, state: SessionState): Promise<SessionRow> {
    await this.actors.authorizeAct(caller, sessionId);
    const { session, afterCommit } = await inTransaction(this.dataSource, async (manager) => {
      const session = await this.sessions.lockById(sessionId, manager);
      if (!session) throw TasksError.sessionNotFound();
      if (!canTransition(session.state, state)) {
        throw new TasksError(
          TasksErrorCode.InvalidStateTransition,
          `state cannot change from ${session.state} to ${state}`,
        );
      }
      if (session.state === state) return { session, afterCommit: [] };
      const updated = await this.sessions.updateState(sessionId, state, manager);
      const afterCommit = isTerminalSessionState(state) ? await this.lifecycle.sessionEnded(sessionId, manager) : [];
      return { session: updated, afterCommit };
    });
    runAfterCommit(afterCommit);
    return session;
  }

  /** Starts a turn, which becomes the session's current turn (superseding older bundles). */
  async startTurn(caller: Caller, sessionId: string): Promise<TurnRow> {
    await this.actors.authorizeAct(caller, sessionId);
    const { turn, afterCommit } = await inTransaction(this.dataSource, async (manager) => {
      const session = await this.sessions.lockById(sessionId, manager);
      if (!session) throw TasksError.sessionNotFound();
      if (isTerminalSessionState(session.state)) {
        throw new TasksError(TasksErrorCode.SessionEnded, `session has ended (${session.state})`);
      }
      const afterCommit = await this.lifecycle.turnStarting(sessionId, manager);
      const turn = await this.sessions.insertTurn({ id: randomUUID(), sessionId, taskId: session.task_id }, manager);
      return { turn, afterCommit };
    });
    runAfterCommit(afterCommit);
    return turn;
  }

  /** Completes a turn; an agent still waiting on the turn's clarification is detached. */
  async completeTurn(caller: Caller, sessionId: string, turnId: string): Promise<TurnRow> {
    await this.actors.authorizeAct(caller, sessionId);
    const { turn, afterCommit } = await inTransaction(this.dataSource, async (manager) => {
      if (!(await this.sessions.lockById(sessionId, manager))) throw TasksError.sessionNotFound();
      const turn = await this.sessions.completeTurn(sessionId, turnId, manager);
      if (!turn) throw TasksError.turnNotFound();
      return { turn, afterCommit: await this.lifecycle.turnCompleted(sessionId, turnId, manager) };
    });
    runAfterCommit(afterCommit);
    return turn;
  }

  async listMessages(caller: Caller, sessionId: string, limit: number | undefined, cursor: string | undefined): Promise<MessagePage> {
    const pageSize = limit ?? DEFAULT_MESSAGE_PAGE;
    let after: { createdAt: string; id: string } | undefined;
    if (cursor !== undefined) {
      const position = decodeCursor(cursor);
      if (!position) throw TasksError.invalidArgument('cursor is invalid');
      after = { createdAt: position.at, id: position.id };
    }
    await this.get(caller, sessionId);
    const rows = await this.sessions.listMessages({ sessionId, limit: pageSize + 1, after });
    const page = pageOf(rows, pageSize, (row) => ({ at: row.created_at_key, id: row.id }));
    return { messages: page.rows, nextCursor: page.next_cursor };
  }

  /** Access is checked here, whichever surface calls; a denial reads exactly like a missing session. */
  private async authorize(caller: Caller, sessionId: string): Promise<void> {
    if (!(await this.access.authorizeSessionAccess(caller, sessionId))) throw AuthorizationError.notFound('session');
  }
}
