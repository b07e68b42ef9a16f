import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { namedStatement, type NamedStatement } from '#persistence';

export interface DueDeadline {
  pending_id: string;
  session_id: string;
}

const DEADLINE_ANY_DUE = namedStatement(
  'deadline_any_due',
  [],
  `SELECT EXISTS (SELECT 1 FROM clarification_deadlines WHERE due_at <= clock_timestamp()) AS due`,
);

const DEADLINE_CLAIM_DUE = namedStatement(
  'deadline_claim_due',
  [],
  `SELECT pending_id, session_id FROM clarification_deadlines
        WHERE due_at <= clock_timestamp() ORDER BY due_at LIMIT 1 FOR UPDATE SKIP LOCKED`,
);

const DEADLINE_SESSION_HAS_DELIVERY = namedStatement(
  'deadline_session_has_delivery',
  ['session_id'],
  `SELECT EXISTS (SELECT 1 FROM task_session_messages
                       WHERE task_session_id = :session_id AND metadata->>'response_delivery_pending' = 'true') AS delivering`,
);

const DEADLINE_POSTPONE = namedStatement(
  'deadline_postpone',
  ['pending_id', 'delay_ms'],
  `UPDATE clarification_deadlines SET due_at = clock_timestamp() + make_interval(secs => :delay_ms::double precision / 1000) WHERE pending_id = :pending_id`,
);

const DEADLINE_RESUME_SESSION = namedStatement(
  'deadline_resume_session',
  ['session_id'],
  `UPDATE task_sessions SET state = 'RUNNING', updated_at = clock_timestamp()
        WHERE id = :session_id AND state = 'WAITING_FOR_INPUT'
          AND NOT EXISTS (SELECT 1 FROM clarification_bundles b WHERE b.session_id = :session_id AND b.active)`,
);

const DEADLINE_DROP = namedStatement(
  'deadline_drop',
  ['pending_id'],
  `DELETE FROM clarification_deadlines WHERE pending_id = :pending_id`,
);

/** The statements DeadlineRepository runs, for `npm run sql:write`. */
export const deadlineStatements: readonly NamedStatement[] = [
  DEADLINE_ANY_DUE,
  DEADLINE_CLAIM_DUE,
  DEADLINE_SESSION_HAS_DELIVERY,
  DEADLINE_POSTPONE,
  DEADLINE_RESUME_SESSION,
  DEADLINE_DROP,
];

/** `clarification_deadlines`: the bundles asked with `expires_in_seconds`, until their deadline is handled. */
@Injectable()
export class DeadlineRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Whether any deadline is due (a cheap look before a sweep opens a transaction). */
  async anyDue(): Promise<boolean> {
    const row = await DEADLINE_ANY_DUE.row<{ due: boolean }>(this.dataSource, {});
    return row?.due === true;
  }

  /**
   * Locks the most overdue deadline no other process is handling (SKIP LOCKED: replicas share the
   * work, none waits on another). Only the sweep locks these rows, and it takes the session's lock
   * after this one, so it cannot deadlock with a claim or a lifecycle change.
   */
  claimDue(manager: EntityManager): Promise<DueDeadline | undefined> {
    return DEADLINE_CLAIM_DUE.row<DueDeadline>(manager, {});
  }

  /** Whether a claim of the session is still being delivered (it may be rolled back and reopen a bundle). */
  async sessionHasDelivery(sessionId: string, manager: EntityManager): Promise<boolean> {
    const row = await DEADLINE_SESSION_HAS_DELIVERY.row<{ delivering: boolean }>(manager, { session_id: sessionId });
    return row?.delivering === true;
  }

  async postpone(pendingId: string, delayMs: number, manager: EntityManager): Promise<void> {
    await DEADLINE_POSTPONE.rows(manager, { pending_id: pendingId, delay_ms: delayMs });
  }

  /**
   * The agent's ask ended (typed EXPIRED): the session runs again, as after an answer — unless it still
   * waits on another active bundle.
   */
  async resumeSession(sessionId: string, manager: EntityManager): Promise<void> {
    await DEADLINE_RESUME_SESSION.rows(manager, { session_id: sessionId });
  }

  async drop(pendingId: string, manager: EntityManager): Promise<void> {
    await DEADLINE_DROP.rows(manager, { pending_id: pendingId });
  }
}
