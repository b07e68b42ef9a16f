import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { inTransaction, namedStatement, type NamedStatement, processIsLive, ProcessLease, type SqlExecutor } from '#persistence';
import { CLARIFICATION_REQUEST } from '#tasks';
import { notifyBundlesSql } from '../bundle/bundle.sql.js';
import type { ClarificationResponse } from '../bundle/clarification.types.js';
import { insertEventsCtes } from '../bundle/question-event.sql.js';
import { BUNDLE_CHANNEL } from '../bundle/bundle-signal.channel.js';
import { settledSignal } from './claim.sql.js';
import type { EventRecord, Successor, UndeliveredClaim } from './claim.types.js';

/** What the audit trail says of a winning attempt whose claim was rolled back (its answer never reached the agent). */
const ROLLED_BACK = 'the claim was rolled back: its answer could not be delivered, and the clarification is pending again';

const DELIVERY_OWNERSHIP_FINALIZE = namedStatement(
  'delivery_ownership_finalize',
  ['pending_id', 'owner', 'session_id', 'task_id', 'type', 'payload', 'settled_signal'],
  `WITH done AS (
         UPDATE task_session_messages m
            SET metadata = m.metadata - 'response_delivery_pending' - 'delivery_owner', updated_at = clock_timestamp()
          WHERE m.metadata->>'pending_id' = :pending_id AND m.metadata->>'response_delivery_pending' = 'true' AND m.metadata->>'delivery_owner' = :owner
          RETURNING m.id, m.metadata->'resolved_by' AS resolved_by),
       won AS (SELECT 1 AS yes FROM done LIMIT 1),
       handoff AS (DELETE FROM clarification_handoffs WHERE pending_id = :pending_id AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
       presence AS (DELETE FROM clarification_waiters WHERE pending_id = :pending_id AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
       running AS (
         UPDATE task_sessions SET state = 'RUNNING', updated_at = clock_timestamp()
          WHERE id = :session_id AND state = 'WAITING_FOR_INPUT' AND EXISTS (SELECT 1 FROM won) RETURNING id),
       ${insertEventsCtes(`SELECT :type::text AS type, :pending_id::text AS pending_id, :session_id::text AS session_id, :task_id::text AS task_id,
         :payload::jsonb || jsonb_build_object('resolved_by', (SELECT d.resolved_by FROM done d LIMIT 1)) AS payload FROM won`)},
       signals AS (SELECT pg_notify('${BUNDLE_CHANNEL}', :settled_signal::text) FROM won)
       SELECT (SELECT COUNT(*) FROM done)::text AS finalized,
              (SELECT COUNT(*) FROM handoff) + (SELECT COUNT(*) FROM presence) + (SELECT COUNT(*) FROM running)
                + (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM signals) AS written`,
);

const DELIVERY_OWNERSHIP_ABANDON_LOCK_SESSION = namedStatement(
  'delivery_ownership_abandon_lock_session',
  ['session_id'],
  `SELECT pg_advisory_xact_lock(hashtextextended(:session_id, 0))`,
);

const DELIVERY_OWNERSHIP_ABANDON_LOCK_ROW = namedStatement(
  'delivery_ownership_abandon_lock_row',
  ['session_id'],
  `SELECT id FROM task_sessions WHERE id = :session_id FOR UPDATE`,
);

const DELIVERY_OWNERSHIP_ABANDON_REVERT = namedStatement(
  'delivery_ownership_abandon_revert',
  ['pending_id', 'owner', 'session_id'],
  `WITH reverted AS (
           UPDATE task_session_messages m
              SET metadata = (m.metadata - 'response' - 'response_delivery_pending' - 'delivery_owner' - 'resolved_by' - 'receipt') || '{"status": "pending"}'::jsonb,
                  updated_at = clock_timestamp()
            WHERE m.metadata->>'pending_id' = :pending_id AND m.metadata->>'response_delivery_pending' = 'true'
              AND m.metadata->>'delivery_owner' IS NOT DISTINCT FROM :owner AND m.type = '${CLARIFICATION_REQUEST}'
            RETURNING m.id),
         dropped AS (
           DELETE FROM task_session_turns t
            WHERE t.metadata->>'resume_of' = :pending_id AND t.task_session_id = :session_id AND EXISTS (SELECT 1 FROM reverted)
              AND NOT EXISTS (SELECT 1 FROM task_session_messages tm WHERE tm.turn_id = t.id)
           RETURNING id),
         handoff AS (DELETE FROM clarification_handoffs WHERE pending_id = :pending_id AND EXISTS (SELECT 1 FROM reverted) RETURNING pending_id),
         unwon AS (
           UPDATE clarification_audit SET outcome = 'failed', detail = '${ROLLED_BACK}'
            WHERE pending_id = :pending_id AND outcome = 'won' AND EXISTS (SELECT 1 FROM reverted)
           RETURNING id)
         SELECT r.id, (SELECT COUNT(*) FROM dropped) + (SELECT COUNT(*) FROM handoff) + (SELECT COUNT(*) FROM unwon) AS written FROM reverted r`,
);

const DELIVERY_OWNERSHIP_ABANDON_NOTIFY = namedStatement(
  'delivery_ownership_abandon_notify',
  ['pending_id'],
  `SELECT pg_notify('${BUNDLE_CHANNEL}', json_build_object('pending_id', :pending_id::text, 'kind', 'reopened')::text)`,
);

const DELIVERY_OWNERSHIP_ABANDON_REASK = namedStatement(
  'delivery_ownership_abandon_reask',
  ['others'],
  `WITH ${insertEventsCtes(`SELECT 'ASKED'::text AS type, b.pending_id, b.session_id, b.task_id, '{}'::jsonb AS payload
             FROM clarification_bundles b WHERE b.pending_id = ANY(:others::text[])`)}
           SELECT COUNT(*) FROM events`,
);

const DELIVERY_OWNERSHIP_RESUME_LOCK_SESSION = namedStatement(
  'delivery_ownership_resume_lock_session',
  ['session_id'],
  `SELECT pg_advisory_xact_lock(hashtextextended(:session_id, 0))`,
);

const DELIVERY_OWNERSHIP_RESUME_HELD = namedStatement(
  'delivery_ownership_resume_held',
  ['pending_id', 'owner'],
  `SELECT 1 FROM task_session_messages WHERE metadata->>'pending_id' = :pending_id AND metadata->>'delivery_owner' = :owner
            AND metadata->>'response_delivery_pending' = 'true' LIMIT 1`,
);

const DELIVERY_OWNERSHIP_RESUME_SUCCESSOR = namedStatement(
  'delivery_ownership_resume_successor',
  ['turn_id', 'session_id', 'session_task_id', 'pending_id'],
  `WITH successor AS (
           INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
           VALUES (:turn_id, :session_id, :session_task_id, jsonb_build_object('prompt_dispatch_pending', true, 'prompt_dispatch_attempted', true, 'resume_of', :pending_id::text))
           RETURNING id),
         superseded AS (
           UPDATE clarification_bundles SET active = false
            WHERE session_id = :session_id AND active AND pending_id <> :pending_id AND EXISTS (SELECT 1 FROM successor)
           RETURNING pending_id, session_id, task_id),
         handoff AS (DELETE FROM clarification_handoffs WHERE pending_id = :pending_id RETURNING pending_id),
         ${insertEventsCtes(`SELECT 'SUPERSEDED'::text AS type, pending_id, session_id, task_id, '{}'::jsonb AS payload FROM superseded`)},
         signals AS (${notifyBundlesSql('SELECT pending_id FROM superseded', 'superseded')})
         SELECT (SELECT COUNT(*) FROM handoff) + (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM signals) AS written`,
);

const DELIVERY_OWNERSHIP_RESUME_INSERT = namedStatement(
  'delivery_ownership_resume_insert',
  ['message_id', 'session_id', 'session_task_id', 'turn_id', 'content', 'metadata'],
  `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata)
         VALUES (:message_id, :session_id, :session_task_id, :turn_id, 'system', 'resume_prompt', :content, :metadata::jsonb)`,
);

const DELIVERY_OWNERSHIP_TAKE_OVER = namedStatement(
  'delivery_ownership_take_over',
  ['pending_id', 'from', 'to'],
  `UPDATE task_session_messages m SET metadata = m.metadata || jsonb_build_object('delivery_owner', :to::text)
        WHERE m.metadata->>'pending_id' = :pending_id AND m.metadata->>'response_delivery_pending' = 'true'
          AND m.metadata->>'delivery_owner' IS NOT DISTINCT FROM :from
        RETURNING m.id`,
);

const DELIVERY_OWNERSHIP_UNDELIVERED = namedStatement(
  'delivery_ownership_undelivered',
  ['self'],
  `SELECT DISTINCT m.metadata->>'pending_id' AS pending_id, m.task_session_id AS session_id, m.metadata->>'delivery_owner' AS owner
         FROM task_session_messages m
        WHERE m.metadata->>'response_delivery_pending' = 'true' AND m.type = '${CLARIFICATION_REQUEST}'
          AND (m.metadata->>'delivery_owner' IS NULL OR m.metadata->>'delivery_owner' = :self
               OR NOT ${processIsLive(`m.metadata->>'delivery_owner'`)})
        ORDER BY 1`,
);

const DELIVERY_OWNERSHIP_SUCCESSOR_OF = namedStatement(
  'delivery_ownership_successor_of',
  ['pending_id'],
  `SELECT id FROM task_session_turns WHERE metadata->>'resume_of' = :pending_id ORDER BY created_at DESC LIMIT 1`,
);

const DELIVERY_OWNERSHIP_HANDOFF = namedStatement(
  'delivery_ownership_handoff',
  ['pending_id', 'process_id'],
  `SELECT response FROM clarification_handoffs WHERE pending_id = :pending_id AND process_id = :process_id`,
);

const DELIVERY_OWNERSHIP_RESUME_URL_OF = namedStatement(
  'delivery_ownership_resume_url_of',
  ['session_id'],
  `SELECT resume_url FROM task_sessions WHERE id = :session_id`,
);

const DELIVERY_OWNERSHIP_QUEUE_PROMPT = namedStatement(
  'delivery_ownership_queue_prompt',
  ['message_id', 'session_id', 'session_task_id', 'turn_id', 'content', 'metadata'],
  `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata)
         SELECT :message_id, :session_id, :session_task_id, :turn_id, 'system', 'resume_prompt', :content, :metadata::jsonb
          WHERE NOT EXISTS (SELECT 1 FROM task_session_messages WHERE turn_id = :turn_id AND type = 'resume_prompt')`,
);

/** The statements DeliveryOwnershipRepository runs, for `npm run sql:write`. */
export const deliveryOwnershipStatements: readonly NamedStatement[] = [
  DELIVERY_OWNERSHIP_FINALIZE,
  DELIVERY_OWNERSHIP_ABANDON_LOCK_SESSION,
  DELIVERY_OWNERSHIP_ABANDON_LOCK_ROW,
  DELIVERY_OWNERSHIP_ABANDON_REVERT,
  DELIVERY_OWNERSHIP_ABANDON_NOTIFY,
  DELIVERY_OWNERSHIP_ABANDON_REASK,
  DELIVERY_OWNERSHIP_RESUME_LOCK_SESSION,
  DELIVERY_OWNERSHIP_RESUME_HELD,
  DELIVERY_OWNERSHIP_RESUME_SUCCESSOR,
  DELIVERY_OWNERSHIP_RESUME_INSERT,
  DELIVERY_OWNERSHIP_TAKE_OVER,
  DELIVERY_OWNERSHIP_UNDELIVERED,
  DELIVERY_OWNERSHIP_SUCCESSOR_OF,
  DELIVERY_OWNERSHIP_HANDOFF,
  DELIVERY_OWNERSHIP_RESUME_URL_OF,
  DELIVERY_OWNERSHIP_QUEUE_PROMPT,
];

/**
 * What follows a won claim until the winner's answer is final or rolled back: the claim's delivery is
 * owned by a process (its lease) — finalized, rolled back, turned into a resume, or taken over.
 */
@Injectable()
export class DeliveryOwnershipRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lease: ProcessLease,
  ) {}

  /**
   * The delivery is confirmed (a live agent took it, or the webhook accepted the resume): the answer
   * becomes final — fenced by the owner, so a process whose claim was taken over cannot finalize it —
   * with its event, the session back to RUNNING and the `settled` signal. Returns whether it did.
   */
  async finalize(
    pendingId: string,
    owner: string,
    sessionId: string,
    taskId: string,
    event: EventRecord,
    executor: SqlExecutor = this.dataSource,
  ): Promise<boolean> {
    const row = await DELIVERY_OWNERSHIP_FINALIZE.row<{ finalized: string }>(executor, {
      pending_id: pendingId,
      owner,
      session_id: sessionId,
      task_id: taskId,
      type: event.type,
      payload: JSON.stringify(event.payload),
      settled_signal: settledSignal(pendingId, this.lease.id),
    });
    return Number(row?.finalized ?? 0) > 0;
  }

  /**
   * Rolls an undelivered claim of `owner` back (baseline restore): its successor turn is dropped and
   * its rows are pending again, without response — active again only while still on the current turn
   * of a live session. Either way the delivery marker is gone, so nothing reconciles it again.
   * Returns whether rows were rolled back and whether the bundle is active (answerable) now.
   */
  abandon(
    pendingId: string,
    owner: string,
    sessionId: string,
    refreshIndex: (manager: EntityManager, pendingIds: string[]) => Promise<string[]>,
  ): Promise<{ rolledBack: boolean; active: boolean; reactivated: string[] }> {
    return inTransaction(this.dataSource, async (manager) => {
      await DELIVERY_OWNERSHIP_ABANDON_LOCK_SESSION.rows(manager, { session_id: sessionId });
      await DELIVERY_OWNERSHIP_ABANDON_LOCK_ROW.rows(manager, { session_id: sessionId });
      const reverted = await DELIVERY_OWNERSHIP_ABANDON_REVERT.rows<{ id: string }>(manager, {
        pending_id: pendingId,
        owner,
        session_id: sessionId,
      });
      if (reverted.length === 0) return { rolledBack: false, active: false, reactivated: [] };
      const reactivated = await refreshIndex(manager, [pendingId]);
      await DELIVERY_OWNERSHIP_ABANDON_NOTIFY.rows(manager, { pending_id: pendingId });
      const others = reactivated.filter((id) => id !== pendingId);
      if (others.length > 0) {
        await DELIVERY_OWNERSHIP_ABANDON_REASK.rows(manager, { others });
      }
      return { rolledBack: true, active: reactivated.includes(pendingId), reactivated: others };
    });
  }

  /**
   * A claim this process owns turns into a resume after all (the replica holding the agent's wait
   * never took the hand-off): the successor turn is created — superseding the session's other
   * bundles — and, with a queued prompt, the answer is final in the same transaction.
   */
  resumeInstead(
    target: { pendingId: string; owner: string; sessionId: string; sessionTaskId: string; bundleTaskId: string },
    successor: Successor,
    event: EventRecord,
  ): Promise<boolean> {
    return inTransaction(this.dataSource, async (manager) => {
      await DELIVERY_OWNERSHIP_RESUME_LOCK_SESSION.rows(manager, { session_id: target.sessionId });
      const owned = await DELIVERY_OWNERSHIP_RESUME_HELD.row(manager, { pending_id: target.pendingId, owner: target.owner });
      if (!owned) return false;
      await DELIVERY_OWNERSHIP_RESUME_SUCCESSOR.rows(manager, {
        turn_id: successor.turnId,
        session_id: target.sessionId,
        session_task_id: target.sessionTaskId,
        pending_id: target.pendingId,
      });
      if (!successor.queuedPrompt) return true;
      await DELIVERY_OWNERSHIP_RESUME_INSERT.rows(manager, {
        message_id: successor.queuedPrompt.messageId,
        session_id: target.sessionId,
        session_task_id: target.sessionTaskId,
        turn_id: successor.turnId,
        content: successor.queuedPrompt.content,
        metadata: JSON.stringify(successor.queuedPrompt.metadata),
      });
      return this.finalize(target.pendingId, target.owner, target.sessionId, target.bundleTaskId, event, manager);
    });
  }

  /** Moves an undelivered claim from `from` (a process whose lease expired, or null) to `to`; false if gone. */
  async takeOver(pendingId: string, from: string | null, to: string): Promise<boolean> {
    const rows = await DELIVERY_OWNERSHIP_TAKE_OVER.rows<{ id: string }>(this.dataSource, { pending_id: pendingId, from, to });
    return rows.length > 0;
  }

  /** Claims still awaiting delivery whose owner is gone (no live lease, or none recorded) or is `self`. */
  undelivered(self: string): Promise<UndeliveredClaim[]> {
    return DELIVERY_OWNERSHIP_UNDELIVERED.rows<UndeliveredClaim>(this.dataSource, { self });
  }

  /** The attempted successor turn of a resume (the hand-off's idempotency key), if one was created. */
  async successorOf(pendingId: string): Promise<string | undefined> {
    const row = await DELIVERY_OWNERSHIP_SUCCESSOR_OF.row<{ id: string }>(this.dataSource, { pending_id: pendingId });
    return row?.id;
  }

  /** The response a winning process handed to the process holding the agent's wait. */
  async handoff(pendingId: string, processId: string): Promise<ClarificationResponse | undefined> {
    const row = await DELIVERY_OWNERSHIP_HANDOFF.row<{ response: ClarificationResponse }>(this.dataSource, {
      pending_id: pendingId,
      process_id: processId,
    });
    return row?.response;
  }

  async resumeUrlOf(sessionId: string): Promise<string> {
    const row = await DELIVERY_OWNERSHIP_RESUME_URL_OF.row<{ resume_url: string }>(this.dataSource, { session_id: sessionId });
    return row?.resume_url ?? '';
  }

  /**
   * Completes a resume owed since a claim whose owner died, when no webhook is configured any more:
   * the prompt is queued on the successor turn and the answer finalized, in one transaction.
   */
  queuePromptAndFinalize(
    target: { pendingId: string; owner: string; sessionId: string; sessionTaskId: string; bundleTaskId: string; turnId: string },
    prompt: { messageId: string; content: string; metadata: Record<string, unknown> },
    event: EventRecord,
  ): Promise<boolean> {
    return inTransaction(this.dataSource, async (manager) => {
      await DELIVERY_OWNERSHIP_QUEUE_PROMPT.rows(manager, {
        message_id: prompt.messageId,
        session_id: target.sessionId,
        session_task_id: target.sessionTaskId,
        turn_id: target.turnId,
        content: prompt.content,
        metadata: JSON.stringify(prompt.metadata),
      });
      return this.finalize(target.pendingId, target.owner, target.sessionId, target.bundleTaskId, event, manager);
    });
  }
}
