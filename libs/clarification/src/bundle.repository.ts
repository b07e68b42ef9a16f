import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { inTransaction, queryRow, queryRows, type SqlExecutor } from '../../persistence/src/index.js';
import {
  activeRow,
  CLARIFICATION_REQUEST,
  currentPendingRow,
  currentTurnId,
  nonTerminalSession,
  onCurrentTurn,
  sessionHasActiveBundle,
} from './activeness.repository.js';
import {
  type Answer,
  type BundleRow,
  type BundleRowMetadata,
  ClarificationStatus,
  type TerminalStatus,
} from './clarification.types.js';

/** D2 order: question_index, then created_at, then id (a total order even for corrupt metadata). */
export const D2_ORDER = `COALESCE(CASE WHEN m.metadata->>'question_index' ~ '^-?[0-9]{1,9}$'
  THEN (m.metadata->>'question_index')::int END, 0), m.created_at, m.id`;

const BUNDLE_COLUMNS = `m.id, m.task_session_id, m.task_id, s.task_id AS session_task_id, m.turn_id, m.content,
  m.metadata, m.created_at`;

export interface NewBundleRow {
  id: string;
  sessionId: string;
  taskId: string;
  turnId: string;
  content: string;
  metadata: BundleRowMetadata;
}

export interface ClaimResult {
  claimed: boolean;
  rows: BundleRow[];
}

@Injectable()
export class BundleRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Every row of the bundle in D2 order (with the session's task_id for M5). */
  findBundle(pendingId: string, executor: SqlExecutor = this.dataSource): Promise<BundleRow[]> {
    return queryRows<BundleRow>(
      executor,
      `SELECT ${BUNDLE_COLUMNS} FROM task_session_messages m
         LEFT JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.metadata->>'pending_id' = $1 AND m.type = '${CLARIFICATION_REQUEST}'
        ORDER BY ${D2_ORDER}`,
      [pendingId],
    );
  }

  /** The session's active rows (current turn, pending, session live), bundles in creation order. */
  findActiveRowsOfSession(sessionId: string, executor: SqlExecutor = this.dataSource): Promise<BundleRow[]> {
    return queryRows<BundleRow>(
      executor,
      `SELECT ${BUNDLE_COLUMNS} FROM task_session_messages m
         JOIN task_sessions s ON s.id = m.task_session_id
        WHERE m.task_session_id = $1 AND ${activeRow('m')}
        ORDER BY m.metadata->>'pending_id', ${D2_ORDER}`,
      [sessionId],
    );
  }

  async isBundleActive(pendingId: string, executor: SqlExecutor = this.dataSource): Promise<boolean> {
    const row = await queryRow(
      executor,
      `SELECT 1 FROM task_session_messages m WHERE m.metadata->>'pending_id' = $1 AND ${activeRow('m')} LIMIT 1`,
      [pendingId],
    );
    return row !== undefined;
  }

  async sessionHasActiveBundle(sessionId: string, executor: SqlExecutor = this.dataSource): Promise<boolean> {
    const row = await queryRow<{ active: boolean }>(executor, `SELECT ${sessionHasActiveBundle('$1')} AS active`, [
      sessionId,
    ]);
    return row?.active === true;
  }

  async currentTurnId(sessionId: string, executor: SqlExecutor = this.dataSource): Promise<string | undefined> {
    const row = await queryRow<{ id: string | null }>(executor, `SELECT ${currentTurnId('$1')} AS id`, [sessionId]);
    return row?.id ?? undefined;
  }

  async insertRows(rows: NewBundleRow[], manager: EntityManager): Promise<void> {
    for (const row of rows) {
      await manager.query(
        `INSERT INTO task_session_messages
           (id, task_session_id, task_id, turn_id, author_type, type, content, requests_input, metadata)
         VALUES ($1, $2, $3, $4, 'agent', '${CLARIFICATION_REQUEST}', $5, true, $6::jsonb)`,
        [row.id, row.sessionId, row.taskId, row.turnId, row.content, JSON.stringify(row.metadata)],
      );
    }
  }

  /** Serializes every claim and lifecycle change of these sessions: advisory lock, then the row lock. */
  private async lockSessions(sessionIds: string[], manager: EntityManager): Promise<void> {
    for (const sessionId of [...new Set(sessionIds)].sort()) {
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [sessionId]);
      await manager.query(`SELECT id FROM task_sessions WHERE id = $1 FOR UPDATE`, [sessionId]);
    }
  }

  private async bundleSessionIds(pendingId: string, manager: EntityManager): Promise<string[]> {
    const rows = await queryRows<{ task_session_id: string }>(
      manager,
      `SELECT DISTINCT task_session_id FROM task_session_messages WHERE metadata->>'pending_id' = $1`,
      [pendingId],
    );
    return rows.map((row) => row.task_session_id);
  }

  /**
   * The claim: in one transaction, serialize on the bundle's sessions, move the claimable rows to
   * `responding` with one guarded UPDATE, re-load them, then write each row's terminal state.
   * `claimed: false` means nothing was written.
   */
  completeActiveBundle(
    pendingId: string,
    terminal: TerminalStatus,
    responses: ReadonlyMap<string, Answer> | undefined,
  ): Promise<ClaimResult> {
    if (terminal !== ClarificationStatus.Answered && terminal !== ClarificationStatus.Rejected) {
      throw new Error(`invalid clarification terminal status: ${String(terminal)}`);
    }
    return inTransaction(this.dataSource, async (manager) => {
      await this.lockSessions(await this.bundleSessionIds(pendingId, manager), manager);
      const claimed = await queryRows<{ id: string }>(
        manager,
        `UPDATE task_session_messages m
            SET metadata = jsonb_set(m.metadata, '{status}', '"responding"'), updated_at = clock_timestamp()
          WHERE m.metadata->>'pending_id' = $1 AND ${activeRow('m')}
          RETURNING m.id`,
        [pendingId],
      );
      if (claimed.length === 0) return { claimed: false, rows: [] };
      const responding = (await this.findBundle(pendingId, manager)).filter(
        (row) => row.metadata.status === ClarificationStatus.Responding,
      );
      if (responding.length !== claimed.length) {
        throw new Error(`clarification ${pendingId}: claimed ${claimed.length} rows but loaded ${responding.length}`);
      }
      for (const row of responding) {
        const questionId = row.metadata.question_id;
        if (!questionId) throw new Error(`clarification message ${row.id} is missing question_id`);
        const patch: BundleRowMetadata = { status: terminal, response_delivery_pending: true };
        if (terminal === ClarificationStatus.Answered) {
          const response = responses?.get(questionId);
          if (!response) throw new Error(`clarification message ${row.id} has no response for ${questionId}`);
          patch.response = response;
        }
        await manager.query(
          `UPDATE task_session_messages SET metadata = metadata || $2::jsonb, updated_at = clock_timestamp() WHERE id = $1`,
          [row.id, JSON.stringify(patch)],
        );
        row.metadata = { ...row.metadata, ...patch };
      }
      return { claimed: true, rows: responding };
    });
  }

  /**
   * Rolls a claimed, undelivered bundle back to pending — only while it is still on the current
   * turn of a live session, so a superseded bundle is never reactivated. Returns the rows restored.
   */
  restoreActiveBundle(pendingId: string, executor?: EntityManager): Promise<number> {
    const work = async (manager: EntityManager) => {
      await this.lockSessions(await this.bundleSessionIds(pendingId, manager), manager);
      const rows = await queryRows<{ id: string }>(
        manager,
        `UPDATE task_session_messages m
            SET metadata = (m.metadata - 'response' - 'response_delivery_pending') || '{"status": "pending"}'::jsonb,
                updated_at = clock_timestamp()
          WHERE m.metadata->>'pending_id' = $1
            AND m.metadata->>'response_delivery_pending' = 'true'
            AND m.metadata->>'status' IN ('answered', 'rejected')
            AND ${onCurrentTurn('m')}
            AND EXISTS (SELECT 1 FROM task_sessions s WHERE s.id = m.task_session_id AND ${nonTerminalSession('s')})
          RETURNING m.id`,
        [pendingId],
      );
      return rows.length;
    };
    return executor ? work(executor) : inTransaction(this.dataSource, work);
  }

  /** The delivery is confirmed: the claim's rows are no longer awaiting delivery. */
  async finalizeDelivery(pendingId: string, executor: SqlExecutor = this.dataSource): Promise<number> {
    const rows = await queryRows<{ id: string }>(
      executor,
      `UPDATE task_session_messages
          SET metadata = metadata - 'response_delivery_pending', updated_at = clock_timestamp()
        WHERE metadata->>'pending_id' = $1 AND metadata ? 'response_delivery_pending'
        RETURNING id`,
      [pendingId],
    );
    return rows.length;
  }

  /** Marks the session's current pending rows `agent_disconnected`; repeating it writes nothing. */
  detachSession(sessionId: string, executor: SqlExecutor = this.dataSource): Promise<BundleRow[]> {
    return this.patchCurrentPendingRows(sessionId, { agent_disconnected: true }, `m.metadata->>'agent_disconnected' IS DISTINCT FROM 'true'`, executor);
  }

  /** Expires the session's current pending rows (session ended, task archived). */
  expireSession(sessionId: string, executor: SqlExecutor = this.dataSource): Promise<BundleRow[]> {
    return this.patchCurrentPendingRows(sessionId, { status: ClarificationStatus.Expired }, 'TRUE', executor);
  }

  private patchCurrentPendingRows(
    sessionId: string,
    patch: BundleRowMetadata,
    extraCondition: string,
    executor: SqlExecutor,
  ): Promise<BundleRow[]> {
    return queryRows<BundleRow>(
      executor,
      `UPDATE task_session_messages m
          SET metadata = m.metadata || $2::jsonb, updated_at = clock_timestamp()
        WHERE m.task_session_id = $1 AND ${currentPendingRow('m')} AND ${extraCondition}
        RETURNING m.id, m.task_session_id, m.task_id, m.turn_id, m.content, m.metadata, m.created_at`,
      [sessionId, JSON.stringify(patch)],
    );
  }

  /** Cancel: the bundle's pending rows become `cancelled` (not a claim). */
  cancelBundle(pendingId: string, executor: SqlExecutor = this.dataSource): Promise<BundleRow[]> {
    return queryRows<BundleRow>(
      executor,
      `UPDATE task_session_messages m
          SET metadata = m.metadata || '{"status": "cancelled"}'::jsonb, updated_at = clock_timestamp()
        WHERE m.metadata->>'pending_id' = $1 AND m.type = '${CLARIFICATION_REQUEST}' AND ${currentPendingRow('m')}
        RETURNING m.id, m.task_session_id, m.task_id, m.turn_id, m.content, m.metadata, m.created_at`,
      [pendingId],
    );
  }

  /** Reserves the resume's successor turn: not authoritative until its dispatch is attempted. */
  async reserveSuccessorTurn(sessionId: string, taskId: string, turnId: string, pendingId: string): Promise<void> {
    await inTransaction(this.dataSource, async (manager) => {
      await this.lockSessions([sessionId], manager);
      await manager.query(
        `INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
         VALUES ($1, $2, $3, jsonb_build_object('prompt_dispatch_pending', true, 'resume_of', $4::text))`,
        [turnId, sessionId, taskId, pendingId],
      );
    });
  }

  /**
   * The at-most-once boundary: the successor turn is marked attempted (and so becomes the current
   * turn) just before the hand-off. With `queuedPrompt`, the resume prompt is stored on it as a
   * message in the same transaction: the durable hand-off when no webhook is configured.
   */
  async markDispatchAttempted(
    sessionId: string,
    turnId: string,
    queuedPrompt?: { messageId: string; taskId: string; content: string; metadata: Record<string, unknown> },
  ): Promise<void> {
    await inTransaction(this.dataSource, async (manager) => {
      await this.lockSessions([sessionId], manager);
      await manager.query(
        `UPDATE task_session_turns SET metadata = metadata || '{"prompt_dispatch_attempted": true}'::jsonb WHERE id = $1`,
        [turnId],
      );
      if (queuedPrompt) {
        await manager.query(
          `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata)
           VALUES ($1, $2, $3, $4, 'system', 'resume_prompt', $5, $6::jsonb)`,
          [queuedPrompt.messageId, sessionId, queuedPrompt.taskId, turnId, queuedPrompt.content, JSON.stringify(queuedPrompt.metadata)],
        );
      }
    });
  }

  /** A resume that was not accepted: drop its successor turn and roll the claim back to pending. */
  abandonResume(pendingId: string, sessionId: string, turnId: string): Promise<number> {
    return inTransaction(this.dataSource, async (manager) => {
      await this.lockSessions([sessionId], manager);
      await manager.query(`DELETE FROM task_session_turns WHERE id = $1`, [turnId]);
      return this.restoreActiveBundle(pendingId, manager);
    });
  }

  /**
   * Start-up reconciliation: a claim whose delivery was never confirmed is restored to pending when
   * still current, otherwise just unmarked. Returns the pending ids restored and unmarked.
   */
  reconcileUndelivered(): Promise<{ restored: string[]; unmarked: string[] }> {
    return inTransaction(this.dataSource, async (manager) => {
      const pendingIds = await queryRows<{ pending_id: string }>(
        manager,
        `SELECT DISTINCT metadata->>'pending_id' AS pending_id FROM task_session_messages
          WHERE type = '${CLARIFICATION_REQUEST}' AND metadata->>'response_delivery_pending' = 'true'
          ORDER BY 1`,
      );
      const restored: string[] = [];
      const unmarked: string[] = [];
      for (const { pending_id: pendingId } of pendingIds) {
        if ((await this.restoreActiveBundle(pendingId, manager)) > 0) restored.push(pendingId);
        if ((await this.finalizeDelivery(pendingId, manager)) > 0) unmarked.push(pendingId);
      }
      return { restored, unmarked };
    });
  }
}
