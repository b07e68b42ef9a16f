import { Injectable } from '@nestjs/common';
import { DataSource, type EntityManager } from 'typeorm';
import { inTransaction, ProcessLease, processIsLive, queryRow, queryRows, runNamed, type SqlExecutor } from '#persistence';
import { activeRow, CLARIFICATION_REQUEST } from '#tasks';
import { notifyBundlesSql } from '../bundle/bundle.repository.js';
import { BUNDLE_CHANNEL } from '../wait/bundle-signal.channel.js';
import { type Answer, type BundleRowMetadata, ClarificationStatus, type ClarificationResponse, type TerminalStatus } from '../bundle/clarification.types.js';
import { insertEventsCtes } from '../events/question-event.repository.js';
import type { ClaimAudit } from '../audit/audit.types.js';
import type { WinnerIdentity } from '../bundle/resolved-by.rules.js';

/** What the audit trail says of a winning attempt whose claim was rolled back (its answer never reached the agent). */
const ROLLED_BACK = 'the claim was rolled back: its answer could not be delivered, and the clarification is pending again';

/** A question event written with the change it reports. */
export interface EventRecord {
  type: 'ANSWERED' | 'REJECTED';
  payload: Record<string, unknown>;
}

/** The successor turn a resume creates (marked attempted: the hand-off is owed from the claim's commit). */
export interface Successor {
  turnId: string;
  /** With no webhook, the resume prompt queued on the successor turn (the hand-off, durable at once). */
  queuedPrompt?: { messageId: string; content: string; metadata: Record<string, unknown> };
}

/**
 * What the winning claim commits with, decided once the session is locked:
 * - `final`: nothing left to deliver (the prompt is queued, or a rejection nobody waits for): the
 *   answer is final in the claim's own transaction, with its event;
 * - `deliver`: an agent waits live — here (owner = this process) or on the process `owner` (the
 *   response is handed over in `clarification_handoffs`);
 * - `resume`: the agent is resumed through a webhook after the commit, under this process's ownership.
 */
export type ClaimPlan =
  | { kind: 'final'; event: EventRecord; successor?: Successor }
  | { kind: 'deliver'; owner: string; handoff?: ClarificationResponse }
  | { kind: 'resume'; owner: string; successor: Successor };

export interface ClaimRequest {
  pendingId: string;
  sessionId: string;
  /** The session row's task (turns and messages carry it). */
  sessionTaskId: string;
  /** The bundle's task per M5 (events carry it). */
  bundleTaskId: string;
  terminal: TerminalStatus;
  responses: ReadonlyMap<string, Answer> | undefined;
  /** Who is claiming and through which surface: recorded on the rows as `resolved_by` when the claim wins (issue 15). */
  winner: WinnerIdentity;
  /** The attempt, recorded in the audit trail as won by the claim's own statement (issue 15). */
  audit: ClaimAudit;
}

export interface ClaimedRow {
  id: string;
  metadata: BundleRowMetadata;
}

export interface ClaimResult {
  claimed: boolean;
  rows: ClaimedRow[];
  plan: ClaimPlan | undefined;
}

export interface UndeliveredClaim {
  pending_id: string;
  session_id: string;
  owner: string | null;
}

function settledSignal(pendingId: string, from: string): string {
  return JSON.stringify({ pending_id: pendingId, kind: 'settled', from });
}

/**
 * The claim's two statements, fixed texts sent as named prepared statements (planned once per
 * connection: the claim CTE's planning cost about twice its execution, issue 11 target 5).
 */
const CLAIM_LOCK_SQL = `SELECT pg_advisory_xact_lock(hashtextextended($1, 0)) IS NULL AS locked,
  (SELECT w.process_id FROM clarification_waiters w
    WHERE w.pending_id = $2 AND w.process_id <> $3 AND ${processIsLive('w.process_id')} LIMIT 1) AS remote_agent`;

const CLAIM_SQL = `WITH winner_name AS (SELECT winner_u.name FROM users winner_u WHERE winner_u.id = $17::jsonb->>'user_id'),
  claimed AS (
    UPDATE task_session_messages m
       SET metadata = m.metadata || jsonb_build_object('status', $2::text)
             || CASE WHEN $2 = 'answered' THEN jsonb_build_object('response', $3::jsonb -> (m.metadata->>'question_id')) ELSE '{}'::jsonb END
             || CASE WHEN $4 THEN '{}'::jsonb ELSE jsonb_build_object('response_delivery_pending', true, 'delivery_owner', $5::text) END
             || jsonb_build_object('resolved_by', $17::jsonb || jsonb_build_object('name', (SELECT name FROM winner_name), 'at', statement_timestamp())),
           updated_at = clock_timestamp()
     WHERE m.metadata->>'pending_id' = $1 AND ${activeRow('m')}
     RETURNING m.id, m.metadata),
  won AS (SELECT 1 AS yes FROM claimed LIMIT 1),
  indexed AS (UPDATE clarification_bundles SET active = false WHERE pending_id = $1 AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
  successor AS (
    INSERT INTO task_session_turns (id, task_session_id, task_id, metadata)
    SELECT $6::text, $7, $8, jsonb_build_object('prompt_dispatch_pending', true, 'prompt_dispatch_attempted', true, 'resume_of', $1::text)
     WHERE $6::text IS NOT NULL AND EXISTS (SELECT 1 FROM won)
    RETURNING id),
  superseded AS (
    UPDATE clarification_bundles SET active = false
     WHERE session_id = $7 AND active AND pending_id <> $1 AND EXISTS (SELECT 1 FROM successor)
    RETURNING pending_id, session_id, task_id),
  prompt AS (
    INSERT INTO task_session_messages (id, task_session_id, task_id, turn_id, author_type, type, content, metadata)
    SELECT $10::text, $7, $8, s.id, 'system', 'resume_prompt', $11, $12::jsonb FROM successor s WHERE $10::text IS NOT NULL
    RETURNING id),
  handoff AS (
    INSERT INTO clarification_handoffs (pending_id, process_id, response)
    SELECT $1, $5, $13::jsonb WHERE $13::jsonb IS NOT NULL AND EXISTS (SELECT 1 FROM won)
    ON CONFLICT (pending_id) DO UPDATE SET process_id = EXCLUDED.process_id, response = EXCLUDED.response, created_at = clock_timestamp()
    RETURNING pending_id),
  running AS (
    UPDATE task_sessions SET state = 'RUNNING', updated_at = clock_timestamp()
     WHERE id = $7 AND state = 'WAITING_FOR_INPUT' AND $4 AND EXISTS (SELECT 1 FROM won)
    RETURNING id),
  presence AS (DELETE FROM clarification_waiters WHERE pending_id = $1 AND $4 AND EXISTS (SELECT 1 FROM won) RETURNING pending_id),
  audited AS (
    INSERT INTO clarification_audit (attempt_id, pending_id, outcome, surface, caller_kind, caller_user_id, caller_name, rejected, reject_reason, at)
    SELECT $18, $1, 'won', $17::jsonb->>'surface', $17::jsonb->>'kind', $17::jsonb->>'user_id', (SELECT name FROM winner_name),
           $2 = 'rejected', $19, statement_timestamp()
      FROM won
    ON CONFLICT (attempt_id) DO UPDATE SET outcome = 'won', detail = NULL, at = EXCLUDED.at
    RETURNING id),
  ${insertEventsCtes(`
    SELECT $14::text AS type, $1::text AS pending_id, $7::text AS session_id, $9::text AS task_id,
           $15::jsonb || jsonb_build_object('resolved_by', (SELECT c.metadata->'resolved_by' FROM claimed c LIMIT 1)) AS payload
      FROM won WHERE $4
    UNION ALL
    SELECT 'SUPERSEDED', pending_id, session_id, task_id, '{}'::jsonb FROM superseded`)},
  signals AS (
    SELECT pg_notify('${BUNDLE_CHANNEL}', $16::text) FROM won WHERE $16::text IS NOT NULL
    UNION ALL
    ${notifyBundlesSql('SELECT pending_id FROM superseded', 'superseded')}),
  effects AS (
    SELECT (SELECT COUNT(*) FROM indexed) + (SELECT COUNT(*) FROM prompt) + (SELECT COUNT(*) FROM handoff)
         + (SELECT COUNT(*) FROM running) + (SELECT COUNT(*) FROM presence) + (SELECT COUNT(*) FROM audited) + (SELECT COUNT(*) FROM events)
         + (SELECT COUNT(*) FROM signals) AS written)
  SELECT c.id, c.metadata, effects.written FROM claimed c, effects`;

/** The one claim, and what follows it until the winner's answer is final or rolled back. */
@Injectable()
export class ClaimRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly lease: ProcessLease,
  ) {}

  /**
   * The claim (baseline "completeActiveBundle"), in one transaction: serialize on the session's
   * advisory lock (every lifecycle change takes it too), let `decide` choose the plan (knowing which
   * other live process holds the agent's wait, if any), then one statement moves the active rows to
   * their terminal state — with the plan's successor turn, queued prompt, hand-off, event, index and
   * signals. `claimed: false` means nothing was written (and no row lock was taken).
   */
  completeActiveBundle(request: ClaimRequest, self: string, decide: (remoteAgent: string | undefined) => ClaimPlan): Promise<ClaimResult> {
    if (request.terminal !== ClarificationStatus.Answered && request.terminal !== ClarificationStatus.Rejected) {
      throw new Error(`invalid clarification terminal status: ${String(request.terminal)}`);
    }
    return inTransaction(this.dataSource, async (manager) => {
      const [locked] = await runNamed<{ remote_agent: string | null }>(manager, 'claim_lock', CLAIM_LOCK_SQL, [
        request.sessionId,
        request.pendingId,
        self,
      ]);
      const plan = decide(locked?.remote_agent ?? undefined);
      const rows = await this.claimRows(manager, request, plan);
      if (rows.length === 0) return { claimed: false, rows: [], plan: undefined };
      for (const row of rows) {
        if (!row.metadata.question_id) throw new Error(`clarification message ${row.id} is missing question_id`);
        if (request.terminal === ClarificationStatus.Answered && !row.metadata.response) {
          throw new Error(`clarification message ${row.id} has no response for ${row.metadata.question_id}`);
        }
      }
      return { claimed: true, rows, plan };
    });
  }

  private async claimRows(manager: EntityManager, request: ClaimRequest, plan: ClaimPlan): Promise<ClaimedRow[]> {
    const final = plan.kind === 'final';
    const successor = plan.kind === 'deliver' ? undefined : plan.successor;
    const owner = plan.kind === 'final' ? null : plan.owner;
    const handoff = plan.kind === 'deliver' && plan.handoff ? JSON.stringify(plan.handoff) : null;
    const signal = final
      ? settledSignal(request.pendingId, this.lease.id)
      : handoff
        ? JSON.stringify({ pending_id: request.pendingId, kind: 'deliver', owner })
        : null;
    const responses = Object.fromEntries(request.responses ?? new Map<string, Answer>());
    const rows = await runNamed<ClaimedRow & { written?: unknown }>(
      manager,
      'claim',
      CLAIM_SQL,
      [
        request.pendingId,
        request.terminal,
        JSON.stringify(responses),
        final,
        owner,
        successor?.turnId ?? null,
        request.sessionId,
        request.sessionTaskId,
        request.bundleTaskId,
        successor?.queuedPrompt?.messageId ?? null,
        successor?.queuedPrompt?.content ?? null,
        successor?.queuedPrompt ? JSON.stringify(successor.queuedPrompt.metadata) : null,
        handoff,
        plan.kind === 'final' ? plan.event.type : null,
        plan.kind === 'final' ? JSON.stringify(plan.event.payload) : null,
        signal,
        JSON.stringify(request.winner),
        request.audit.attemptId,
        request.audit.rejectReason,
      ],
    );
    return rows.map(({ id, metadata }) => ({ id, metadata }));
  }

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
              SET metadata = (m.metadata - 'response' - 'response_delivery_pending' - 'delivery_owner' - 'resolved_by') || '{"status": "pending"}'::jsonb,
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
