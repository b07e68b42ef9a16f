import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { type Caller, callerReach } from '#authorization';
import { pageOf, readPageRequest, unstorableTextReason } from '#common';
import { APP_CONFIG, type AppConfig } from '#config';
import { WebhookDeliveryRepository } from '../delivery/webhook-delivery.repository.js';
import { type SubscriptionChange, WebhookSubscriptionRepository } from './webhook-subscription.repository.js';
import { validTargetUrl } from './webhook-target.js';
import { DeliveryState, type DeliveryRow, type SubscriptionRow, WEBHOOK_EVENT_TYPES, WEBHOOK_FORMATS, type WebhookEventType, WebhookFormat } from '../webhook.types.js';
import { WebhookError, WebhookErrorCode } from '../webhooks.errors.js';

/** Subscriptions one workspace may have. */
export const MAX_SUBSCRIPTIONS_PER_WORKSPACE = 20;
/** The bounds of a signing secret a caller chooses, in characters. */
export const MIN_SECRET_LENGTH = 16;
export const MAX_SECRET_LENGTH = 200;

export interface SubscriptionInput {
  url?: unknown;
  events?: unknown;
  format?: unknown;
  secret?: unknown;
}

export interface SubscriptionView {
  id: string;
  workspace_id: string;
  url: string;
  events: WebhookEventType[];
  format: WebhookFormat;
  status: string;
  consecutive_failures: number;
  disabled_reason: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface CreatedSubscription extends SubscriptionView {
  /** The signing secret: shown once, here. */
  secret: string;
}

export interface DeliveryView {
  id: string;
  event: string;
  event_id: string;
  pending_id: string;
  state: string;
  attempts: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  history: DeliveryRow['history'];
  created_at: string;
  finished_at: string | null;
}

export interface DeliveryPage {
  deliveries: DeliveryView[];
  next_cursor: string;
}

export function subscriptionView(row: SubscriptionRow): SubscriptionView {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    url: row.url,
    events: row.event_types,
    format: row.format,
    status: row.status,
    consecutive_failures: row.consecutive_failures,
    disabled_reason: row.disabled_reason,
    disabled_at: row.disabled_at ? row.disabled_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function deliveryView(row: DeliveryRow): DeliveryView {
  const finished = row.finished_at !== null;
  return {
    id: row.id,
    event: row.event_type,
    event_id: row.event_id,
    pending_id: row.pending_id,
    state: row.state,
    attempts: row.attempts,
    next_attempt_at: finished || row.state === DeliveryState.Sending ? null : row.next_attempt_at.toISOString(),
    last_status_code: row.last_status_code,
    last_error: row.last_error,
    history: row.history,
    created_at: row.created_at.toISOString(),
    finished_at: finished ? (row.finished_at as Date).toISOString() : null,
  };
}

function validEvents(value: unknown): WebhookEventType[] {
  const message = `events must be a non-empty array of ${WEBHOOK_EVENT_TYPES.join(', ')}`;
  if (!Array.isArray(value) || value.length === 0) throw WebhookError.invalid(message);
  const events = new Set<WebhookEventType>();
  value.forEach((event, index) => {
    if (typeof event !== 'string' || !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event)) {
      throw WebhookError.invalid(`events[${index}] must be one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
    }
    events.add(event as WebhookEventType);
  });
  return WEBHOOK_EVENT_TYPES.filter((event) => events.has(event));
}

function validFormat(value: unknown): WebhookFormat {
  if (typeof value !== 'string' || !(WEBHOOK_FORMATS as readonly string[]).includes(value)) {
    throw WebhookError.invalid(`format must be one of ${WEBHOOK_FORMATS.join(', ')}`);
  }
  return value as WebhookFormat;
}

function validSecret(value: unknown): string {
  if (value === undefined || value === null) return `whsec_${randomBytes(24).toString('base64url')}`;
  if (typeof value !== 'string' || value.length < MIN_SECRET_LENGTH || value.length > MAX_SECRET_LENGTH) {
    throw WebhookError.invalid(`secret must be a string of ${MIN_SECRET_LENGTH} to ${MAX_SECRET_LENGTH} characters`);
  }
  const reason = unstorableTextReason(value);
  if (reason) throw WebhookError.invalid(`secret ${reason}`);
  return value;
}

/**
 * Outbound webhooks, managed by a workspace's owner (or an admin; with auth disabled, anyone): every
 * other caller — another user, a session agent — gets the same not-found as for a missing workspace
 * or subscription, after the same single query.
 */
@Injectable()
export class WebhookSubscriptionService {
  constructor(
    private readonly subscriptions: WebhookSubscriptionRepository,
    private readonly deliveries: WebhookDeliveryRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async create(caller: Caller, workspaceId: string, input: SubscriptionInput): Promise<CreatedSubscription> {
    const owner = this.managerOf(caller);
    const url = validTargetUrl(input.url, this.config.outbound.allowPrivateTargets);
    const events = validEvents(input.events);
    const format = input.format === undefined || input.format === null ? WebhookFormat.Json : validFormat(input.format);
    const secret = validSecret(input.secret);
    if (owner === undefined) throw WebhookError.workspaceNotFound();
    const created = await this.subscriptions.insert(
      { id: randomUUID(), workspaceId, url, secret, events, format, createdBy: caller.kind === 'user' ? caller.userId : caller.kind },
      owner,
      MAX_SUBSCRIPTIONS_PER_WORKSPACE,
    );
    if (created === undefined) throw WebhookError.workspaceNotFound();
    if (created === 'full') {
      throw new WebhookError(WebhookErrorCode.LimitReached, `a workspace has at most ${MAX_SUBSCRIPTIONS_PER_WORKSPACE} webhooks`);
    }
    return { ...subscriptionView(created), secret };
  }

  async list(caller: Caller, workspaceId: string): Promise<SubscriptionView[]> {
    const owner = this.managerOf(caller);
    if (owner === undefined || !(await this.subscriptions.workspaceManagedBy(workspaceId, owner))) throw WebhookError.workspaceNotFound();
    return (await this.subscriptions.list(workspaceId)).map(subscriptionView);
  }

  async get(caller: Caller, id: string): Promise<SubscriptionView> {
    return subscriptionView(await this.managed(caller, id));
  }

  async update(caller: Caller, id: string, input: SubscriptionInput & { enabled?: unknown }): Promise<SubscriptionView> {
    const change: SubscriptionChange = {};
    if (input.url !== undefined) change.url = validTargetUrl(input.url, this.config.outbound.allowPrivateTargets);
    if (input.events !== undefined) change.events = validEvents(input.events);
    if (input.format !== undefined) change.format = validFormat(input.format);
    if (input.enabled !== undefined) {
      if (typeof input.enabled !== 'boolean') throw WebhookError.invalid('enabled must be a boolean');
      change.enabled = input.enabled;
    }
    const owner = this.managerOf(caller);
    const row = owner === undefined ? undefined : await this.subscriptions.update(id, owner, change);
    if (!row) throw WebhookError.subscriptionNotFound();
    return subscriptionView(row);
  }

  async delete(caller: Caller, id: string): Promise<void> {
    const owner = this.managerOf(caller);
    if (owner === undefined || !(await this.subscriptions.delete(id, owner))) throw WebhookError.subscriptionNotFound();
  }

  /** The delivery log of a subscription, newest first. */
  async deliveryLog(caller: Caller, id: string, query: { cursor?: string; limit?: number }): Promise<DeliveryPage> {
    const { limit, after: before } = readPageRequest(query, WebhookError.invalid);
    await this.managed(caller, id);
    const rows = await this.deliveries.list(id, before, limit + 1);
    const page = pageOf(rows, limit, (row) => ({ at: row.position, id: row.id }));
    return { deliveries: page.rows.map(deliveryView), next_cursor: page.next_cursor };
  }

  private async managed(caller: Caller, id: string): Promise<SubscriptionRow> {
    const owner = this.managerOf(caller);
    const row = owner === undefined ? undefined : await this.subscriptions.findManaged(id, owner);
    if (!row) throw WebhookError.subscriptionNotFound();
    return row;
  }

  /** null: may manage every workspace; a user id: only the workspaces that user owns; undefined: none. */
  private managerOf(caller: Caller): string | null | undefined {
    const reach = callerReach(caller);
    switch (reach.kind) {
      case 'all':
        return null;
      case 'user':
        return reach.userId;
      case 'session':
        return undefined;
    }
  }
}
