/**
 * The SQL that writes question events. In bundle/, not events/: the writes of bundle/, claim/ and
 * lifecycle/ record their events in the very statement of the change, and events/ builds on bundle/
 * (its errors, the bundle channel), so the writer sits in the folder below both.
 */
import { outboxInsertSql } from '#webhooks';

/**
 * An event's position is `txid · 2^16 + n`: the id of the transaction that wrote it (pg_current_xact_id)
 * and its ordinal within that transaction. Every transaction whose id is below the snapshot's xmin has
 * finished, so the events below `xmin · 2^16` are settled — none can appear there any more — and a
 * reader that only ever reads below that horizon, in position order, never skips an event and never
 * reads one twice, with no lock on the write path. (2^16 events per transaction; xid8 below 2^47.)
 */
export const POSITION_SPAN = 65536;
const TXID = `pg_current_xact_id()::text::bigint`;

/**
 * Two data-modifying CTEs, `events` and `events_outbox`, for the WITH clause of a statement in the
 * transaction of the change the events report: `events` inserts the events `sourceSql` yields —
 * columns (type, pending_id, session_id, task_id, payload) — positioned after any event this
 * transaction already wrote, and returns them; `events_outbox` queues their outbound webhook
 * deliveries, so every event is offered to the subscriptions of its workspace by the very
 * statement that records it. PostgreSQL runs both whether or not the statement reads them. At most
 * once per statement (the names are fixed); on its own: `WITH <these CTEs> SELECT … FROM events`.
 */
export function insertEventsCtes(sourceSql: string): string {
  return `events AS (
    INSERT INTO question_events (id, type, pending_id, session_id, task_id, workspace_id, payload)
    SELECT position.base + source.n, source.type, source.pending_id, source.session_id, source.task_id,
           COALESCE((SELECT event_t.workspace_id FROM tasks event_t WHERE event_t.id = source.task_id), ''), source.payload
      FROM (SELECT row_number() OVER () AS n, raw.* FROM (${sourceSql}) raw) source,
           (SELECT COALESCE(MAX(mine.id), ${TXID} * ${POSITION_SPAN} - 1) AS base FROM question_events mine
             WHERE mine.id >= ${TXID} * ${POSITION_SPAN} AND mine.id < (${TXID} + 1) * ${POSITION_SPAN}) position
    RETURNING id, type, pending_id, session_id, task_id, workspace_id, payload, created_at),
  events_outbox AS (${outboxInsertSql('events')})`;
}
