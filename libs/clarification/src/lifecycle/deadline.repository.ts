import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { queryRow } from '#persistence';

export interface DueDeadline {
  pending_id: string;
  session_id: string;
}

/** `clarification_deadlines`: the bundles asked with `expires_in_seconds`, until their deadline is handled. */
@Injectable()
export class DeadlineRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether any deadline is due (a cheap look before a sweep opens a transaction). */
  async anyDue(): Promise<boolean> {
    const row = await queryRow<{ due: boolean }>(
      this.dataSource,
      `SELECT EXISTS (SELECT 1 FROM clarification_deadlines WHERE due_at <= clock_timestamp()) AS due`,
    );
    return row?.due === true;
  }

  /**
   * Locks the most overdue deadline no other process is handling (SKIP LOCKED: replicas share the
   * work, none waits on another). Only the sweep locks these rows, and it takes the session's lock
   * after this one, so it cannot deadlock with a claim or a lifecycle change.
   */
  claimDue(manager: EntityManager): Promise<DueDeadline | undefined> {
    return queryRow<DueDeadline>(
      manager,
      `SELECT pending_id, session_id FROM clarification_deadlines
        WHERE due_at <= clock_timestamp() ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
    );
  }

  /** Whether a claim of the session is still being delivered (it may be rolled back and reopen a bundle). */
  async sessionHasDelivery(sessionId: string, manager: EntityManager): Promise<boolean> {
    const row = await queryRow<{ delivering: boolean }>(
      manager,
      `SELECT EXISTS (SELECT 1 FROM task_session_messages
                       WHERE task_session_id = $1 AND metadata->>'response_delivery_pending' = 'true') AS delivering`,
      [sessionId],
    );
    return row?.delivering === true;
  }

  async postpone(pendingId: string, delayMs: number, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE clarification_deadlines SET due_at = clock_timestamp() + make_interval(secs => $2::double precision / 1000) WHERE pending_id = $1`,
      [pendingId, delayMs],
    );
  }

  /**
   * The agent's ask ended (typed EXPIRED): the session runs again, as after an answer — unless it still
   * waits on another active bundle.
   */
  async resumeSession(sessionId: string, manager: EntityManager): Promise<void> {
    await manager.query(
      `UPDATE task_sessions SET state = 'RUNNING', updated_at = clock_timestamp()
        WHERE id = $1 AND state = 'WAITING_FOR_INPUT'
          AND NOT EXISTS (SELECT 1 FROM clarification_bundles b WHERE b.session_id = $1 AND b.active)`,
      [sessionId],
    );
  }

  async drop(pendingId: string, manager: EntityManager): Promise<void> {
    await manager.query(`DELETE FROM clarification_deadlines WHERE pending_id = $1`, [pendingId]);
  }
}
