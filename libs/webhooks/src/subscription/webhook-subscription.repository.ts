import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { inTransaction, namedStatement, type NamedStatement, type SqlExecutor } from '#persistence';
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

const WEBHOOK_SUBSCRIPTION_WORKSPACE_MANAGED = namedStatement(
  'webhook_subscription_workspace_managed',
  ['workspace_id', 'owner'],
  `SELECT w.id FROM workspaces w WHERE w.id = :workspace_id AND ${managedBy(':owner')}`,
);

const WEBHOOK_SUBSCRIPTION_INSERT = namedStatement(
  'webhook_subscription_insert',
  ['id', 'workspace_id', 'url', 'secret', 'events', 'format', 'created_by', 'owner', 'max_subscriptions'],
  `WITH workspace AS (SELECT w.id FROM workspaces w WHERE w.id = :workspace_id AND ${managedBy(':owner')}),
            counted AS (SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE workspace_id = :workspace_id),
            inserted AS (
              INSERT INTO webhook_subscriptions (id, workspace_id, url, secret, event_types, format, created_by)
              SELECT :id, workspace.id, :url, :secret, :events::text[], :format, :created_by FROM workspace, counted WHERE counted.n < :max_subscriptions
              RETURNING *)
       SELECT EXISTS (SELECT 1 FROM workspace) AS managed, ${SUBSCRIPTION_COLUMNS}
         FROM (SELECT 1) one LEFT JOIN inserted s ON true`,
);

const WEBHOOK_SUBSCRIPTION_LIST = namedStatement(
  'webhook_subscription_list',
  ['workspace_id'],
  `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s WHERE s.workspace_id = :workspace_id ORDER BY s.created_at, s.id`,
);

const WEBHOOK_SUBSCRIPTION_FIND_MANAGED = namedStatement(
  'webhook_subscription_find_managed',
  ['id', 'owner'],
  `SELECT ${SUBSCRIPTION_COLUMNS} FROM webhook_subscriptions s JOIN workspaces w ON w.id = s.workspace_id
        WHERE s.id = :id AND ${managedBy(':owner')}`,
);

const WEBHOOK_SUBSCRIPTION_UPDATE = namedStatement(
  'webhook_subscription_update',
  ['id', 'owner', 'url', 'events', 'format', 'enabled'],
  `UPDATE webhook_subscriptions s
            SET url = COALESCE(:url, s.url), event_types = COALESCE(:events::text[], s.event_types), format = COALESCE(:format, s.format),
                status = CASE :enabled::boolean WHEN true THEN '${SubscriptionStatus.Active}' WHEN false THEN '${SubscriptionStatus.Disabled}' ELSE s.status END,
                consecutive_failures = CASE WHEN :enabled::boolean THEN 0 ELSE s.consecutive_failures END,
                disabled_reason = CASE :enabled::boolean WHEN true THEN NULL
                                    WHEN false THEN COALESCE(CASE WHEN s.status = '${SubscriptionStatus.Disabled}' THEN s.disabled_reason END, 'disabled by its owner')
                                    ELSE s.disabled_reason END,
                disabled_at = CASE :enabled::boolean WHEN true THEN NULL
                                WHEN false THEN COALESCE(CASE WHEN s.status = '${SubscriptionStatus.Disabled}' THEN s.disabled_at END, clock_timestamp())
                                ELSE s.disabled_at END,
                updated_at = clock_timestamp()
           FROM workspaces w
          WHERE s.id = :id AND w.id = s.workspace_id AND ${managedBy(':owner')}
          RETURNING ${SUBSCRIPTION_COLUMNS}`,
);

const WEBHOOK_SUBSCRIPTION_DELETE = namedStatement(
  'webhook_subscription_delete',
  ['id', 'owner'],
  `DELETE FROM webhook_subscriptions s USING workspaces w WHERE s.id = :id AND w.id = s.workspace_id AND ${managedBy(':owner')} RETURNING s.id`,
);

const WEBHOOK_SUBSCRIPTION_REQUEUE_SKIPPED = namedStatement(
  'webhook_subscription_requeue_skipped',
  ['subscription_id'],
  `UPDATE webhook_deliveries SET state = '${DeliveryState.Pending}', attempts = 0, next_attempt_at = clock_timestamp(), finished_at = NULL
      WHERE subscription_id = :subscription_id AND state = '${DeliveryState.Skipped}' RETURNING pg_notify('${WEBHOOK_CHANNEL}', '')`,
);

const WEBHOOK_SUBSCRIPTION_SKIP_QUEUED = namedStatement(
  'webhook_subscription_skip_queued',
  ['subscription_id', 'reason'],
  `UPDATE webhook_deliveries SET state = '${DeliveryState.Skipped}', last_error = :reason, finished_at = clock_timestamp()
      WHERE subscription_id = :subscription_id AND state = '${DeliveryState.Pending}' RETURNING id`,
);

/** The statements WebhookSubscriptionRepository runs, for `npm run sql:write`. */
export const webhookSubscriptionStatements: readonly NamedStatement[] = [
  WEBHOOK_SUBSCRIPTION_WORKSPACE_MANAGED,
  WEBHOOK_SUBSCRIPTION_INSERT,
  WEBHOOK_SUBSCRIPTION_LIST,
  WEBHOOK_SUBSCRIPTION_FIND_MANAGED,
  WEBHOOK_SUBSCRIPTION_UPDATE,
  WEBHOOK_SUBSCRIPTION_DELETE,
  WEBHOOK_SUBSCRIPTION_REQUEUE_SKIPPED,
  WEBHOOK_SUBSCRIPTION_SKIP_QUEUED,
];

/** `webhook_subscriptions`, every read scoped to what the caller may manage (a miss and a denial are one query, one answer). */
@Injectable()
export class WebhookSubscriptionRepository {
  constructor(private readonly dataSource: DataSource) {}

  async workspaceManagedBy(workspaceId: string, owner: string | null): Promise<boolean> {
    const row = await WEBHOOK_SUBSCRIPTION_WORKSPACE_MANAGED.row<{ id: string }>(this.dataSource, {
      workspace_id: workspaceId,
      owner,
    });
    return row !== undefined;
  }

  /** Inserts unless the workspace is not the caller's (undefined) or already has `max` subscriptions ('full'). */
  async insert(subscription: NewSubscription, owner: string | null, max: number): Promise<SubscriptionRow | 'full' | undefined> {
    const row = await WEBHOOK_SUBSCRIPTION_INSERT.row<Partial<SubscriptionRow> & { managed: boolean }>(this.dataSource, {
      id: subscription.id,
      workspace_id: subscription.workspaceId,
      url: subscription.url,
      secret: subscription.secret,
      events: subscription.events,
      format: subscription.format,
      created_by: subscription.createdBy,
      owner,
      max_subscriptions: max,
    });
    if (!row?.managed) return undefined;
    if (!row.id) return 'full';
    const { managed: _managed, ...inserted } = row;
    return inserted as SubscriptionRow;
  }

  list(workspaceId: string): Promise<SubscriptionRow[]> {
    return WEBHOOK_SUBSCRIPTION_LIST.rows<SubscriptionRow>(this.dataSource, { workspace_id: workspaceId });
  }

  findManaged(id: string, owner: string | null): Promise<SubscriptionRow | undefined> {
    return WEBHOOK_SUBSCRIPTION_FIND_MANAGED.row<SubscriptionRow>(this.dataSource, { id, owner });
  }

  /** Applies a change to a subscription the caller manages; undefined when there is none. */
  update(id: string, owner: string | null, change: SubscriptionChange): Promise<SubscriptionRow | undefined> {
    return inTransaction(this.dataSource, async (manager) => {
      const row = await WEBHOOK_SUBSCRIPTION_UPDATE.row<SubscriptionRow>(manager, {
        id,
        owner,
        url: change.url ?? null,
        events: change.events ?? null,
        format: change.format ?? null,
        enabled: change.enabled ?? null,
      });
      if (row && row.status === SubscriptionStatus.Disabled) await skipQueued(manager, id, 'subscription disabled');
      if (row && change.enabled === true) await requeueSkipped(manager, id);
      return row;
    });
  }

  async delete(id: string, owner: string | null): Promise<boolean> {
    const rows = await WEBHOOK_SUBSCRIPTION_DELETE.rows<{ id: string }>(this.dataSource, { id, owner });
    return rows.length > 0;
  }
}

/**
 * Re-enabled: what was skipped while it was disabled is queued again with fresh attempts (its history
 * kept), so an owner who fixes the receiver loses nothing.
 */
async function requeueSkipped(executor: SqlExecutor, subscriptionId: string): Promise<void> {
  await WEBHOOK_SUBSCRIPTION_REQUEUE_SKIPPED.rows(executor, { subscription_id: subscriptionId });
}

/** A disabled subscription's queued deliveries are not sent (until it is enabled again). */
async function skipQueued(executor: SqlExecutor, subscriptionId: string, reason: string): Promise<void> {
  await WEBHOOK_SUBSCRIPTION_SKIP_QUEUED.rows(executor, { subscription_id: subscriptionId, reason });
}
