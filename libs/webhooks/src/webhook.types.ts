/** What a subscription may ask to be told about (question events of its workspace's tasks). */
export enum WebhookEventType {
  Asked = 'asked',
  Resolved = 'resolved',
  Expired = 'expired',
  Detached = 'detached',
  Reminded = 'reminded',
  Escalated = 'escalated',
}

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = Object.values(WebhookEventType);

/** The question events (question_events.type) each webhook event type stands for. */
export const QUESTION_EVENTS_OF: Readonly<Record<WebhookEventType, readonly string[]>> = {
  [WebhookEventType.Asked]: ['ASKED'],
  [WebhookEventType.Resolved]: ['ANSWERED', 'REJECTED'],
  [WebhookEventType.Expired]: ['EXPIRED'],
  [WebhookEventType.Detached]: ['DETACHED'],
  [WebhookEventType.Reminded]: ['REMINDED'],
  [WebhookEventType.Escalated]: ['ESCALATED'],
};

/** The body a subscription receives: Parley's signed JSON, or a Slack incoming-webhook message. */
export enum WebhookFormat {
  Json = 'json',
  Slack = 'slack',
}

export const WEBHOOK_FORMATS: readonly WebhookFormat[] = Object.values(WebhookFormat);

export enum SubscriptionStatus {
  Active = 'active',
  /** Stopped after too many consecutive failed attempts (or by its owner); its queued deliveries are skipped. */
  Disabled = 'disabled',
}

export enum DeliveryState {
  Pending = 'pending',
  /** Claimed by one process (lease_owner) until lease_expires_at. */
  Sending = 'sending',
  Delivered = 'delivered',
  /** Every attempt failed. */
  Failed = 'failed',
  /** Never sent: its subscription was disabled first. */
  Skipped = 'skipped',
}

/** NOTIFY channel on which a transaction that queued deliveries wakes every process's dispatcher. */
export const WEBHOOK_CHANNEL = 'parley_webhooks';

export interface SubscriptionRow {
  id: string;
  workspace_id: string;
  url: string;
  event_types: WebhookEventType[];
  format: WebhookFormat;
  status: SubscriptionStatus;
  consecutive_failures: number;
  disabled_reason: string | null;
  disabled_at: Date | null;
  created_by: string;
  created_at: Date;
  updated_at: Date;
}

export interface DeliveryAttempt {
  at: string;
  status_code: number | null;
  error: string | null;
  duration_ms: number;
}

export interface DeliveryRow {
  id: string;
  subscription_id: string;
  workspace_id: string;
  event_id: string;
  event_type: string;
  pending_id: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date;
  last_status_code: number | null;
  last_error: string | null;
  history: DeliveryAttempt[];
  created_at: Date;
  finished_at: Date | null;
  /** The keyset position (created_at at full precision). */
  position: string;
}
