import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { keysetInstantSql } from '#common';
import { namedStatement, type NamedStatement } from '#persistence';
import type { OutgoingDelivery } from './webhook-payload.js';
import { type DeliveryAttempt, type DeliveryRow, DeliveryState, SubscriptionStatus } from '../webhook.types.js';

export interface AttemptFailure {
  statusCode: number | null;
  error: string;
  /** When to try again (ignored once the attempts are spent). */
  retryInMs: number;
  maxAttempts: number;
  /** The subscription is disabled at this many consecutive failures. */
  disableAfter: number;
}

export interface FailureOutcome {
  /** False when this process no longer held the delivery (its lease was taken over): nothing recorded. */
  recorded: boolean;
  state: DeliveryState | undefined;
  subscriptionDisabled: boolean;
}

const WEBHOOK_DELIVERY_CLAIM_DUE = namedStatement(
  'webhook_delivery_claim_due',
  ['owner', 'limit', 'lease_ms'],
  `WITH picked AS (
         SELECT d.id FROM webhook_deliveries d
          WHERE ((d.state = '${DeliveryState.Pending}' AND d.next_attempt_at <= clock_timestamp())
                 OR (d.state = '${DeliveryState.Sending}' AND d.lease_expires_at < clock_timestamp()))
            AND EXISTS (SELECT 1 FROM webhook_subscriptions active_s WHERE active_s.id = d.subscription_id AND active_s.status = '${SubscriptionStatus.Active}')
          ORDER BY d.next_attempt_at LIMIT :limit
          FOR UPDATE OF d SKIP LOCKED),
       claimed AS (
         UPDATE webhook_deliveries d
            SET state = '${DeliveryState.Sending}', lease_owner = :owner, attempts = d.attempts + 1,
                lease_expires_at = clock_timestamp() + make_interval(secs => :lease_ms::double precision / 1000)
           FROM picked WHERE d.id = picked.id
         RETURNING d.*)
       SELECT c.id, c.subscription_id, c.event_id::text AS event_id, c.event_type, c.pending_id, c.session_id, c.task_id, c.workspace_id,
              c.payload, c.occurred_at, c.attempts, s.url, s.secret, s.format,
              COALESCE(t.title, '') AS task_title, COALESCE(w.name, '') AS workspace_name,
              COALESCE((SELECT m.content FROM task_session_messages m WHERE m.metadata->>'pending_id' = c.pending_id AND m.type = 'clarification_request'
                         ORDER BY m.created_at, m.id LIMIT 1), '') AS first_prompt,
              (SELECT COUNT(*) FROM task_session_messages m WHERE m.metadata->>'pending_id' = c.pending_id AND m.type = 'clarification_request')::int AS question_count
         FROM claimed c JOIN webhook_subscriptions s ON s.id = c.subscription_id
         LEFT JOIN tasks t ON t.id = c.task_id LEFT JOIN workspaces w ON w.id = c.workspace_id`,
);

const WEBHOOK_DELIVERY_SUCCEEDED = namedStatement(
  'webhook_delivery_succeeded',
  ['id', 'owner', 'status_code', 'attempts'],
  `WITH done AS (
         UPDATE webhook_deliveries SET state = '${DeliveryState.Delivered}', lease_owner = NULL, lease_expires_at = NULL,
                last_status_code = :status_code, last_error = NULL, finished_at = clock_timestamp(), history = history || :attempts::jsonb
          WHERE id = :id AND state = '${DeliveryState.Sending}' AND lease_owner = :owner
          RETURNING subscription_id),
       reset AS (
         UPDATE webhook_subscriptions s SET consecutive_failures = 0
           FROM done WHERE s.id = done.subscription_id AND s.consecutive_failures <> 0 RETURNING s.id)
       SELECT (SELECT COUNT(*) FROM done)::text AS done, (SELECT COUNT(*) FROM reset) AS reset`,
);

const WEBHOOK_DELIVERY_FAILED = namedStatement(
  'webhook_delivery_failed',
  ['id', 'owner', 'status_code', 'error', 'retry_in_ms', 'max_attempts', 'disable_after', 'attempts', 'disabled_reason'],
  `WITH held AS (
         SELECT d.id, d.attempts, s.id AS subscription_id, s.status = '${SubscriptionStatus.Active}' AND s.consecutive_failures + 1 >= :disable_after AS disables
           FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
          WHERE d.id = :id AND d.state = '${DeliveryState.Sending}' AND d.lease_owner = :owner),
       failed AS (
         UPDATE webhook_deliveries d
            SET state = CASE WHEN held.attempts >= :max_attempts THEN '${DeliveryState.Failed}'
                             WHEN held.disables THEN '${DeliveryState.Skipped}' ELSE '${DeliveryState.Pending}' END,
                next_attempt_at = clock_timestamp() + make_interval(secs => :retry_in_ms::double precision / 1000),
                finished_at = CASE WHEN held.attempts >= :max_attempts OR held.disables THEN clock_timestamp() END,
                lease_owner = NULL, lease_expires_at = NULL, last_status_code = :status_code, last_error = :error, history = d.history || :attempts::jsonb
           FROM held WHERE d.id = held.id AND d.state = '${DeliveryState.Sending}' AND d.lease_owner = :owner
         RETURNING d.state, held.subscription_id, held.disables),
       counted AS (
         UPDATE webhook_subscriptions s
            SET consecutive_failures = s.consecutive_failures + 1,
                status = CASE WHEN failed.disables THEN '${SubscriptionStatus.Disabled}' ELSE s.status END,
                disabled_reason = CASE WHEN failed.disables THEN :disabled_reason ELSE s.disabled_reason END,
                disabled_at = CASE WHEN failed.disables THEN clock_timestamp() ELSE s.disabled_at END,
                updated_at = clock_timestamp()
           FROM failed WHERE s.id = failed.subscription_id
         RETURNING s.id, s.status),
       skipped AS (
         UPDATE webhook_deliveries d SET state = '${DeliveryState.Skipped}', last_error = 'subscription disabled', finished_at = clock_timestamp()
           FROM failed WHERE failed.disables AND d.subscription_id = failed.subscription_id AND d.id <> :id
            AND d.state = '${DeliveryState.Pending}'
         RETURNING d.id)
       SELECT (SELECT state FROM failed) AS state, (SELECT status FROM counted) AS subscription_status, (SELECT COUNT(*) FROM skipped) AS skipped`,
);

const WEBHOOK_DELIVERY_RELEASE = namedStatement(
  'webhook_delivery_release',
  ['ids', 'owner'],
  `UPDATE webhook_deliveries SET state = '${DeliveryState.Pending}', attempts = attempts - 1, lease_owner = NULL, lease_expires_at = NULL,
              next_attempt_at = clock_timestamp()
        WHERE id = ANY(:ids::text[]) AND state = '${DeliveryState.Sending}' AND lease_owner = :owner`,
);

const WEBHOOK_DELIVERY_LIST = namedStatement(
  'webhook_delivery_list',
  ['subscription_id', 'at', 'id', 'limit'],
  `SELECT id, subscription_id, workspace_id, event_id::text AS event_id, event_type, pending_id, state, attempts, next_attempt_at,
              last_status_code, last_error, history, created_at, finished_at, ${keysetInstantSql('created_at')} AS position
         FROM webhook_deliveries
        WHERE subscription_id = :subscription_id AND (:at::timestamptz IS NULL OR (created_at, id) < (:at::timestamptz, :id::text))
        ORDER BY created_at DESC, id DESC LIMIT :limit`,
);

const WEBHOOK_DELIVERY_PRUNE = namedStatement(
  'webhook_delivery_prune',
  ['older_than'],
  `DELETE FROM webhook_deliveries WHERE finished_at IS NOT NULL AND finished_at < :older_than`,
);

/** The statements WebhookDeliveryRepository runs, for `npm run sql:write`. */
export const webhookDeliveryStatements: readonly NamedStatement[] = [
  WEBHOOK_DELIVERY_CLAIM_DUE,
  WEBHOOK_DELIVERY_SUCCEEDED,
  WEBHOOK_DELIVERY_FAILED,
  WEBHOOK_DELIVERY_RELEASE,
  WEBHOOK_DELIVERY_LIST,
  WEBHOOK_DELIVERY_PRUNE,
];

/**
 * The outbox (`webhook_deliveries`): rows are inserted with the question events they report (see
 * outboxInsertSql); here they are claimed, completed and listed. A claim takes due rows with FOR UPDATE
 * SKIP LOCKED and marks them `sending` under this process's id until a lease expiry, so every replica
 * takes different rows; every completion is fenced by that mark.
 */
@Injectable()
export class WebhookDeliveryRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** Claims up to `limit` due deliveries of active subscriptions (pending and due, or sending with an expired lease). */
  claimDue(owner: string, limit: number, leaseMs: number): Promise<OutgoingDelivery[]> {
    return WEBHOOK_DELIVERY_CLAIM_DUE.rows<OutgoingDelivery>(this.dataSource, { owner, limit, lease_ms: leaseMs });
  }

  /** The receiver answered 2xx: delivered, and the subscription's failure streak is over. False if the lease was lost. */
  async succeeded(id: string, owner: string, attempt: DeliveryAttempt): Promise<boolean> {
    const row = await WEBHOOK_DELIVERY_SUCCEEDED.row<{ done: string }>(this.dataSource, {
      id,
      owner,
      status_code: attempt.status_code,
      attempts: JSON.stringify([attempt]),
    });
    return Number(row?.done ?? 0) > 0;
  }

  /**
   * The attempt failed: retried later, or failed for good once its attempts are spent. The
   * subscription's consecutive failures grow, and at the threshold it is disabled with the reason and
   * its queued deliveries are skipped — all in one statement.
   */
  async failed(id: string, owner: string, attempt: DeliveryAttempt, failure: AttemptFailure): Promise<FailureOutcome> {
    const row = await WEBHOOK_DELIVERY_FAILED.row<{ state: DeliveryState | null; subscription_status: SubscriptionStatus | null }>(this.dataSource, {
      id,
      owner,
      status_code: failure.statusCode,
      error: failure.error,
      retry_in_ms: failure.retryInMs,
      max_attempts: failure.maxAttempts,
      disable_after: failure.disableAfter,
      attempts: JSON.stringify([attempt]),
      disabled_reason: `disabled after ${failure.disableAfter} consecutive failed attempts; the last: ${failure.error}`,
    });
    return {
      recorded: row?.state !== null && row?.state !== undefined,
      state: row?.state ?? undefined,
      subscriptionDisabled: row?.subscription_status === SubscriptionStatus.Disabled,
    };
  }

  /** Gives deliveries this process holds back at shutdown, their attempt not counted: another process sends them. */
  async release(ids: string[], owner: string): Promise<void> {
    if (ids.length === 0) return;
    await WEBHOOK_DELIVERY_RELEASE.rows(this.dataSource, { ids, owner });
  }

  /** A subscription's deliveries, newest first, after a keyset position. */
  list(subscriptionId: string, before: { at: string; id: string } | undefined, limit: number): Promise<DeliveryRow[]> {
    return WEBHOOK_DELIVERY_LIST.rows<DeliveryRow>(this.dataSource, {
      subscription_id: subscriptionId,
      at: before?.at ?? null,
      id: before?.id ?? null,
      limit,
    });
  }

  /** Forgets finished deliveries older than the cutoff. */
  async prune(olderThan: Date): Promise<void> {
    await WEBHOOK_DELIVERY_PRUNE.rows(this.dataSource, { older_than: olderThan });
  }
}
