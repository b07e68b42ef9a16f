import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { inTransaction, ProcessLease, processIsLive, queryRow, queryRows, type SqlExecutor } from '#persistence';
import { CLARIFICATION_REQUEST } from '#tasks';
import { notifyBundlesSql } from '../bundle/bundle.sql.js';
import type { ClarificationResponse } from '../bundle/clarification.types.js';
import { insertEventsCtes } from '../bundle/question-event.sql.js';
import { BUNDLE_CHANNEL } from '../bundle/bundle-signal.channel.js';
import { settledSignal } from './claim.sql.js';
import type { EventRecord, Successor, UndeliveredClaim } from './claim.types.js';

/** What the audit trail says of a winning attempt whose claim was rolled back (its answer never reached the agent). */
const ROLLED_BACK = 'the claim was rolled back: its answer could not be delivered, and the clarification is pending again';

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
    const row = await queryRow<{ finalized: string }>(
      executor,
      `WITH done AS (
         UPDATE task_session_messages m
            SET metadata = m.metadata - 'response_delivery_pending' - 'delivery_owner', updated_at = clock_timestamp()
          WHERE m.metadata->>'pending_id' = $1 AND m.metadata->>'response_delivery_pending' = 'true' AND m.metadata->>'delivery_owner' = $2
          RETURNING m.id, m.metadata->'resolved_by' AS resolved_by),
       won AS (SELECT 1 AS yes FROM done LIMIT 1),
       handoff AS (DELETE FROM clarification_handoffs WHERE pending_id = $1 AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
       presence AS (DELETE FROM clarification_waiters WHERE pending_id = $1 AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
       running AS (
         UPDATE task_sessions SET state = 'RUNNING', updated_at = clock_timestamp()
          WHERE id = $3 AND state = 'WAITING_FOR_INPUT' AND EXISTS (SELECT 1 FROM won) RETURNING id),
       ${insertEventsCtes(`SELECT $5::text AS type, $1::text AS pending_id, $3::text AS session_id, $4::text AS task_id,
         $6::jsonb || jsonb_build_object('resolved_by', (SELECT d.resolved_by FROM done d LIMIT 1)) AS payload FROM won`)},
       signals AS (SELECT pg_notify('${BUNDLE_CHANNEL}', $7::text) FROM won)
       SELECT (SELECT COUNT(*) FROM done)::text AS finalized,
              (SELECT COUNT(*) FROM handoff) + (SELECT COUNT(*) FROM presence) + (SELECT COUNT(*) FROM running)
                + (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM signals) AS written`,
      [pendingId, owner, sessionId, taskId, event.type, JSON.stringify(event.payload), settledSignal(pendingId, this.lease.id)],
    );
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
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [sessionId]);
      await manager.query(`SELECT id FROM task_sessions WHERE id = $1 FOR UPDATE`, [sessionId]);
      const reverted = await queryRows<{ id: string }>(
        manager,
        `WITH reverted AS (
           UPDATE task_session_messages m
              SET metadata = (m.metadata - 'response' - 'response_delivery_pending' - 'delivery_owner' - 'resolved_by' - 'receipt') || '{"status": "pending"}'::jsonb,
                  updated_at = clock_timestamp()
            WHERE m.metadata->>'pending_id' = $1 AND m.metadata->>'response_delivery_pending' = 'true'
              AND m.metadata->>'delivery_owner' IS NOT DISTINCT FROM $2 AND m.type = '${CLARIFICATION_REQUEST}'
            RETURNING m.id),
         dropped AS (
           DELETE FROM task_session_turns t
            WHERE t.metadata->>'resume_of' = $1 AND t.task_session_id = $3 AND EXISTS (SELECT 1 FROM reverted)
              AND NOT EXISTS (SELECT 1 FROM task_session_messages tm WHERE tm.turn_id = t.id)
           RETURNING id),
         handoff AS (DELETE FROM clarification_handoffs WHERE pending_id = $1 AND EXISTS (SELECT 1 FROM reverted) RETURNING pending_id),
         unwon AS (
           UPDATE clarification_audit SET outcome = 'failed', detail = '${ROLLED_BACK}'
            WHERE pending_id = $1 AND outcome = 'won' AND EXISTS (SELECT 1 FROM reverted)
           RETURNING id)
         SELECT r.id, (SELECT COUNT(*) FROM dropped) + (SELECT COUNT(*) FROM handoff) + (SELECT COUNT(*) FROM unwon) AS written FROM reverted r`,
        [pendingId, owner, sessionId],
      );
      if (reverted.length === 0) return { rolledBack: false, active: false, reactivated: [] };
      const reactivated = await refreshIndex(manager, [pendingId]);
      await manager.query(
        `SELECT pg_notify('${BUNDLE_CHANNEL}', json_build_object('pending_id', $1::text, 'kind', 'reopened')::text)`,
        [pendingId],
      );
      const others = reactivated.filter((id) => id !== pendingId);
      if (others.length > 0) {
        await manager.query(
          `WITH ${insertEventsCtes(`SELECT 'ASKED'::text AS type, b.pending_id, b.session_id, b.task_id, '{}'::jsonb AS payload
             FROM clarification_bundles b WHERE b.pending_id = ANY($1::text[])`)}
           SELECT COUNT(*) FROM events`,
          [others],
        );
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
      await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [target.sessionId]);
      const owned = await queryRow(
        manager,
        `SELECT 1 FROM task_session_messages WHERE metadata->>'pending_id' = $1 AND metadata->>'delivery_owner' = $2
            AND metadata->>'response_delivery_pending' = 'true' LIMIT 1`,
        [target.pendingId, target.owner],
      );
      if (!owned) return false;
      await manager.query(
        `WITH successor AS (
           INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
           VALUES ($1, $2, $3, jsonb_build_object('prompt_dispatch_pending', true, 'prompt_dispatch_attempted', true, 'resume_of', $4::text))
           RETURNING id),
         superseded AS (
           UPDATE clarification_bundles SET active = false
            WHERE session_id = $2 AND active AND pending_id <> $4 AND EXISTS (SELECT 1 FROM successor)
           RETURNING pending_id, session_id, task_id),
         handoff AS (DELETE FROM clarification_handoffs WHERE pending_id = $4 RETURNING pending_id),
         ${insertEventsCtes(`SELECT 'SUPERSEDED'::text AS type, pending_id, session_id, task_id, '{}'::jsonb AS payload FROM superseded`)},
         signals AS (${notifyBundlesSql('SELECT pending_id FROM superseded', 'superseded')})
         SELECT (SELECT COUNT(*) FROM handoff) + (SELECT COUNT(*) FROM events) + (SELECT COUNT(*) FROM signals) AS written`,
        [successor.turnId, target.sessionId, target.sessionTaskId, target.pendingId],
      );
      if (!successor.queuedPrompt) return true;
      await manager.query(
        `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata)
         VALUES ($1, $2, $3, $4, 'system', 'resume_prompt', $5, $6::jsonb)`,
        [
          successor.queuedPrompt.messageId,
          target.sessionId,
          target.sessionTaskId,
          successor.turnId,
          successor.queuedPrompt.content,
          JSON.stringify(successor.queuedPrompt.metadata),
        ],
      );
      return this.finalize(target.pendingId, target.owner, target.sessionId, target.bundleTaskId, event, manager);
    });
  }

  /** Moves an undelivered claim from `from` (a process whose lease expired, or null) to `to`; false if gone. */
  async takeOver(pendingId: string, from: string | null, to: string): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `UPDATE task_session_messages m SET metadata = m.metadata || jsonb_build_object('delivery_owner', $3::text)
        WHERE m.metadata->>'pending_id' = $1 AND m.metadata->>'response_delivery_pending' = 'true'
          AND m.metadata->>'delivery_owner' IS NOT DISTINCT FROM $2
        RETURNING m.id`,
      [pendingId, from, to],
    );
    return rows.length > 0;
  }

  /** Claims still awaiting delivery whose owner is gone (no live lease, or none recorded) or is `self`. */
  undelivered(self: string): Promise<UndeliveredClaim[]> {
    return queryRows<UndeliveredClaim>(
      this.dataSource,
      `SELECT DISTINCT m.metadata->>'pending_id' AS pending_id, m.task_session_id AS session_id, m.metadata->>'delivery_owner' AS owner
         FROM task_session_messages m
        WHERE m.metadata->>'response_delivery_pending' = 'true' AND m.type = '${CLARIFICATION_REQUEST}'
          AND (m.metadata->>'delivery_owner' IS NULL OR m.metadata->>'delivery_owner' = $1
               OR NOT ${processIsLive(`m.metadata->>'delivery_owner'`)})
        ORDER BY 1`,
      [self],
    );
  }

  /** The attempted successor turn of a resume (the hand-off's idempotency key), if one was created. */
  async successorOf(pendingId: string): Promise<string | undefined> {
    const row = await queryRow<{ id: string }>(
      this.dataSource,
      `SELECT id FROM task_session_turns WHERE metadata->>'resume_of' = $1 ORDER BY created_at DESC LIMIT 1`,
      [pendingId],
    );
    return row?.id;
  }

  /** The response a winning process handed to the process holding the agent's wait. */
  async handoff(pendingId: string, processId: string): Promise<ClarificationResponse | undefined> {
    const row = await queryRow<{ response: ClarificationResponse }>(
      this.dataSource,
      `SELECT response FROM clarification_handoffs WHERE pending_id = $1 AND process_id = $2`,
      [pendingId, processId],
    );
    return row?.response;
  }

  async resumeUrlOf(sessionId: string): Promise<string> {
    const row = await queryRow<{ resume_url: string }>(this.dataSource, `SELECT resume_url FROM task_sessions WHERE id = $1`, [sessionId]);
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
      await manager.query(
        `INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata)
         SELECT $1, $2, $3, $4, 'system', 'resume_prompt', $5, $6::jsonb
          WHERE NOT EXISTS (SELECT 1 FROM task_session_messages WHERE turn_id = $4 AND type = 'resume_prompt')`,
        [prompt.messageId, target.sessionId, target.sessionTaskId, target.turnId, prompt.content, JSON.stringify(prompt.metadata)],
      );
      return this.finalize(target.pendingId, target.owner, target.sessionId, target.bundleTaskId, event, manager);
    });
  }
}
