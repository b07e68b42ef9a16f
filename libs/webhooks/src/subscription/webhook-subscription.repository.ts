import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, queryRow, queryRows } from '#persistence';
import { DeliveryState, type SubscriptionRow, SubscriptionStatus, WEBHOOK_CHANNEL, type WebhookEventType, type WebhookFormat } from '../webhook.types.js';

const SUBSCRIPTION_COLUMNS = `s.id, s.workspace_id, s.url, s.event_types, s.format, s.status, s.consecutive_failures,
  s.disabled_reason, s.disabled_at, s.created_by, s.created_at, s.updated_at`;

/**
 * Who may manage a workspace's webhooks, as SQL on the workspace alias `w`: `$owner` NULL stands for an
 * unscoped caller (admin, or auth disabled); a user only for workspaces they own.
 */
function managedBy(ownerParameter: string): string {
  return `(${ownerParameter}::text IS NULL OR w.owner_id = ${ownerParameter}::text)`;
}

export interface NewSubscription {
  id: string;
  workspaceId: string;
  url: string;
  secret: string;
  events: WebhookEventType[];
  format: WebhookFormat;
  createdBy: string;
}

export interface SubscriptionChange {
  url?: string;
  events?: WebhookEventType[];
  format?: WebhookFormat;
  /** true: active again (failures forgotten); false: disabled by its owner (queued deliveries skipped). */
  enabled?: boolean;
}

/** `webhook_subscriptions`, every read scoped to what the caller may manage (a miss and a denial are one query, one answer). */
@Injectable()
export class WebhookSubscriptionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async workspaceManagedBy(workspaceId: string, owner: string | null): Promise<boolean> {
    const row = await queryRow<{ id: string }>(
      this.dataSource,
      `SELECT w.id FROM workspaces w WHERE w.id = $1 AND ${managedBy('$2')}`,
      [workspaceId, owner],
    );
    return row !== undefined;
  }

  /** Inserts unless the workspace is not the caller's (undefined) or already has `max` subscriptions ('full'). */
  async insert(subscription: NewSubscription, owner: string | null, max: number): Promise<SubscriptionRow | 'full' | undefined> {
    const row = await queryRow<Partial<SubscriptionRow> & { managed: boolean }>(
      this.dataSource,
      `WITH workspace AS (SELECT w.id FROM workspaces w WHERE w.id = $2 AND ${managedBy('$8')}),
            counted AS (SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE workspace_id = $2),
            inserted AS (
              INSERT INTO webhook_subscriptions (id, workspace_id, url, secret, event_types, format, created_by)
              SELECT $1, workspace.id, $3, $4, $5::text[], $6, $7 FROM workspace, counted WHERE counted.n < $9
              RETURNING *)
       SELECT EXISTS (SELECT 1 FROM workspace) AS managed, ${SUBSCRIPTION_COLUMNS}
         FROM (SELECT 1) one LEFT JOIN inserted s ON true`,
      [subscription.id, subscription.workspaceId, subscription.url, subscription.secret, subscription.events, subscription.format, subscription.createdBy, owner, max],
    );
    if (!row?.managed) return undefined;
    if (!row.id) return 'full';
    const { managed: _managed, ...inserted } = row;
    return inserted as SubscriptionRow;
  }

  list(workspaceId: string): Promise<SubscriptionRow[]> {
    return queryRows<SubscriptionRow>(
      this.dataSource,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s WHERE s.workspace_id = $1 ORDER BY s.created_at, s.id`,
      [workspaceId],
    );
  }

  findManaged(id: string, owner: string | null): Promise<SubscriptionRow | undefined> {
    return queryRow<SubscriptionRow>(
      this.dataSource,
      `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s JOIN workspaces w ON w.id = s.workspace_id
        WHERE s.id = $1 AND ${managedBy('$2')}`,
      [id, owner],
    );
  }

  /** Applies a change to a subscription the caller manages; undefined when there is none. */
  update(id: string, owner: string | null, change: SubscriptionChange): Promise<SubscriptionRow | undefined> {
    return inTransaction(this.dataSource, async (manager) => {
      const row = await queryRow<SubscriptionRow>(
        manager,
        `UPDATE webhook_subscriptions s
            SET url = COALESCE($3, s.url), event_types = COALESCE($4::text[], s.event_types), format = COALESCE($5, s.format),
                status = CASE $6::boolean WHEN true THEN '${SubscriptionStatus.Active}' WHEN false THEN '${SubscriptionStatus.Disabled}' ELSE s.status END,
                consecutive_failures = CASE WHEN $6::boolean THEN 0 ELSE s.consecutive_failures END,
                disabled_reason = CASE $6::boolean WHEN true THEN NULL
                                    WHEN false THEN COALESCE(CASE WHEN s.status = '${SubscriptionStatus.Disabled}' THEN s.disabled_reason END, 'disabled by its owner')
                                    ELSE s.disabled_reason END,
                disabled_at = CASE $6::boolean WHEN true THEN NULL
                                WHEN false THEN COALESCE(CASE WHEN s.status = '${SubscriptionStatus.Disabled}' THEN s.disabled_at END, clock_timestamp())
                                ELSE s.disabled_at END,
                updated_at = clock_timestamp()
           FROM workspaces w
          WHERE s.id = $1 AND w.id = s.workspace_id AND ${managedBy('$2')}
          RETURNING ${SUBSCRIPTION_COLUMNS}`,
        [id, owner, change.url ?? null, change.events ?? null, change.format ?? null, change.enabled ?? null],
      );
      if (row && row.status === SubscriptionStatus.Disabled) await skipQueued(manager, id, 'subscription disabled');
      if (row && change.enabled === true) await requeueSkipped(manager, id);
      return row;
    });
  }

  async delete(id: string, owner: string | null): Promise<boolean> {
    const rows = await queryRows<{ id: string }>(
      this.dataSource,
      `DELETE FROM webhook_subscriptions s USING workspaces w WHERE s.id = $1 AND w.id = s.workspace_id AND ${managedBy('$2')} RETURNING s.id`,
      [id, owner],
    );
    return rows.length > 0;
  }
}

/**
 * Re-enabled: what was skipped while it was disabled is queued again with fresh attempts (its history
 * kept), so an owner who fixes the receiver loses nothing.
 */
async function requeueSkipped(executor: Parameters<typeof queryRows>[0], subscriptionId: string): Promise<void> {
  await queryRows(
    executor,
    `UPDATE webhook_deliveries SET state = '${DeliveryState.Pending}', attempts = 0, next_attempt_at = clock_timestamp(), finished_at = NULL
      WHERE subscription_id = $1 AND state = '${DeliveryState.Skipped}' RETURNING pg_notify('${WEBHOOK_CHANNEL}', '')`,
    [subscriptionId],
  );
}

/** A disabled subscription's queued deliveries are not sent (until it is enabled again). */
async function skipQueued(executor: Parameters<typeof queryRows>[0], subscriptionId: string, reason: string): Promise<void> {
  await queryRows(
    executor,
    `UPDATE webhook_deliveries SET state = '${DeliveryState.Skipped}', last_error = $2, finished_at = clock_timestamp()
      WHERE subscription_id = $1 AND state = '${DeliveryState.Pending}' RETURNING id`,
    [subscriptionId, reason],
  );
}
