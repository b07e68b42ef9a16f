import { QUESTION_EVENTS_OF, SubscriptionStatus, WEBHOOK_CHANNEL, WEBHOOK_EVENT_TYPES } from '../webhook.types.js';

/** The webhook event type of a question event row (NULL for those no subscription can ask for). */
function webhookEventTypeSql(questionEventType: string): string {
  const cases = WEBHOOK_EVENT_TYPES.flatMap((type) => QUESTION_EVENTS_OF[type].map((event) => `WHEN '${event}' THEN '${type}'`));
  return `(CASE ${questionEventType} ${cases.join(' ')} END)`;
}

/**
 * An INSERT of the outbox rows for the question events the CTE `eventsCte` returned (columns id,
 * type, pending_id, session_id, task_id, workspace_id, payload, created_at): one per event and active
 * subscription of its workspace that asked for its type. Meant as a data-modifying CTE beside the
 * events' own INSERT, so the deliveries commit exactly when the events do. Each row it inserts
 * NOTIFYs the dispatchers (one notification per transaction: PostgreSQL folds identical ones).
 */
export function outboxInsertSql(eventsCte: string): string {
  return `INSERT INTO webhook_deliveries (id, subscription_id, workspace_id, event_id, event_type, pending_id, session_id, task_id, payload, occurred_at)
    SELECT gen_random_uuid()::text, hook.id, outbox_e.workspace_id, outbox_e.id, outbox_e.type, outbox_e.pending_id,
           outbox_e.session_id, outbox_e.task_id, outbox_e.payload, outbox_e.created_at
      FROM ${eventsCte} outbox_e
      JOIN webhook_subscriptions hook ON hook.workspace_id = outbox_e.workspace_id AND hook.status = '${SubscriptionStatus.Active}'
     WHERE ${webhookEventTypeSql('outbox_e.type')} = ANY (hook.event_types)
    RETURNING id, pg_notify('${WEBHOOK_CHANNEL}', '')`;
}
